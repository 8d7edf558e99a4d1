package main

import (
	"context"
	"os"
	"testing"
)

func TestDbg(t *testing.T) {
	fams, _ := selectFamilies(os.Getenv("FAM"))
	for _, in := range fams[0].generate(1) {
		if in.Name != os.Getenv("INST") {
			continue
		}
		o, err := Run(context.Background(), in, fams[0], in.Starts[0], Config{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %v walked %d forced %d ex %d", o.Status, o.End.Certified, o.End.Walked, o.End.Forced, o.End.Examined)
	}
}
