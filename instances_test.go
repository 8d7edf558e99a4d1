package houdini

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/mat"
)

// The cross-checks shared by the bounds of the walk's root (cone.go, cap.go, eqrelax.go):
// a bound asked for bars around the exhaustive minimum, and escapes with a bound's pruning
// against the full walk.

// barCounts tallies barSweep: the bars asked below the exhaustive minimum (total), the
// bars the bound answered (answered), and those of them below the minimum (below).
type barCounts struct{ answered, below, total int }

// barFractions are the bars of barSweep, as fractions of the model's scale above the
// exhaustive minimum: from far below it to above it.
var barFractions = []float64{-1, -0.3, -0.1, -0.03, -0.01, -0.001, 1e-9, 1e-3, 0.1}

// barSweep asks bound, a lower bound on the model over the set of w's root, for the bars
// min + f·scale (f in barFractions), min the exhaustive minimum: whenever it answers (not
// −Inf), its value must be at least the bar and at most min + tol. what names the bound
// and the instance in errors.
func barSweep(t *testing.T, w *walk, bound func() float64, min, scale, tol float64, n *barCounts, what string) {
	t.Helper()
	for _, f := range barFractions {
		bar := min + f*scale
		w.pool.keep, w.pool.qmin = bar, math.Inf(1)
		L := bound()
		if f < 0 {
			n.total++
		}
		if math.IsInf(L, -1) {
			continue
		}
		n.answered++
		if f < 0 {
			n.below++
		}
		if L < bar || L > min+tol {
			t.Errorf("%s: bar %.6g: bound %.17g, exhaustive minimum %.17g", what, bar, L, min)
		}
	}
}

// prunedAgainstFull escapes in.X with a bound's pruning (prep sets the test switches) and
// with the full walk (no forcing, no pruning), at δ = deltaRel times the model's scale
// ‖g‖R + 3·curv·dR² (curv: the Hessian's scaling of the instance's copy): the pruned walk
// must reach the full walk's best model decrease, certify only where the full walk does,
// and only where the exhaustive minimum is above −δ/2. tried is false where the set or x
// is refused (x nudged off its rows beyond the tolerance: both walks refuse it); what
// names the instance in errors.
func prunedAgainstFull(t *testing.T, in *bruteforce.Instance, curv, deltaRel float64, prep func(*Optimizer), what string) (tried, certified bool) {
	t.Helper()
	c, err := forcedTestSet(in)
	if err != nil {
		return false, false
	}
	scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3*curv
	s := Settings{Delta: deltaRel * scale, Radius: in.R, MaxSubsets: 1 << 20}
	p := Problem{Func: in.Func, Grad: in.Grad, Hess: exactHess(in)}
	ep, ef, err := escapePrunedFull(p, c, s, in.X, prep)
	if err != nil {
		return false, false
	}
	// The exhaustive minimum only judges certificates (and reports a failure): computed only
	// then, it skips most of the enumeration's cost where the pruned walk moves.
	var truth *float64
	exhaustive := func() float64 {
		if truth == nil {
			v := bruteforce.Min(in.Problem()).Value
			truth = &v
		}
		return *truth
	}
	tol := 1e-9*math.Abs(ef.ModelDecrease) + 1e-12*scale
	if ep.ModelDecrease < ef.ModelDecrease-tol || (ep.Certified && !ef.Certified) || (ep.Complete && ef.Found && !ep.Found) ||
		(ep.Certified && exhaustive() < -s.Delta/2-1e-7*scale) {
		t.Errorf("%s: pruned (found %v, certified %v, model decrease %.17g) vs full (found %v, certified %v, %.17g), exhaustive minimum %.17g, δ %g",
			what, ep.Found, ep.Certified, ep.ModelDecrease, ef.Found, ef.Certified, ef.ModelDecrease, exhaustive(), s.Delta)
	}
	return true, ep.Certified
}

