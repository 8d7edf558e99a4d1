package houdini

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The escape for a Sampled oracle: HoudiniEscape on models built from common samples in
// rounds of growing size, each certificate decided with the errors its model has.

// Constants of the sampled escape.
const (
	// roundGrowth multiplies the samples per group from one round to the next: the
	// error bounds halve (∝ 1/√n), and all rounds cost at most 4/3 of the last.
	roundGrowth = 4
	// firstRoundError·δ is the linear term's error bound errV·r that sizes the first
	// round; the paper's accuracy is GradAccuracy·δ (δ/6).
	firstRoundError = 0.5
	// certKeep·δ is the level below which the certificate's walk records candidates: a
	// walk with none proves the shifted model's minimum ≥ −certKeep·δ.
	certKeep = 1.0 / 12
	// taylorBudget·δ bounds the Taylor remainder |f(x+h) − f(x) − ∇fᵀh − ½hᵀ∇²f h| on
	// B(x, r), ρr³/6 ≤ δ/6 at r = (δ/ρ)^(1/3) (lem:stochastic-approximation); like the
	// exact path's, the certificate is about the model up to this term.
	taylorBudget = 1.0 / 6
)

// sampledEscape is HoudiniEscape (alg:escaping_general_full) at the feasible point x with
// a Sampled oracle, spending the samples the point needs and no more. Round k builds the
// model from n_k = 4^k·n₀ samples per group (sampledModelAt, failure probability
// FailProb/2^(k+1), so FailProb over all rounds), walks it for candidates, tries those
// that its error bounds say are real moves (sampledVerifyBest), and tries to certify x
// with the errors the model has (sampledCertify). Only when neither decides does it
// take the next round, until the model reaches the paper's accuracy (GradAccuracy,
// HessAccuracy) or comes from full passes over a finite data set; an escape undecided
// there reports no move and no certificate, as the full path's does (Minimize halves r).
// n₀ makes the first round's errV·r = firstRoundError·δ for the pooled per-sample σ̂.
func (rn *run) sampledEscape(ctx context.Context, x []float64) (*EscapeResult, error) {
	x = append([]float64(nil), x...)
	sigma, err := rn.ev.sigmaAt(x)
	if err != nil {
		return nil, err
	}
	n := max(1, int(math.Ceil(sq(momT*sigma*rn.r/(firstRoundError*rn.s.Delta)))))
	failProb := rn.s.Stochastic.FailProb
	for {
		failProb /= 2
		sm, err := sampledModelAt(x, rn.ev, rn.rng, rn.s, rn.r, n, failProb)
		if err != nil {
			return nil, err
		}
		rn.ev.stats.GradEstimates++
		res, w, eta := rn.walkModel(ctx, x, sm.mod, -rn.s.Delta/3)
		if !res.Complete {
			return res, nil
		}
		res.Active, res.KKTResidual = rn.c.activeSet(x, sm.mod.v, rn.s.FeasTol)
		final := sm.exact || rn.paperAccuracy(sm)
		if found, err := rn.sampledVerifyBest(res, w, sm, final); found || err != nil {
			return res, err
		}
		if rn.sampledCertify(ctx, res, w, eta, sm) || final || ctx.Err() != nil {
			if !res.Certified && (w.lost > 0 || !(eta < rn.s.Delta/6)) {
				res.NumericalFailure = true // as fullEscape: rounding decides
			}
			return res, nil
		}
		n *= roundGrowth
	}
}

func sq(v float64) float64 { return v * v }

// paperAccuracy reports whether sm's errors are within the paper's budgets,
// errV·r ≤ GradAccuracy·δ and ½·errM·r² ≤ HessAccuracy·δ (lem:stochastic-approximation):
// further rounds could not certify what this one cannot.
func (rn *run) paperAccuracy(sm *sampledModel) bool {
	st, d, r := &rn.s.Stochastic, rn.s.Delta, rn.r
	return sm.errV*r <= st.GradAccuracy*d && 0.5*sm.errM*r*r <= st.HessAccuracy*d
}

