package houdini

import (
	"context"
	"errors"
	"math"
	"slices"
)

// The escapes: HoudiniEscape (alg:escaping_general_full, the full path) and HoudiniCorner
// (alg:matrix_copositivity, the corner path), each a subset walk (walk.go) with its
// examiners, run on one call's state.

// method resolves MethodAuto for a point of dimension d.
func (rn *run) method(d int) Method {
	return rn.s.methodFor(rn.p.Hess != nil || rn.p.HessVec != nil, d)
}

// escape runs one escape at the feasible point x by the method Settings.Method resolves
// to (see Optimizer.Escape), and fills in the oracle calls it made. An escape the context
// or the gradient budget stops inside an oracle call returns no error but a result with
// Canceled or EvalLimit set, no move and no certificate.
func (rn *run) escape(ctx context.Context, x []float64) (res *EscapeResult, err error) {
	ev := rn.ev
	before := *ev.stats
	method := rn.method(len(x))
	switch {
	case ev.smp != nil:
		res, err = rn.sampledEscape(ctx, x)
	case method == MethodCorner:
		res, err = rn.cornerEscape(ctx, x)
	default:
		res, err = rn.fullEscape(ctx, x)
	}
	if canceled := errors.Is(err, errCanceled); canceled || errors.Is(err, errGradBudget) {
		if res == nil {
			res = &EscapeResult{X: slices.Clone(x), Radius: rn.r, Method: method}
		}
		res.Found, res.Certified, res.Confidence = false, false, 0
		res.Canceled, res.EvalLimit = canceled, !canceled
		err = nil
	}
	if res != nil {
		res.GradEvals = ev.stats.GradEvals - before.GradEvals
		res.HessEvals = ev.stats.HessEvals - before.HessEvals
		res.FuncEvals = ev.stats.FuncEvals - before.FuncEvals
		res.Rejected = ev.stats.Rejected - before.Rejected
	}
	return res, err
}

// fullEscape is HoudiniEscape (alg:escaping_general_full) at the feasible point x: the
// quadratic model (quadapprox.go), the walk over the subsets of the rows near x with the
// forced rows held (walk.go), FindInside in each subset by the eigenbasis examiner (the
// reference examiner on the test switch referenceEscape, or where no eigenbasis can be
// made), and up to maxVerify decrease checks of the best candidates on f.
func (rn *run) fullEscape(ctx context.Context, x []float64) (*EscapeResult, error) {
	x = append([]float64(nil), x...)
	freeDim := MatrixFreeDim
	if rn.test.matrixFree {
		freeDim = 0
	}
	if res, err := rn.faceCertificate(x); res != nil || err != nil {
		return res, err // facecert.go: no model needed
	}
	mod, err := buildModel(x, rn.ev, rn.rng, rn.s, rn.r, freeDim, rn.modelBandMax(len(x)))
	if err != nil {
		return nil, err
	}
	rn.model = mod // the deeper search's default asks it whether f is nonconvex at x
	if res := rn.boxCertificate(x, mod); res != nil {
		return res, nil // boxcert.go: no walk needed
	}
	mod.densify() // the walk reads M's entries
	if mod.M == nil {
		rn.operatorNorm(mod, len(x))
	}
	// The walk stops early once it holds a candidate at or below −δ/2 (walk.earlyStop).
	res, w, eta := rn.walkModelAt(ctx, x, mod, -rn.s.Delta/3, rn.r, rn.s.MaxSubsets, -rn.s.Delta/2)
	if mod.err != nil {
		return nil, mod.err
	}
	res.Active, res.KKTResidual = rn.c.activeSet(x, mod.v, rn.s.FeasTol)
	if found, err := rn.verifyBest(res, w); found || err != nil {
		return res, err
	}
	if mod.err != nil {
		return nil, mod.err
	}
	if w.earlyStopped { // f rejected its candidates: the complete walk decides
		early := *res
		res, w, eta = rn.walkModel(ctx, x, mod, -rn.s.Delta/3)
		res.Examined, res.Pruned = res.Examined+early.Examined, res.Pruned+early.Pruned
		res.Active, res.KKTResidual = early.Active, early.KKTResidual
		if found, err := rn.verifyBest(res, w); found || err != nil {
			return res, err
		}
		if mod.err != nil {
			return nil, mod.err
		}
	}
	// Past η ≥ δ/6 the walk still looks for moves (f checks them), but cannot certify.
	decidable := eta < rn.s.Delta/6
	// qmin is within η (eqErr and forcedErr included) of the model's minimum over
	// (S − x) ∩ B(0, r) (walk.go); with the Krylov backend only the first subset's bound
	// is (krylovExaminer), with probability 1 − kry.fail.
	cert, walkFail, modelFail := rn.modelCertifies(w, eta)
	res.Certified = res.Complete && decidable && cert
	res.Confidence = rn.confidenceOf(walkFail, modelFail)
	switch {
	case res.Certified:
		res.CertifiedRadius = rn.r
	case w.lost > 0 || !decidable:
		res.Confidence = 0
		res.NumericalFailure = true // rounding decides: of x + h (lost), or of the values (η)
	default:
		res.Confidence = 0
		if w.stopped && !w.canceled && !res.NumericalFailure {
			return res, rn.shrinkRadius(ctx, res, mod)
		}
	}
	return res, nil
}

