package houdini

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSubspaceOrthonormal: O (the columns point(eᵢ)) is orthonormal and orthogonal to
// the basis, and project and projectDiag both give OᵀΛO, for random bases and for bases
// of signed unit vectors (bounds' normals, whose reflectors are often trivial, τ = 0),
// d up to 80. Before subspace.apply used dorm2r, gonum's blocked dormqr failed the first
// check for 42 unit vectors in dimension 45 (‖OᵀO − I‖ = 2).
func TestSubspaceOrthonormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 3))
	for trial := 0; trial < 300; trial++ {
		d := 2 + rng.IntN(79)
		k := 1 + rng.IntN(d-1)
		if trial == 0 {
			d, k = 45, 42
		}
		basis := make([][]float64, k)
		for j := range basis {
			u := make([]float64, d)
			if trial%3 == 0 { // a bound's normal ±e_c
				u[(j*7+trial)%d] = []float64{1, -1}[j%2]
			} else {
				for i := range u {
					u[i] = rng.NormFloat64()
				}
			}
			basis[j] = u
		}
		lam := make([]float64, d)
		scale := 0.0
		for i := range lam {
			lam[i] = 10 * rng.NormFloat64()
			scale = math.Max(scale, math.Abs(lam[i]))
		}
		diag := mat.NewSymDense(d, nil)
		for i, l := range lam {
			diag.SetSym(i, i, l)
		}
		sp := newSubspace(basis, d)
		m := d - k
		O := make([][]float64, m)
		for i := range O {
			y := make([]float64, m)
			y[i] = 1
			O[i] = sp.point(y)
		}
		for i := range O {
			for j := range O {
				want := 0.0
				if i == j {
					want = 1
				}
				if diff := math.Abs(dot(O[i], O[j]) - want); diff > 1e-12 {
					t.Fatalf("trial %d (d %d, t %d): OᵀO[%d,%d] off I by %g", trial, d, k, i, j, diff)
				}
			}
			for j, u := range basis {
				if a := math.Abs(dot(O[i], u)); a > 1e-12*norm(u) {
					t.Fatalf("trial %d (d %d, t %d): column %d of O meets basis vector %d: %g", trial, d, k, i, j, a)
				}
			}
		}
		got := sp.projectDiag(lam)
		proj := newSubspace(basis, d).project(diag)
		for i := 0; i < m; i++ {
			for j := i; j < m; j++ {
				want := 0.0
				for l := 0; l < d; l++ {
					want += O[i][l] * lam[l] * O[j][l]
				}
				tol := 1e-12 * scale * float64(d)
				if math.Abs(got.At(i, j)-want) > tol || math.Abs(proj.At(i, j)-want) > tol {
					t.Fatalf("trial %d (d %d, t %d): M′[%d,%d]: projectDiag %g, project %g, OᵀΛO %g",
						trial, d, k, i, j, got.At(i, j), proj.At(i, j), want)
				}
			}
		}
	}
}
