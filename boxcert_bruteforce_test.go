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

// The box certificate (boxcert.go) against internal/bruteforce: on seeded box instances
// built to sit near its thresholds — bounds through x with multipliers about the forced
// rule's costs, faces whose least eigenvalue is about −limit/r², near bounds, gradients
// about limit/r — every bound boxCertifies proves must hold for the exhaustive minimum
// of the model over S ∩ B(x, r), at the instance and at translated and rescaled copies;
// and every escape it certifies must be one that the walk would certify.

// boxInstance returns a seeded box instance: coordinates at a lower or upper bound, free
// (bounds beyond r or none), or with one or two bounds within r; Q with least
// eigenvalue λ₁ about ±r⁻² (in a random or the coordinate basis); G with multipliers
// on the bounds through X about the forced rule's costs, and small or zero elsewhere.
func boxInstance(rng *rand.Rand, i int) *bruteforce.Instance {
	d := 1 + rng.IntN(6)
	R := []float64{1, 0.01, 0.25}[i%3]
	ref := 1 / (R * R) // curvature scale: a decrease of about 1 over B(0, R)
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	dy := func(v float64) float64 { return math.Round(v*(1<<20)) / (1 << 20) }
	in := &bruteforce.Instance{Name: fmt.Sprintf("box %d, d=%d r=%g", i, d, R), X: make([]float64, d),
		G: make([]float64, d), Lower: make([]float64, d), Upper: make([]float64, d), R: R}
	lam := make([]float64, d)
	lam[0] = pick(-1, -0.6, -0.3, -0.1, -0.01, 0, 0.2, 1) * ref
	spread := pick(0.1, 1, 10, 300) * ref
	for k := 1; k < d; k++ {
		lam[k] = lam[0] + spread*rng.Float64()
	}
	Q := mat.NewDense(d, d, nil)
	if rng.IntN(3) == 0 {
		for k := range d {
			Q.Set(k, k, lam[k])
		}
	} else {
		P := randOrth(rng, d)
		var PL mat.Dense
		PL.Apply(func(_, j int, v float64) float64 { return v * lam[j] }, P)
		Q.Mul(&PL, P.T())
	}
	for k := range d {
		in.Q = append(in.Q, make([]float64, d))
		for j := range d {
			in.Q[k][j] = 0.5 * (Q.At(k, j) + Q.At(j, k))
		}
	}
	if i%4 == 3 { // the couplings alone: leaving two bounds together gains what one cannot
		for k := range d {
			in.Q[k][k] *= pick(0, 0.1)
		}
	}
	for j := range d {
		x := dy(4*rng.Float64() - 2)
		in.X[j] = x
		in.Lower[j], in.Upper[j] = math.Inf(-1), math.Inf(1)
		near := func() float64 { return dy(R * rng.Float64()) }
		colNorm := 0.0
		for k := range d {
			colNorm += in.Q[j][k] * in.Q[j][k]
		}
		mu := pick(0, 1e-6, 0.3, 0.8, 1.2, 3, 30) * R * math.Sqrt(colNorm)
		kind := rng.IntN(6)
		if i%4 == 3 && rng.IntN(4) > 0 {
			kind = rng.IntN(2) // mostly bounds through X, where the couplings count
			mu = pick(0.05, 0.2, 0.5) * R * math.Sqrt(colNorm)
		}
		switch kind {
		case 0: // at the lower bound, multiplier mu (or pointing inside)
			in.Lower[j], in.Upper[j] = x, x+pick(2*R, R/2, math.Inf(1))
			in.G[j] = pick(mu, mu, mu, -1e-3/R)
		case 1: // at the upper bound
			in.Lower[j], in.Upper[j] = x-pick(2*R, R/3, math.Inf(1)), x
			in.G[j] = -pick(mu, mu, mu, -1e-3/R)
		case 2: // free
			in.Lower[j], in.Upper[j] = x-2*R, x+pick(3*R, math.Inf(1))
			in.G[j] = pick(0, 0, 1e-3, -0.05, 0.3) / R
		case 3: // one bound within r
			in.Lower[j] = x - near()
			in.G[j] = pick(0, 1e-3, -0.05, 0.3) / R
		default: // two bounds within r
			in.Lower[j], in.Upper[j] = x-near(), x+near()
			in.G[j] = pick(0, 1e-3, -0.05) / R
		}
	}
	return in
}