// escapePrunedFull escapes x with the default walk, its test switches set by prep, and
// with the full walk (no forcing, no pruning).
func escapePrunedFull(p Problem, c *Constraints, s Settings, x []float64, prep func(*Optimizer)) (ep, ef *EscapeResult, err error) {
	pruned, err := New(p, c, s)
	if err != nil {
		return nil, nil, err
	}
	prep(pruned)
	full, _ := New(p, c, s)
	full.setNoPrune(true)
	if ep, err = pruned.Escape(context.Background(), x); err != nil {
		return nil, nil, err
	}
	ef, err = full.Escape(context.Background(), x)
	return ep, ef, err
}

// prunedSweep runs prunedAgainstFull on n seeded instances: instance i draws its
// generator from rand.NewPCG(seed, i), base(i, rng) builds it (family, model, how far X
// moves off its rows), its gradient is scaled by 1, 16, 256 or 4096 (i/2 mod 4), and it is
// escaped as built and as the copy copyOf(i) (translation, row scale and f scale, as
// bruteforce.Instance.Transform), at δ = 10⁻³, 10⁻², 0.1 or 1 (i mod 4) of the model's
// scale, prep setting the pruned walk's switches. It returns the escapes compared and those
// the pruned walk certified.
func prunedSweep(t *testing.T, n int, seed uint64, base func(i int, rng *rand.Rand) *bruteforce.Instance,
	copyOf func(i int) [3]float64, prep func(*Optimizer)) (tried, certified int) {
	t.Helper()
	for i := range n {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		in0 := base(i, rng)
		g := []float64{1, 16, 256, 4096}[i/2%4]
		for j := range in0.G {
			in0.G[j] *= g
		}
		for _, tr := range [2][3]float64{{0, 1, 1}, copyOf(i)} {
			in := in0.Transform(tr[0], tr[1], tr[2])
			ok, cert := prunedAgainstFull(t, in, tr[2], []float64{1e-3, 1e-2, 0.1, 1}[i%4], prep,
				fmt.Sprintf("instance %d (%s, gradient ×%g, copy %v)", i, in.Name, g, tr))
			if ok {
				tried++
			}
			if cert {
				certified++
			}
		}
	}
	return tried, certified
}

// pruneCopy is the copy of prunedSweep's instance i for the cone, directed cone and
// relaxed-equality bounds: translated by 10 or 10³, rows scaled by 10⁻³ or 10³, f by 10⁻² or
// 10².
func pruneCopy(i int) [3]float64 {
	return [3]float64{[]float64{10, 1e3}[i%2], []float64{1e-3, 1e3}[i/2%2], []float64{1e-2, 1e2}[i/4%2]}
}

// pruneBase is prunedSweep's instance i of every internal/bruteforce family in turn, a
// KKT model every kktEvery-th time (from i = 0) and otherwise a model drawn from rng, X
// moved off its rows by nudge where i mod nudgeEvery is nudgeAt.
func pruneBase(families []bruteforce.Family, kktEvery, nudgeEvery, nudgeAt int) func(int, *rand.Rand) *bruteforce.Instance {
	return func(i int, rng *rand.Rand) *bruteforce.Instance {
		model := bruteforce.Model(rng.IntN(int(bruteforce.NumModels)))
		if i%kktEvery == 0 {
			model = bruteforce.KKT
		}
		in := bruteforce.Generate(rng, bruteforce.Spec{Family: families[i%len(families)], Model: model})
		if i%nudgeEvery == nudgeAt {
			nudge(rng, in)
		}
		return in
	}
}

// allFamilies lists every internal/bruteforce family, in the order of their values.
var allFamilies = func() []bruteforce.Family {
	f := make([]bruteforce.Family, bruteforce.NumFamilies)
	for i := range f {
		f[i] = bruteforce.Family(i)
	}
	return f
}()

