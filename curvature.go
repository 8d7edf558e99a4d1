package houdini

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Constants of the negative-curvature step of the descent phase.
const (
	// lanczosSteps bounds the Lanczos steps of one curvature check: each costs one
	// gradient call (none with Problem.Hess, which is called once).
	lanczosSteps = 10
	// curvatureShrinks bounds the quarterings of the first trial step r when f does not
	// fall there (third-order terms), and maxExpand the doublings while it falls.
	curvatureShrinks = 3
	maxExpand        = 60
	// ritzSettled: after at least ritzMinSteps steps, a positive smallest Ritz value whose
	// residual is below ritzSettled times itself counts as converged (curvatureSettled).
	ritzSettled  = 0.1
	ritzMinSteps = 3
)

// curvatureStep is the descent phase's negative-curvature step, tried where χ ≤ τ: up to
// lanczosSteps Lanczos steps (lanczosMin, from a random start; fewer when the smallest Ritz
// value settles positive, curvatureSettled) on the face of the stationarity measure's W,
// with Hessian-vector products from Problem.Hess or from gradient differences
// (∇f(x + θu) − ∇f(x))/θ, θ as in the model. When the smallest Ritz value is below −δ/r²
// — a curvature along which the model falls by more than δ/2 within r, what an escape
// would find — the phase moves along its Ritz vector u, signed so that ∇fᵀu ≤ 0, from
// α = r (or the ratio test's α when a row is closer), doubling α while f falls, up to the
// ratio test's bound, or quartering it (a few times) when f does not fall at r. It
// reports whether it moved; a strict saddle is so left by the phase itself, and weaker
// curvature or a saddle made by rows is left to the escape.
func (ds *descent) curvatureStep() (bool, error) {
	proj, in := ds.curvatureFace()
	hv, err := ds.hessVec()
	if err != nil {
		return false, err
	}
	z := make([]float64, len(ds.x))
	for j := range z {
		z[j] = ds.rng.NormFloat64()
	}
	theta, u, err := lanczosMin(hv, proj, z, lanczosSteps, ds.curvatureSettled)
	if err != nil || u == nil {
		return false, err
	}
	r := ds.rn.r
	if !(theta < -ds.rn.s.Delta/(r*r)) {
		return false, nil
	}
	return ds.curvatureMove(ds.curvatureSign(u, theta, in), in)
}

// curvatureSettled tells the curvature check's Lanczos steps to stop early: after
// ritzMinSteps steps, once the smallest Ritz value θ is positive and its Ritz pair
// converged, residual ≤ ritzSettled·θ — the extreme Ritz value converges first
// (Kaniel–Paige), so a positive converged one leaves little room for a curvature below
// −δ/r², and what the check might miss the escape that follows finds. A negative θ runs
// all lanczosSteps: the move follows its Ritz vector, the better converged the better.
func (ds *descent) curvatureSettled(steps int, theta, resid float64) bool {
	return steps >= ritzMinSteps && theta > 0 && resid <= ritzSettled*theta
}

// curvatureSign returns ±u, whichever the model f + sα∇fᵀu + ½θα²s² lowers more at the
// longest step the rows allow (capped at maxStep): at a saddle, where ∇f = 0, both signs
// start alike, and the farther wall leaves room for the larger decrease.
func (ds *descent) curvatureSign(u []float64, theta float64, in []bool) []float64 {
	gu := dot(ds.g, u)
	model := func(sign float64) float64 {
		a := math.Min(ds.maxStep(u, in), maxStep)
		return sign*gu*a + 0.5*theta*a*a
	}
	up := model(1)
	scale(u, -1)
	if down := model(-1); down <= up {
		return u
	}
	scale(u, -1)
	return u
}

// curvatureFace returns the projector onto the face of χ's W and W's rows (nil for a box).
func (ds *descent) curvatureFace() (func([]float64) []float64, []bool) {
	if !ds.box {
		ws := ds.stationaryFace()
		return ws.project, ws.in
	}
	_, fixed := boxBreaks(ds.x, ds.g, ds.lo, ds.hi)
	return func(v []float64) []float64 {
		u := append([]float64(nil), v...)
		for i, f := range fixed {
			if f {
				u[i] = 0
			}
		}
		return u
	}, nil
}

// hessVec returns v ↦ ∇²f(x)v: by one Hess call and products, else by hessOperator
// (Problem.HessVec, or one gradient call per product, (∇f(x + θv) − ∇f(x))/θ).
func (ds *descent) hessVec() (func(dst, v []float64) error, error) {
	ev, x := ds.rn.ev, ds.x
	n := len(x)
	if ds.rn.p.Hess != nil {
		H := mat.NewSymDense(n, nil)
		if err := ev.hess(H, x); err != nil {
			return nil, err
		}
		return func(dst, v []float64) error {
			mat.NewVecDense(n, dst).MulVec(H, mat.NewVecDense(n, v))
			return nil
		}, nil
	}
	return hessOperator(ev, x, ds.g, hessStep(ds.rn.s, ds.rn.r, x)), nil
}

// curvatureMove moves along the unit direction u of negative curvature as curvatureStep
// says, and reports whether f fell.
func (ds *descent) curvatureMove(u []float64, in []bool) (bool, error) {
	wall := ds.maxStep(u, in)
	amax := math.Min(wall, maxStep)
	place := ds.placer(u, in)
	alpha := math.Min(ds.rn.r, amax)
	var best []float64
	bestF, bestAlpha := ds.f, 0.0
	for grow, shrink := 0, 0; grow < maxExpand && shrink <= curvatureShrinks && alpha > 0; {
		xt := place(alpha)
		f, ok, err := ds.tryValue(xt)
		if err != nil {
			return false, err
		}
		switch {
		case ok && f < bestF:
			best, bestF, bestAlpha = xt, f, alpha
			if alpha >= amax {
				grow = maxExpand
			}
			alpha = math.Min(2*alpha, amax)
			grow++
		case best != nil:
			grow = maxExpand
		default:
			alpha /= 4
			shrink++
		}
	}
	if best == nil {
		return false, nil
	}
	t, err := ds.withGrad(best, bestF)
	if err != nil || t == nil || !(t.f < ds.f) {
		return false, err
	}
	ds.accept(t)
	if amax < wall && bestAlpha >= amax { // at the cap, no row ahead
		return true, ds.probe(u)
	}
	return true, nil
}
