package main

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestSmallBenchmarks runs every problem at d = 4 through the command (robust, lsq and net
// with their data sets, lsq-stream on a stream) and requires issue 17's acceptance on each
// row: certified in both modes, within 5× the floor and 3× the exact mode's sample
// gradients, and the certified values within δ.
func TestSmallBenchmarks(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-problem", "robust,lsq,net,lsq-stream", "-d", "4"}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if got := strings.Count(out.String(), "| ok"); got != 4 {
		t.Errorf("%d rows ok, want 4:\n%s", got, out.String())
	}
	t.Log("\n" + out.String())
}

// TestBenchmarkRepeatable: one seed gives the same stochastic run twice, on a data set and
// on a stream (the ids come from Settings.Seed, the baselines from their own seed).
func TestBenchmarkRepeatable(t *testing.T) {
	for _, mk := range []func(int, uint64) *bench{newNet, newLSQStream} {
		var runs [2]*result
		for k := range runs {
			r, err := runBench(mk(4, 5), 5, nil)
			if err != nil {
				t.Fatal(err)
			}
			r.sto.Stats.Runtime, r.exact.Stats.Runtime = 0, 0
			runs[k] = r
		}
		a, b := runs[0], runs[1]
		if !reflect.DeepEqual(a.sto, b.sto) || a.sgd != b.sgd || a.adam != b.adam {
			t.Errorf("%s: two runs with seed 5 differ:\n%+v\n%+v", a.b.name, a.sto, b.sto)
		}
	}
}

// TestProjections checks the baselines' projections against their definitions: the box
// clip, and the box-and-budget projection's KKT conditions (w = clip(z − λ·1), λ ≥ 0, the
// budget tight when λ > 0).
func TestProjections(t *testing.T) {
	lo, hi := []float64{0, 0, 0}, []float64{2, 2, 2}
	w := []float64{3, -1, 1.5}
	projectBox(w, lo, hi)
	if w[0] != 2 || w[1] != 0 || w[2] != 1.5 {
		t.Errorf("projectBox = %v", w)
	}
	z := []float64{1.8, 1.2, 0.9}
	w = append([]float64(nil), z...)
	projectBoxBudget(w, lo, hi, 2.5)
	sum := w[0] + w[1] + w[2]
	lam := z[0] - w[0] // a coordinate strictly inside the box gives λ
	for j := range w {
		want := math.Min(hi[j], math.Max(lo[j], z[j]-lam))
		if math.Abs(w[j]-want) > 1e-9 {
			t.Errorf("w[%d] = %v, want clip(z − λ) = %v", j, w[j], want)
		}
	}
	if lam < 0 || math.Abs(sum-2.5) > 1e-9 {
		t.Errorf("λ = %v, Σw = %v: want λ ≥ 0 and the budget 2.5 tight", lam, sum)
	}
}