// spectralModel sets in.Q = sym(P·diag(λ)·Pᵀ), P orthogonal, the model of the forced-rule
// shortcut tests, and returns ‖Q‖₂ = max|λ| and min(0, λ₁).
func spectralModel(in *bruteforce.Instance, P *mat.Dense, lam []float64) (L, l1 float64) {
	d := len(lam)
	var PL, Q mat.Dense
	PL.Apply(func(_, j int, v float64) float64 { return v * lam[j] }, P)
	Q.Mul(&PL, P.T())
	for _, l := range lam {
		L, l1 = math.Max(L, math.Abs(l)), math.Min(l1, l)
	}
	for k := range d {
		in.Q = append(in.Q, make([]float64, d))
		for j := range d {
			in.Q[k][j] = 0.5 * (Q.At(k, j) + Q.At(j, k))
		}
	}
	return L, l1
}

// boundVertex makes in.X, instance i of a forced-rule shortcut test, a vertex of a box
// with free coordinates: each coordinate a multiple of 2⁻²⁰ in [−2, 2] (+10⁸ every fifth
// instance), held by a lower bound with ∂f = mu(j) (3 in 7), an upper bound with
// ∂f = −mu(j) (3 in 7), or free with ∂f = 0, 10⁻³ or 0.1 of L·r (1 in 7).
func boundVertex(rng *rand.Rand, in *bruteforce.Instance, i int, L float64, mu func(j int) float64) {
	for j := range in.X {
		x := math.Round((4*rng.Float64()-2)*(1<<20)) / (1 << 20)
		if i%5 == 4 {
			x += 1e8
		}
		in.X[j] = x
		m := mu(j)
		switch rng.IntN(7) {
		case 0, 1, 5: // lower bound
			in.Lower[j], in.Upper[j] = x, math.Inf(1)
			in.G[j] = m
		case 2, 3, 6:
			in.Lower[j], in.Upper[j] = math.Inf(-1), x
			in.G[j] = -m
		default:
			in.Lower[j], in.Upper[j] = math.Inf(-1), math.Inf(1)
			in.G[j] = []float64{0, 1e-3, 0.1}[rng.IntN(3)] * L * in.R
		}
	}
}

// vertexCounts tallies forcedVertexEscapes.
type vertexCounts struct{ escapes, certs, falseCerts, forced int }

// forcedVertexEscapes escapes in.X, instance i of a forced-rule shortcut test (‖Q‖₂ = L),
// on the matrix-free path at δ = depth/k for k = 0.3, 0.45, 0.55, 1, 3, depth =
// max(−min, 10⁻³·scale) with min the exhaustive minimum: a certificate must mean
// min ≥ −δ/2 (up to 10⁻⁹ of the model's scale).
func forcedVertexEscapes(t *testing.T, i int, in *bruteforce.Instance, L float64) (n vertexCounts) {
	t.Helper()
	d, R := len(in.X), in.R
	truth := bruteforce.Min(in.Problem()).Value
	scale := norm(in.G)*R + float64(d)*L*R*R
	box, err := NewBox(in.Lower, in.Upper)
	if err != nil {
		t.Fatal(err)
	}
	p := quadOracle(in)
	depth := math.Max(-truth, 1e-3*scale)
	for _, k := range []float64{0.3, 0.45, 0.55, 1, 3} {
		delta := depth / k
		o, err := New(p, box, Settings{Delta: delta, Radius: R})
		if err != nil {
			t.Fatal(err)
		}
		o.setMatrixFree(true, 100)
		res, err := o.Escape(context.Background(), in.X)
		if err != nil {
			continue
		}
		n.escapes++
		n.forced += res.Forced
		if res.Certified {
			n.certs++
			if truth < -delta/2-1e-9*scale {
				n.falseCerts++
				t.Errorf("instance %d (d=%d r=%g): certified at δ=%g (confidence %g, forced %d), exhaustive minimum %.17g", i, d, R, delta, res.Confidence, res.Forced, truth)
			}
		}
	}
	return n
}

