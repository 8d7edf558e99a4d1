package houdini

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/mat"
)

// eqRelaxFamilies are the internal/bruteforce families that bring one equality (written
// as an equality or as two opposite rows): the simplex, the balanced box (its ±1 vertices
// are the degenerate ones eqrelax.go is for), general rows and degenerate vertices.
var eqRelaxFamilies = [...]bruteforce.Family{bruteforce.BalancedBox, bruteforce.Simplex, bruteforce.Degenerate, bruteforce.GeneralRows}

// TestEqRelaxBoundBelowMinimum: the relaxed-equality bound (eqrelax.go) is a lower bound
// on the model over the walk's set. On seeded instances of the families with an
// equality (KKT models half of the time, so that multipliers are positive and the bound
// answers), x on its rows or nudged off them, and a translated and rescaled copy of each,
// at the root of the walk at X (the equality held, no row forced: the walk's set then
// holds (S − X) ∩ B), the bound is asked to reach bars from far below to above the
// exhaustive minimum; whenever it answers, its value must be at least the bar and not
// exceed that minimum (beyond the brute force's tolerance band). It must decide a share of
// the bars below the minimum. 4000 instances, 800 under -short.
func TestEqRelaxBoundBelowMinimum(t *testing.T) {
	t.Parallel() // a long cross-check: run beside the other long ones (CI's 2 cores)
	n := 4000
	if testing.Short() {
		n = 800
	}
	var bars barCounts
	tried := 0
	for i := range n {
		rng := rand.New(rand.NewPCG(1416, uint64(i)))
		model := bruteforce.Model(rng.IntN(int(bruteforce.NumModels)))
		if i%2 == 0 {
			model = bruteforce.KKT
		}
		spec := bruteforce.Spec{Family: eqRelaxFamilies[i%len(eqRelaxFamilies)], Model: model}
		if i%5 == 4 {
			spec.Dim = 8
		}
		base := bruteforce.Generate(rng, spec)
		if i%3 == 2 {
			nudge(rng, base)
		}
		for _, tr := range [2][3]float64{{0, 1, 1}, {[]float64{10, 1e4}[i%2], []float64{1e-3, 1e3}[i/2%2], []float64{1e-2, 1e2}[i/4%2]}} {
			in := base.Transform(tr[0], tr[1], tr[2])
			w, p := coneWalk(t, in)
			if w.stopped || len(w.c.equalities()) != 1 {
				continue
			}
			truth := bruteforce.Min(p)
			if !truth.Feasible {
				continue
			}
			tried++
			scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3*tr[2]
			barSweep(t, w, w.eqRelaxBound, truth.Value, scale, 1e-9*scale, &bars, fmt.Sprintf("instance %d (%s, copy %v): relaxed-equality bound", i, in.Name, tr))
		}
	}
	t.Logf("%d walks with one equality: the bound answered %d times, %d of %d bars below the minimum", tried, bars.answered, bars.below, bars.total)
	if bars.below < bars.total/50 {
		t.Errorf("the bound decides too rarely: %d of %d bars below the minimum", bars.below, bars.total)
	}
}

// TestEqRelaxPruningAgainstBruteForce: escapes with the relaxed-equality bound tried at
// every walk's root (with the cone and cap bounds, from one row on) against the full walk
// (no forcing, no pruning) and the exhaustive minimum, on seeded instances of the
// families with an equality (KKT models half of the time, gradients scaled by 1 to 4096,
// x nudged off its rows every third time) and a translated and rescaled copy of each, at δ
// from 10⁻³ to 1 of the model's scale: the pruned walk must reach the full walk's best
// model decrease (no missed escape), certify only where the full walk does and where the
// exhaustive minimum is above −δ/2 (no false certificate), and the bound must prune in a
// share of them. 3000 instances, 400 under -short.
func TestEqRelaxPruningAgainstBruteForce(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 400
	}
	var byEq int
	tried, certified := prunedSweep(t, n, 1417, pruneBase(eqRelaxFamilies[:], 2, 3, 2), pruneCopy, func(o *Optimizer) { o.countEqRelaxPrunes(&byEq) })
	t.Logf("%d escapes compared, %d certified; %d subtrees pruned by the relaxed-equality bound alone", tried, certified, byEq)
	if byEq == 0 {
		t.Errorf("the relaxed-equality bound never pruned alone in %d escapes", tried)
	}
}

