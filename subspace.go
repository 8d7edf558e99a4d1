package houdini

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// subspace is the direction space of an affine set {z : âᵢ·z = b̂ᵢ, i ∈ I}: the
// orthogonal complement of the held rows' span. With the Householder QR
// [u₁ … u_t] = QR (LAPACK dgeqrf through gonum), O is the last d − t columns of Q.
// O is never formed: products with it apply the t reflectors (dormqr), so
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

// apply overwrites the d×n matrix c with Qc (left) or cQ (right), or with the transposes.
func (s *subspace) apply(side blas.Side, trans blas.Transpose, c blas64.General) {
	work := []float64{0}
	lapack64.Ormqr(side, trans, s.qr, s.tau, c, work, -1)
	if int(work[0]) > len(s.work) {
		s.work = make([]float64, int(work[0]))
	}
	lapack64.Ormqr(side, trans, s.qr, s.tau, c, s.work, len(s.work))
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
