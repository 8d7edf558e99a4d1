package houdini

import "context"

// Hooks for the package's own tests: switches and views that are not part of the API.

// method resolves MethodAuto for a point of dimension d, as Escape does.
func (o *Optimizer) method(d int) Method { return o.s.methodFor(o.p.Hess != nil, d) }

// setNoPrune turns off the two pruning rules of the subset walk (forced rows and the
// relaxed bound), so that the tests can compare verdicts against the full walk.
func (o *Optimizer) setNoPrune(on bool) { o.test.noPrune = on }

// setReferenceEscape makes the walk examine every subset by its own EigenSym (the dense
// FindInside backend) instead of from M's eigenbasis.
func (o *Optimizer) setReferenceEscape(on bool) { o.test.referenceEscape = on }

// forcedRows returns the number of rows the walk at x holds as forced (holdForcedRows),
// for the exact model at x (Seed 0).
func (o *Optimizer) forcedRows(x []float64) int {
	rn := o.newRun(context.Background(), 0)
	mod, _ := buildModel(x, rn.ev, newRand(0), &o.s, rn.r)
	w := newWalk(context.Background(), o.c, x, rn.r, mod, &o.s, false)
	w.holdForcedRows()
	return w.forced
}
