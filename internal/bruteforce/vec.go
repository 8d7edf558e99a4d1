package bruteforce

import (
	"math"
	"math/big"
)

func dot(x, y []float64) float64 {
	s := 0.0
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func norm(x []float64) float64 {
	// Scaled, so rows of size 1e200 or 1e-200 do not overflow or underflow.
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	if m == 0 || math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, v := range x {
		s += (v / m) * (v / m)
	}
	return m * math.Sqrt(s)
}

func scaled(x []float64, s float64) []float64 {
	z := make([]float64, len(x))
	for i, v := range x {
		z[i] = s * v
	}
	return z
}

// axpy returns y + s·x as a new slice.
func axpy(s float64, x, y []float64) []float64 {
	z := make([]float64, len(y))
	for i := range y {
		z[i] = y[i] + s*x[i]
	}
	return z
}

// dot2 returns c + Σ xᵢyᵢ as if computed in twice the working precision (Ogita, Rump and
// Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 2005, Algorithm Dot2):
// each product is split exactly by an FMA and each sum by TwoSum. Residuals of nearly
// dependent rows need it; a plain dot product would hide them under rounding.
func dot2(x, y []float64, c float64) float64 {
	s, e := c, 0.0
	for i, v := range x {
		p := v * y[i]
		pe := math.FMA(v, y[i], -p)
		t := s + p
		z := t - s
		e += (s - (t - z)) + (p - z) + pe
		s = t
	}
	return s + e
}

// exactPrec is enough bits to hold any sum of a few products of float64s exactly: the
// exponent range of such a sum spans about 2·2098 bits.
const exactPrec = 4400

// exactAffine returns fl(c + s·Σ aᵢxᵢ) with one rounding, for s = ±1: the offset
// b − a·x of a row at x (c = b, s = −1) and the right-hand side a·x + c of a row at a
// given slack (s = +1) are then exact functions of the stored data.
func exactAffine(c float64, s float64, a, x []float64) float64 {
	acc := new(big.Float).SetPrec(exactPrec).SetFloat64(c)
	var p, ai, xi big.Float
	p.SetPrec(exactPrec)
	for i := range a {
		ai.SetFloat64(a[i])
		xi.SetFloat64(x[i])
		p.Mul(&ai, &xi)
		if s < 0 {
			acc.Sub(acc, &p)
		} else {
			acc.Add(acc, &p)
		}
	}
	v, _ := acc.Float64()
	return v
}
