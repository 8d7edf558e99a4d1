package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// The Lanczos box certificate (facecert.go) against independent methods: internal/
// bruteforce's exhaustive minimum and the walk's escape on small box instances (where its
// run exhausts the space), and gonum's dense eigendecomposition on larger Hessians, where
// the run stops before the space is exhausted and the Kuczyński–Woźniakowski bound decides.

// faceTheta is hessStep's step for the instance's radius and point.
func faceTheta(in *bruteforce.Instance) float64 {
	scale := 1.0
	for _, x := range in.X {
		scale = math.Max(scale, math.Abs(x))
	}
	return math.Min(in.R/math.Sqrt(float64(in.Dim())), math.Sqrt(eps)*scale)
}

// faceCertOn runs faceCertifies on the instance (a quadratic: ρ = 0 in Taylor's bound)
// at δ with kmax steps.
func faceCertOn(t *testing.T, in *bruteforce.Instance, delta float64, kmax int, seed uint64) (ok bool, L1, fail float64) {
	c, err := NewBox(in.Lower, in.Upper)
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, in.Dim())
	in.Grad(g, in.X)
	grad := func(dst, y []float64) error { in.Grad(dst, y); return nil }
	ok, L1, fail, err = faceCertifies(c, in.X, g, grad, in.R, delta, 0, faceTheta(in), kmax, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return ok, L1, fail
}

// TestFaceCertAgainstBruteForce: on boxInstance's seeded box instances (bounds through
// X with multipliers of every size, near bounds, zero gradients, λ₁ about ±r⁻², repeated
// eigenvalues in the coordinate basis) at δ with δ/3 from 0.3 to 3 times the exhaustive
// minimum's depth, and at copies translated by 10³ and −10⁸ with f rescaled by 2^±20,
// every certificate of faceCertifies holds for the exhaustive minimum of q over
// S ∩ B(X, r) (to 10⁻⁹ of the model's scale), and the walk's escape (box certificate
// off, exact Hessian) certifies wherever it does.
func TestFaceCertAgainstBruteForce(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 300
	}
	disagree := 0
	certs, tight, falseCerts := limitSweep(t, n, rand.New(rand.NewPCG(15, 41)), "faceCertifies",
		func(i, ki, ci int, in, cp *bruteforce.Instance, limit float64) bool {
			ok, _, _ := faceCertOn(t, cp, 3*limit, cp.Dim(), uint64(i))
			if ok && ci == 0 && ki%2 == 0 {
				if walk, _ := boxEscape(t, in, 3*limit, true); !walk {
					disagree++
					t.Errorf("%s, δ = %g: faceCertifies certifies, the walk does not", in.Name, 3*limit)
				}
			}
			return ok
		})
	t.Logf("%d instances: %d certificates (%d within 1.2 of a negative minimum), %d false, %d where the walk does not certify",
		n, certs, tight, falseCerts, disagree)
	if certs < n/4 || tight < n/50 {
		t.Errorf("the test is too easy: %d certificates, %d of them tight", certs, tight)
	}
}

// spectrumInstance returns a d×d symmetric H = P·diag(λ)·Pᵀ whose spectrum is one of:
// λ₁ repeated, a cluster at λ₁ with a gap, a single λ₁ far below a dense bulk, evenly
// spread; λ₁ about −2τ… +10τ, the spread up to 10⁴τ.
func spectrumInstance(rng *rand.Rand, d int, tau float64) (*mat.SymDense, float64) {
	lam := make([]float64, d)
	l1 := pickF(rng, -2, -1.01, -0.5, -0.01, 0, 0.01, 0.5, 2, 10) * tau
	spread := pickF(rng, 1, 30, 1e3, 1e4) * tau
	kind := rng.IntN(4)
	for k := range d {
		switch kind {
		case 0: // λ₁ repeated d/3 times
			if k < d/3+1 {
				lam[k] = l1
			} else {
				lam[k] = l1 + spread*rng.Float64()
			}
		case 1: // a cluster just above λ₁
			lam[k] = l1 + spread*(1e-6*rng.Float64()+float64(k/(d/2+1)))
		case 2: // one low eigenvalue, the bulk far above
			lam[k] = l1 + spread*(0.5+0.5*rng.Float64())
		default:
			lam[k] = l1 + spread*float64(k)/float64(d-1)
		}
	}
	lam[0] = l1
	P := randOrth(rng, d)
	var PL, H mat.Dense
	PL.Apply(func(_, j int, v float64) float64 { return v * lam[j] }, P)
	H.Mul(&PL, P.T())
	S := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			S.SetSym(i, j, 0.5*(H.At(i, j)+H.At(j, i)))
		}
	}
	var eig mat.EigenSym
	eig.Factorize(S, false)
	return S, eig.Values(nil)[0]
}

