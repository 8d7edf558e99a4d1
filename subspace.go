package houdini

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// subspace is the direction space of an affine set {z : âᵢ·z = b̂ᵢ, i ∈ I}: the
// orthogonal complement of the held rows' span. With the Householder QR
// [u₁ … u_t] = QR (LAPACK dgeqrf through gonum), O is the last d − t columns of Q.
// O is never formed: products with it apply the t reflectors (dorm2r), so
// M′ = OᵀMO costs O(d²t) rather than the O(d³) of forming Q and multiplying.
type subspace struct {
	d, t int
	qr   blas64.General // the factored d×t matrix
	tau  []float64
	work []float64
}

func newSubspace(basis [][]float64, d int) *subspace {
	t := len(basis)
	s := &subspace{d: d, t: t, qr: blas64.General{Rows: d, Cols: t, Stride: t, Data: make([]float64, d*t)}, tau: make([]float64, t)}
	for j, u := range basis {
		for i, ui := range u {
			s.qr.Data[i*t+j] = ui
		}
	}
	work := []float64{0}
	lapack64.Geqrf(s.qr, s.tau, work, -1)
	s.work = make([]float64, max(int(work[0]), d))
	lapack64.Geqrf(s.qr, s.tau, s.work, len(s.work))
	return s
}

// apply overwrites the d×n matrix c with Qc (left) or cQ (right), or with the transposes,
// one reflector at a time (dorm2r). The blocked dormqr is not used: gonum's (v0.17)
// returns a Q that is not orthogonal when some reflectors are trivial (τ = 0, a column
// already reduced, as a bound's normal often is) among many, e.g. 42 signed unit
// vectors in dimension 45 (TestSubspaceOrthonormal): its O then met the held rows, and a
// subset's M′ and v′ were of another set.
func (s *subspace) apply(side blas.Side, trans blas.Transpose, c blas64.General) {
	if s.t == 0 {
		return // Q = I
	}
	n := c.Rows
	if side == blas.Left {
		n = c.Cols
	}
	if len(s.work) < n {
		s.work = make([]float64, n)
	}
	gonum.Implementation{}.Dorm2r(side, trans, c.Rows, c.Cols, s.t, s.qr.Data, s.qr.Stride, s.tau, c.Data, c.Stride, s.work[:n])
}

// project returns M′ = OᵀMO, the trailing (d−t)×(d−t) block of QᵀMQ, symmetrized.
func (s *subspace) project(M *mat.SymDense) *mat.SymDense {
	d, t := s.d, s.t
	c := blas64.General{Rows: d, Cols: d, Stride: d, Data: make([]float64, d*d)}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := M.At(i, j)
			c.Data[i*d+j], c.Data[j*d+i] = v, v
		}
	}
	s.apply(blas.Left, blas.Trans, c)
	s.apply(blas.Right, blas.NoTrans, c)
	m := d - t
	Ms := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			Ms.SetSym(i, j, 0.5*(c.Data[(t+i)*d+t+j]+c.Data[(t+j)*d+t+i]))
		}
	}
	return Ms
}

// coords returns Oᵀg, the trailing d − t entries of Qᵀg.
func (s *subspace) coords(g []float64) []float64 {
	c := blas64.General{Rows: s.d, Cols: 1, Stride: 1, Data: append([]float64(nil), g...)}
	s.apply(blas.Left, blas.Trans, c)
	return c.Data[s.t:]
}

// point returns Oy = Q[0; y] for y of length d − t.
func (s *subspace) point(y []float64) []float64 {
	c := blas64.General{Rows: s.d, Cols: 1, Stride: 1, Data: make([]float64, s.d)}
	copy(c.Data[s.t:], y)
	s.apply(blas.Left, blas.NoTrans, c)
	return c.Data
}

// projectDiag returns project(diag(lam)), M′ = OᵀΛO, by applying the t reflectors
// Hⱼ = I − τⱼvⱼvⱼᵀ two-sidedly, one at a time, as LAPACK's dsytd2 does: with p = τAv,
// w = p − ½τ(vᵀp)v, HAH = A − vwᵀ − wvᵀ. vⱼ vanishes above entry j, so Hⱼ changes only
// rows and columns j… of A, and the later reflectors read only those: the step works on
// the trailing block, ≈ 4(d − j)² flops, 4d²t in all like project, but without the
// blocked dormqr's workspace queries and d × d copies, which dominate at the walk's sizes
// (d ≲ 200, t ≲ 50). The arithmetic is a sequence of orthogonal similarity
// transformations, backward stable as project's.
func (s *subspace) projectDiag(lam []float64) *mat.SymDense {
	d, t := s.d, s.t
	A := make([]float64, d*d)
	for i, l := range lam {
		A[i*d+i] = l
	}
	v, p := make([]float64, d), make([]float64, d)
	for j := 0; j < t; j++ {
		tau := s.tau[j]
		if tau == 0 {
			continue // Hⱼ = I
		}
		v[j] = 1
		for i := j + 1; i < d; i++ {
			v[i] = s.qr.Data[i*t+j]
		}
		vp := 0.0
		for i := j; i < d; i++ {
			row := A[i*d+j : i*d+d]
			sum := 0.0
			for k, a := range row {
				sum += a * v[j+k]
			}
			p[i] = tau * sum
			vp += v[i] * p[i]
		}
		K := 0.5 * tau * vp
		for i := j; i < d; i++ {
			p[i] -= K * v[i]
		}
		for i := j; i < d; i++ {
			vi, pi := v[i], p[i]
			row := A[i*d+j : i*d+d]
			for k := range row {
				row[k] -= vi*p[j+k] + pi*v[j+k]
			}
		}
	}
	m := d - t
	Ms := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for k := i; k < m; k++ {
			Ms.SetSym(i, k, 0.5*(A[(t+i)*d+t+k]+A[(t+k)*d+t+i]))
		}
	}
	return Ms
}
