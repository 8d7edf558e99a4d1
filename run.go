package houdini

import "math/rand/v2"

// run is the state of one Escape or Minimize call: everything the call changes. The
// Optimizer that made it lends its problem and validated settings, read-only.
type run struct {
	p    Problem
	c    *Constraints
	s    *Settings // the Optimizer's, never modified
	r    float64   // the radius of the next escape: Settings.Radius, halved by Minimize on a model mismatch
	ev   *evaluator
	rng  *rand.Rand
	test testOptions
}

// testOptions are switches that only the tests set (export_test.go), to compare the
// escape against simpler references.
type testOptions struct {
	// noPrune turns off the two pruning rules of the subset walk (holdForcedRows and the
	// relaxed bound in walk).
	noPrune bool
	// referenceEscape examines every subset by its own EigenSym (findInside) instead of
	// from M's eigenbasis (examineEigen).
	referenceEscape bool
}
