package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// tieBoxInstance draws a box QP at a point X with every coordinate at a bound or inside,
// the gradient there zero (a tie: a weakly active bound) on about half of the bound
// coordinates, outward by a multiplier on the others, and zero or small on the free ones;
// Q indefinite, positive semidefinite or nonnegative (a max-cut-like form, whose ties
// are copositive), so that the cone bound has zero multipliers to decide. d = 2 to 9,
// some bounds farther than R (no row then).
func tieBoxInstance(rng *rand.Rand) *bruteforce.Instance {
	d := 2 + rng.IntN(8)
	in := &bruteforce.Instance{Name: "tie box", X: make([]float64, d), G: make([]float64, d),
		Q: make([][]float64, d), Lower: make([]float64, d), Upper: make([]float64, d), R: 0.05 + rng.Float64()}
	kind := rng.IntN(3)
	B := make([][]float64, d)
	for a := range d {
		B[a] = make([]float64, d)
		for b := range d {
			B[a][b] = rng.NormFloat64()
		}
	}
	for a := range d {
		in.Q[a] = make([]float64, d)
		for b := range d {
			switch kind {
			case 0: // indefinite
				in.Q[a][b] = 0.5 * (B[a][b] + B[b][a])
			case 1: // positive semidefinite, BᵀB/d − small
				for k := range d {
					in.Q[a][b] += B[k][a] * B[k][b] / float64(d)
				}
			default: // nonnegative off the diagonal, a diagonal of either sign
				in.Q[a][b] = math.Abs(0.5 * (B[a][b] + B[b][a]))
				if a == b {
					in.Q[a][b] = 0.3 * B[a][a]
				}
			}
		}
	}
	for j := range d {
		w := []float64{0.5, 2, 10 * in.R}[rng.IntN(3)]
		in.Lower[j], in.Upper[j] = -w, w
		switch pos := rng.IntN(5); {
		case pos < 2: // at the lower bound
			in.X[j] = -w
			in.G[j] = tieMultiplier(rng)
		case pos < 4: // at the upper bound
			in.X[j] = w
			in.G[j] = -tieMultiplier(rng)
		default: // inside
			in.X[j] = w * (2*rng.Float64() - 1) * 0.5
			if rng.IntN(2) == 0 {
				in.G[j] = 0.01 * rng.NormFloat64()
			}
		}
	}
	return in
}

// tieMultiplier returns an outward multiplier: zero half of the time, else small or large.
func tieMultiplier(rng *rand.Rand) float64 {
	if rng.IntN(2) == 0 {
		return 0
	}
	return math.Pow(10, -3+3*rng.Float64())
}

// freeConeWalk is coneWalk with a matrix-free model: products with (Q + Qᵀ)/2, ‖M‖_F and
// ‖M‖₂ bounded by the Frobenius norm.
func freeConeWalk(t *testing.T, in *bruteforce.Instance) *walk {
	t.Helper()
	w, _ := coneWalk(t, in)
	M := w.mod.M
	nf := 0.0
	for a := range in.Dim() {
		for b := range in.Dim() {
			nf += M.At(a, b) * M.At(a, b)
		}
	}
	w.mod = &quadModel{v: w.mod.v, nrm: math.Sqrt(nf), nrm2: math.Sqrt(nf), lam1: -math.Sqrt(nf), nrm2Exact: true,
		op: func(dst, h []float64) error {
			for a := range dst {
				dst[a] = 0
				for b, hb := range h {
					dst[a] += M.At(a, b) * hb
				}
			}
			return nil
		}}
	return w
}

