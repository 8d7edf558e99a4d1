package bruteforce

import (
	"math"
	"math/big"
	"math/bits"
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

// exactAffine returns fl(c + s·Σ aᵢxᵢ) with one rounding, for s = ±1: the offset
// b − a·x of a row at x (c = b, s = −1) and the right-hand side a·x + c of a row at a
// given slack (s = +1) are then exact functions of the stored data. The sum is formed
// in a big.Float wide enough to hold every product (106 bits each) across the span of
// their exponents, so no addition rounds.
func exactAffine(c float64, s float64, a, x []float64) float64 {
	if math.IsInf(c, 0) || math.IsNaN(c) {
		return c
	}
	lo, hi := math.MaxInt, math.MinInt
	if c != 0 {
		_, e := math.Frexp(c)
		lo, hi = e-54, e
	}
	for i := range a {
		if a[i] != 0 && x[i] != 0 {
			_, ea := math.Frexp(a[i])
			_, ex := math.Frexp(x[i])
			lo, hi = min(lo, ea+ex-110), max(hi, ea+ex)
		}
	}
	if lo > hi {
		return c
	}
	// hi − lo bits span every term; the carries of n+1 additions need log₂(n+1) more.
	prec := uint(hi-lo) + 8 + uint(bits.Len(uint(len(a)+1)))
	acc := new(big.Float).SetPrec(prec).SetFloat64(c)
	var p, ai, xi big.Float
	p.SetPrec(prec)
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

// quadValue returns gᵀh + ½hᵀQh by plain loops.
func quadValue(g []float64, Q [][]float64, h []float64) float64 {
	s := 0.0
	for i, hi := range h {
		t := g[i]
		for j, hj := range h {
			t += 0.5 * Q[i][j] * hj
		}
		s += t * hi
	}
	return s
}

// quadGrad writes g + ½(Q + Qᵀ)h into dst.
func quadGrad(dst, g []float64, Q [][]float64, h []float64) {
	for i := range dst {
		s := g[i]
		for j, hj := range h {
			s += 0.5 * (Q[i][j] + Q[j][i]) * hj
		}
		dst[i] = s
	}
}