// modelCertifies reports whether the walk w, complete, proves that the model admits no
// decrease of δ/2 over S ∩ B(x, r): qmin > −δ/2 + η when every face was examined exactly;
// with the Krylov examiner's inexact faces, the first subset's bound or the cone bound at
// the root, whichever is larger (krylovExaminer.certLower), which fails with probability
// at most walkFail (the walk's own Lanczos runs, each from a fresh random start); a face
// whose candidate left it (walk.considerFace) counts as inexact.
//
// A matrix-free model's η and error terms rest on spectrumBounds' bound on ‖M‖₂ (operatorNorm),
// which fails with probability krylovFailProb unless its Lanczos run was exact: that
// event (the same one forcedCostsCoords' shortcut rests on) is the model's, modelFail,
// charged once however many walks use the model; the block bound's residual
// (blockbound.go) is a run of the walk's own, in walkFail.
func (rn *run) modelCertifies(w *walk, eta float64) (ok bool, walkFail, modelFail float64) {
	modelFail = w.normFail
	if w.mod.M == nil && !w.mod.nrm2Exact {
		modelFail = krylovFailProb
	}
	kry, isKry := w.ex.(*krylovExaminer)
	if isKry && (kry.inexact || w.offFace > 0) {
		return kry.certLower() > -rn.s.Delta/2+eta, kry.fail + w.blockFail, modelFail
	}
	if w.offFace > 0 { // a face left unexamined: qmin proves nothing
		return false, w.blockFail, modelFail
	}
	return w.pool.qmin > -rn.s.Delta/2+eta, w.blockFail, modelFail
}

// confidenceOf returns the probability that a certificate holds whose walks' Lanczos
// bounds fail with probability at most walkFail in all and whose model's with modelFail:
// 1 − walkFail − modelFail, less Stochastic.FailProb for a model built from stochastic
// estimates (buildStochasticModel), by the union bound.
func (rn *run) confidenceOf(walkFail, modelFail float64) float64 {
	c := 1 - walkFail - modelFail
	if rn.ev.stochasticGrad() {
		c -= rn.s.Stochastic.FailProb
	}
	return c
}

// Certified radius (issue 14 item 4): the radii tried below r when the walk stops at
// MaxSubsets are r/2ᵏ, k = maxRadiusHalvings … 1, and they share MaxSubsets/radiusBudgetDiv
// subsets (at least one per radius).
const (
	maxRadiusHalvings = 6
	radiusBudgetDiv   = 8
)

