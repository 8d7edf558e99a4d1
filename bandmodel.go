package houdini

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// The band model: the finite-difference model kept by its band where the box certificate
// may decide (issue 15: at d = 1000 the d×d matrix's passes — clearing 8 MB,
// symmetrizing, the finiteness check, the Frobenius norm, the box test's scan — cost
// more than the d gradient calls that fill it, while these functions' models are
// tridiagonal or block-diagonal). The values are the dense model's, bit for bit; the
// d×d matrix is made only when the box certificate does not decide and the walk runs
// (quadModel.densify), or when the deeper search reads the model's entries.

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

// modelBandMax returns the widest band at which fullEscape keeps a finite-difference
// model by its band (fdBand), or −1 when it keeps it dense: −1 off a box, where the box
// certificate cannot decide, and on the switches boxCertificate honours; else the band
// the box test factorizes as a band and bandProduct multiplies by, (b + 1)·8 ≤ d.
func (rn *run) modelBandMax(d int) int {
	if rn.ev.stochasticGrad() || rn.ev.smp != nil || rn.test.noPrune || rn.test.matrixFree || rn.test.noBoxCert || rn.test.noBandModel {
		return -1
	}
	for i := 0; i < rn.c.count(); i++ {
		if rn.c.boundCoord(i) < 0 || rn.c.isEq(i) || rn.c.isCovered(i) {
			return -1
		}
	}
	return d/8 - 1
}

// densify makes a band model's d×d matrix: the walk, and the deeper search's mirrors,
// read M's entries.
func (m *quadModel) densify() {
	if m.M == nil && m.band != nil {
		m.M, m.band, m.op = m.band.dense(), nil, nil
	}
}
