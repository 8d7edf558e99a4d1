package houdini

import (
	"cmp"
	"math"
	"slices"
)

// The two subproblems of one L-BFGS-B iteration on a box lo ≤ x ≤ hi (Byrd, Lu, Nocedal &
// Zhu 1995, "A limited memory algorithm for bound constrained optimization", SIAM J. Sci.
// Comput. 16(5):1190–1208; with the projection of Morales & Nocedal 2011, "Remark on
// Algorithm 778", ACM TOMS 38(1)): the generalized Cauchy point, the first minimizer of the
// quadratic model m(z) = gᵀ(z − x) + ½(z − x)ᵀB(z − x) along the projected steepest-descent
// path P(x − tg), which fixes many bounds in one step; then the minimization of m over the
// variables left free there. No Go library computes either for a limited-memory B (gonum
// has no bound-constrained method), hence this file.

// boxBreaks returns the breakpoints tᵢ at which the path x − tg meets a bound (+Inf for
// none) and fixed[i] for the variables that cannot move at all: at a bound that g pushes
// against, or with gᵢ = 0 at a bound (L-BFGS-B's iwhere > 0).
func boxBreaks(x, g, lo, hi []float64) (t []float64, fixed []bool) {
	t, fixed = make([]float64, len(x)), make([]bool, len(x))
	for i := range x {
		atLo, atHi := x[i] <= lo[i], x[i] >= hi[i]
		switch {
		case atLo && g[i] >= 0, atHi && g[i] <= 0:
			fixed[i] = true
		case g[i] < 0 && !math.IsInf(hi[i], 1):
			t[i] = (x[i] - hi[i]) / g[i]
			continue
		case g[i] > 0 && !math.IsInf(lo[i], -1):
			t[i] = (x[i] - lo[i]) / g[i]
			continue
		}
		t[i] = math.Inf(1)
	}
	return t, fixed
}

// cauchyPoint returns the generalized Cauchy point xc of the model B at x with gradient g
// in the box (BLNZ 1995, Algorithm CP), c = Wᵀ(xc − x), and free[i] for the variables
// not at a bound at xc. Along the path the breakpoints are visited in increasing order;
// between two of them the model is the quadratic f′·Δt + ½f″·Δt², updated in O(m²) per
// breakpoint (eqs. 4.9–4.10; one product Mw_b a breakpoint, M = K⁻¹ being symmetric):
//
//	f′ ← f′ + Δt f″ + g_b² + θ g_b z_b − g_b w_bᵀMc,   f″ ← f″ − θg_b² − 2g_b w_bᵀMp − g_b² w_bᵀMw_b.
func cauchyPoint(q *lbfgs, x, g, lo, hi []float64) (xc, c []float64, free []bool) {
	n := len(x)
	tb, fixed := boxBreaks(x, g, lo, hi)
	d := make([]float64, n)
	var order []int
	for i := range x {
		if !fixed[i] {
			d[i] = -g[i]
			if !math.IsInf(tb[i], 1) {
				order = append(order, i)
			}
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(tb[a], tb[b]) })
	xc = append([]float64(nil), x...)
	p := q.wt(d)
	c = make([]float64, len(p))
	fp := -dot(d, d)
	fpp := -q.theta*fp - dot(p, q.mMul(p))
	fpp0 := fpp
	dtm := math.Inf(1)
	if fpp > 0 {
		dtm = -fp / fpp
	}
	told := 0.0
	for _, b := range order {
		dt := tb[b] - told
		if dtm < dt || fp >= 0 {
			break
		}
		if d[b] > 0 {
			xc[b] = hi[b]
		} else {
			xc[b] = lo[b]
		}
		zb, gb, wb := xc[b]-x[b], g[b], q.wRow(b)
		axpy(c, dt, p)
		mw := q.mMul(wb) // M symmetric: w_bᵀMv = (Mw_b)ᵀv, one solve a breakpoint as in L-BFGS-B's cauchy
		fp += dt*fpp + gb*gb + q.theta*gb*zb - gb*dot(mw, c)
		fpp += -q.theta*gb*gb - 2*gb*dot(mw, p) - gb*gb*dot(mw, wb)
		fpp = math.Max(eps*fpp0, fpp)
		axpy(p, gb, wb)
		d[b], fixed[b] = 0, true
		dtm = -fp / fpp
		told = tb[b]
	}
	dtm = math.Max(0, dtm)
	if math.IsInf(dtm, 1) {
		dtm = 0 // no curvature and no breakpoint left: fp ≥ 0 here, d has no descent
	}
	t := told + dtm
	for i := range xc {
		if d[i] != 0 {
			xc[i] = math.Max(lo[i], math.Min(hi[i], x[i]+t*d[i]))
		}
	}
	axpy(c, dtm, p)
	free = make([]bool, n)
	for i := range free {
		free[i] = !fixed[i]
	}
	return xc, c, free
}

// subspacePoint returns x̄, the minimizer of the model over the variables free at the
// Cauchy point xc with the others held there (BLNZ 1995, §5.1, direct primal method):
// the reduced gradient r = Zᵀ(g + θ(xc − x) − WMc) and the step of lbfgs.reducedStepBox,
// projected onto the box when that still descends from x (Morales & Nocedal 2011),
// else truncated to the box.
func subspacePoint(q *lbfgs, x, g, xc, c, lo, hi []float64, free []bool) []float64 {
	r := make([]float64, len(x))
	wmc := q.wMul(q.mMul(c), len(x))
	for i := range r {
		if free[i] {
			r[i] = g[i] + q.theta*(xc[i]-x[i]) - wmc[i]
		}
	}
	du := q.reducedStepBox(r, free)
	xp := append([]float64(nil), xc...)
	alpha := 1.0
	dd := 0.0
	for i, f := range free {
		if !f {
			continue
		}
		xp[i] = math.Max(lo[i], math.Min(hi[i], xc[i]+du[i]))
		if du[i] < 0 {
			alpha = math.Min(alpha, (lo[i]-xc[i])/du[i])
		} else if du[i] > 0 {
			alpha = math.Min(alpha, (hi[i]-xc[i])/du[i])
		}
	}
	for i := range xp {
		dd += (xp[i] - x[i]) * g[i]
	}
	if dd <= 0 {
		return xp
	}
	alpha = math.Max(0, alpha)
	for i, f := range free {
		if f {
			xp[i] = math.Max(lo[i], math.Min(hi[i], xc[i]+alpha*du[i]))
		}
	}
	return xp
}

// boxMaxStep returns the largest α ≤ cap with lo ≤ x + αd ≤ hi.
func boxMaxStep(x, d, lo, hi []float64, cap float64) float64 {
	a := cap
	for i := range x {
		switch {
		case d[i] < 0 && !math.IsInf(lo[i], -1):
			a = math.Min(a, math.Max(0, x[i]-lo[i])/-d[i])
		case d[i] > 0 && !math.IsInf(hi[i], 1):
			a = math.Min(a, math.Max(0, hi[i]-x[i])/d[i])
		}
	}
	return a
}
