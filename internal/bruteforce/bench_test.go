package bruteforce

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkMin_catalogue54 times Min on one instance of every family and model pair
// (54 instances, d ≤ 6); divide by 54 for the time per instance.
func BenchmarkMin_catalogue54(b *testing.B) {
	ps := make([]Problem, 54)
	for i := range ps {
		ps[i] = Case(1, i).Problem()
	}
	for b.Loop() {
		for _, p := range ps {
			Min(p)
		}
	}
}

// BenchmarkSample_catalogue54 times Sample (n = 100, Tol = 1e-15, as the cross-check
// runs it) on the same 54 instances.
func BenchmarkSample_catalogue54(b *testing.B) {
	ps := make([]Problem, 54)
	for i := range ps {
		ps[i] = Case(1, i).Problem()
		ps[i].Tol = sampleTol
	}
	for b.Loop() {
		for i, p := range ps {
			Sample(p, rand.New(rand.NewPCG(1, uint64(i))), 100)
		}
	}
}
