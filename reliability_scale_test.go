package houdini_test

// Issue 12, defect 1: false certificates when ‖x‖/r is large. Every test here accepts
// three outcomes of an Escape: a valid move (checked independently: exactly feasible
// within the documented FeasTol, within r, lowering f by more than δ/3), an explicit
// precision status (EscapeResult.NumericalFailure), or — only where no decrease beyond δ/2
// exists — a certificate. A certificate where a decrease of more than δ/2 is exhibited is
// a failure.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// relVerdict names an escape's outcome: "move", "certified", "precision" (NumericalFailure),
// "undecided" (none of those) or "error".
func relVerdict(e *houdini.EscapeResult, err error) string {
	switch {
	case err != nil:
		return "error"
	case e.Found:
		return "move"
	case e.Certified:
		return "certified"
	case e.NumericalFailure:
		return "precision"
	}
	return "undecided"
}

// relLinearEscape runs one Escape of f(y) = −Σyᵢ on ℝ³ at x and checks it against the
// closed form: y = x + r(1, 1, 1)/√3 lowers f by √3·r > δ/2, so a certificate is false.
func relLinearEscape(t *testing.T, tag string, x []float64, r, delta float64, withHess, withFunc bool) {
	t.Helper()
	p := houdini.Problem{Grad: func(g, _ []float64) { g[0], g[1], g[2] = -1, -1, -1 }}
	if withFunc {
		p.Func = func(y []float64) float64 { return -(y[0] + y[1] + y[2]) }
	}
	if withHess {
		p.Hess = func(h *mat.SymDense, _ []float64) { h.Zero() }
	}
	tag = fmt.Sprintf("%s, Hess %v, Func %v", tag, withHess, withFunc)
	o, err := houdini.New(p, nil, houdini.Settings{Delta: delta, Radius: r})
	if err != nil {
		t.Fatalf("%s: New: %v", tag, err)
	}
	e, err := o.Escape(context.Background(), x)
	switch v := relVerdict(e, err); v {
	case "certified":
		t.Errorf("%s: Escape certified x = %v, but x + r(1,1,1)/√3 lowers f by √3·r = %.3g = %.0fδ",
			tag, x, math.Sqrt(3)*r, math.Sqrt(3)*r/delta)
	case "move":
		h := relDiff(e.X, x)
		if n := relNorm(h); !(n <= r*(1+1e-9)) {
			t.Errorf("%s: move of length %.17g > r = %g", tag, n, r)
		}
		if dec := h[0] + h[1] + h[2]; !(dec > delta/3) {
			t.Errorf("%s: move lowers f by %g, not more than δ/3 = %g", tag, dec, delta/3)
		}
	case "precision":
		t.Logf("%s: NumericalFailure (accepted)", tag)
	default:
		t.Errorf("%s: Escape ended %s (err %v): neither a move, a certificate nor a precision status", tag, v, err)
	}
}

// TestNoFalseCertificateLinearFarFromOrigin (issue 12, defect 1): f(y) = −Σyᵢ on ℝ³,
// δ = 1e-2, r = 1, at x = t·(1, 1, 1) for t from 1e3 to 1e9. Certified at t = 1e7 and
// 1e8 on 58ff85a.
func TestNoFalseCertificateLinearFarFromOrigin(t *testing.T) {
	skipPending(t)
	for _, tt := range []float64{1e3, 1e4, 1e5, 1e6, 3e6, 1e7, 3e7, 1e8, 3e8, 1e9} {
		for _, withHess := range []bool{false, true} {
			for _, withFunc := range []bool{true, false} {
				relLinearEscape(t, fmt.Sprintf("t = %g", tt), []float64{tt, tt, tt}, 1, 1e-2, withHess, withFunc)
			}
		}
	}
}

// TestNoFalseCertificateSmallRadius (issue 12, defect 1): the ratio ‖x‖/r matters, not
// the distance from the origin: the same linear f at points of norm about 1 with
// r = 1e-6 … 1e-9 and δ = 1e-2·r.
func TestNoFalseCertificateSmallRadius(t *testing.T) {
	skipPending(t)
	points := [][]float64{{0.6, 0.5, 0.6}, {-0.7, 0.3, 0.55}, {1, 1, 1}}
	for _, r := range []float64{1e-6, 3e-7, 1e-7, 3e-8, 1e-8, 3e-9, 1e-9} {
		for _, x := range points {
			relLinearEscape(t, fmt.Sprintf("r = %g, x = %v", r, x), x, r, 1e-2*r, true, true)
		}
	}
}

