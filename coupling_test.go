package houdini

import (
	"testing"
)

// countCouplingPrunes makes the directed cone bound (coupling.go) the walk's only root
// bound beside the examiner's, on walks and cones of any size, and counts the subtrees it
// pruned.
func (o *Optimizer) countCouplingPrunes(n *int) {
	o.test.couplingPruned, o.test.coneMinRows, o.test.couplingMinRows = n, 1, 1
	o.test.noCone, o.test.noCap, o.test.noEqRelax = true, true, true
}

// TestCouplingBoundBelowMinimum: the directed cone bound (coupling.go) is a lower bound on
// the model over the walk's set. As TestConeBoundBelowMinimum: seeded instances of every
// internal/bruteforce family and model (d ≤ 6, and d = 8 every fifth; x moved off its rows
// every other time), at the root of the walk at X (equalities held, no row forced), bars
// from far below to above the exhaustive minimum; whenever the bound answers, its value
// must not exceed that minimum beyond the brute force's tolerance band, and it must decide
// a share of the bars below it. The supergradient search runs on every cone (threshold 1).
// 400 instances, 100 under -short (a failing search costs up to couplingIters steps).
func TestCouplingBoundBelowMinimum(t *testing.T) {
	t.Parallel() // a long cross-check: run beside the other long ones (CI's 2 cores)
	n := 400
	if testing.Short() {
		n = 100
	}
	n3 := rootBoundSweep(t, n, 2027, nudgeOdd, nil, false,
		func(w *walk) func() float64 { return func() float64 { return w.couplingBound(1) } }, "directed cone bound")
	answered, below, total := n3.answered, n3.below, n3.total
	t.Logf("%d instances: the bound answered %d times, %d of %d bars below the minimum", n, answered, below, total)
	if below < total/20 {
		t.Errorf("the bound decides too rarely: %d of %d bars below the minimum", below, total)
	}
}

// TestCouplingPruningAgainstBruteForce: escapes with the directed cone bound as the only
// root bound (cone, cap and relaxed-equality bounds off; every walk's root, every cone
// size) against the full walk (no forcing, no pruning) and the exhaustive minimum, as
// TestConePruningAgainstBruteForce: every internal/bruteforce family (simplex, budget,
// balanced box, general rows, degenerate vertices), x moved off its rows every other
// time, KKT models a third of the time with gradients scaled by 1 to 4096, δ from 10⁻³ to
// 1 of the model's scale, and a translated and rescaled copy of each. The pruned walk
// must reach the full walk's best model decrease (no missed escape), certify only where
// the full walk does and where the exhaustive minimum is above −δ/2 (no false
// certificate), and the bound must prune in a share of them. 1000 instances, 250 under
// -short.
func TestCouplingPruningAgainstBruteForce(t *testing.T) {
	t.Parallel()
	n := 1000
	if testing.Short() {
		n = 250
	}
	var pruned int
	tried, certified := prunedSweep(t, n, 1415, pruneBase(allFamilies, 3, 2, 1), pruneCopy, func(o *Optimizer) { o.countCouplingPrunes(&pruned) })
	t.Logf("%d escapes compared, %d certified; %d subtrees pruned by the directed cone bound alone", tried, certified, pruned)
	if pruned < tried/20 {
		t.Errorf("the directed cone bound pruned too rarely: %d subtrees in %d escapes", pruned, tried)
	}
}
