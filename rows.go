package houdini

import (
	"math"
	"reflect"

	"gonum.org/v1/gonum/mat"
)

// rowStore holds n rows of length d, dense (row-major) or sparse (compressed rows),
// whichever the density asks for: a row costs O(d) dense and O(nnz) sparse in memory and
// in every product with it.
type rowStore struct {
	n, d  int
	dense []float64 // n×d row-major; nil when sparse
	ptr   []int     // sparse: row i's entries are idx[ptr[i]:ptr[i+1]], val[…]
	idx   []int
	val   []float64
}

// sparseDensity: rows are stored sparsely when at most this fraction of their entries
// is nonzero (a sparse entry costs two words and an indirection, a dense one a word).
const sparseDensity = 0.25

// newRowStore returns an empty store for up to n rows of length d holding nnz nonzeros.
func newRowStore(n, d, nnz int) rowStore {
	s := rowStore{d: d}
	if float64(nnz) <= sparseDensity*float64(n)*float64(d) {
		s.ptr = make([]int, 1, n+1)
		s.idx = make([]int, 0, nnz)
		s.val = make([]float64, 0, nnz)
	} else {
		s.dense = make([]float64, 0, n*d)
	}
	return s
}

// add appends the dense row a.
func (s *rowStore) add(a []float64) {
	s.n++
	if s.ptr == nil {
		s.dense = append(s.dense, a...)
		return
	}
	for j, v := range a {
		if v != 0 {
			s.idx = append(s.idx, j)
			s.val = append(s.val, v)
		}
	}
	s.ptr = append(s.ptr, len(s.idx))
}

// entries returns row i's nonzero pattern and values: idx nil means the dense row val.
func (s *rowStore) entries(i int) (idx []int, val []float64) {
	if s.ptr == nil {
		return nil, s.dense[i*s.d : (i+1)*s.d]
	}
	return s.idx[s.ptr[i]:s.ptr[i+1]], s.val[s.ptr[i]:s.ptr[i+1]]
}

// dot returns aᵢ·x.
func (s *rowStore) dot(i int, x []float64) float64 {
	idx, val := s.entries(i)
	if idx == nil {
		return dot(val, x)
	}
	t := 0.0
	for k, j := range idx {
		t += val[k] * x[j]
	}
	return t
}

// dot2 returns aᵢ·x + c in twice the working precision (vec.go's dot2).
func (s *rowStore) dot2(i int, x []float64, c float64) float64 {
	idx, val := s.entries(i)
	if idx == nil {
		return dot2(val, x, c)
	}
	t, e := c, 0.0
	for k, j := range idx {
		p := val[k] * x[j]
		t, e = twoSum(t, e+math.FMA(val[k], x[j], -p), p)
	}
	return t + e
}

// absDot returns Σⱼ |aᵢⱼ xⱼ|, the scale of aᵢ·x's rounding.
func (s *rowStore) absDot(i int, x []float64) float64 {
	idx, val := s.entries(i)
	t := 0.0
	for k, v := range val {
		j := k
		if idx != nil {
			j = idx[k]
		}
		t += math.Abs(v * x[j])
	}
	return t
}

// axpy adds alpha·aᵢ to y.
func (s *rowStore) axpy(alpha float64, i int, y []float64) {
	idx, val := s.entries(i)
	for k, v := range val {
		j := k
		if idx != nil {
			j = idx[k]
		}
		y[j] += alpha * v
	}
}

// rowTo writes row i into dst (length d) and returns it.
func (s *rowStore) rowTo(dst []float64, i int) []float64 {
	idx, val := s.entries(i)
	if idx == nil {
		copy(dst, val)
		return dst
	}
	clear(dst)
	for k, j := range idx {
		dst[j] = val[k]
	}
	return dst
}

// nnz returns the number of stored entries of row i.
func (s *rowStore) nnz(i int) int {
	idx, val := s.entries(i)
	if idx == nil {
		return len(val)
	}
	return len(idx)
}

// matRows reads the rows of a user's matrix: dims, a count of its nonzeros, and each
// row as a dense slice. It reads *mat.Dense through its raw rows, a mat.RowNonZeroDoer
// through its nonzeros (O(nnz)), and any other mat.Matrix through At.
type matRows struct {
	A    mat.Matrix
	k, d int
	nz   mat.RowNonZeroDoer // nil unless A implements it
}

// newMatRows returns the reader of A, or ok = false when A is nil (a nil interface or a
// nil pointer inside one) or an empty *mat.Dense: no matrix.
func newMatRows(A mat.Matrix) (m matRows, ok bool) {
	if A == nil {
		return m, false
	}
	if v := reflect.ValueOf(A); v.Kind() == reflect.Pointer && v.IsNil() {
		return m, false
	}
	if d, ok := A.(*mat.Dense); ok && d.IsEmpty() {
		return m, false // the zero Dense: no matrix
	}
	m.A = A
	m.k, m.d = A.Dims()
	m.nz, _ = A.(mat.RowNonZeroDoer)
	return m, true
}

// row writes row i of A into dst (length d) and returns it.
func (m *matRows) row(dst []float64, i int) []float64 {
	switch {
	case m.nz != nil:
		clear(dst)
		m.nz.DoRowNonZero(i, func(_, j int, v float64) { dst[j] = v })
	default:
		if d, ok := m.A.(*mat.Dense); ok {
			copy(dst, d.RawRowView(i))
			return dst
		}
		for j := range dst {
			dst[j] = m.A.At(i, j)
		}
	}
	return dst
}

// nonzeros counts the nonzero entries of A (O(nnz) for a RowNonZeroDoer, else O(k·d)).
func (m *matRows) nonzeros(scratch []float64) int {
	n := 0
	if m.nz != nil {
		for i := 0; i < m.k; i++ {
			m.nz.DoRowNonZero(i, func(_, _ int, v float64) {
				if v != 0 {
					n++
				}
			})
		}
		return n
	}
	for i := 0; i < m.k; i++ {
		for _, v := range m.row(scratch, i) {
			if v != 0 {
				n++
			}
		}
	}
	return n
}
