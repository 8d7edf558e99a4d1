package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFindInsideSubnormalGradient: an escape at a point whose gradient is subnormal
// (‖g‖ ≈ 10⁻³¹⁰, so 1/‖g‖ and r/‖g‖ overflow) returns a finite, feasible X and the verdict
// of the same escape with the gradient set to 0 and with it scaled to 10⁻²⁰⁰ (normal,
// equally negligible): the large-gradient candidate −r·g/‖g‖ (findInside, the corner
// examiner) and the Lanczos run from the gradient (findInsideKrylov) once made it ±Inf or
// NaN. Paths: the default (eigenbasis) walk, the reference walk, the matrix-free Krylov
// walk and the corner method; saddles (a decrease to find) and convex points (a
// certificate), with rows through x and bounds.
func TestFindInsideSubnormalGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1310))
	ctx := context.Background()
	paths := []string{"default", "reference", "krylov", "corner"}
	n := 0
	for k := 0; k < 24; k++ {
		d := 3 + k%4
		saddle := k%2 == 0
		M := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			M.SetSym(i, i, 1+rng.Float64())
		}
		if saddle {
			M.SetSym(0, 0, -1)
		}
		dir := make([]float64, d)
		for i := range dir {
			dir[i] = rng.NormFloat64()
		}
		A := mat.NewDense(2, d, nil)
		for i := 0; i < 2; i++ {
			for j := 0; j < d; j++ {
				A.Set(i, j, rng.NormFloat64())
			}
		}
		lo, hi := make([]float64, d), make([]float64, d)
		for i := range lo {
			lo[i], hi[i] = -1, 1
		}
		c, err := NewPolyhedron(Polyhedron{Lower: lo, Upper: hi, A: A, B: make([]float64, 2)})
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			var ref *EscapeResult
			for _, gs := range []float64{0, 1e-200, 1e-310} {
				g := make([]float64, d)
				for i := range g {
					g[i] = gs * dir[i]
				}
				p := Problem{
					Func: func(x []float64) float64 {
						xv := mat.NewVecDense(d, x)
						return dot(g, x) + 0.5*mat.Inner(xv, M, xv)
					},
					Grad: func(gr, x []float64) {
						mat.NewVecDense(d, gr).MulVec(M, mat.NewVecDense(d, x))
						axpy(gr, 1, g)
					},
				}
				s := Settings{Delta: 1e-2, Radius: 0.5}
				if path != "krylov" {
					p.Hess = func(h *mat.SymDense, _ []float64) { h.CopySym(M) }
				}
				if path == "corner" {
					s.Method = MethodCorner
					s.Corner.L = 4
				}
				o, err := New(p, c, s)
				if err != nil {
					t.Fatal(err)
				}
				o.setReferenceEscape(path == "reference")
				if path == "krylov" {
					o.setMatrixFree(true, -1)
				}
				x := make([]float64, d)
				e, err := o.Escape(ctx, x)
				if err != nil {
					t.Fatalf("case %d, %s, |g| %g: %v", k, path, gs, err)
				}
				if allFinite(e.X) >= 0 || math.IsNaN(e.Decrease) || math.IsInf(e.Decrease, 0) || math.IsNaN(e.ModelDecrease) || math.IsInf(e.ModelDecrease, 0) {
					t.Errorf("case %d, %s, |g| %g: non-finite result X %v, decrease %g, model decrease %g", k, path, gs, e.X, e.Decrease, e.ModelDecrease)
					continue
				}
				if row, v := c.Violation(e.X); v > 1e-9 {
					t.Errorf("case %d, %s, |g| %g: X violates row %d by %g", k, path, gs, row, v)
				}
				if ref == nil {
					ref = e
					continue
				}
				n++
				if e.Found != ref.Found || e.Certified != ref.Certified {
					t.Errorf("case %d, %s (saddle %v): |g| %g gives found %v certified %v, g = 0 gives %v %v",
						k, path, saddle, gs, e.Found, e.Certified, ref.Found, ref.Certified)
				}
			}
			if saddle && !ref.Found || !saddle && path != "corner" && !ref.Certified {
				t.Errorf("case %d, %s (saddle %v): g = 0 gives found %v certified %v", k, path, saddle, ref.Found, ref.Certified)
			}
		}
	}
	t.Logf("%d escapes compared with g = 0", n)
	// findInside itself, on the dense backend: every candidate and lower finite, and the
	// large-gradient candidate on the sphere along −g.
	for k := 0; k < 50; k++ {
		m := 1 + k%5
		Q := randOrth(rng, m)
		lam, vt := make([]float64, m), make([]float64, m)
		for i := range lam {
			lam[i], vt[i] = rng.NormFloat64(), 1e-310*rng.NormFloat64()
		}
		M, v := fromSpectrum(Q, lam, vt)
		rs := math.Exp(4*rng.Float64() - 2)
		cands, lower, ok := findInsideDense(ctx, M, v, rs, 0, math.Inf(1))
		if !ok || math.IsNaN(lower) || math.IsInf(lower, 1) {
			t.Errorf("dense %d: ok %v, lower %g", k, ok, lower)
		}
		for _, cd := range cands {
			if allFinite(cd.y) >= 0 || math.IsNaN(cd.q) || math.IsInf(cd.q, 0) || norm(cd.y) > rs*(1+1e-12) {
				t.Errorf("dense %d: candidate %v (%v) with value %g", k, cd.y, cd.kase, cd.q)
			}
			if cd.kase == CaseLargeGradient && math.Abs(dot(cd.y, v)+rs*norm(v)) > 1e-12*rs*norm(v) {
				t.Errorf("dense %d: the large-gradient candidate %v is not −r′v/‖v‖", k, cd.y)
			}
		}
	}
}