// sampledVerifyBest tests on f (sampledVerify, fresh samples: the model's own samples
// chose the candidates and would flatter them) the candidates of the walk, best first,
// whose decrease the model's error bounds guarantee, −q − errV·‖h‖ − ½errM·‖h‖² > δ/3,
// and, in a final round, every candidate, as verifyBest does; it fills res with the
// first that passes.
func (rn *run) sampledVerifyBest(res *EscapeResult, w *walk, sm *sampledModel, final bool) (bool, error) {
	need := rn.s.Delta / 3
	return res.tryCandidates(w, func(X, hh []float64, q float64) (float64, bool, error) {
		hn := norm(hh)
		if !final && -q-sm.errV*hn-0.5*sm.errM*hn*hn <= need {
			return 0, false, nil
		}
		return rn.ev.sampledVerify(res.X, X, need, -q)
	})
}

// sampledCertify certifies x (res.Certified, res.Confidence) when the model sm proves
// that no point of S ∩ B(x, r) is lower than f(x) − δ:
//
//	L − errV·r − η > −(1 − taylorBudget)·δ,   L − η ≤ min over S ∩ B(x, r) of vᵀh + ½hᵀ(M − errM·I)h,
//
// η the walk's bound on the rounding of the values it computed (modelRounding; the
// walk's qmin is within η of the minimum it stands for), and η < δ/6 as on the full path.
//
// Proof. For h ∈ S ∩ B(x, r), with ‖v − ∇f(x)‖ ≤ errV and ‖M − H‖₂ ≤ errM (H the
// Hessian the exact path's model would hold; H = ∇²f(x) up to the truncation the
// exact path also neglects),
//
//	f(x+h) − f(x) = ∇fᵀh + ½hᵀ∇²f h + φ(h) ≥ vᵀh − errV·‖h‖ + ½hᵀMh − ½errM·‖h‖² − |φ(h)|
//	             = vᵀh + ½hᵀ(M − errM·I)h − errV·‖h‖ − |φ(h)| ≥ L − η − errV·r − taylorBudget·δ > −δ.
//
// So x is a δ-SOSP (def:sosp) whenever the bounds hold: with probability
// 1 − Σ_k failProb_k ≥ 1 − FailProb over all rounds of the escape (a union bound: the
// round that certifies is random, but each round's bounds fail with at most its
// failProb), and with certainty when the model came from full passes (Confidence 1).
// The shifted model's walk (keep = −certKeep·δ) gives L: its lowest candidate, or
// −certKeep·δ when it records none (every candidate below keep is recorded, see walk). With
// errV = errM = 0 the walk w of the model itself gives L. This is the paper's criterion
// with the accuracy the point needs: at the paper's accuracy (errV·r ≤ δ/6,
// ½errM·r² ≤ δ/6) it certifies whenever the model's minimum is above −δ/2, as the exact
// path does, and away from degenerate curvature far coarser models suffice.
func (rn *run) sampledCertify(ctx context.Context, res *EscapeResult, w *walk, eta float64, sm *sampledModel) bool {
	delta := rn.s.Delta
	if !(eta < delta/6) {
		return false // rounding exceeds δ's resolution (modelRounding)
	}
	limit := -(1-taylorBudget)*delta + sm.errV*rn.r + eta
	L := math.Min(w.pool.qmin, w.pool.keep)
	if L <= limit {
		return false // shifting M down only lowers the minimum
	}
	if sm.errM > 0 {
		d := len(res.X)
		shifted := &quadModel{v: sm.mod.v, M: mat.NewSymDense(d, nil)}
		shifted.M.CopySym(sm.mod.M)
		for i := 0; i < d; i++ {
			shifted.M.SetSym(i, i, shifted.M.At(i, i)-sm.errM)
		}
		cres, cw, ceta := rn.walkModel(ctx, res.X, shifted, -certKeep*delta)
		if !cres.Complete || !(ceta < delta/6) {
			return false
		}
		L = math.Min(cw.pool.qmin, cw.pool.keep)
		limit += ceta - eta
	}
	if L <= limit {
		return false
	}
	res.Certified = true
	res.Confidence = 1 - rn.s.Stochastic.FailProb
	if sm.exact {
		res.Confidence = 1
	}
	return true
}
