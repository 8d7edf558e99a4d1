package houdini

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The Schur block of the cone bound (cone.go) on a face of coordinates, for the models the
// Krylov examiner walks (matrix-free ones, and dense ones from krylovDenseDim on), where
// cone.go's dense route — the d×t basis of the held rows, a Householder QR and
// M′ = OᵀMO, O(d²t) — would cost O(d·t) memory and more time than the escape.
//
// What it bounds. The same quantity as cone.go: the model over the walk's set (the root's
// affine set of the held rows, the rows of W as inequalities, the ball), from below by L,
// whenever (∗) of cone.go is proven. Only the blocks of (∗) are formed differently.
//
// The blocks. When every held row and every row of W is a bound, the directions that T
// and W leave free are the coordinates F that neither holds: O = [e_f]_{f ∈ F} is an
// orthonormal basis of Z computed without rounding, U = [±e_j]_{j ∈ W's} (cone.go's
// Gram–Schmidt gives exactly these: W's bounds are orthogonal to the held coordinates and
// to each other), R and X = R⁻¹ are diagonal, and the blocks are submatrices of M,
//
//	H_aa = UᵀMU,   H_uu = M_FF,   H_ua = M_FU = (M uₗ)_F,
//
// which a dense M gives by indexing and an operator by the products M uₗ cone.go already
// makes (one per row of W) and one product M e_f per free coordinate (k = |F| products;
// of each only its entries at F and at W's coordinates are kept: O(k·(k + m)) floats). For
// an operator the two halves are averaged, ½((M uₗ)_F + (M e_F)ᵀuₗ), as
// krylovExaminer.exactFace symmetrizes its columns: the form hᵀMh sees only the symmetric
// part. An operator's products are taken as a linear M, as everywhere on the Krylov path
// (its exact faces are built the same way): Problem.HessVec's products are linear, and
// gradient differences are for a quadratic f up to their rounding (TestConeMatrixFreeEscapes
// runs both). The Cholesky factor of H_uu + τI, V = H_ua·X and P = Vᵀ(H_uu + τI)⁻¹V are
// then cone.go's, and so are C, the copositivity test and L.
//
// Error terms. η, eqErr and forcedErr are the walk's, unchanged. The rounding τ absorbs
// (coneRounding) is cone.go's with three changes, each a tighter instance of the same
// inequality: the factorization and the congruences are computed in the k + m = d − t
// coordinates of N, so their backward errors grow with d − t, not d (walk.coneDim); R is
// diagonal, so ‖t‖ ≤ ‖R‖₂‖y‖ and κ = ‖R‖₂‖X‖₂ take the 2-norms (1 for unit bounds)
// instead of the Frobenius norms (√m, m); and an operator's ‖H‖ is bounded by spectrumBounds'
// bound on ‖M‖₂ (walk.coneNorm), whose failure probability krylovFailProb modelCertifies
// already charges to every matrix-free certificate (the same event η rests on), instead of
// √d times it. The values c, ℓ and g_Z, computed with d-vectors, keep d. No Lanczos
// quantity enters otherwise: the bound adds no failure probability.
//
// Its use. The walk prunes by it at the root as on the dense path; an escape whose walk
// used the Krylov backend certifies by the larger of the root face's bound and L
// (krylovExaminer.certLower), both lower bounds on the model over the walk's set. Cost: k
// products (none for a dense M), one k×k Cholesky factorization, O(k·m² + m³), and no
// d×d or d×t array.

// coneFreeMax bounds the free coordinates k of a matrix-free model's cone bound: k
// products, k² floats (32 MB) and a k×k factorization (k³/3 flops, about a second); a
// larger face gets no cone bound. The torus max-cut of n = 10⁴ ends on a vertex with 694
// free coordinates and 215 ties.
const coneFreeMax = 2000

// coneMaxFloats bounds m·d, the floats of each of the cone bound's m vectors U and their
// products MU (128 MB each): at d = 10⁵, m ≤ 167 rows of W; the rows beyond are dropped
// (a relaxation, cone.go).
const coneMaxFloats = 1 << 24

// freeSchur is the Schur block of the cone bound on a face of coordinates: with
// V = H_ua·X (k×m, columns hᵢ) and the Cholesky factor of H_uu + τI,
// P = Vᵀ(H_uu + τI)⁻¹V.
type freeSchur struct {
	free []int // F
	V    *mat.Dense
	ch   mat.Cholesky
	P    [][]float64
	h    []float64 // ‖hᵢ‖
	pn   float64   // ‖P‖_F
}

// newFreeSchur returns the Schur block for the free coordinates free, the products
// MU[l] = M·uₗ with uₗ = ws[l]·e_{wc[l]} (W's rows), X = R⁻¹ (lower triangular) and τ; ok
// is false when H_uu + τI is not positive definite, a product fails or ctx is done.
func newFreeSchur(ctx context.Context, mod *quadModel, free []int, MU [][]float64, wc []int, ws []float64, X [][]float64, tau float64) (fs *freeSchur, ok bool) {
	k, m := len(free), len(wc)
	Huu, Hua, ok := freeBlocks(ctx, mod, free, MU, wc, ws)
	if !ok {
		return nil, false
	}
	for a := range k {
		Huu.SetSym(a, a, Huu.At(a, a)+tau)
	}
	fs = &freeSchur{free: free, V: mat.NewDense(k, m, nil), h: make([]float64, m)}
	if !fs.ch.Factorize(Huu) {
		return nil, false
	}
	col := make([]float64, k)
	for j := range m { // V = H_ua·X
		clear(col)
		for l := j; l < m; l++ {
			for a := range k {
				col[a] += Hua.At(a, l) * X[l][j]
			}
		}
		fs.V.SetCol(j, col)
		fs.h[j] = norm(col)
	}
	var Z, P mat.Dense
	if err := fs.ch.SolveTo(&Z, fs.V); err != nil {
		return nil, false
	}
	P.Mul(fs.V.T(), &Z)
	fs.P = make([][]float64, m)
	for i := range m {
		fs.P[i] = make([]float64, m)
		for j := range m {
			fs.P[i][j] = 0.5 * (P.At(i, j) + P.At(j, i))
		}
	}
	fs.pn = mat.Norm(&P, 2)
	return fs, true
}