// relRotatedSaddle is the paper's rotated saddle u² − w², u = (√3/2)h₀ + h₁/2,
// w = −h₀/2 + (√3/2)h₁, at a corner of the box h ∈ [−1, 0] × [−1, 0.5], r = 0.3.
func relRotatedSaddle() *relCase {
	c, s := math.Sqrt(3)/2, 0.5
	H := [][]float64{{2 * (c*c - s*s), 4 * c * s}, {4 * c * s, 2 * (s*s - c*c)}}
	return &relCase{
		q: relQuad{g: []float64{0, 0}, H: H},
		A: [][]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}},
		c: []float64{0, 1, 0.5, 1},
		x: []float64{0, 0}, r: 0.3, delta: 1e-3,
	}
}

// relJudge checks the escape e of variant bt of rc and returns its verdict and, when it is
// wrong, why: a move must be valid, and a certificate must not stand against a witness
// decrease w > δ/2 (w from bt.witness, exact), nor may an escape end undecided without a
// precision status.
func relJudge(rc *relCase, bt *relBuilt, e *houdini.EscapeResult, err error, w float64, withHess bool) (verdict, wrong string) {
	v := relVerdict(e, err)
	switch v {
	case "error":
		return v, fmt.Sprintf("Escape: %v", err)
	case "move":
		if why := bt.checkMove(rc, e.X, 1e-9); why != "" {
			return v, "invalid move: " + why
		}
	case "certified":
		model := 1e-9 // exact Hessian: the model is f
		if !withHess {
			model = 1e-6 // finite differences of exact gradients
		}
		if lim := 0.505*bt.delta + model*bt.obj*rc.q.size(rc.r); w > lim {
			return v, fmt.Sprintf("false certificate: a point of S within r (exactly feasible) is %.6g = %.2fδ lower", w, w/bt.delta)
		}
	case "undecided":
		return v, "neither a move, a certificate nor a precision status"
	}
	return v, ""
}

// TestNoFalseCertificateRotatedSaddleTranslated (issue 12, defect 1): the rotated saddle
// in its box, translated by t·1 for t = 0, 1e3 … 1e9 (the box's bounds stay exact).
// The point h = 0.3(1 − 1e-6)(−1/2, √3/2) of the box lowers f by r²(1 − 1e-6)² ≈ 90δ.
func TestNoFalseCertificateRotatedSaddleTranslated(t *testing.T) {
	skipPending(t)
	rc := relRotatedSaddle()
	h := []float64{-0.5 * rc.r * (1 - 1e-6), math.Sqrt(3) / 2 * rc.r * (1 - 1e-6)}
	for _, tt := range []float64{0, 1e3, 1e5, 1e6, 1e7, 1e8, 1e9} {
		for _, withHess := range []bool{true, false} {
			v := relVariant{name: fmt.Sprintf("t = %g", tt), t: tt, rowScale: 1, objScale: 1}
			bt, err := rc.build(v, withHess, true)
			if err != nil {
				t.Fatalf("%s: %v", v.name, err)
			}
			w := bt.witness(rc, h)
			if w < 80*rc.delta {
				t.Fatalf("%s: the witness does not verify (decrease %g)", v.name, w)
			}
			o, err := houdini.New(bt.p, bt.c, houdini.Settings{Delta: bt.delta, Radius: rc.r})
			if err != nil {
				t.Fatal(err)
			}
			e, err := o.Escape(context.Background(), bt.x)
			if _, wrong := relJudge(rc, bt, e, err, w, withHess); wrong != "" {
				t.Errorf("rotated saddle, %s, Hess %v: %s", v.name, withHess, wrong)
			}
		}
	}
}

