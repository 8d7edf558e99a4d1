package houdini

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// eps is the float64 unit roundoff ε = 2⁻⁵² used to scale the numerical guards.
const eps = 0x1p-52

func dot(x, y []float64) float64 { return floats.Dot(x, y) }

// norm is ‖x‖₂, computed without overflow (gonum scales it).
func norm(x []float64) float64 { return floats.Norm(x, 2) }

// dist returns ‖x − y‖₂.
func dist(x, y []float64) float64 { return floats.Distance(x, y, 2) }

// allFinite returns the index of the first NaN or Inf in x, or -1: v − v is 0 exactly
// for finite v and NaN for NaN and ±Inf, and a sum of such terms is 0 exactly when every
// one is, so four entries cost four subtractions, three additions and one branch (every
// gradient call is checked, d entries a call).
func allFinite(x []float64) int {
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a, b, c, d := x[i], x[i+1], x[i+2], x[i+3]
		if (a-a)+(b-b)+(c-c)+(d-d) != 0 {
			break
		}
	}
	for ; i < len(x); i++ {
		if v := x[i]; v-v != 0 {
			return i
		}
	}
	return -1
}

// axpy adds a·x to dst.
func axpy(dst []float64, a float64, x []float64) { floats.AddScaled(dst, a, x) }

// scale multiplies x by a in place.
func scale(x []float64, a float64) { floats.Scale(a, x) }

// unitDir writes x/‖x‖₂ into dst (which may be x) and returns ‖x‖₂; dst is left alone when
// x = 0. It divides by m = max|xᵢ| first, so that the quotients lie in [−1, 1], their
// norm in [1, √n], and nothing overflows: 1/‖x‖ itself is +Inf when ‖x‖ < 2⁻¹⁰²⁴ (a
// subnormal gradient), and x·(r/‖x‖) overflows whenever r/‖x‖ does.
func unitDir(dst, x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	if !(m > 0) {
		return 0
	}
	for i, v := range x {
		dst[i] = v / m
	}
	n := norm(dst[:len(x)])
	scale(dst[:len(x)], 1/n)
	return m * n
}

func sub(x, y []float64) []float64 {
	z := make([]float64, len(x))
	for i := range x {
		z[i] = x[i] - y[i]
	}
	return z
}

// sumNorm returns ‖x + y‖₂.
func sumNorm(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		v := x[i] + y[i]
		s += v * v
	}
	return math.Sqrt(s)
}

// orthogonalize returns the component of a orthogonal to the orthonormal vectors in
// basis, by modified Gram–Schmidt applied twice ("twice is enough", Giraud et al. 2005),
// which keeps the basis orthonormal to working precision even for nearly dependent rows.
func orthogonalize(a []float64, basis [][]float64) []float64 {
	u := append([]float64(nil), a...)
	for pass := 0; pass < 2; pass++ {
		for _, b := range basis {
			c := dot(b, u)
			for j := range u {
				u[j] -= c * b[j]
			}
		}
	}
	return u
}

// dot2 returns Σᵢ aᵢxᵢ + c as if computed in twice the working precision and rounded
// once (Dot2 of Ogita, Rump & Oishi 2005: error-free products by FMA, error-free sums,
// their errors summed): |dot2 − exact| ≤ u·|exact| + γ²ₙ·(|c| + Σ|aᵢxᵢ|), u = ε/2. A slack
// computed so carries the rounding of the data alone, not that of the sum.
func dot2(a, x []float64, c float64) float64 {
	s, e := c, 0.0
	for i, ai := range a {
		p := ai * x[i]
		s, e = twoSum(s, e+math.FMA(ai, x[i], -p), p)
	}
	return s + e
}

// twoSum adds p to the compensated sum (s, e) of dot2: s + e is the running value.
func twoSum(s, e, p float64) (float64, float64) {
	t := s + p
	z := t - s
	return t, e + (s - (t - z)) + (p - z)
}
