package houdini

import (
	"context"
	"math"
)

// The full path's walk of a quadratic model at x, shared by HoudiniEscape with exact or
// plain stochastic oracles (escape.go) and with a Sampled oracle (stochescape.go), and the
// bound η on the rounding of the model values it decides with (modelRounding, escape.go).

// walkModel runs the subset walk of the full path at x on the model mod, recording
// candidates below keep: forced rows held, each subset examined by the eigenbasis
// examiner (the reference examiner on the test switch referenceEscape, or where no
// eigenbasis can be made), or, for a matrix-free model or a large dense one
// (krylovModel), by the Krylov examiner, which w.ex then holds: its bounds are
// probabilistic and its candidates may miss a face's minimizer, so the caller certifies
// by its first subset's bound instead of qmin (fullEscape). It returns the escape's result so far (no move, no
// certificate), the walk, and η, the bound on the rounding of the model values it
// computed (modelRounding, plus the equalities' eqErr and the forced rows' forcedErr).
// It does not stop early once it holds a move (walk.earlyStop; walkModelAt does).
func (rn *run) walkModel(ctx context.Context, x []float64, mod *quadModel, keep float64) (*EscapeResult, *walk, float64) {
	return rn.walkModelAt(ctx, x, mod, keep, rn.r, rn.s.MaxSubsets, math.Inf(-1))
}