// TestConeMatrixFreeBelowMinimum: the cone bound of a matrix-free model (its Schur block
// from coordinates, conekrylov.go) is a lower bound on the model over the walk's set. On
// seeded box instances with ties (tieBoxInstance) and the Budget family, each also
// translated by 10³ with f scaled by 2²⁰ and by −10⁸ with f scaled by 2⁻²⁰, the bound is
// asked for bars from far below to above the exhaustive minimum: an answer must not
// exceed that minimum (beyond the brute force's tolerance band); on the box instances it
// must answer where the dense route (cone.go's QR) answers in most cases. 600
// instances (1800 with copies), 150 under -short.
func TestConeMatrixFreeBelowMinimum(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 150
	}
	var answered, dense, both, total int
	for i := range n {
		rng := rand.New(rand.NewPCG(1616, uint64(i)))
		base := tieBoxInstance(rng)
		if i%4 == 3 {
			base = bruteforce.Generate(rng, bruteforce.Spec{Family: bruteforce.Budget, Model: bruteforce.Model(i / 4 % int(bruteforce.NumModels))})
		}
		for k, tr := range [3][3]float64{{0, 1, 1}, {1e3, 1, 0x1p20}, {-1e8, 1, 0x1p-20}} {
			in := base.Transform(tr[0], tr[1], tr[2])
			if _, err := forcedTestSet(in); err != nil {
				continue
			}
			wd, p := coneWalk(t, in)
			wf := freeConeWalk(t, in)
			if wd.stopped || wf.stopped {
				continue
			}
			truth := bruteforce.Min(p)
			if !truth.Feasible {
				continue
			}
			scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3*tr[2]
			tol := 1e-9*scale + 1e-12*math.Abs(truth.Value)
			for _, f := range []float64{-1, -0.1, -0.01, -0.001, 1e-9, 1e-3} {
				bar := truth.Value + f*scale
				var L [2]float64
				for j, w := range [2]*walk{wd, wf} {
					w.pool.keep, w.pool.qmin = bar, math.Inf(1)
					L[j] = w.coneBound()
				}
				total++
				ld, lf := !math.IsInf(L[0], -1), !math.IsInf(L[1], -1)
				box := i%4 != 3 // Budget's row is general: no route by coordinates
				if ld && box {
					dense++
				}
				if lf {
					answered++
					if ld && box {
						both++
					}
					if L[1] < bar || L[1] > truth.Value+tol {
						t.Errorf("instance %d copy %d (%s): bar %.6g: matrix-free cone bound %.17g, exhaustive minimum %.17g",
							i, k, in.Name, bar, L[1], truth.Value)
					}
				}
			}
		}
	}
	t.Logf("%d bars: the matrix-free bound answered %d; on the box instances the dense route %d, both %d", total, answered, dense, both)
	if both < dense*9/10 || answered < total/20 {
		t.Errorf("the matrix-free bound answers too rarely: %d (%d of the dense route's %d) of %d bars", answered, both, dense, total)
	}
}

// TestConeMatrixFreeEscapes cross-checks escapes with the cone bound on the matrix-free
// path (houdini's test switch: the model an operator, every subset by the Krylov
// examiner, products from a Hessian-vector oracle or from gradient differences) against
// the dense escape with the cone bound, the dense full walk (no pruning) and the
// exhaustive minimum, on the instances of TestConeMatrixFreeBelowMinimum and their
// translated and rescaled copies, at δ from 10⁻³ to 1 of the model's scale: every move
// lies in S ∩ B(x, r) and lowers f by more than δ/3; a certificate needs the exhaustive
// minimum above −δ/2 (never a false certificate); the verdicts (certified, found) agree
// with the dense escape's in all but a few borderline cases; and the cone bound prunes on
// the matrix-free path in a share of them. 400 instances (1200 escapes), 80 under -short.
func TestConeMatrixFreeEscapes(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 80
	}
	var tried, byCone, certified, disagree int
	for i := range n {
		rng := rand.New(rand.NewPCG(1717, uint64(i)))
		base := tieBoxInstance(rng)
		for k, tr := range [3][3]float64{{0, 1, 1}, {1e3, 1, 0x1p20}, {-1e8, 1, 0x1p-20}} {
			in := base.Transform(tr[0], tr[1], tr[2])
			c, err := forcedTestSet(in)
			if err != nil {
				continue
			}
			scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3*tr[2]
			s := Settings{Delta: []float64{1e-3, 1e-2, 0.1, 1}[i%4] * scale, Radius: in.R, MaxSubsets: 1 << 20}
			dense := Problem{Func: in.Func, Grad: in.Grad, Hess: exactHess(in)}
			free := Problem{Func: in.Func, Grad: in.Grad}
			if i%2 == 0 {
				free.HessVec = func(hv, _, v []float64) { in.Grad(hv, vecAdd(in.X, v)); axpy(hv, -1, in.G) }
			}
			ed, ef, err := escapePrunedFull(dense, c, s, in.X, func(o *Optimizer) { o.countConePrunes(new(int)) })
			if err != nil {
				continue
			}
			o, err := New(free, c, s)
			if err != nil {
				t.Fatal(err)
			}
			o.countConePrunes(&byCone)
			o.setMatrixFree(true, 0)
			e, err := o.Escape(context.Background(), in.X)
			if err != nil {
				t.Fatalf("instance %d copy %d: %v", i, k, err)
			}
			tried++
			truth := bruteforce.Min(in.Problem()).Value
			if e.Certified {
				certified++
			}
			if e.Certified && truth < -s.Delta/2-1e-7*scale {
				t.Errorf("instance %d copy %d (%s): matrix-free false certificate: exhaustive minimum %.17g, δ %g", i, k, in.Name, truth, s.Delta)
			}
			if e.Found {
				checkMove(t, in, c, e, s.Delta, i, k)
			}
			if e.Certified != ed.Certified || e.Found != ed.Found || (e.Certified && !ef.Certified) {
				disagree++
				t.Logf("instance %d copy %d: matrix-free (found %v, certified %v) vs dense (found %v, certified %v), full walk certified %v, minimum %.6g, δ %.3g",
					i, k, e.Found, e.Certified, ed.Found, ed.Certified, ef.Certified, truth, s.Delta)
			}
		}
	}
	t.Logf("%d escapes, %d certified, %d verdicts unlike the dense escape's; %d subtrees pruned by the cone bound alone", tried, certified, disagree, byCone)
	if byCone < tried/20 || disagree > tried/100 {
		t.Errorf("cone prunes %d, disagreements %d in %d escapes", byCone, disagree, tried)
	}
}