// relDyadicCase draws a small quadratic escape problem whose data lie on dyadic grids —
// x on 2⁻¹⁰, rows on 2⁻¹¹ with |aᵢⱼ| < 1, slacks on 2⁻¹⁰ — so that b = A(x + t·1) + c is
// computed exactly for every t ≤ 1e8 with few significant bits (1eᵏ = 2ᵏ5ᵏ), and scaling
// rows or f by powers of two is exact: every variant is the same problem, exactly. d is 2
// or 3, up to 3 rows (half of them through x), r = 1. With saddle, H₀₀ ≤ −1 (negative
// curvature) and g = 0.
func relDyadicCase(rng *rand.Rand, saddle bool) *relCase {
	d := 2 + rng.IntN(2)
	grid := func(n int, scale float64) float64 { return float64(rng.IntN(2*n+1)-n) / scale }
	rc := &relCase{r: 1, x: make([]float64, d)}
	for j := range rc.x {
		rc.x[j] = grid(1024, 1024)
	}
	rc.q.g = make([]float64, d)
	if !saddle && rng.IntN(2) == 0 {
		for j := range rc.q.g {
			rc.q.g[j] = 0.3 * rng.NormFloat64()
		}
	}
	rc.q.H = make([][]float64, d)
	for i := range rc.q.H {
		rc.q.H[i] = make([]float64, d)
	}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := rng.NormFloat64()
			rc.q.H[i][j], rc.q.H[j][i] = v, v
		}
	}
	if saddle {
		rc.q.H[0][0] = -1 - rng.Float64()
	}
	k := rng.IntN(4)
	for len(rc.A) < k {
		a := make([]float64, d)
		for j := range a {
			a[j] = grid(2047, 2048)
		}
		if relNorm(a) < 0.1 {
			continue
		}
		c := 0.0
		if rng.IntN(2) == 0 {
			c = float64(1+rng.IntN(1536)) / 1024 * rc.r
		}
		rc.A = append(rc.A, a)
		rc.c = append(rc.c, c)
	}
	return rc
}

// relSetDelta sets δ from the brute-force decrease w0: w0/4 (a move must be found, any
// certificate is false) or 4·w0 (a certificate is plausible), or 1e-3 when w0 ≈ 0.
func relSetDelta(rc *relCase, w0 float64, wantMove bool) {
	switch {
	case w0 < 1e-9:
		rc.delta = 1e-3
	case wantMove:
		rc.delta = w0 / 4
	default:
		rc.delta = 4 * w0
	}
}

// TestNoFalseCertificateRandomSaddlesTranslated (issue 12, defect 1): 30 random small
// saddles (g = 0, negative curvature) with δ a quarter of the brute-force decrease, at x
// and translated by 1e8·1: a certificate is false in both.
func TestNoFalseCertificateRandomSaddlesTranslated(t *testing.T) {
	skipPending(t)
	rng := rand.New(rand.NewPCG(12, 1))
	ctx := context.Background()
	for i := 0; i < 30; i++ {
		rc := relDyadicCase(rng, true)
		w0, h := relBrute(rc.q, rc.A, rc.c, rc.r, rng, 3000)
		if w0 < 1e-9 {
			continue
		}
		relSetDelta(rc, w0, true)
		withHess := i%2 == 0
		for _, v := range []relVariant{relBase, {name: "t = 1e8", t: 1e8, rowScale: 1, objScale: 1}} {
			bt, err := rc.build(v, withHess, true)
			if err != nil {
				t.Fatalf("instance %d, %s: NewConstraints: %v", i, v.name, err)
			}
			if !bt.exact(rc, v) {
				t.Fatalf("instance %d, %s: b was rounded; the generator is wrong", i, v.name)
			}
			o, err := houdini.New(bt.p, bt.c, houdini.Settings{Delta: bt.delta, Radius: rc.r})
			if err != nil {
				t.Fatal(err)
			}
			e, err := o.Escape(ctx, bt.x)
			if _, wrong := relJudge(rc, bt, e, err, bt.witness(rc, h), withHess); wrong != "" {
				t.Errorf("saddle %d (d = %d, k = %d, Hess %v), %s: %s", i, len(rc.x), len(rc.A), withHess, v.name, wrong)
			}
		}
	}
}

