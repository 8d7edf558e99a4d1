package houdini

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSubspaceOrthonormal: O (the columns point(eᵢ)) is orthonormal and orthogonal to
// the basis, and project and reflectorChain.project both give OᵀΛO, for random bases and for bases
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
		ch := newReflectorChain(lam)
		for _, u := range basis {
			ch.push(u)
		}
		got := ch.project(k)
		proj := newSubspace(basis, d).project(diag)
		for i := 0; i < m; i++ {
			for j := i; j < m; j++ {
				want := 0.0
				for l := 0; l < d; l++ {
					want += O[i][l] * lam[l] * O[j][l]
				}
				tol := 1e-12 * scale * float64(d)
				if math.Abs(got.At(i, j)-want) > tol || math.Abs(proj.At(i, j)-want) > tol {
					t.Fatalf("trial %d (d %d, t %d): M′[%d,%d]: reflectorChain %g, project %g, OᵀΛO %g",
						trial, d, k, i, j, got.At(i, j), proj.At(i, j), want)
				}
			}
		}
	}
}

// TestReflectorChainWalk follows a walk's stack: random pushes and pops (signed unit
// vectors, random vectors, orthonormal ones as the walk's, repeated and dependent ones),
// and at every level checks the chain against an independent subspace of the same
// columns: O_t = point(t, ·) orthonormal and orthogonal to the columns, coords(t, g) = O_tᵀg,
// and project(t) = O_tᵀΛO_t within rounding, whether T_t came from its parent, from a
// kept ancestor after pops, or from Λ.
func TestReflectorChainWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 16))
	trials := 200
	if testing.Short() {
		trials = 40
	}
	for trial := 0; trial < trials; trial++ {
		d := 3 + rng.IntN(40)
		lam := make([]float64, d)
		scale := 0.0
		for i := range lam {
			lam[i] = 10 * rng.NormFloat64()
			if trial%4 == 1 { // repeated eigenvalues
				lam[i] = float64(rng.IntN(3) - 1)
			}
			scale = math.Max(scale, math.Abs(lam[i]))
		}
		ch := newReflectorChain(lam)
		var cols [][]float64
		for step := 0; step < 4*d; step++ {
			if len(cols) > 0 && (len(cols) >= d-1 || rng.IntN(3) == 0) {
				cols = cols[:len(cols)-1]
				ch.pop()
			} else {
				u := make([]float64, d)
				switch trial % 3 {
				case 0:
					u[rng.IntN(d)] = []float64{1, -1}[rng.IntN(2)]
				default:
					for i := range u {
						u[i] = rng.NormFloat64()
					}
					if trial%3 == 2 { // orthonormal to the columns held, as the walk's
						for _, c := range gramSchmidt(cols) {
							a := dot(u, c)
							for i := range u {
								u[i] -= a * c[i]
							}
						}
						nu := norm(u)
						for i := range u {
							u[i] /= nu
						}
					}
				}
				cols = append(cols, u)
				ch.push(u)
			}
			if rng.IntN(2) == 0 {
				continue // leave this level uncomputed, for a later descendant
			}
			k := len(cols)
			m := d - k
			O := make([][]float64, m)
			for i := range O {
				y := make([]float64, m)
				y[i] = 1
				O[i] = ch.point(k, y)
			}
			g := make([]float64, d)
			for i := range g {
				g[i] = rng.NormFloat64()
			}
			gc := ch.coords(k, g)
			for i := range O {
				if diff := math.Abs(gc[i] - dot(O[i], g)); diff > 1e-12*float64(d)*norm(g) {
					t.Fatalf("trial %d step %d (d %d, t %d): coords[%d] off Oᵀg by %g", trial, step, d, k, i, diff)
				}
				for j := range O {
					want := 0.0
					if i == j {
						want = 1
					}
					if diff := math.Abs(dot(O[i], O[j]) - want); diff > 1e-12 {
						t.Fatalf("trial %d step %d (d %d, t %d): OᵀO[%d,%d] off I by %g", trial, step, d, k, i, j, diff)
					}
				}
				for j, u := range cols {
					if a := math.Abs(dot(O[i], u)); a > 1e-12*norm(u) {
						t.Fatalf("trial %d step %d (d %d, t %d): O's column %d meets column %d: %g", trial, step, d, k, i, j, a)
					}
				}
			}
			got := ch.project(k)
			diag := mat.NewSymDense(d, nil)
			for i, l := range lam {
				diag.SetSym(i, i, l)
			}
			var ref *mat.SymDense
			if k > 0 {
				ref = newSubspace(cols, d).project(diag)
			}
			tol := 1e-12 * scale * float64(d)
			for i := 0; i < m; i++ {
				for j := i; j < m; j++ {
					want := 0.0
					for l := 0; l < d; l++ {
						want += O[i][l] * lam[l] * O[j][l]
					}
					if math.Abs(got.At(i, j)-want) > tol {
						t.Fatalf("trial %d step %d (d %d, t %d): T[%d,%d] %g, OᵀΛO %g", trial, step, d, k, i, j, got.At(i, j), want)
					}
					if ref != nil && math.Abs(got.At(i, j)-ref.At(i, j)) > tol {
						t.Fatalf("trial %d step %d (d %d, t %d): T[%d,%d] %g, subspace.project %g", trial, step, d, k, i, j, got.At(i, j), ref.At(i, j))
					}
				}
			}
		}
	}
}

// gramSchmidt returns an orthonormal basis of the span of cols.
func gramSchmidt(cols [][]float64) [][]float64 {
	var out [][]float64
	for _, c := range cols {
		u := append([]float64(nil), c...)
		for _, q := range out {
			a := dot(u, q)
			for i := range u {
				u[i] -= a * q[i]
			}
		}
		if n := norm(u); n > 1e-10 {
			for i := range u {
				u[i] /= n
			}
			out = append(out, u)
		}
	}
	return out
}