// boxScale is the instance's model scale ‖G‖R + d·max|Qᵢⱼ|R², for slacks.
func boxScale(in *bruteforce.Instance) float64 {
	m := 0.0
	for _, row := range in.Q {
		for _, q := range row {
			m = math.Max(m, math.Abs(q))
		}
	}
	return norm(in.G)*in.R + float64(in.Dim())*m*in.R*in.R
}

// boxModel returns the exact model of the instance at its X, and its box.
func boxModel(t *testing.T, in *bruteforce.Instance) (*quadModel, *Constraints) {
	d := in.Dim()
	M := mat.NewSymDense(d, nil)
	for k := range d {
		for j := k; j < d; j++ {
			M.SetSym(k, j, in.Q[k][j])
		}
	}
	c, err := NewBox(in.Lower, in.Upper)
	if err != nil {
		t.Fatalf("%s: NewBox: %v", in.Name, err)
	}
	return &quadModel{v: append([]float64(nil), in.G...), M: M}, c
}

// TestBoxCertifiesAgainstBruteForce: boxCertifies's bound at limits 0.3 to 3 times the
// exhaustive minimum's depth, at the instance and at copies translated by up to 10⁸ with
// f rescaled by 2^±20, is never above the minimum (to 10⁻⁹ of the model's scale).
func TestBoxCertifiesAgainstBruteForce(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 600
	}
	certs, tight, falseCerts := limitSweep(t, n, rand.New(rand.NewPCG(15, 4)), "boxCertifies",
		func(_, _, _ int, _, cp *bruteforce.Instance, limit float64) bool {
			mod, c := boxModel(t, cp)
			ok, _, _ := boxCertifies(c, cp.X, mod, cp.R, limit)
			return ok
		})
	t.Logf("%d instances: %d bounds proved (%d within 1.2 of a negative minimum), %d false", n, certs, tight, falseCerts)
	if certs < n/4 || tight < n/50 {
		t.Errorf("the test is too easy: %d bounds proved, %d of them tight", certs, tight)
	}
}

// TestBoxCertificateEscapeAgainstWalk: escapes with the exact Hessian on the same
// instances and at copies translated by 10⁶ and −10⁸ with f rescaled by 2^±20, δ set so
// that the exhaustive minimum is −δ/5 to −2δ: no certificate where the minimum (of the
// untranslated instance) is below −δ/2, and wherever the box certificate decides, the walk (box
// certificate off) certifies too and finds no move.
func TestBoxCertificateEscapeAgainstWalk(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(15, 5))
	byBox, disagree := 0, 0
	for i := range n {
		in := boxInstance(rng, i)
		truth := bruteforce.Min(in.Problem()).Value
		depth := math.Max(math.Max(-truth, 1e-3*boxScale(in)), 1e-9)
		for _, k := range []float64{0.5, 1.9, 2.1, 5} {
			delta := k * depth
			cert, box := boxEscape(t, in, delta, false)
			if cert && truth < -delta/2-1e-9*boxScale(in) {
				t.Errorf("%s, δ = %g: false certificate: the model reaches %g < −δ/2", in.Name, delta, truth)
			}
			for ci, sc := range []float64{0x1p20, 0x1p-20} { // translated and rescaled copies
				cp := in.Transform([]float64{1e6, -1e8}[ci], 1, sc)
				if c, _ := boxEscape(t, cp, sc*delta, false); c && truth < -delta/2-1e-9*boxScale(in) {
					t.Errorf("%s, δ = %g: false certificate: the model reaches %g < −δ/2", cp.Name, delta, truth)
				}
			}
			if !box {
				continue
			}
			byBox++
			if walkCert, _ := boxEscape(t, in, delta, true); !walkCert {
				disagree++
				t.Errorf("%s, δ = %g: the box certificate decides, the walk does not certify (minimum %g)", in.Name, delta, truth)
			}
		}
	}
	t.Logf("%d instances × 4 δ: %d certificates by the box test, %d where the walk disagrees", n, byBox, disagree)
	if byBox < n/4 {
		t.Errorf("the test is too easy: %d box certificates", byBox)
	}
}