// testFace is a face of ℝᵐ for the Krylov backends' cross-checks: the coordinates fixed
// at 0, the free ones in order, and their number.
type testFace struct {
	fixed []bool
	free  []int
	dim   int
}

// quarterFace is ℝᵐ, or with on the face whose last m/4 coordinates are fixed.
func quarterFace(m int, on bool) testFace {
	f := testFace{fixed: make([]bool, m)}
	for j := range f.fixed {
		f.fixed[j] = on && j >= m-m/4
		if !f.fixed[j] {
			f.free = append(f.free, j)
		}
	}
	f.dim = len(f.free)
	return f
}

// proj projects x onto the face: its fixed coordinates set to 0.
func (f testFace) proj(x []float64) {
	for j, fx := range f.fixed {
		if fx {
			x[j] = 0
		}
	}
}

// restrict returns M and v (nil: no vector) restricted to the free coordinates.
func (f testFace) restrict(M *mat.SymDense, v []float64) (*mat.SymDense, []float64) {
	Ms := mat.NewSymDense(f.dim, nil)
	var vs []float64
	if v != nil {
		vs = make([]float64, f.dim)
	}
	for a, p := range f.free {
		if v != nil {
			vs[a] = v[p]
		}
		for b := a; b < f.dim; b++ {
			Ms.SetSym(a, b, M.At(p, f.free[b]))
		}
	}
	return Ms, vs
}

// denseMin returns min over the face ∩ B(0, rs) of vᵀy + ½yᵀMy by the dense backend.
func (f testFace) denseMin(t *testing.T, ctx context.Context, M *mat.SymDense, v []float64, rs float64) float64 {
	t.Helper()
	Ms, vs := f.restrict(M, v)
	_, want, ok := findInsideDense(ctx, Ms, vs, rs, 0, math.Inf(-1))
	if !ok {
		t.Fatal("dense backend failed")
	}
	return want
}