// shrinkRadius runs, after a walk that MaxSubsets cut short at r, walks at
// r′ = r/2ᵏ for k = maxRadiusHalvings down to 1, smallest first, out of one pool of
// max(maxRadiusHalvings, MaxSubsets/radiusBudgetDiv) subsets, so that an escape examines
// at most MaxSubsets plus that pool, whatever the rows: a count, not a clock, so the same
// seed gives the same result. A complete walk at r′ whose best value certifies
// (modelCertifies, by the argument of fullEscape at radius r′) sets res.CertifiedRadius =
// r′: the model admits no decrease of δ/2 over S ∩ B(x, r′). Certificates are monotone in
// the radius (B(x, r″) ⊂ B(x, r′) for r″ < r′), so the walks go up from the smallest
// radius and stop at the first that does not certify — it found a value below the
// threshold, which every larger ball contains too, or it ran out of the pool — leaving
// the largest r′ reached. A smaller r′ leaves fewer rows near x and forces more of them
// (holdForcedRows's ρ shrinks with r′), so these walks are cheap where r′ is small. When
// a walk's best candidates lower f by more than δ/3 (verifyBest), that move within
// r′ ≤ r is reported as Found instead. res.Vacuous reports that at r′ the model cannot
// decrease by δ/2 at all, whatever the rows: ‖v‖r′ + ½‖M‖_F r′² ≤ δ/2.
//
// Confidence. The radius reported is chosen by looking at the walks' verdicts, so the
// certificate at r′ fails only if one of the walks that certified (at r/64 … r′) did: by
// the union bound its failure probability is at most the sum of their walkFail (each
// walk's Lanczos runs start afresh) plus the model's modelFail and stochastic failure,
// charged once (every walk uses the same model). res.Confidence is 1 minus that (0 when no
// radius certifies or a move is found).
func (rn *run) shrinkRadius(ctx context.Context, res *EscapeResult, mod *quadModel) error {
	pool := max(maxRadiusHalvings, rn.s.MaxSubsets/radiusBudgetDiv)
	walkFails, modelFail := 0.0, 0.0
	for k := maxRadiusHalvings; k >= 1 && pool > 0; k-- {
		r := math.Ldexp(rn.r, -k)
		wr, w, eta := rn.walkModelAt(ctx, res.X, mod, -rn.s.Delta/3, r, pool, -rn.s.Delta/2)
		pool -= w.examined
		res.Examined += w.examined
		res.Pruned += w.pruned
		if wr.Canceled || wr.NumericalFailure || w.lost > 0 || !(eta < rn.s.Delta/6) {
			return nil
		}
		if found, err := rn.verifyBest(res, w); found || err != nil {
			res.CertifiedRadius, res.Vacuous, res.Confidence = 0, false, 0
			return err
		}
		cert, walkFail, mf := rn.modelCertifies(w, eta)
		if w.stopped || !cert {
			return nil
		}
		walkFails, modelFail = walkFails+walkFail, math.Max(modelFail, mf)
		res.CertifiedRadius, res.Confidence = r, rn.confidenceOf(walkFails, modelFail)
		res.Vacuous = norm(mod.v)*r+0.5*mod.normF()*r*r <= rn.s.Delta/2
	}
	return nil
}

// operatorNorm sets, for a matrix-free model, spectrumBounds' bounds L₁ ≤ λ₁(M) and
// ‖M‖₂ ≤ max(−L₁, Λ) (at most spectrumMaxSteps products), and the bound on ‖M‖_F that η
// and the walk's error terms use, √d times the latter.
func (rn *run) operatorNorm(mod *quadModel, d int) {
	z := make([]float64, d)
	for j := range z {
		z[j] = rn.rng.NormFloat64()
	}
	op := faceOp{mul: mod.mul, proj: func([]float64) {}, m: d, err: func() error { return mod.err }}
	lo, hi, exact := spectrumBounds(op, z, spectrumMaxSteps, rn.rng)
	mod.nrm2, mod.lam1, mod.nrm2Exact = math.Max(-lo, hi), lo, exact
	mod.nrm = math.Sqrt(float64(d)) * mod.nrm2
}

// verifyBest measures the decrease of the walk's best candidates, best first, at their
// points x + h (walk.toPoint), and fills res with the first whose decrease exceeds δ/3
// (verify); found reports one. A candidate whose point cannot be formed, or whose model
// value at the point formed is no longer below −δ/3 and whose decrease fails, counts as
// lost to rounding (walk.lost).
func (rn *run) verifyBest(res *EscapeResult, w *walk) (found bool, err error) {
	if len(w.pool.best) == 0 {
		return false, nil
	}
	base, err := rn.ev.startDecrease(res.X)
	if err != nil {
		return false, err
	}
	return res.tryCandidates(w, func(X, _ []float64, _ float64) (float64, bool, error) {
		return rn.ev.verify(base, X, rn.s.Delta/3)
	})
}

