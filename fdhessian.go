package houdini

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// The finite-difference Hessian of the model (alg:escaping_general_full's columns
// (∇f(x + θeᵢ) − ∇f(x))/θ), as a d×d matrix (fdHessian) or by its band (fdBand).
//
// The band: the finite-difference model kept by its band where the box certificate
// may decide (issue 15: at d = 1000 the d×d matrix's passes — clearing 8 MB,
// symmetrizing, the finiteness check, the Frobenius norm, the box test's scan — cost
// more than the d gradient calls that fill it, while these functions' models are
// tridiagonal or block-diagonal). The values are the dense model's, bit for bit; the
// d×d matrix is made only when the box certificate does not decide and the walk runs
// (quadModel.densify), or when the deeper search reads the model's entries.

// fdHessian writes into M the forward-difference Hessian of line:hessian: columns
// (g⁽ⁱ⁾ − g)/θ with g⁽ⁱ⁾ = grad(x + θeᵢ) and g the gradient at x, symmetrized — H is
// symmetric, and averaging the two estimates of each entry halves the antisymmetric
// error. The step taken is the floating-point (x + θ) − x, exact, not θ; when θ is below
// the spacing of floats at xᵢ it is doubled until the step is not 0 (a zero step made the
// model NaN, and a NaN model admits no candidate, hence a false certificate).
func fdHessian(M *mat.SymDense, x, g []float64, theta float64, grad func(g, x []float64) error) error {
	return fdColumns(M, x, g, theta, grad, 0)
}

// fdColumns is fdHessian from column from on, the rows of M before it holding the
// columns before it (fdBand's switch to the dense model).
func fdColumns(M *mat.SymDense, x, g []float64, theta float64, grad func(g, x []float64) error, from int) error {
	d := len(x)
	raw := M.RawSymmetric() // row i holds column i of the differences until symmetrized
	xi := append([]float64(nil), x...)
	for i := from; i < d; i++ {
		step := forwardStep(xi, x, i, theta)
		gi := raw.Data[i*raw.Stride : i*raw.Stride+d]
		if err := grad(gi, xi); err != nil {
			return err
		}
		xi[i] = x[i]
		for j := range gi {
			gi[j] = (gi[j] - g[j]) / step
		}
	}
	symmetrizeUpper(raw.Data, raw.Stride, d)
	return nil
}

// symmetrizeUpper sets the upper triangle of the d×d row-major a (stride s) to
// ½(a + aᵀ) and its strict lower triangle to 0, in blocks that stay in cache.
func symmetrizeUpper(a []float64, s, d int) {
	const bs = 64
	for I := 0; I < d; I += bs {
		for J := I; J < d; J += bs {
			for i := I; i < min(I+bs, d); i++ {
				for j := max(J, i+1); j < min(J+bs, d); j++ {
					a[i*s+j] = 0.5 * (a[i*s+j] + a[j*s+i])
					a[j*s+i] = 0
				}
			}
		}
	}
}

// forwardStep sets xi[i] = x[i] + θ′ and returns the step taken, the floating-point
// (x[i] + θ′) − x[i]: θ′ = θ, doubled while the step is 0 (θ below the spacing of
// floats at x[i]).
func forwardStep(xi, x []float64, i int, theta float64) float64 {
	xi[i] = x[i] + theta
	step := xi[i] - x[i]
	for h := theta; step == 0; {
		h *= 2
		xi[i] = x[i] + h
		step = xi[i] - x[i]
	}
	return step
}

// bandSym is a symmetric d×d matrix by its upper band: Mᵢₖ for i ≤ k ≤ i + b at
// data[i·(b + 1) + k − i]; every other entry above the diagonal is 0 (and the slots past
// the last column are 0 and never read as entries).
type bandSym struct {
	d, b int
	data []float64
}

// at returns Mᵢₖ for i ≤ k.
func (a *bandSym) at(i, k int) float64 {
	if k-i > a.b {
		return 0
	}
	return a.data[i*(a.b+1)+k-i]
}

// mulVec writes Mv into dst: O(d·b).
func (a *bandSym) mulVec(dst, v []float64) {
	w := a.b + 1
	clear(dst)
	for i := range a.d {
		row := a.data[i*w : i*w+min(w, a.d-i)]
		dst[i] += row[0] * v[i]
		for k := 1; k < len(row); k++ {
			dst[i] += row[k] * v[i+k]
			dst[i+k] += row[k] * v[i]
		}
	}
}