// unitBoxQuadratic returns an Optimizer of f(y) = gᵀ(y − x) + ½(y − x)ᵀM(y − x) over
// [−1, 1]ᵈ, M given by hv (Grad and HessVec only, no dense Hessian), at δ = 0.01, r = 0.1,
// MethodFull: the large structured instances of the root bounds' memory tests.
func unitBoxQuadratic(t *testing.T, x, g []float64, hv func(out, v []float64)) *Optimizer {
	t.Helper()
	d := len(x)
	grad := func(gr, y []float64) {
		hv(gr, vecAdd(y, scaled(x, -1)))
		axpy(gr, 1, g)
	}
	lo, hi := make([]float64, d), make([]float64, d)
	for i := range lo {
		lo[i], hi[i] = -1, 1
	}
	box, err := NewBox(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{Grad: grad, HessVec: func(out, _, v []float64) { hv(out, v) }}
	o, err := New(p, box, Settings{Delta: 0.01, Radius: 0.1, Method: MethodFull})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// escapeAllocs escapes x with o and returns the result and the bytes allocated meanwhile
// (runtime.MemStats.TotalAlloc, of every goroutine: run it in a test that is not parallel).
func escapeAllocs(t *testing.T, o *Optimizer, x []float64) (*EscapeResult, float64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	e, err := o.Escape(context.Background(), x)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return e, float64(after.TotalAlloc - before.TotalAlloc)
}

// rootBoundSweep runs barSweep on n seeded instances for a bound of the walk's root
// (bound(w) asks it at w's root): instance i draws from rand.NewPCG(seed, i), of every
// internal/bruteforce family and model in turn (d ≤ 6, and d = 8 every fifth), move(i, rng,
// in) moves its X off its rows, and it is walked as built (copies nil) or as each copy
// (translation, row scale, f scale: bruteforce.Instance.Transform), at the root of the walk
// at X (equalities held, no row forced), wherever the walk starts and the exhaustive
// minimum is feasible; the tolerance is 10⁻⁹ of the model's scale, plus the equalities'
// eqErr with withEqErr. name names the bound in errors.
func rootBoundSweep(t *testing.T, n int, seed uint64, move func(i int, rng *rand.Rand, in *bruteforce.Instance),
	copies [][3]float64, withEqErr bool, bound func(w *walk) func() float64, name string) barCounts {
	t.Helper()
	var bars barCounts
	for i := range n {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		spec := bruteforce.Spec{Family: bruteforce.Family(i % int(bruteforce.NumFamilies)),
			Model: bruteforce.Model(i / int(bruteforce.NumFamilies) % int(bruteforce.NumModels))}
		if i%5 == 4 {
			spec.Dim = 8
		}
		base := bruteforce.Generate(rng, spec)
		move(i, rng, base)
		for c := 0; c < max(1, len(copies)); c++ {
			in, curv, what := base, 1.0, fmt.Sprintf("instance %d (%s): %s", i, base.Name, name)
			if copies != nil {
				tr := copies[c]
				in, curv = base.Transform(tr[0], tr[1], tr[2]), tr[2]
				what = fmt.Sprintf("instance %d (%s, copy %v): %s", i, in.Name, tr, name)
			}
			w, p := coneWalk(t, in)
			if w.stopped {
				continue
			}
			truth := bruteforce.Min(p)
			if !truth.Feasible {
				continue
			}
			scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3*curv
			tol := 1e-9 * scale
			if withEqErr {
				tol += w.eqErr
			}
			barSweep(t, w, bound(w), truth.Value, scale, tol, &bars, what)
		}
	}
	return bars
}

// nudgeOdd moves X off its rows (nudge) in every other instance of rootBoundSweep.
func nudgeOdd(i int, rng *rand.Rand, in *bruteforce.Instance) {
	if i%2 == 1 {
		nudge(rng, in)
	}
}

// limitSweep cross-checks a certificate of q ≥ −limit against the exhaustive minimum on n
// of boxInstance's instances drawn from rng: at limits k·depth, k = 0.3, 0.9, 0.99, 1.01,
// 1.1, 3 (index ki), depth = max(−min, 10⁻³ of the model's scale, 10⁻⁹), on the instance and
// on copies translated by 10³ and −10⁸ with f rescaled by 2^±20 (ci = 0, 1, 2),
// certify(i, ki, ci, in, copy, limit scaled as the copy's f) reports whether the certificate
// holds; one below the minimum by more than 10⁻⁹ of the scale is an error naming name. It
// returns the certificates, those within 1.2 of a negative minimum (tight) and the false.
func limitSweep(t *testing.T, n int, rng *rand.Rand, name string,
	certify func(i, ki, ci int, in, cp *bruteforce.Instance, limit float64) bool) (certs, tight, falseCerts int) {
	t.Helper()
	for i := range n {
		in := boxInstance(rng, i)
		truth := bruteforce.Min(in.Problem()).Value
		slack := 1e-9 * boxScale(in)
		depth := math.Max(math.Max(-truth, 1e-3*boxScale(in)), 1e-9)
		for ki, k := range []float64{0.3, 0.9, 0.99, 1.01, 1.1, 3} {
			limit := k * depth
			copies := []*bruteforce.Instance{in, in.Transform(1e3, 1, 0x1p20), in.Transform(-1e8, 1, 0x1p-20)}
			for ci, cp := range copies {
				scale := []float64{1, 0x1p20, 0x1p-20}[ci]
				if !certify(i, ki, ci, in, cp, limit*scale) {
					continue
				}
				certs++
				if truth < 0 && -truth == depth && k < 1.2 {
					tight++
				}
				if truth < -limit-slack {
					falseCerts++
					t.Errorf("%s (copy %d): %s proves q ≥ −%g, but the minimum over S ∩ B is %g",
						in.Name, ci, name, limit, truth)
				}
			}
		}
	}
	return certs, tight, falseCerts
}
