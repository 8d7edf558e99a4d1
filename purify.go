package houdini

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Guards of purification (Settings.Purify).
const (
	// purifySlack: a purification move is accepted when f rises by at most
	// purifySlack·δ, the allowance for rounding along a direction where f is exactly flat
	// (f(x′) − f(x) computed as a difference of two large sums).
	purifySlack = 1e-6
	// purifyModelTol: a direction is tried on f only when the model promises a change of
	// at most purifyModelTol·δ up to the wall. The filter saves oracle calls; f decides.
	purifyModelTol = 1e-2
)

// purify looks for a move from x, the point of a certificate, that makes another row
// active without raising f: a purification step in the sense of linear and quadratic
// programming (a solution moved to a face of lower dimension at no cost).
//
// Let W be the rows active at x, Z an orthonormal basis of the directions that keep them
// active (coordinates not fixed by W, orthogonal to W's general rows: the null space of
// their restriction, by gonum's SVD), g = ∇f(x) and H_Z = Zᵀ∇²f(x)Z (from Problem.Hess,
// else m gradient differences along Z's columns). For each eigenpair (λ, u) of H_Z in
// ascending λ, and both signs s = ±Zu (the one with g·s ≤ 0 first), the ratio test gives
// the step α to the first row outside W; s cannot be dependent on W, so that row is new
// and the face's dimension drops by at least one. The move x′ = x + αs is tried when the
// model change α g·s + ½α²λ is at most purifyModelTol·δ, and accepted when f(x′) ≤
// f(x) + purifySlack·δ, measured.
//
// Where f is multilinear, as the max-cut relaxation ½xᵀAx with zero diagonal on a box,
// a certified point's free coordinates carry zero gradient and zero curvature, and
// repeated purification ends at a vertex. purify returns the new point, whether it moved,
// and f(x) − f(x′) (≥ −purifySlack·δ). It needs exact oracles; Minimize calls it only
// then.
func (rn *run) purify(ctx context.Context, x []float64) ([]float64, bool, float64, error) {
	if rn.c == nil || ctx.Err() != nil {
		return nil, false, 0, nil // no wall to reach
	}
	ev := rn.ev
	d := len(x)
	ws := rn.c.workingSet(x, rn.s.FeasTol, nil)
	Z := freeBasis(ws, d)
	if Z == nil {
		return nil, false, 0, nil // x is a vertex
	}
	_, m := Z.Dims()
	g := make([]float64, d)
	if err := ev.grad(g, x); err != nil {
		return nil, false, 0, err
	}
	HZ, err := faceHessian(Z, x, g, ev, rn.s, rn.r)
	if err != nil {
		return nil, false, 0, err
	}
	var U, s mat.Dense
	lam, ok := symEigenCtx(ctx, HZ, &U) // ascending
	if !ok {
		return nil, false, 0, nil // no decision (or canceled), no move: the certificate stands
	}
	base, err := ev.startDecrease(x)
	if err != nil {
		return nil, false, 0, err
	}
	for k := 0; k < m; k++ {
		s.Mul(Z, U.Slice(0, m, k, k+1))
		dir := mat.Col(nil, 0, &s)
		if dot(g, dir) > 0 {
			for j := range dir {
				dir[j] = -dir[j]
			}
		}
		for sign := 0; sign < 2; sign++ {
			if sign == 1 {
				for j := range dir {
					dir[j] = -dir[j]
				}
			}
			xn, dec, ok, err := rn.toWall(x, g, dir, lam[k], base, ws)
			if ok || err != nil {
				return xn, ok, dec, err
			}
		}
	}
	return nil, false, 0, nil
}

// toWall tries the move from x along dir (curvature lam on the face) to the first row
// outside the working set: it returns the point and its decrease when the model's change
// there is at most purifyModelTol·δ and f rises by at most purifySlack·δ, measured.
func (rn *run) toWall(x, g, dir []float64, lam float64, base decreaseBase, ws *workingSet) ([]float64, float64, bool, error) {
	alpha := rn.c.ratioTest(x, dir, ws.in)
	if math.IsInf(alpha, 1) || !(alpha > 0) {
		return nil, 0, false, nil // no wall this way
	}
	if alpha*dot(g, dir)+0.5*alpha*alpha*lam > purifyModelTol*rn.s.Delta {
		return nil, 0, false, nil
	}
	xn := make([]float64, len(x))
	for j := range xn {
		xn[j] = x[j] + alpha*dir[j]
	}
	if xn = rn.c.snap(xn, rn.s.FeasTol, ws.in); xn == nil {
		return nil, 0, false, nil
	}
	dec, err := rn.ev.decrease(base, xn)
	var nf *NonFiniteError
	if errors.As(err, &nf) {
		return nil, 0, false, nil // f overflows at the wall: not a move
	}
	if err != nil {
		return nil, 0, false, err
	}
	if dec >= -purifySlack*rn.s.Delta {
		return xn, dec, true, nil
	}
	return nil, 0, false, nil
}
