package houdini_test

import (
	"testing"

	"github.com/houdini-opt/houdini"
)

// A Result (or Status) that no run filled in claims nothing: its status is "not run",
// early, and its confidence 0.
func TestZeroResultNotCertified(t *testing.T) {
	var res houdini.Result
	if res.Status == houdini.StatusCertified || !res.Status.Early() {
		t.Errorf("zero Result has status %v (early %v), want an early, uncertified status", res.Status, res.Status.Early())
	}
	if res.Status != houdini.StatusNotRun || res.Status.String() != "not run" {
		t.Errorf("zero Status is %v (%d), want StatusNotRun, \"not run\"", res.Status, int(res.Status))
	}
	if res.Confidence != 0 {
		t.Errorf("zero Result has confidence %v", res.Confidence)
	}
	var e houdini.EscapeResult
	if e.Certified || e.Found {
		t.Errorf("zero EscapeResult claims certified %v, found %v", e.Certified, e.Found)
	}
}
