package houdini

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The full path's walk of a quadratic model at x, shared by HoudiniEscape with exact or
// plain stochastic oracles (escape.go) and with a Sampled oracle (stochescape.go), and the
// bound η on the rounding of the model values it decides with (modelRounding, escape.go).

// walkModel runs the subset walk of the full path at x on the model mod, recording
// candidates below keep: forced rows held, each subset examined by the eigenbasis
// examiner (the reference examiner on the test switch referenceEscape, or where no
// eigenbasis can be made). It returns the escape's result so far (no move, no
// certificate), the walk, and η, the bound on the rounding of the model values it
// computed (modelRounding, plus the equalities' eqErr and the forced rows' forcedErr).
func (rn *run) walkModel(ctx context.Context, x []float64, mod *quadModel, keep float64) (*EscapeResult, *walk, float64) {
	w := newWalk(ctx, rn.c, x, rn.r, mod, rn.s, rn.test.noPrune)
	w.pool.keep = keep
	if !rn.test.noPrune {
		w.holdForcedRows()
	}
	eta := modelRounding(len(x), norm(mod.v), mat.Norm(mod.M, 2), rn.r) + w.eqErr + w.forcedErr
	ref := newReferenceExaminer(mod)
	w.ex = ref
	var eig *eigenExaminer
	if !rn.test.referenceEscape {
		if eig = newEigenExaminer(w, ref); eig != nil {
			w.ex = eig
		}
	}
	w.enumerate(0)
	res := &EscapeResult{
		X:                x,
		Examined:         w.examined,
		Pruned:           w.pruned,
		Complete:         !w.stopped && !ref.failed,
		Canceled:         w.canceled,
		NumericalFailure: ref.failed,
		Radius:           rn.r,
		Method:           MethodFull,
		ModelDecrease:    math.Max(0, -w.pool.qmin),
	}
	if eig != nil {
		res.Fallbacks = eig.fallbacks
	}
	return res, w, eta
}

// tryCandidates makes res the move to the first of the walk's best candidates, in order,
// whose point X = x + hh (walk.toPoint) test accepts, given the model value q at hh (test
// reports the decrease it measured); found reports one. A candidate whose point cannot be
// formed, or whose model value at the point formed is no longer below keep and which test
// rejects, counts as lost to rounding (walk.lost).
func (res *EscapeResult) tryCandidates(w *walk, test func(X, hh []float64, q float64) (dec float64, ok bool, err error)) (found bool, err error) {
	for _, c := range w.pool.best {
		X, hh, ok := w.toPoint(c.h)
		if !ok {
			continue
		}
		q := w.mod.value(hh)
		dec, ok, err := test(X, hh, q)
		if err != nil {
			return false, err
		}
		if ok {
			res.Found = true
			res.X = X
			res.Decrease = dec
			res.ModelDecrease = -q
			res.Case = c.kase
			res.Subset = c.subset
			return true, nil
		}
		if !(q < w.pool.keep) {
			w.lost++
		}
	}
	return false, nil
}
