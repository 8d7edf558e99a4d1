package houdini

import (
	"context"
	"errors"
	"math"
)

// Guards of the descent phase.
const (
	// descentStall ends the phase when a step lowers f by less than descentStall·δ:
	// an escape then gains at least δ/3 for the cost of one model.
	descentStall = 1e-2
	// armijoC is the sufficient-decrease constant of the backtracking line search.
	armijoC = 1e-4
	// maxBacktracks bounds the halvings of one line search.
	maxBacktracks = 40
	// lambdaTol: a multiplier above −lambdaTol·‖g‖ counts as nonnegative (rounding).
	lambdaTol = 1e-10
)

// descend is the first-order phase Minimize runs between escapes unless
// Settings.EscapesOnly is set: gradient projection on the working set of active rows
// (Rosen 1960). Each step moves along d = −P_W ∇f, P_W the projector onto the directions
// that keep the working set W active; when d vanishes, the row with the most negative
// multiplier λ (∇f + A_Wᵀλ = 0) leaves W. The step length is the exact minimizer along d
// for the curvature measured by one gradient difference, capped by the ratio test
// against the rows outside W, and confirmed by an Armijo backtracking test on f (or on
// the integrated gradient when Func is nil). It stops at a KKT point, when a step gains
// less than descentStall·δ, or after maxIter steps. Every iterate is feasible. It returns
// the last point and f(x) − f(last); with an error (an oracle's, or errGradBudget) it
// returns the last accepted point too, feasible, and the decrease so far.
//
// The phase only moves fast between saddles; certificates still come from Escape, which
// Minimize calls where the phase stops.
func (o *run) descend(ctx context.Context, x []float64, ev *evaluator, st *Stats) ([]float64, float64, error) {
	d := len(x)
	x = append([]float64(nil), x...)
	g := make([]float64, d)
	if err := ev.grad(g, x); err != nil {
		return x, 0, err
	}
	base, err := ev.startDecrease(x)
	if err != nil {
		return x, 0, err
	}
	total := 0.0
	maxIter := 10 * (d + o.c.rowCount())
	var dropped []int // rows released since the last step
	for it := 0; it < maxIter && ctx.Err() == nil; it++ {
		ws := o.c.workingSet(x, o.s.FeasTol, dropped)
		dir := ws.project(g)
		gn := norm(g)
		for norm(dir) <= lambdaTol*gn {
			i := ws.mostNegative(g, lambdaTol*gn)
			if i < 0 {
				return x, total, nil // KKT point
			}
			dropped = append(dropped, i)
			ws = o.c.workingSet(x, o.s.FeasTol, dropped)
			dir = ws.project(g)
		}
		for j := range dir {
			dir[j] = -dir[j]
		}
		slope := dot(g, dir) // < 0
		if !(slope < 0) {
			return x, total, nil
		}
		amax := o.c.ratioTest(x, dir, ws.in)
		// Curvature along dir from one gradient difference (exact for quadratics).
		dn := norm(dir)
		h := hessStep(o.s, o.r, x) / dn
		xt := make([]float64, d)
		for j := range xt {
			xt[j] = x[j] + h*dir[j]
		}
		gt := make([]float64, d)
		if err := ev.grad(gt, xt); err != nil {
			return x, total, err
		}
		curv := (dot(gt, dir) - slope) / h
		alpha := amax
		if curv > 0 {
			alpha = math.Min(amax, -slope/curv)
		}
		if math.IsInf(alpha, 1) {
			alpha = 10 * o.r / dn // unbounded ray of negative curvature: long but finite
		}
		var xn []float64
		var dec float64
		accepted := false
		for bt := 0; bt < maxBacktracks; bt++ {
			xn = make([]float64, d)
			for j := range xn {
				xn[j] = x[j] + alpha*dir[j]
			}
			xn = o.c.snap(xn, o.s.FeasTol, ws.in)
			if xn == nil {
				alpha /= 2
				continue
			}
			start := decreaseBase{x: x, f: base.f}
			dec, err = ev.decrease(start, xn)
			var nf *NonFiniteError
			if errors.As(err, &nf) {
				// f overflows at the trial point (the ratio test may reach a far wall):
				// a rejected step, not a failed run.
				alpha /= 2
				continue
			}
			if err != nil {
				return x, total, err
			}
			if dec >= -armijoC*alpha*slope && dec > 0 {
				accepted = true
				break
			}
			alpha /= 2
		}
		if !accepted {
			return x, total, nil
		}
		st.DescentSteps++
		x = xn
		total += dec
		base.x = x
		if o.p.Func != nil {
			base.f -= dec
		}
		dropped = dropped[:0]
		if err := ev.grad(g, x); err != nil {
			return x, total, err
		}
		if dec < descentStall*o.s.Delta {
			break
		}
	}
	return x, total, nil
}

// rowCount returns k, 0 for a nil *Constraints.
func (c *Constraints) rowCount() int {
	if c == nil {
		return 0
	}
	return c.k
}