// cornerEscape is HoudiniCorner (alg:matrix_copositivity) at the feasible point x: it
// walks the subsets I of the rows within r of x with the pruning of the full path
// (walk.go), runs FindInsideCorner in each affine set 𝒜_I and returns the first
// candidate X ∈ S ∩ B(x, r) with f(X) < f(x) − δ/2, the algorithm's test.
//
// Guarantee (thm:copositive_case): when f is quadratic with λmax ≤ L, ∇f(x) = 0 and every
// row within r passes through x (x is a corner), and x is a (δ, r)-QCSP, some subset — a
// maximal one whose affine set holds a decrease of δ — yields by lem:approx_eigenvector
// and lemma:copositivity_approx_eigen a point ±r·x̂ in S with f < −(1 − ε)δ, with
// probability 1 − ξ per subset. Outside these conditions the path is a heuristic:
//   - Rows within r that miss x: the iteration runs around the projection p of x on 𝒜_I
//     on the ball of radius r′ = √(r² − ‖p − x‖²), but S is then no cone at p, and neither
//     of ±x̂ need be feasible (lemma:copositivity_approx_eigen needs a cone).
//   - ∇f(x) ≠ 0: the projected gradient step p − r′·P∇f(p)/‖P∇f(p)‖ and p itself are
//     tried besides ±x̂, but a minimizer that trades gradient against curvature (the
//     full path's secular roots) is not searched.
//   - Non-quadratic f: the iteration is the power method on gradient differences at
//     scale r′, and every move is still checked on f.
//
// So a move it returns is always genuine (feasible, measured decrease > δ/2). A failure to
// find one certifies x (EscapeResult.Certified, Confidence = 1 − ξ, ξ = Corner.FailProb)
// only when the theorem's conditions that can be checked hold: the walk was complete,
// every row within r passes through x, ∇f(x) = 0 (cornerGradTol), L is the user's bound
// Settings.Corner.L (an estimate could be low) and T is the theorem's (Corner.Iters
// unset). The theorem needs FindInsideCorner to succeed on one subset only — a maximal one holding a
// decrease of δ — so ξ per subset is ξ overall. That f is quadratic on B(x, r) (or within
// the model error of def:sosp's radius) is the caller's assumption, as for the full path's
// model.
//
// Cost: 1 + lipIters gradient calls (none for L when Settings.Corner.L is set), then per examined
// subset of t rows at most T + 3 gradient calls with
//
//	T = ⌈(L r′²/(2εδ))·ln(√(d − t)/ξ)⌉   (lem:approx_eigenvector, ε = 1/4, ξ = 10⁻³)
//
// or Settings.Corner.Iters, O(d·(t + |close rows|)) arithmetic per step, and at most
// maxVerify decrease checks of 1 Func or 3 Grad calls. Memory O(d·k): no d×d matrix.
func (rn *run) cornerEscape(ctx context.Context, x []float64) (*EscapeResult, error) {
	ev := rn.ev
	x = append([]float64(nil), x...)
	g0 := make([]float64, len(x))
	if err := ev.grad(g0, x); err != nil {
		return nil, err
	}
	L, err := lipschitz(x, g0, ev, rn.rng, rn.s, rn.r)
	if err != nil {
		return nil, err
	}
	eta := modelRounding(len(x), norm(g0), math.Sqrt(float64(len(x)))*L, rn.r)
	decidable := eta < rn.s.Delta/6
	base, err := ev.startDecrease(x)
	if err != nil {
		return nil, err
	}
	w := newWalk(ctx, rn.c, x, rn.r, nil, rn.s, rn.test.noPrune)
	ce := newCornerExaminer(w, ev, rn.rng, rn.s, base, g0, L)
	w.ex = ce
	w.enumerate(0)
	if ce.err != nil {
		return nil, ce.err
	}
	res := &EscapeResult{
		X:        x,
		Examined: w.examined,
		Pruned:   w.pruned,
		Walked:   len(w.near),
		Complete: !w.stopped,
		Canceled: w.canceled,
		Radius:   rn.r,
		Method:   MethodCorner,
		L:        L,
		Iters:    ce.iters,
	}
	res.Active, res.KKTResidual = rn.c.activeSet(x, g0, rn.s.FeasTol)
	if !ce.found && res.Complete && decidable && cornerCertifiable(w, g0, rn.s) {
		res.Certified = true
		res.Confidence = 1 - rn.s.Corner.FailProb
	} else if !ce.found && (w.lost > 0 || !decidable) {
		res.NumericalFailure = true
	}
	if ce.found {
		res.Found = true
		res.Complete = false
		res.X = ce.bestX
		res.Decrease = ce.bestDec
		res.ModelDecrease = -ce.best.q
		res.Case = ce.best.kase
		res.Subset = ce.best.subset
	}
	return res, nil
}