// walkModelAt is walkModel on the ball of radius r with at most maxSubsets subsets (the
// certified radius's walks, escape.go's shrinkRadius), stopping early once a candidate's
// model value is at most early (walk.earlyStop; −Inf: never, and never with pruning off,
// the tests' reference walk).
func (rn *run) walkModelAt(ctx context.Context, x []float64, mod *quadModel, keep, r float64, maxSubsets int, early float64) (*EscapeResult, *walk, float64) {
	w := newWalk(ctx, rn.c, x, r, mod, rn.s, rn.test.noPrune)
	w.pool.keep = keep
	if !rn.test.noPrune && !rn.test.noEarlyStop {
		w.early, w.earlyBudget = early, earlyStopWork
		if rn.test.earlyBudget > 0 {
			w.earlyBudget = rn.test.earlyBudget
		}
	}
	w.maxSubsets = maxSubsets
	w.ordered = rn.test.walkOrder
	if !rn.test.noPrune {
		w.holdForcedRows()
		if rn.test.lagrangePruned != nil && mod.M != nil { // off by default, dense models: lagrange.go
			if lb := w.newLagrangeBound(w.lagrangeMultipliers()); lb != nil {
				w.lagr = lb.bound
			}
		}
	}
	if !rn.test.noPrune {
		minRows := coneMinRows
		if rn.test.coneMinRows > 0 {
			minRows = rn.test.coneMinRows
		}
		if !rn.test.noCone {
			w.cone = w.newConeBound(minRows) // cone.go: at the root, after the forced rows
		}
		if !rn.test.noBlock && rn.krylovModel(mod, len(x)) { // blockbound.go: the same, by blocks first
			w.cone = w.atRoot(minRows, withBlockBound(w.cone))
		}
		if !rn.test.noCap && mod.M != nil && !rn.krylovModel(mod, len(x)) { // dense models alone
			w.capb = w.atRoot(minRows, (*walk).capBound) // cap.go: the same, with the rows with slack
		}
		if !rn.test.noEqRelax && !rn.test.noCone && mod.M != nil && !rn.krylovModel(mod, len(x)) && len(rn.c.equalities()) == 1 {
			w.eqr = w.atRoot(minRows, (*walk).eqRelaxBound) // eqrelax.go: the same, the equality relaxed
		}
		if !rn.test.noCoupling && mod.M != nil && !rn.krylovModel(mod, len(x)) { // dense models alone
			cmin := couplingMinRows
			if rn.test.couplingMinRows > 0 {
				cmin = rn.test.couplingMinRows
			}
			w.coup = w.atRoot(minRows, func(w *walk) float64 { return w.couplingBound(cmin) }) // coupling.go: the cone bound, multipliers directed
		}
	}
	eta := modelRounding(len(x), norm(mod.v), mod.normF(), r) + w.eqErr + w.forcedErr
	ref := newReferenceExaminer(mod)
	w.ex = ref
	var eig *eigenExaminer
	var kry *krylovExaminer
	switch {
	case rn.krylovModel(mod, len(x)):
		kry = newKrylovExaminer(mod, rn.rng, rn.s.Delta, rn.test.krylovExact)
		kry.twoPass = rn.test.twoPass
		w.ex = kry
		if w.cone != nil {
			w.cone = kry.keepCone(w.cone)
		}
	case !rn.test.referenceEscape:
		if eig = newEigenExaminer(w, ref); eig != nil {
			eig.always = rn.test.eigenAlways
			w.ex = eig
		}
	}
	if rn.test.wrapExaminer != nil {
		w.ex = rn.test.wrapExaminer(w.ex)
	}
	w.enumerate(0)
	// A candidate off its face (walk.considerFace) leaves a face unexamined, except on the
	// Krylov examiner, which then certifies by the root's bound (modelCertifies).
	failed := ref.failed || (kry != nil && kry.failed) || (kry == nil && w.offFace > 0)
	if rn.test.lagrangePruned != nil {
		*rn.test.lagrangePruned += w.byLagrange
	}
	if rn.test.conePruned != nil {
		*rn.test.conePruned += w.byCone
	}
	if rn.test.capPruned != nil {
		*rn.test.capPruned += w.byCap
	}
	if rn.test.eqRelaxPruned != nil {
		*rn.test.eqRelaxPruned += w.byEqRelax
	}
	if rn.test.couplingPruned != nil {
		*rn.test.couplingPruned += w.byCoupling
	}
	res := &EscapeResult{
		X:                x,
		Examined:         w.examined,
		Pruned:           w.pruned,
		Forced:           w.forced,
		Walked:           len(w.near),
		Complete:         !w.stopped && !failed,
		Canceled:         w.canceled,
		NumericalFailure: failed,
		Radius:           r,
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

// precisionFactor multiplies (d + 2)·ε in modelRounding: the backward-error constant of
// the eigensolver and of the secular solves, with room to spare.
const precisionFactor = 16

// modelRounding returns η, a bound on the rounding error of the model values an escape
// compares with −δ/3 and −δ/2, for the model vᵀh + ½hᵀMh on ‖h‖ ≤ r with ‖v‖ = nv and
// ‖M‖_F = nM (the corner path passes √d·L for nM):
//
//	η = precisionFactor·(d + 2)·ε·(nv + nM·r)·r.
//
// Every value the walk computes is of this model at an offset h from x (walk.go), so η
// does not depend on x, on the rows or their offsets:
//   - a value computed by dot products of length ≤ d + 1 carries at most
//     γ_{d+1}(|v|ᵀ|h| + ½|h|ᵀ|M||h|) ≤ (d + 2)u·(nv + ½nM·r)·r (Cauchy–Schwarz, and
//     ‖|M|‖₂ ≤ ‖M‖_F), u = ε/2;
//   - a candidate computed from an eigendecomposition or a secular solve is the exact one
//     of v + Δv, M + ΔM with ‖Δv‖ ≤ c(d + 2)u·nv, ‖ΔM‖ ≤ c(d + 2)u·nM (backward
//     stability, c the solver's constant), and a perturbation of the model by Δv, ΔM
//     moves every value on the ball, the minimum over any set included, by at most
//     ‖Δv‖r + ½‖ΔM‖r²;
//   - an offset computed by projections carries a relative error of about (d + 2)u,
//     which moves q by at most ‖∇q‖·(d + 2)u·r ≤ (nv + nM·r)(d + 2)u·r.
//
// With precisionFactor ≥ 2 + c these add up to less than η. The other two sources of
// rounding are not values: the slacks at x, whose error slackBound bounds and the walk
// absorbs by relaxing each row by it (S_w ⊇ S − x), and the rounding of the point
// X = x + h, which walk.toPoint keeps inside the ball and checks against the documented
// tolerance, counting the candidates it loses.
//
// The equalities add eqErr (walk.equalityErr), 0 without them, and the forced rows
// forcedErr (walk.holdForcedRows), 0 when its proof's frame is x itself (no equalities,
// bounds x sits on) and no tolerance is charged (forcedTolCharge), to η. An escape uses η twice: it certifies only when the best value
// found exceeds −δ/2 + η (the minimum over S ∩ B(x, r) then exceeds −δ/2), and only when
// η < δ/6, so that a
// relaxed bound that prunes at −δ/3 (walk.enumerate) stays above −δ/2 and every value
// below −δ/2 is computed below −δ/3, where candidates are kept. When η ≥ δ/6 — a
// gradient or curvature about 10¹³/d times δ/r or δ/r² — the escape still moves where f
// confirms a decrease, but certifies nothing and otherwise reports NumericalFailure.
// Nothing here depends on ‖x‖/r: far from the origin, the escape finds the moves that the
// grid of floats near x can represent (toPoint) and reports a precision outcome where it
// cannot.
func modelRounding(d int, nv, nM, r float64) float64 {
	return precisionFactor * float64(d+2) * eps * (nv + nM*r) * r
}

// krylovModel reports whether the walk of mod at dimension d goes to the Krylov examiner:
// a matrix-free model; a dense one from krylovDenseDim on with exact oracles (a
// stochastic model's certificate is decided on qmin, which needs exact faces); every
// model on the test switch matrixFree.
func (rn *run) krylovModel(mod *quadModel, d int) bool {
	return mod.M == nil || rn.test.matrixFree ||
		(d >= krylovDenseDim && !rn.ev.stochasticGrad() && rn.ev.smp == nil)
}