// TestEqRelaxProbeFindsTransfer: at a balanced ±1 vertex of {−1 ≤ y ≤ 1, Σy = 0} where
// the equality's multiplier is a single point μ = 0 and one lower-bound and one
// upper-bound coordinate have zero rate, coupled by H₀ⱼ > 0 (the transfer e₀ − eⱼ has
// curvature −2H₀ⱼ), or, every other trial, uncoupled with the lower one's rate −1 (the
// transfer is a first-order descent: the point is not stationary), every other coordinate
// with a positive multiplier, the point is not a δ-SOSP and the escape must find a move of decrease ≥ δ/3 within 2^coneMinRows subsets
// (a walk of fewer rows than coneMinRows, where the forced rows leave few, completes in
// them; a larger one, which index order would not finish, gets the move from
// eqRelaxProbe at its root), on copies translated and with f rescaled. d = 8 to 40,
// random couplings among the others.
func TestEqRelaxProbeFindsTransfer(t *testing.T) {
	rng := rand.New(rand.NewPCG(1418, 1))
	for trial := range 60 {
		d := 2 * (4 + rng.IntN(17))
		k := d / 2
		x := make([]float64, d)
		for i := range x {
			x[i] = 1
			if i < k {
				x[i] = -1
			}
		}
		shift := []float64{0, 3, -1e3}[trial%3]
		sc := []float64{1, 1e-3, 1e3}[trial/3%3]
		H := mat.NewSymDense(d, nil)
		for a := 0; a < d; a++ {
			for b := a + 1; b < d; b++ {
				if rng.IntN(4) == 0 {
					H.SetSym(a, b, sc*0.1*rng.Float64())
				}
			}
		}
		j := k + rng.IntN(k)
		negRate := trial%2 == 1
		if !negRate {
			H.SetSym(0, j, sc)
		}
		g := make([]float64, d)
		for i := range g {
			ell := sc * (1 + rng.Float64())
			if i == 0 || i == j {
				ell = 0
			}
			if i < k {
				g[i] = ell // lower bounds: rate gᵢ − μ
			} else {
				g[i] = -ell // upper bounds: rate μ − gᵢ
			}
		}
		if negRate {
			g[0] = -sc // the transfer e₀ − eⱼ has rate g₀ − gⱼ = −sc: not stationary
		}
		x0 := make([]float64, d)
		lo, hi := make([]float64, d), make([]float64, d)
		for i := range x0 {
			x0[i] = x[i] + shift
			lo[i], hi[i] = -1+shift, 1+shift
		}
		// f(y) = gᵀ(y − x₀) + ½(y − x₀)ᵀH(y − x₀), so ∇f(x₀) = g; the gradient is
		// adjusted so that ∇f(x₀) stays g with H's entries.
		f := func(y []float64) float64 {
			z := make([]float64, d)
			for i := range z {
				z[i] = y[i] - x0[i]
			}
			Hz := make([]float64, d)
			mat.NewVecDense(d, Hz).MulVec(H, mat.NewVecDense(d, z))
			return dot(g, z) + 0.5*dot(z, Hz)
		}
		grad := func(out, y []float64) {
			z := make([]float64, d)
			for i := range z {
				z[i] = y[i] - x0[i]
			}
			mat.NewVecDense(d, out).MulVec(H, mat.NewVecDense(d, z))
			for i := range out {
				out[i] += g[i]
			}
		}
		ones := mat.NewDense(1, d, nil)
		for i := range d {
			ones.Set(0, i, 1)
		}
		c, err := NewPolyhedron(Polyhedron{Lower: lo, Upper: hi, Aeq: ones, Beq: []float64{float64(d) * shift}})
		if err != nil {
			t.Fatal(err)
		}
		r := 0.2
		// the transfer t(e₀ − eⱼ), ‖·‖ = t√2 ≤ r, gains H₀ⱼt² = H₀ⱼr²/2 = 0.02·sc
		s := Settings{Delta: 0.01 * sc, Radius: r, MaxSubsets: 1 << coneMinRows}
		p := Problem{Func: f, Grad: grad, Hess: func(h *mat.SymDense, _ []float64) { h.CopySym(H) }}
		o, _ := New(p, c, s)
		e, err := o.Escape(context.Background(), x0)
		if err != nil {
			t.Fatal(err)
		}
		if !e.Found || e.Certified || e.Decrease < s.Delta/3 {
			t.Errorf("trial %d (d %d, shift %g, scale %g): found %v, certified %v, decrease %g (δ %g)", trial, d, shift, sc, e.Found, e.Certified, e.Decrease, s.Delta)
		}
		if _, v := c.Violation(e.X); e.Found && v > 1e-9*(1+math.Abs(shift)) {
			t.Errorf("trial %d: the move violates the set by %g", trial, v)
		}
	}
}
