package houdini

import (
	"slices"

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

// reflectorChain is the Householder QR of a stack of columns u₁, u₂, … (the rows the walk
// pushes, in the eigenbasis) built one column at a time, as LAPACK's dgeqr2 does: reflector
// Hⱼ = I − τⱼvⱼvⱼᵀ (vⱼ zero above entry j, 1 at j) is made from uⱼ after H₁ … Hⱼ₋₁, so
// it depends on u₁ … uⱼ only, and the walk's push and pop add or drop one reflector. The
// first t columns then have the subspace O_t = (H₁⋯H_t)[:, t:] (subspace's O, from the
// same reflectors).
//
// For the diagonal Λ it is made with, it keeps the projected matrices
//
//	T_t = O_tᵀΛO_t = B_t[t:, t:],   B_t = H_t⋯H₁ Λ H₁⋯H_t,
//
// each from its parent by one two-sided reflector: H_t = diag(I, H̃_t) with H̃_t acting on
// coordinates t−1…, so B_t[t−1:, t−1:] = H̃_t B_{t−1}[t−1:, t−1:] H̃_t = H̃_t T_{t−1} H̃_t
// and T_t is that block without its first row and column. With p = τTv and
// w = p − ½τ(vᵀp)v, H̃TH̃ = T − vwᵀ − wvᵀ (dsytd2's update), ≈ 3(d − t)² flops a level
// instead of the ≈ 6d²t of applying all t reflectors to Λ again at every subset: the walk
// descends one row a level, so each subset's M′ costs one level. The arithmetic is the
// same sequence of orthogonal similarity transformations as subspace.project's,
// backward stable.
type reflectorChain struct {
	d    int
	lam  []float64
	v    [][]float64 // v[j]: entries j… of vⱼ (v[j][0] = 1)
	tau  []float64
	t    [][]float64 // t[j]: T_{j+1}, (d−j−1)² row-major, or nil when not computed
	held int         // floats held by t, at most chainMaxHeld
}

// chainMaxHeld bounds the floats the chain keeps for the projected matrices (32 MB): about
// 45 levels at d = 300; below that a level is recomputed from its nearest kept ancestor.
const chainMaxHeld = 1 << 22

func newReflectorChain(lam []float64) *reflectorChain {
	return &reflectorChain{d: len(lam), lam: lam}
}

// push adds the reflector of column u (length d): O(d·t) to apply the t reflectors
// before it.
func (c *reflectorChain) push(u []float64) {
	j := len(c.v)
	col := append([]float64(nil), u...)
	for i := range j {
		c.reflect(i, col)
	}
	var v []float64
	tau := 0.0
	if j < c.d {
		v = col[j:]
		_, tau = gonum.Implementation{}.Dlarfg(c.d-j, col[j], v[1:], 1)
		v[0] = 1
	}
	c.v = append(c.v, v)
	c.tau = append(c.tau, tau)
	c.t = append(c.t, nil)
}

// pop drops the last reflector and its projected matrix.
func (c *reflectorChain) pop() {
	j := len(c.v) - 1
	c.held -= len(c.t[j])
	c.v, c.tau, c.t = c.v[:j], c.tau[:j], c.t[:j]
}

// reflect overwrites x (length d) with Hᵢx.
func (c *reflectorChain) reflect(i int, x []float64) {
	if c.tau[i] == 0 {
		return
	}
	v, xs := c.v[i], x[i:]
	s := c.tau[i] * dot(v, xs)
	for k, vk := range v {
		xs[k] -= s * vk
	}
}

// project returns T_t = O_tᵀΛO_t for the first t columns (t ≤ the columns pushed, t < d),
// computing the levels from the nearest kept one.
func (c *reflectorChain) project(t int) *mat.SymDense {
	s := t
	for s > 0 && c.t[s-1] == nil {
		s--
	}
	var T []float64 // T_s, order d − s
	if s == 0 {
		n := c.d
		T = make([]float64, n*n)
		for i, l := range c.lam {
			T[i*n+i] = l
		}
	} else {
		T = c.t[s-1]
	}
	for j := s; j < t; j++ { // T_{j+1} from T_j
		T = c.level(j, T)
		if c.held+len(T) <= chainMaxHeld {
			c.t[j] = T
			c.held += len(T)
		}
	}
	return mat.NewSymDense(c.d-t, slices.Clone(T)) // T is symmetric; SymDense reads its upper triangle
}

// level returns T_{j+1}, the trailing block of H̃ T H̃ for T = T_j (order n = d − j) and
// H̃ = I − τvvᵀ the (j+1)th reflector on coordinates j….
func (c *reflectorChain) level(j int, T []float64) []float64 {
	n := c.d - j
	m := n - 1
	out := make([]float64, m*m)
	tau, v := c.tau[j], c.v[j]
	if tau == 0 { // H̃ = I
		for i := 0; i < m; i++ {
			copy(out[i*m:(i+1)*m], T[(i+1)*n+1:(i+2)*n])
		}
		return out
	}
	p := make([]float64, n)
	vp := 0.0
	for i := 0; i < n; i++ {
		p[i] = tau * dot(T[i*n:(i+1)*n], v)
		vp += v[i] * p[i]
	}
	K := 0.5 * tau * vp
	for i := range p {
		p[i] -= K * v[i]
	}
	for i := 0; i < m; i++ {
		vi, pi := v[i+1], p[i+1]
		row, src := out[i*m:(i+1)*m], T[(i+1)*n+1:(i+2)*n]
		for k := range row {
			row[k] = src[k] - (vi*p[k+1] + pi*v[k+1])
		}
	}
	return out
}

// coords returns O_tᵀg, the trailing d − t entries of H_t⋯H₁g.
func (c *reflectorChain) coords(t int, g []float64) []float64 {
	x := append([]float64(nil), g...)
	for i := range t {
		c.reflect(i, x)
	}
	return x[t:]
}

// point returns O_t·y = H₁⋯H_t[0; y] for y of length d − t.
func (c *reflectorChain) point(t int, y []float64) []float64 {
	x := make([]float64, c.d)
	copy(x[t:], y)
	for i := t - 1; i >= 0; i-- {
		c.reflect(i, x)
	}
	return x
}
