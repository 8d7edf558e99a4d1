package houdini

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// A Lagrangian lower bound for the walk's pruning that sees the rows a subset does not
// hold (issue 14 item 3). The examiner's lower ignores every inequality, so a subset whose
// gradient points into rows it leaves free (the active rows of a KKT point with positive
// multipliers) has lower ≈ −‖v′‖r′ and is never pruned, however convex the model is there.
//
// The bound. Let ν ≥ 0 on the near rows, and g_ν(h) = g(h) + Σₗ νₗ(âₗ·h − sₗ), the model
// plus the rows' slacks weighted by ν: a quadratic with gradient v + Σνₗâₗ, Hessian M and
// constant −Σνₗsₗ. Every h ∈ S_w has âₗ·h ≤ sₗ, so g(h) ≥ g_ν(h), and for a subset T
//
//	min { g(h) : h ∈ S_w ∩ 𝒜_T ∩ B(0, r) } ≥ min { g_ν(h) : h ∈ 𝒜_T ∩ B(0, r) },
//
// the right side a trust-region problem on 𝒜_T (held rows' terms vanish there), bounded
// below by FindInside's lower (denseTRS.lowerBound). Every superset's affine set lies in
// 𝒜_T, so the bound prunes as the examiner's does. The candidates of supersets lie in S_w
// only up to roundTol (walk.consider), and the held rows' offsets hold up to rounding:
// the margin Σₗ νₗ·2·roundTol(l) covers both, beside FindInside's own. Any ν ≥ 0 gives a
// valid bound; lagrangeMultipliers picks the least-squares multipliers of the rows
// through x, with negative ones dropped, so that v + Σνₗâₗ ≈ 0 at a KKT point and the
// bound on a face where M is nearly positive semidefinite is about ½λ₁r′².
//
// Off by default (the tests turn it on: countLagrangePrunes). Measured on examples/families
// (seed 1, 78 runs), it pruned more subtrees (e.g. StQP 24 → 192, balanced cut 297 → 1061)
// but certified no run more (51 of 78 either way), and the extra eigendecomposition per
// unpruned subset made the end escapes up to 2× slower (portfolio median 0.8 → 1.8 s): the
// walks that meet MaxSubsets there have an indefinite model on the faces (½λ₁r′² < keep)
// or near rows with slack, whose multipliers at x are 0. A copositivity-type test is what
// those need.

// lagrangeMultipliers returns ν ≥ 0 on w's near rows with offsets ≤ forcedSlack·r (0
// elsewhere), fitting −P v by Σνₗ P âₗ in least squares (P the projection off the rows
// held), rows with negative multipliers dropped and the fit repeated; nil when none is
// positive.
func (w *walk) lagrangeMultipliers() []float64 {
	d := len(w.x)
	var E []int
	for _, l := range w.near {
		if w.s[l] <= forcedSlack*w.r {
			E = append(E, l)
		}
	}
	if len(E) == 0 || len(E) > d {
		return nil
	}
	proj := func(a []float64) []float64 {
		w.basis.projectOnce(a)
		return a
	}
	pv := proj(append([]float64(nil), w.mod.v...))
	for j := range pv {
		pv[j] = -pv[j]
	}
	cols := make([][]float64, len(E))
	for k, l := range E {
		cols[k] = proj(w.c.row(l))
	}
	active := make([]bool, len(E))
	for k := range active {
		active[k] = true
	}
	nu := make([]float64, len(E))
	for round := 0; round <= len(E); round++ {
		var idx []int
		for k, a := range active {
			if a {
				idx = append(idx, k)
			}
		}
		if len(idx) == 0 {
			return nil
		}
		A := mat.NewDense(d, len(idx), nil)
		for c, k := range idx {
			for j := 0; j < d; j++ {
				A.Set(j, c, cols[k][j])
			}
		}
		var sol mat.VecDense
		if err := sol.SolveVec(A, mat.NewVecDense(d, pv)); err != nil {
			return nil
		}
		neg := false
		for k := range nu {
			nu[k] = 0
		}
		for c, k := range idx {
			if v := sol.AtVec(c); v < 0 || math.IsNaN(v) {
				active[k], neg = false, true
			} else {
				nu[k] = v
			}
		}
		if !neg {
			break
		}
		if round == len(E) {
			return nil
		}
	}
	out := make([]float64, w.c.rowCount())
	any := false
	for k, l := range E {
		if nu[k] > 0 && !math.IsInf(nu[k], 0) {
			out[l], any = nu[k], true
		}
	}
	if !any {
		return nil
	}
	return out
}

// lagrangeBound is the Lagrangian bound's data for one walk: the model g_ν (gradient
// v + Σνₗâₗ, M's Hessian), its constant −Σνₗsₗ and the margin.
type lagrangeBound struct {
	ref    *referenceExaminer
	c      float64
	margin float64
}

// newLagrangeBound returns the bound for multipliers nu (lagrangeMultipliers), or nil.
func (w *walk) newLagrangeBound(nu []float64) *lagrangeBound {
	if nu == nil {
		return nil
	}
	v := append([]float64(nil), w.mod.v...)
	lb := &lagrangeBound{}
	for l, n := range nu {
		if n == 0 {
			continue
		}
		a := w.c.row(l)
		for j := range v {
			v[j] += n * a[j]
		}
		lb.c -= n * w.s[l]
		lb.margin += n * (2*w.roundTol(l) + 4*eps*(w.r+math.Abs(w.s[l])))
	}
	lb.ref = newReferenceExaminer(&quadModel{v: v, M: w.mod.M})
	return lb
}

// bound returns the Lagrangian lower bound on the model over S_w ∩ 𝒜_T ∩ B(0, r) for the
// subset w holds, or −Inf.
func (lb *lagrangeBound) bound(w *walk) float64 {
	d := len(w.x)
	h0 := w.offset()
	r := lb.ref
	mh := mat.NewVecDense(d, r.mh)
	mh.MulVec(r.mod.M, mat.NewVecDense(d, h0))
	c0 := dot(r.mod.v, h0) + 0.5*dot(r.mh, h0)
	g := make([]float64, d)
	for j := range g {
		g[j] = r.mod.v[j] + r.mh[j]
	}
	Ms, vs, _ := r.subproblem(w, g)
	_, lower, ok := findInsideDense(w.ctx, Ms, vs, w.radius(), c0, math.Inf(-1))
	if !ok {
		return math.Inf(-1)
	}
	return lower + lb.c - lb.margin
}