// relVariants are the copies of each instance in the property test: translations by t·1
// up to 1e8 at fixed r, rows and objective rescaled by 2^±27 (≈ 1e∓8, powers of two so the
// copy is exact), and combinations.
var relVariants = []relVariant{
	{name: "t = 1e3", t: 1e3, rowScale: 1, objScale: 1},
	{name: "t = 1e5", t: 1e5, rowScale: 1, objScale: 1},
	{name: "t = 1e6", t: 1e6, rowScale: 1, objScale: 1},
	{name: "t = 1e7", t: 1e7, rowScale: 1, objScale: 1},
	{name: "t = 1e8", t: 1e8, rowScale: 1, objScale: 1},
	{name: "rows × 2^27", rowScale: 0x1p27, objScale: 1},
	{name: "rows × 2^-27", rowScale: 0x1p-27, objScale: 1},
	{name: "f × 2^27", rowScale: 1, objScale: 0x1p27},
	{name: "f × 2^-27", rowScale: 1, objScale: 0x1p-27},
	{name: "t = 1e8, rows × 2^-27, f × 2^27", t: 1e8, rowScale: 0x1p-27, objScale: 0x1p27},
	{name: "t = 1e8, rows × 2^27, f × 2^-27", t: 1e8, rowScale: 0x1p27, objScale: 0x1p-27},
}

// TestEscapeVerdictInvariantUnderTranslationAndScaling is the property test of issue 12
// ("make the class visible"): the same problem translated by t·1 (t up to 1e8 at fixed
// r = 1) and with rows and objective rescaled gives the same verdict as the untranslated
// one — a certificate, or a valid move — or an explicit precision status; never a
// certificate where the untranslated problem moves or where the brute force (relBrute,
// exactly re-checked in the copy) exhibits a decrease beyond δ/2. 200 seeded instances
// (60 under -short), δ set so the verdict is clear: half of them must move.
func TestEscapeVerdictInvariantUnderTranslationAndScaling(t *testing.T) {
	skipPending(t)
	n := 200
	if testing.Short() {
		n = 60
	}
	rng := rand.New(rand.NewPCG(12, 2))
	ctx := context.Background()
	counts := map[string]map[string]int{}
	failures := 0
	report := func(format string, args ...any) {
		failures++
		if failures <= 25 {
			t.Errorf(format, args...)
		}
	}
	for i := 0; i < n; i++ {
		rc := relDyadicCase(rng, i%3 != 0)
		w0, h := relBrute(rc.q, rc.A, rc.c, rc.r, rng, 3000)
		relSetDelta(rc, w0, i%2 == 0)
		withHess, withFunc := i%4 < 2, i%8 < 6
		tag := fmt.Sprintf("instance %d (d = %d, k = %d, Hess %v, Func %v, brute-force decrease %.3gδ)",
			i, len(rc.x), len(rc.A), withHess, withFunc, w0/rc.delta)
		run := func(v relVariant) (verdict, wrong string) {
			bt, err := rc.build(v, withHess, withFunc)
			if err != nil {
				t.Fatalf("%s, %s: NewConstraints: %v", tag, v.name, err)
			}
			if !bt.exact(rc, v) {
				t.Fatalf("%s, %s: b was rounded; the generator is wrong", tag, v.name)
			}
			o, err := houdini.New(bt.p, bt.c, houdini.Settings{Delta: bt.delta, Radius: rc.r})
			if err != nil {
				t.Fatal(err)
			}
			e, err := o.Escape(ctx, bt.x)
			return relJudge(rc, bt, e, err, bt.witness(rc, h), withHess)
		}
		base, wrong := run(relBase)
		if wrong != "" && base != "undecided" {
			report("%s, untranslated: %s", tag, wrong)
		}
		for _, v := range relVariants {
			got, wrong := run(v)
			if counts[v.name] == nil {
				counts[v.name] = map[string]int{}
			}
			counts[v.name][base+" → "+got]++
			switch {
			case got == "undecided" && base == "undecided": // the same verdict
			case wrong != "":
				report("%s, %s: %s", tag, v.name, wrong)
			case got == "certified" && base == "move":
				report("%s, %s: certified, but the untranslated problem has a valid move", tag, v.name)
			}
		}
	}
	for _, v := range relVariants {
		t.Logf("%-34s untranslated → copy: %v", v.name, counts[v.name])
	}
	if failures > 0 {
		t.Errorf("%d wrong outcomes (shown: the first 25) in %d copies of %d instances", failures, n*len(relVariants), n)
	}
}