// TestFaceCertLanczosAgainstEigen: at d = 20…60 with kmax below d (the bound is
// Kuczyński–Woźniakowski's, not an exhausted space), on spectra with repeated, clustered
// and isolated λ₁ about −2τ…10τ (spectrumInstance) and gradients 0 at x, 20 random
// starts each: the bound L₁ that faceCertifies reaches is below λ₁ from gonum's
// EigenSym every time (its failure probability is 10⁻⁶), and each certificate has
// λ₁ ≥ −τ.
func TestFaceCertLanczosAgainstEigen(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 150
	}
	rng := rand.New(rand.NewPCG(15, 42))
	runs, bounded, certs, above, falseCerts := 0, 0, 0, 0, 0
	for i := range n {
		d := []int{20, 40, 60}[i%3]
		r, delta := 0.01, 1e-6
		tau := 2 * (delta / 3) / (r * r)
		H, lam1 := spectrumInstance(rng, d, tau)
		x := make([]float64, d)
		lower, upper := make([]float64, d), make([]float64, d)
		for j := range d {
			x[j] = rng.Float64()
			lower[j], upper[j] = math.Inf(-1), math.Inf(1)
		}
		c, err := NewBox(lower, upper)
		if err != nil {
			t.Fatal(err)
		}
		grad := func(dst, y []float64) error {
			for p := range d {
				s := 0.0
				for q := range d {
					s += H.At(p, q) * (y[q] - x[q])
				}
				dst[p] = s
			}
			return nil
		}
		g := make([]float64, d)
		for s := range 20 {
			kmax := d - 1 - rng.IntN(d/2)
			ok, L1, _, err := faceCertifies(c, x, g, func(dst, y []float64) error { return grad(dst, y) }, r, delta, 0,
				math.Sqrt(eps), kmax, rand.New(rand.NewPCG(uint64(i), uint64(s))))
			if err != nil {
				t.Fatal(err)
			}
			runs++
			if math.IsInf(L1, -1) {
				continue
			}
			bounded++
			if L1 > lam1+1e-9*math.Abs(lam1)+1e-12*tau {
				above++
				t.Errorf("instance %d (d = %d, kmax = %d): L₁ = %g above λ₁ = %g", i, d, kmax, L1, lam1)
			}
			if ok {
				certs++
				if lam1 < -tau {
					falseCerts++
					t.Errorf("instance %d: certified with λ₁ = %g < −τ = %g", i, lam1, -tau)
				}
			}
		}
	}
	t.Logf("%d runs: %d reached a finite bound, %d above λ₁; %d certificates, %d false", runs, bounded, above, certs, falseCerts)
	if bounded < runs/6 || certs < runs/8 {
		t.Errorf("the test is too easy: %d bounds, %d certificates of %d runs", bounded, certs, runs)
	}
}