// checkMove checks a move of an escape: feasible (to 10⁻⁹ relative), within r,
// and f lower by more than δ/3.
func checkMove(t *testing.T, in *bruteforce.Instance, c *Constraints, e *EscapeResult, delta float64, i, k int) {
	t.Helper()
	h := vecAdd(e.X, scaled(in.X, -1))
	big := 1.0
	for _, xj := range in.X {
		big = math.Max(big, math.Abs(xj))
	}
	if _, v := c.Violation(e.X); v > 1e-9*big || norm(h) > in.R*(1+1e-9) || !(in.Func(in.X)-in.Func(e.X) > delta/3) {
		t.Errorf("instance %d copy %d: move violates by %g, ‖h‖ = %g (r %g), decrease %g (δ/3 = %g)",
			i, k, v, norm(h), in.R, in.Func(in.X)-in.Func(e.X), delta/3)
	}
}

func vecAdd(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for j := range a {
		out[j] = a[j] + b[j]
	}
	return out
}

func scaled(a []float64, s float64) []float64 {
	out := make([]float64, len(a))
	for j := range a {
		out[j] = s * a[j]
	}
	return out
}

// TestConeVertexMemory: the cone bound on the matrix-free path keeps no vector per held
// bound and forms no d×d or d×t array. At d = 10⁵ (5000 under -short), f quadratic over
// [−1, 1]ᵈ at a vertex-like x: the first d − 60 coordinates at bounds with an outward
// gradient (forced), 40 ties (at +1, zero gradient, coupled by a nonnegative path: a
// copositive form on their cone) and 20 free coordinates at 0 (curvature 1, coupled to the
// ties by 0.1). Only the cone bound decides the 2⁴⁰ subsets of the ties: the escape must
// certify with the cone bound pruning, and allocate fewer than 1000 d-vectors in all (a
// vector per held bound would be d − 60 of them; measured: 530 at d = 10⁵, 423 MB).
func TestConeVertexMemory(t *testing.T) {
	d := 100000
	if testing.Short() {
		d = 5000
	}
	const nt, nf = 40, 20
	nh := d - nt - nf
	x := make([]float64, d)
	for j := range nh {
		x[j] = float64(1 - 2*(j%2))
	}
	for j := nh; j < nh+nt; j++ {
		x[j] = 1
	}
	hv := func(out, v []float64) {
		copy(out, v) // 1 on the diagonal but at the ties
		for j := nh; j < nh+nt; j++ {
			out[j] = 0
			if j > nh {
				out[j] += 0.5 * v[j-1]
			}
			if j+1 < nh+nt {
				out[j] += 0.5 * v[j+1]
			}
			f := nh + nt + (j-nh)%nf
			out[j] += 0.1 * v[f]
			out[f] += 0.1 * v[j]
		}
	}
	g := make([]float64, d) // ∇f(y) = M(y − x) + ∇f(x), ∇f(x) = −σⱼ at the forced, 0 elsewhere
	for j := range nh {
		g[j] = -x[j]
	}
	o := unitBoxQuadratic(t, x, g, hv)
	byCone := 0
	o.test.conePruned = &byCone
	o.setMatrixFree(true, 0)
	e, alloc := escapeAllocs(t, o, x)
	t.Logf("d = %d: certified %v, forced %d, examined %d, pruned by the cone %d, %d Hess calls, %.1f MB allocated (a vector per held bound: %.0f MB)",
		d, e.Certified, e.Forced, e.Examined, byCone, e.HessEvals, alloc/1e6, 8*float64(d)*float64(nh)/1e6)
	if limit := 8 * float64(d) * 1000; alloc > limit {
		t.Errorf("the escape allocated %.0f MB, more than %.0f MB", alloc/1e6, limit/1e6)
	}
	if !e.Certified || e.Forced != nh || byCone == 0 {
		t.Errorf("certified %v, forced %d of %d, cone prunes %d: want a certificate by the cone bound", e.Certified, e.Forced, nh, byCone)
	}
}