// freeBlocks returns H_uu = M_FF (k×k) and H_ua = M_FU (k×m): from a dense M by indexing,
// from an operator by one product per free coordinate, symmetrized; ok is false when a
// product fails or ctx is done (polled at every product: up to coneFreeMax of them).
func freeBlocks(ctx context.Context, mod *quadModel, free []int, MU [][]float64, wc []int, ws []float64) (Huu *mat.SymDense, Hua *mat.Dense, ok bool) {
	k, m := len(free), len(wc)
	Huu, Hua = mat.NewSymDense(k, nil), mat.NewDense(k, m, nil)
	if M := mod.M; M != nil {
		for a, i := range free {
			for b := a; b < k; b++ {
				Huu.SetSym(a, b, M.At(i, free[b]))
			}
			for l := range m {
				Hua.Set(a, l, MU[l][i])
			}
		}
		return Huu, Hua, true
	}
	d := len(MU[0])
	cols := mat.NewDense(k, k, nil) // column a: (M e_{F[a]})_F
	e, col := make([]float64, d), make([]float64, d)
	for a, i := range free {
		if ctx.Err() != nil {
			return nil, nil, false
		}
		e[i] = 1
		mod.mul(col, e)
		e[i] = 0
		if mod.err != nil || allFinite(col) >= 0 {
			return nil, nil, false
		}
		for b, j := range free {
			cols.Set(b, a, col[j])
		}
		for l := range m { // (M uₗ)_i and uₗᵀ(M eᵢ)
			Hua.Set(a, l, 0.5*(MU[l][i]+ws[l]*col[wc[l]]))
		}
	}
	for a := range k {
		for b := a; b < k; b++ {
			Huu.SetSym(a, b, 0.5*(cols.At(a, b)+cols.At(b, a)))
		}
	}
	return Huu, Hua, true
}

// point returns Ou, the d-vector with u at the free coordinates.
func (fs *freeSchur) point(u []float64, d int) []float64 {
	y := make([]float64, d)
	for a, i := range fs.free {
		y[i] = u[a]
	}
	return y
}

// coords returns Oᵀv, v at the free coordinates.
func (fs *freeSchur) coords(v []float64) []float64 {
	y := make([]float64, len(fs.free))
	for a, i := range fs.free {
		y[a] = v[i]
	}
	return y
}

// coordFrame returns, for the cone bound of a walk whose held rows are all coordinates
// (heldAt(j) ≥ 0 for the held coordinates j), the coordinates wc and signs ws of W's
// vectors U when each is a signed unit vector ±e_j, and the free coordinates F (neither
// held nor W's); ok is false when some uₗ is not a unit coordinate vector.
func coordFrame(U [][]float64, held func(j int) bool, d int) (wc []int, ws []float64, free []int, ok bool) {
	inW := make(map[int]bool, len(U))
	for _, u := range U {
		j := -1
		for i, ui := range u {
			if ui != 0 {
				if j >= 0 || math.Abs(ui) != 1 {
					return nil, nil, nil, false
				}
				j = i
			}
		}
		if j < 0 || held(j) {
			return nil, nil, nil, false
		}
		wc, ws = append(wc, j), append(ws, u[j])
		inW[j] = true
	}
	for j := range d {
		if !held(j) && !inW[j] {
			free = append(free, j)
		}
	}
	return wc, ws, free, true
}

// unitIndex returns j when u = ±e_j (one nonzero entry, of modulus 1), else −1.
func unitIndex(u []float64) int {
	j := -1
	for i, ui := range u {
		if ui != 0 {
			if j >= 0 || math.Abs(ui) != 1 {
				return -1
			}
			j = i
		}
	}
	return j
}

// dotUnit returns u·v, in O(1) when u = ±e_j (uj = j ≥ 0, unitIndex): the sum's one
// nonzero term, which is what dot computes there.
func dotUnit(u []float64, uj int, v []float64) float64 {
	if uj >= 0 {
		return u[uj] * v[uj]
	}
	return dot(u, v)
}

// orthoUnits returns orthogonalize(a, U), with the steps of unit vectors (uc[k] ≥ 0,
// unitIndex) done in O(1): such a step subtracts (a·uₖ)uₖ = aⱼeⱼ, that is, sets aⱼ to 0,
// and leaves every other entry as it is. The cone bound's rows of W are mostly bounds:
// O(m·d) instead of O(m²·d) for its m rows.
func orthoUnits(a []float64, U [][]float64, uc []int) []float64 {
	out := append([]float64(nil), a...)
	for pass := 0; pass < 2; pass++ {
		for k, u := range U {
			if j := uc[k]; j >= 0 {
				out[j] = 0
				continue
			}
			c := dot(u, out)
			for i := range out {
				out[i] -= c * u[i]
			}
		}
	}
	return out
}