// TestFaceCertEscapeAgainstModel: at d = 700 (the Lanczos certificate on), quadratics in
// a box with a tridiagonal Hessian, bounds through x with multipliers ≥ 0 and λ₁ from
// −3τ to 1 (set through LAPACK's Dsterf): where λ₁ ≥ 0.1 (condition numbers up to 60)
// the escape is certified by the
// Lanczos run (fewer than 100 gradient calls, Confidence 1 − 10⁻⁶) and by the
// finite-difference model (the same escape with the Lanczos certificate off); where
// λ₁ < −τ faceCertifies certifies nothing.
func TestFaceCertEscapeAgainstModel(t *testing.T) {
	const d, r, delta = 700, 0.01, 1e-6
	tau := 2 * (delta / 3) / (r * r)
	rng := rand.New(rand.NewPCG(15, 43))
	for i, shift := range []float64{1, 0.1, 100 * tau, -1.5 * tau, -3 * tau, -0.1} {
		H := mat.NewSymDense(d, nil)
		for j := range d {
			H.SetSym(j, j, 2+rng.Float64())
			if j+1 < d {
				H.SetSym(j, j+1, -1+0.2*rng.Float64())
			}
		}
		diag, off := make([]float64, d), make([]float64, d-1)
		for j := range d {
			diag[j] = H.At(j, j)
			if j+1 < d {
				off[j] = H.At(j, j+1)
			}
		}
		if !(gonum.Implementation{}).Dsterf(d, diag, off) {
			t.Fatal("Dsterf failed")
		}
		lam0 := diag[0]
		for j := range d { // λ₁(H) = shift
			H.SetSym(j, j, H.At(j, j)-lam0+shift)
		}
		x, g := make([]float64, d), make([]float64, d)
		lower, upper := make([]float64, d), make([]float64, d)
		for j := range d {
			x[j] = rng.Float64()
			lower[j], upper[j] = x[j]-1, x[j]+1
			switch rng.IntN(8) {
			case 0:
				lower[j], g[j] = x[j], rng.Float64()*pickF(rng, 0, 1e-3, 1)
			case 1:
				upper[j], g[j] = x[j], -rng.Float64()*pickF(rng, 0, 1e-3, 1)
			}
		}
		grad := func(dst, y []float64) {
			for p := range d {
				s := g[p] + H.At(p, p)*(y[p]-x[p])
				if p > 0 {
					s += H.At(p-1, p) * (y[p-1] - x[p-1])
				}
				if p+1 < d {
					s += H.At(p, p+1) * (y[p+1] - x[p+1])
				}
				dst[p] = s
			}
		}
		fn := func(y []float64) float64 {
			h := make([]float64, d)
			for p := range d {
				h[p] = y[p] - x[p]
			}
			Hh := mat.NewVecDense(d, nil)
			Hh.MulVec(H, mat.NewVecDense(d, h))
			return dot(g, h) + 0.5*dot(h, Hh.RawVector().Data)
		}
		c, err := NewBox(lower, upper)
		if err != nil {
			t.Fatal(err)
		}
		if shift < -tau {
			ok, _, _, err := faceCertifies(c, x, g, func(dst, y []float64) error { grad(dst, y); return nil }, r, delta,
				0, math.Sqrt(eps), faceCertMaxSteps, rand.New(rand.NewPCG(uint64(i), 2)))
			if err != nil || ok {
				t.Errorf("instance %d: λ₁ = %g < −τ = %g, faceCertifies %v (%v)", i, shift, -tau, ok, err)
			}
			continue
		}
		for _, noFace := range []bool{false, true} {
			o, err := New(Problem{Func: fn, Grad: grad}, c, Settings{Delta: delta, Radius: r})
			if err != nil {
				t.Fatal(err)
			}
			o.test.noFaceCert = noFace
			e, err := o.Escape(context.Background(), x)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case !e.Certified:
				t.Errorf("instance %d (λ₁ = %g, Lanczos certificate off: %v): not certified", i, shift, noFace)
			case !noFace && (e.GradEvals >= 100 || e.Confidence != 1-faceCertFailProb):
				t.Errorf("instance %d (λ₁ = %g): %d gradient calls, Confidence %v", i, shift, e.GradEvals, e.Confidence)
			case noFace && e.Confidence != 1:
				t.Errorf("instance %d (λ₁ = %g): the model's certificate has Confidence %v", i, shift, e.Confidence)
			}
		}
	}
}