// workingSet holds the rows active at a point: coordinate rows ±eⱼ as a mask, general
// rows as an orthonormal basis (Gram–Schmidt after the mask) with the triangular factor
// L of their masked parts, a′ₖ = Σⱼ Lₖⱼ bⱼ, for the multipliers.
type workingSet struct {
	c       *Constraints
	in      []bool // in[i]: row i is in W
	mask    []bool // coordinates fixed by coordinate rows of W
	coordOf []int  // coordinate rows of W kept (independent)
	gen     []int  // general rows of W kept (independent), in basis order
	basis   [][]float64
	L       [][]float64 // L[k][j] = bⱼ·a′ₖ for j ≤ k
}

// workingSet returns the rows active at x (slack within tolerance), minus those in drop.
func (c *Constraints) workingSet(x []float64, feasTol float64, drop []int) *workingSet {
	ws := &workingSet{c: c}
	if c == nil {
		return ws
	}
	ws.in = make([]bool, c.k)
	ws.mask = make([]bool, c.d)
	for i := 0; i < c.k; i++ {
		if c.slack(i, x) <= c.tol(i, feasTol) {
			ws.in[i] = true
		}
	}
	for _, i := range drop {
		ws.in[i] = false
	}
	for i := 0; i < c.k; i++ {
		if ws.in[i] && c.coord[i] >= 0 && !ws.mask[c.coord[i]] {
			ws.mask[c.coord[i]] = true
			ws.coordOf = append(ws.coordOf, i)
		}
	}
	for i := 0; i < c.k; i++ {
		if !ws.in[i] || c.coord[i] >= 0 {
			continue
		}
		a := ws.masked(c.row(i))
		u := orthogonalize(a, ws.basis)
		nu := norm(u)
		if nu < rankTol {
			continue // dependent: its multiplier is taken as 0
		}
		for j := range u {
			u[j] /= nu
		}
		ws.basis = append(ws.basis, u)
		ws.gen = append(ws.gen, i)
		l := make([]float64, len(ws.basis))
		for j, b := range ws.basis {
			l[j] = dot(b, a)
		}
		ws.L = append(ws.L, l)
	}
	return ws
}

func (ws *workingSet) masked(a []float64) []float64 {
	m := append([]float64(nil), a...)
	for j, fixed := range ws.mask {
		if fixed {
			m[j] = 0
		}
	}
	return m
}

// project returns P_W g: g with the fixed coordinates zeroed and the general rows'
// directions removed.
func (ws *workingSet) project(g []float64) []float64 {
	if ws.mask == nil {
		return append([]float64(nil), g...)
	}
	return orthogonalize(ws.masked(g), ws.basis)
}

// mostNegative returns the row of W with the most negative multiplier below −tol, or -1.
// With the basis, Σₖ λₖ a′ₖ = −Σⱼ (bⱼ·g) bⱼ gives Lᵀλ = −c, solved by back
// substitution; a coordinate row s·eⱼ then has λ = s(−gⱼ − Σₖ λₖ aₖⱼ).
func (ws *workingSet) mostNegative(g []float64, tol float64) int {
	n := len(ws.gen)
	lam := make([]float64, n)
	for j := n - 1; j >= 0; j-- {
		s := -dot(ws.basis[j], g)
		for k := j + 1; k < n; k++ {
			s -= ws.L[k][j] * lam[k]
		}
		lam[j] = s / ws.L[j][j]
	}
	best, worst := -1, -tol
	for k, i := range ws.gen {
		if lam[k] < worst {
			best, worst = i, lam[k]
		}
	}
	for _, i := range ws.coordOf {
		j := ws.c.coord[i]
		s := -g[j]
		for k, gi := range ws.gen {
			s -= lam[k] * ws.c.row(gi)[j]
		}
		l := ws.c.a[i*ws.c.d+j] * s // the row's entry is ±1
		if l < worst {
			best, worst = i, l
		}
	}
	return best
}

// ratioTest returns the largest α with x + αd in S for the rows outside W (+Inf if none
// blocks). A unit row with âᵢ·d ≤ rankTol·‖d‖ does not block: d lies in the null space of
// W's rows, so such a row is dependent on them up to the rounding of d, and letting it
// block sent moves along unbounded faces to α ≈ slack/10⁻¹⁶ (callers snap the end point,
// so what it may violate is checked there).
func (c *Constraints) ratioTest(x, d []float64, in []bool) float64 {
	alpha := math.Inf(1)
	if c == nil {
		return alpha
	}
	floor := rankTol * norm(d)
	for i := 0; i < c.k; i++ {
		if in[i] {
			continue
		}
		ad := dot(c.row(i), d)
		if ad <= floor {
			continue
		}
		alpha = math.Min(alpha, math.Max(0, c.slack(i, x))/ad)
	}
	return alpha
}

// snap returns x with rounding-level violations removed by projection onto the
// hyperplanes of W's rows and the violated ones, or nil if x is not feasible after that.
func (c *Constraints) snap(x []float64, feasTol float64, in []bool) []float64 {
	if c == nil {
		return x
	}
	var bad []int
	for i := 0; i < c.k; i++ {
		if -c.slack(i, x) > c.tol(i, feasTol) {
			bad = append(bad, i)
		}
	}
	if len(bad) == 0 {
		return x
	}
	rows := append([]int(nil), bad...)
	for i, ok := range in {
		if ok {
			rows = append(rows, i)
		}
	}
	x = c.projectAffine(x, rows)
	if c.infeasibility(x, feasTol) != nil {
		return nil
	}
	return x
}