// boxEscape runs one escape of the instance at δ with the exact Hessian; box reports a
// certificate by the box test (off with noBox).
func boxEscape(t *testing.T, in *bruteforce.Instance, delta float64, noBox bool) (cert, box bool) {
	c, err := NewBox(in.Lower, in.Upper)
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{Func: in.Func, Grad: in.Grad, Hess: func(H *mat.SymDense, _ []float64) {
		for k := range in.Q {
			for j := k; j < len(in.Q); j++ {
				H.SetSym(k, j, in.Q[k][j])
			}
		}
	}}
	o, err := New(p, c, Settings{Delta: delta, Radius: in.R, MaxSubsets: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	o.setNoBoxCert(noBox)
	e, err := o.Escape(context.Background(), in.X)
	if err != nil {
		t.Fatalf("%s: %v", in.Name, err)
	}
	return e.Certified, e.Certified && e.Walked == 0 && e.Examined == 1 && !noBox
}

// TestFaceAboveAgainstEigen: faceAbove, banded (n ≥ 8(b + 1)) and dense, on random
// symmetric band matrices shifted so that λ₁ = −c·τ: it proves M_ZZ ⪰ −τI for
// c ≤ 0.999 and for no c > 1 (c = 1 ± 10⁻⁵ included; λ₁ from gonum's EigenSym), on a
// face Z of all coordinates and on one that skips every third.
func TestFaceAboveAgainstEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 6))
	checked := 0
	for trial := range 400 {
		n := []int{5, 40, 200}[trial%3]
		b := []int{0, 1, 2, 4, n}[rng.IntN(5)]
		M := mat.NewSymDense(n, nil)
		for p := range n {
			for q := p; q < n && q <= p+b; q++ {
				M.SetSym(p, q, rng.NormFloat64()*pickF(rng, 1, 100))
			}
		}
		Z := make([]int, 0, n)
		for p := range n {
			if trial%2 == 0 || p%3 != 1 {
				Z = append(Z, p)
			}
		}
		sub := mat.NewSymDense(len(Z), nil)
		for p := range Z {
			for q := p; q < len(Z); q++ {
				sub.SetSym(p, q, M.At(Z[p], Z[q]))
			}
		}
		var es mat.EigenSym
		if !es.Factorize(sub, false) {
			t.Fatal("EigenSym failed")
		}
		lam1 := es.Values(nil)[0]
		tau := pickF(rng, 1e-3, 1, 100)
		c := []float64{0.5, 0.999, 1 - 1e-5, 1 + 1e-5, 1.001, 2}[rng.IntN(6)]
		for p := range n {
			M.SetSym(p, p, M.At(p, p)-lam1-c*tau)
		}
		if got := faceAbove(M.At, Z, b, tau); (got && c > 1) || (!got && c < 0.9999) {
			t.Errorf("n = %d, b = %d, |Z| = %d: λ₁ = −%g·τ, τ = %g: faceAbove %v", n, b, len(Z), c, tau, got)
		}
		checked++
	}
	t.Logf("%d matrices", checked)
}

func pickF(rng *rand.Rand, xs ...float64) float64 { return xs[rng.IntN(len(xs))] }

// TestBandProduct: bandProduct's products agree with gonum's dense ones on random band
// matrices, and it declines a band wider than d/8.
func TestBandProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	for trial := range 60 {
		d := []int{16, 100, 400}[trial%3]
		b := []int{0, 1, 3, d / 8, d / 4}[rng.IntN(5)]
		M := mat.NewSymDense(d, nil)
		for p := range d {
			for q := p; q < d && q <= p+b; q++ {
				M.SetSym(p, q, rng.NormFloat64())
			}
		}
		mul := bandProduct(M, []int{-1, b}[trial%2])
		if (mul != nil) != ((b+1)*8 <= d) {
			t.Fatalf("d = %d, b = %d: banded %v", d, b, mul != nil)
		}
		if mul == nil {
			continue
		}
		v, got := make([]float64, d), make([]float64, d)
		for k := range v {
			v[k] = rng.NormFloat64()
		}
		mul(got, v)
		var want mat.VecDense
		want.MulVec(M, mat.NewVecDense(d, v))
		for k := range got {
			if math.Abs(got[k]-want.AtVec(k)) > 1e-12*(1+math.Abs(want.AtVec(k))) {
				t.Fatalf("d = %d, b = %d: (Mv)[%d] = %g, gonum %g", d, b, k, got[k], want.AtVec(k))
			}
		}
	}
}
