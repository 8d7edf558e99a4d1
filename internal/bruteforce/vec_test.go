package bruteforce

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestExactAffine compares exactAffine with a 5000-bit big.Float evaluation on data
// whose exponents span the whole float64 range, where a plain or compensated dot
// product cancels catastrophically.
func TestExactAffine(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for i := range 3000 {
		n := 1 + rng.IntN(6)
		a, x := make([]float64, n), make([]float64, n)
		for j := range a {
			a[j] = math.Ldexp(rng.NormFloat64(), rng.IntN(400)-200)
			x[j] = math.Ldexp(rng.NormFloat64(), rng.IntN(400)-200)
		}
		c := -dot(a, x) // near cancellation
		if i%3 == 0 {
			c = math.Ldexp(rng.NormFloat64(), rng.IntN(2000)-1000)
		}
		for _, s := range []float64{-1, 1} {
			ref := new(big.Float).SetPrec(5000).SetFloat64(c)
			for j := range a {
				p := new(big.Float).SetPrec(5000).Mul(big.NewFloat(a[j]), big.NewFloat(x[j]))
				if s < 0 {
					p.Neg(p)
				}
				ref.Add(ref, p)
			}
			want, _ := ref.Float64()
			if got := exactAffine(c, s, a, x); got != want {
				t.Fatalf("exactAffine(%g, %g, %v, %v) = %g, want %g", c, s, a, x, got, want)
			}
		}
	}
}
