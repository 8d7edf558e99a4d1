package houdini

import (
	"context"
	"slices"
	"testing"
)

// offFaceExaminer is a lying examiner: it runs the walk's own examiner and then moves
// each candidate that examiner recorded off its face — by offBy·r along the unit normal
// of the last row held (âᵢ·h ≠ sᵢ), or out of the ball by the factor 1 + offBy at the root —
// and considers the moved one instead, keeping the examiner's exact bound: the shape of
// the matrix-free false certificate before faceStart (candidates off a face reported
// examined exactly, dropped as infeasible).
type offFaceExaminer struct {
	examiner
	offBy float64
}

func (e offFaceExaminer) examine(w *walk) float64 {
	saved := w.pool
	saved.best = slices.Clone(w.pool.best)
	lower := e.examiner.examine(w)
	recorded := w.pool.best
	w.pool = saved
	for _, c := range recorded {
		if slices.ContainsFunc(saved.best, func(o candidate) bool { return &o.h[0] == &c.h[0] }) {
			continue
		}
		h := slices.Clone(c.h)
		if t := len(w.rows); t > w.base {
			axpy(h, e.offBy*w.r, w.basisVec(t-1))
		} else {
			scale(h, 1+e.offBy)
		}
		w.considerFace(h, c.q, c.kase)
	}
	return lower
}

// TestWalkOffFaceCandidate: f(y) = −½‖y‖² on the box [0, 1]² at its corner 0, where every
// point of the quarter arc of radius r lowers f by ½r² > δ. The lying examiner moves every
// candidate 10⁻³·r off its face (out of the ball at the root); walk.consider drops each
// as infeasible (repairTol·r = 10⁻⁷·r), so without walk.considerFace's check the walk
// records no candidate, reports itself complete and certifies x = 0 — a false
// certificate (made deliberately wrong so, this test fails). With it the walk reports a
// numerical failure and certifies nothing; the honest examiner (control) finds the move.
func TestWalkOffFaceCandidate(t *testing.T) {
	c, err := NewBox([]float64{0, 0}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{
		Func: func(y []float64) float64 { return -0.5 * dot(y, y) },
		Grad: func(g, y []float64) {
			for j := range g {
				g[j] = -y[j]
			}
		},
	}
	r, delta := 0.5, 0.01
	for _, lie := range []bool{false, true} {
		for _, path := range []string{"eigenbasis", "reference", "matrix-free"} {
			ref := path == "reference"
			o, err := New(p, c, Settings{Delta: delta, Radius: r})
			if err != nil {
				t.Fatal(err)
			}
			o.test.noBoxCert = true
			o.test.referenceEscape = ref
			o.setMatrixFree(path == "matrix-free", 0)
			if lie {
				o.test.wrapExaminer = func(ex examiner) examiner { return offFaceExaminer{ex, 1e-3} }
			}
			e, err := o.Escape(context.Background(), []float64{0, 0})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("lying %v, %s: found %v, certified %v, numerical failure %v, examined %d",
				lie, path, e.Found, e.Certified, e.NumericalFailure, e.Examined)
			if e.Certified {
				t.Errorf("lying %v, %s: certified, but f drops by ½r² = %g > δ within r", lie, path, 0.5*r*r)
			}
			if !lie && !e.Found {
				t.Errorf("honest examiner, %s: no move found", path)
			}
		}
	}
}
