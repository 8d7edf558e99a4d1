package houdini

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/mat"
)

// TestSpectrumBounds checks spectrumBounds against EigenSym on seeded symmetric matrices:
// L₁ ≤ λ₁ and Λ ≥ λ_n on every instance (the failure probability, 10⁻⁶ a run, never
// shows in a few hundred), exact runs at small d give the extreme eigenvalues, and the
// bounds are within spectrumRelTol of the Ritz values when the run stopped early.
func TestSpectrumBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 120
	if testing.Short() {
		n = 36
	}
	var early int
	for i := range n {
		d := []int{1, 3, 8, 40, 120, 400}[i%6]
		A := mat.NewSymDense(d, nil)
		for a := range d {
			for b := a; b < d; b++ {
				A.SetSym(a, b, rng.NormFloat64())
			}
		}
		if i%4 == 1 { // a PSD or NSD matrix shifted: one-sided spectra
			var B mat.SymDense
			B.SymOuterK(1, A)
			B.ScaleSym([]float64{1, -1}[rng.IntN(2)]/float64(d), &B)
			A = &B
		}
		if i%4 == 2 { // an isolated extreme eigenvalue, hard for a random start
			u := make([]float64, d)
			u[rng.IntN(d)] = 1
			A.SymRankOne(A, -3*math.Sqrt(float64(d)), mat.NewVecDense(d, u))
		}
		var eig mat.EigenSym
		if !eig.Factorize(A, false) {
			t.Fatal("EigenSym failed")
		}
		lam := eig.Values(nil)
		op := faceOp{
			mul:  func(dst, y []float64) { mat.NewVecDense(d, dst).MulVec(A, mat.NewVecDense(d, y)) },
			proj: func([]float64) {},
			m:    d,
			err:  func() error { return nil },
		}
		z := make([]float64, d)
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		lo, hi, exact := spectrumBounds(op, z, spectrumMaxSteps, rng)
		scale := math.Max(math.Abs(lam[0]), math.Abs(lam[d-1]))
		tol := 1e-10 * scale
		if lo > lam[0]+tol || hi < lam[d-1]-tol {
			t.Errorf("instance %d (d=%d): bounds [%g, %g] do not hold λ₁ = %g, λ_n = %g (exact %v)", i, d, lo, hi, lam[0], lam[d-1], exact)
		}
		if exact && (math.Abs(lo-lam[0]) > 1e-8*scale || math.Abs(hi-lam[d-1]) > 1e-8*scale) {
			t.Errorf("instance %d (d=%d): exact run [%g, %g] but λ = [%g, %g]", i, d, lo, hi, lam[0], lam[d-1])
		}
		if !exact {
			early++
			if hi-lo > (lam[d-1]-lam[0])*(1+4*spectrumRelTol)+tol && !math.IsInf(lo, -1) {
				t.Errorf("instance %d (d=%d): bounds [%g, %g] looser than asked around [%g, %g]", i, d, lo, hi, lam[0], lam[d-1])
			}
		}
	}
	if early == 0 {
		t.Error("no run stopped early: the test does not reach the probabilistic bounds")
	}
}

// TestForcedSpectrumShortcut is TestForcedShortcutAdversarial for the sharper threshold
// of forcedCostsCoords, c = ρ·√(‖M‖₂² + ¼·max(0, −λ₁)²): matrix-free escapes at box
// vertices (and vertices with free coordinates), d ≤ 6 (spectrumBounds exhausts ℝᵈ, so
// the shortcut is on), multipliers at f·c for f around 1 and at f·ρ·‖Meⱼ‖ (the product's
// own threshold), translated by 10⁸ on a fifth of them and with ρ from 10⁻² to 10², against
// the exhaustive minimum of internal/bruteforce: a certificate must mean min ≥ −δ/2.
func TestForcedSpectrumShortcut(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var certs, falseCerts, escapes, forced int
	for i := range n {
		d := 1 + rng.IntN(6)
		R := []float64{1, 0.01, 100}[i%3]
		in := &bruteforce.Instance{X: make([]float64, d), G: make([]float64, d), Lower: make([]float64, d), Upper: make([]float64, d), R: R}
		lam := make([]float64, d)
		for k := range lam {
			lam[k] = rng.Float64()*6 - 3
		}
		switch i % 4 {
		case 0: // repeated, of both signs
			for k := range lam {
				lam[k] = lam[0] * float64(1-2*(k%2))
			}
		case 1: // negative definite: the curvature term decides
			for k := range lam {
				lam[k] = -math.Abs(lam[k])
			}
		}
		L, l1 := spectralModel(in, randOrth(rng, d), lam)
		c := R * math.Hypot(L, 0.5*l1)
		boundVertex(rng, in, i, L, func(j int) float64 {
			f := []float64{0.01, 0.3, 0.4, 0.45, 0.5, 0.6, 0.7, 0.9, 0.999, 1 + 2e-9, 1 + 1e-8, 1.01, 1.2, 3}[rng.IntN(14)]
			if rng.IntN(3) == 0 { // near the product's threshold instead
				col := 0.0
				for k := range d {
					col += in.Q[k][j] * in.Q[k][j]
				}
				return f * R * math.Hypot(math.Sqrt(col), 0.5*math.Max(0, -in.Q[j][j]))
			}
			return f * c
		})
		v := forcedVertexEscapes(t, i, in, L)
		escapes, certs, falseCerts, forced = escapes+v.escapes, certs+v.certs, falseCerts+v.falseCerts, forced+v.forced
	}
	if certs == 0 || forced == 0 {
		t.Errorf("%d certificates, %d forced rows: the test decides nothing", certs, forced)
	}
	t.Logf("%d escapes, %d certified, %d forced rows, %d false", escapes, certs, forced, falseCerts)
}
