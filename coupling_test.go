package houdini

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
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

// TestCouplingDirectBelowMinimum: the directed cone bound with its directions in closed
// form alone (couplingDirect, no search: directedBound(1, false), as eqrelax.go calls it)
// is a lower bound on the model over the walk's set, against the exhaustive minimum, as
// TestCouplingBoundBelowMinimum: seeded instances of every internal/bruteforce family
// (simplex, budget, balanced box, general rows, degenerate vertices) and model (KKT
// points with positive multipliers, zero gradients, the hard case), d ≤ 6 and d = 8 every
// fifth, x moved off its rows every other time, bars from far below to above the
// minimum. It must decide a share of the bars below the minimum; those it decides where
// cone.go's shares do not are counted (1 of 3600 here: at d ≤ 8 the rows are few, and the
// end points of examples/families are where it decides beyond them). 600 instances, 200
// under -short.
func TestCouplingDirectBelowMinimum(t *testing.T) {
	t.Parallel()
	n := 600
	if testing.Short() {
		n = 200
	}
	var direct, cone barCounts
	beyond := 0 // bars below the minimum decided by the closed form and not by cone.go
	for i := range n {
		rng := rand.New(rand.NewPCG(2031, uint64(i)))
		spec := bruteforce.Spec{Family: bruteforce.Family(i % int(bruteforce.NumFamilies)),
			Model: bruteforce.Model(i / int(bruteforce.NumFamilies) % int(bruteforce.NumModels))}
		if i%5 == 4 {
			spec.Dim = 8
		}
		in := bruteforce.Generate(rng, spec)
		if i%2 == 1 {
			nudge(rng, in)
		}
		w, p := coneWalk(t, in)
		if w.stopped {
			continue
		}
		truth := bruteforce.Min(p)
		if !truth.Feasible {
			continue
		}
		scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3
		what := fmt.Sprintf("instance %d (%s): closed-form directed cone bound", i, in.Name)
		barSweep(t, w, func() float64 { return w.directedBound(1, false) }, truth.Value, scale, 1e-9*scale, &direct, what)
		barSweep(t, w, w.coneBound, truth.Value, scale, 1e-9*scale, &cone, what+" (cone.go)")
		for _, f := range barFractions {
			if f >= 0 {
				continue
			}
			w.pool.keep, w.pool.qmin = truth.Value+f*scale, math.Inf(1)
			if math.IsInf(w.coneBound(), -1) && !math.IsInf(w.directedBound(1, false), -1) {
				beyond++
			}
		}
	}
	t.Logf("%d instances: closed form %d of %d bars below the minimum (cone.go %d), %d beyond cone.go",
		n, direct.below, direct.total, cone.below, beyond)
	if direct.below < direct.total/20 {
		t.Errorf("the closed form decides too rarely: %d of %d bars", direct.below, direct.total)
	}
}
