package bruteforce

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// affine returns the point h₀ of {h : aᵢ·h = bᵢ, i ∈ rows} nearest the origin and an
// orthonormal basis N (columns, d − t of them) of the rows' null space, so that the
// set is {h₀ + Nz} with ‖h₀ + Nz‖² = ‖h₀‖² + ‖z‖². ok is false when the unit rows are
// dependent (smallest singular value below rankTol).
//
// The SVD of the unit rows, A = UΣVᵀ, gives h₀ = VΣ⁻¹Uᵀc and N = V's last d − t
// columns. Both are then refined against the rows as given, with compensated
// residuals: rounding the unit rows moves a nearly dependent set by ε/σ_min, which
// refinement removes.
func (e *enumerator) affine(rows []row) (h0 []float64, N [][]float64, ok bool) {
	d, t := e.d, len(rows)
	if t == 0 {
		N = make([][]float64, d)
		for i := range N {
			N[i] = make([]float64, d)
			N[i][i] = 1
		}
		return make([]float64, d), N, true
	}
	if t > d {
		return nil, nil, false
	}
	M := mat.NewDense(t, d, nil)
	for j := range rows {
		M.SetRow(j, rows[j].u)
	}
	var svd mat.SVD
	if !svd.Factorize(M, mat.SVDFull) {
		return nil, nil, false
	}
	sv := svd.Values(nil)
	if sv[t-1] < rankTol {
		return nil, nil, false
	}
	var U, V mat.Dense
	svd.UTo(&U)
	svd.VTo(&V)
	// pinv returns A⁺res = VΣ⁻¹Uᵀres for a residual res in unit-row scale.
	pinv := func(res []float64) []float64 {
		out := make([]float64, d)
		for j := 0; j < t; j++ {
			c := 0.0
			for i := 0; i < t; i++ {
				c += U.At(i, j) * res[i]
			}
			c /= sv[j]
			for i := 0; i < d; i++ {
				out[i] += c * V.At(i, j)
			}
		}
		return out
	}
	res := make([]float64, t)
	for i := range rows {
		res[i] = rows[i].c
	}
	h0 = pinv(res)
	N = make([][]float64, d-t)
	for j := range N {
		N[j] = make([]float64, d)
		for i := 0; i < d; i++ {
			N[j][i] = V.At(i, t+j)
		}
	}
	if !mutation.noRefine {
		refine(rows, h0, N, pinv)
	}
	orthonormalize(N)
	// h₀ ⊥ N, so that ‖h₀ + Nz‖² splits; the rows do not see the change.
	for _, n := range N {
		c := dot(n, h0)
		for i := range h0 {
			h0[i] -= c * n[i]
		}
	}
	return h0, N, true
}

// refine applies refineSteps of iterative refinement to h₀ (towards aᵢ·h = bᵢ) and to
// every column of N (towards aᵢ·n = 0), in place.
func refine(rows []row, h0 []float64, N [][]float64, pinv func([]float64) []float64) {
	res := make([]float64, len(rows))
	step := func(v []float64, rhs bool) {
		for i := range rows {
			b := 0.0
			if rhs {
				b = rows[i].b
			}
			res[i] = dot2(rows[i].a, v, -b) / -rows[i].norm
		}
		for i, c := range pinv(res) {
			v[i] += c
		}
	}
	for range refineSteps {
		step(h0, true)
		for _, n := range N {
			step(n, false)
		}
	}
}

// orthonormalize makes the vectors of N orthonormal by modified Gram–Schmidt applied
// twice ("twice is enough", Giraud et al. 2005). Each vector stays in the span of itself
// and the earlier ones, so null vectors stay null vectors.
func orthonormalize(N [][]float64) {
	for range 2 {
		for j, v := range N {
			for _, u := range N[:j] {
				c := dot(u, v)
				for i := range v {
					v[i] -= c * u[i]
				}
			}
			n := norm(v)
			for i := range v {
				v[i] /= n
			}
		}
	}
}

// solve emits the trust-region candidates of the affine set h₀ + Nz, ‖z‖ ≤ ρ, and keeps
// the lowest feasible one. On the set, q = q(h₀) + wᵀz + ½zᵀPz with w = Nᵀ∇q(h₀) and
// P = NᵀQN; P = WΛWᵀ, and a candidate ζ in P's eigenbasis is h = h₀ + (NW)ζ.
func (e *enumerator) solve(h0 []float64, N [][]float64) {
	d, m := e.d, len(N)
	e.offer(h0)
	rho := math.Sqrt(math.Max(0, e.p.R*e.p.R-dot(h0, h0)))
	if m == 0 {
		return
	}
	gh := make([]float64, d)
	e.p.Grad(gh, h0)
	QN := make([][]float64, m)
	for j, n := range N {
		QN[j] = make([]float64, d)
		mat.NewVecDense(d, QN[j]).MulVec(e.Q, mat.NewVecDense(d, n))
	}
	P := mat.NewSymDense(m, nil)
	w := make([]float64, m)
	for a := 0; a < m; a++ {
		w[a] = dot(N[a], gh)
		for b := a; b < m; b++ {
			P.SetSym(a, b, 0.5*(dot(N[a], QN[b])+dot(N[b], QN[a])))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(P, true) {
		return
	}
	lam := es.Values(nil)
	var W mat.Dense
	es.VectorsTo(&W)
	NW := make([][]float64, m) // columns of N·W
	wt := make([]float64, m)
	for k := 0; k < m; k++ {
		NW[k] = make([]float64, d)
		for a := 0; a < m; a++ {
			c := W.At(a, k)
			wt[k] += c * w[a]
			for i := range NW[k] {
				NW[k][i] += c * N[a][i]
			}
		}
	}
	h := make([]float64, d)
	trsPoints(lam, wt, rho, func(z []float64) {
		copy(h, h0)
		for k, c := range z {
			if c != 0 {
				for i := range h {
					h[i] += c * NW[k][i]
				}
			}
		}
		e.offer(h)
	})
}

// offer keeps h if it is feasible and lower than the best so far.
func (e *enumerator) offer(h []float64) {
	if !e.feasible(h) {
		return
	}
	e.points++
	if v := e.p.Value(h); v < e.best.Value {
		e.best.Feasible, e.best.Value = true, v
		e.best.H = append(e.best.H[:0], h...)
		e.best.Held = append(e.best.Held[:0], e.held...)
	}
}

func (e *enumerator) feasible(h []float64) bool {
	if norm(h) > e.p.R+e.tau {
		return false
	}
	for i := range e.allIn {
		if e.allIn[i].excess(h) > e.tau {
			return false
		}
	}
	for i := range e.allEq {
		if math.Abs(e.allEq[i].excess(h)) > e.tau {
			return false
		}
	}
	return true
}