// normF returns ‖M‖_F, scaled against overflow as LAPACK's Dlansy is.
func (a *bandSym) normF() float64 {
	w, scale := a.b+1, 0.0
	for _, v := range a.data {
		scale = math.Max(scale, math.Abs(v))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return scale
	}
	sum := 0.0
	for p, v := range a.data {
		t := v / scale
		if p%w != 0 {
			t *= math.Sqrt2 // Mᵢₖ and Mₖᵢ
		}
		sum += t * t
	}
	return scale * math.Sqrt(sum)
}

// dense returns M as a d×d matrix.
func (a *bandSym) dense() *mat.SymDense {
	M := mat.NewSymDense(a.d, nil)
	raw := M.RawSymmetric()
	w := a.b + 1
	for i := range a.d {
		copy(raw.Data[i*raw.Stride+i:i*raw.Stride+min(i+w, a.d)], a.data[i*w:])
	}
	return M
}

// firstNonFinite returns the row-major index i·d + k (i ≤ k) of M's first NaN or Inf
// above or on the diagonal, in the order finiteModel scans a dense M, or −1.
func (a *bandSym) firstNonFinite() int {
	w := a.b + 1
	for i := range a.d {
		for k := 0; k < min(w, a.d-i); k++ {
			if v := a.data[i*w+k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return i*a.d + i + k
			}
		}
	}
	return -1
}

// fdBand computes fdHessian's columns (gᵢ − g)/θᵢ and returns them symmetrized by their
// band when every nonzero difference lies within maxBand of the diagonal; the first
// column with one farther switches to the dense matrix (returned instead, filled as
// fdHessian fills it, with no gradient call repeated). Each column's exact zeros — a
// gradient entry that does not depend on xᵢ is the same float at x + θeᵢ — are what
// make the band narrow. The values are fdHessian's: the same differences, and
// ½(Hᵢₖ + Hₖᵢ) in the same order. O(d) memory a column besides its nonzeros.
func fdBand(x, g []float64, theta float64, grad func(g, x []float64) error, maxBand int) (*bandSym, *mat.SymDense, error) {
	d := len(x)
	xi, gi := slices.Clone(x), make([]float64, d)
	g = g[:d]
	start := make([]int, 1, d+1) // column i's nonzeros: rows[start[i]:start[i+1]]
	var rows []int
	var vals []float64
	b := 0
	for i := range d {
		step := forwardStep(xi, x, i, theta)
		if err := grad(gi, xi); err != nil {
			return nil, nil, err
		}
		xi[i] = x[i]
		for j := 0; j < d; j++ {
			if j+4 <= d && gi[j] == g[j] && gi[j+1] == g[j+1] && gi[j+2] == g[j+2] && gi[j+3] == g[j+3] {
				j += 3 // four exact zeros: (gᵢⱼ − gⱼ)/θᵢ = 0 (both finite: gradCall checks)
				continue
			}
			if gi[j] == g[j] {
				continue
			}
			v := (gi[j] - g[j]) / step
			if v == 0 {
				continue
			}
			if abs(j-i) > maxBand { // too wide: the dense model from here
				M := mat.NewSymDense(d, nil)
				raw := M.RawSymmetric()
				for c := range i {
					for p := start[c]; p < start[c+1]; p++ {
						raw.Data[c*raw.Stride+rows[p]] = vals[p]
					}
				}
				for k := range gi {
					raw.Data[i*raw.Stride+k] = (gi[k] - g[k]) / step
				}
				return nil, M, fdColumns(M, x, g, theta, grad, i+1)
			}
			rows, vals = append(rows, j), append(vals, v)
			b = max(b, abs(j-i))
		}
		start = append(start, len(rows))
	}
	w := b + 1
	up, lo := make([]float64, d*w), make([]float64, d*w)
	for i := range d {
		for p := start[i]; p < start[i+1]; p++ {
			if j := rows[p]; j >= i {
				up[i*w+j-i] = vals[p] // Hⱼᵢ, row i of fdHessian's raw matrix
			} else {
				lo[j*w+i-j] = vals[p]
			}
		}
	}
	for p := range up {
		if p%w != 0 {
			up[p] = 0.5 * (up[p] + lo[p])
		}
	}
	return &bandSym{d: d, b: b, data: up}, nil, nil
}

// abs returns |n|.
func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
