package houdini_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// apexCone returns k rows aᵢ·x ≤ 0 with aᵢ₀ = −10 and the other entries standard normal:
// a pointed cone around +e₀ whose apex, the origin, is a vertex of k ≫ d rows.
func apexCone(tb testing.TB, d, k int) *houdini.Constraints {
	rng := rand.New(rand.NewPCG(1, 2))
	a := mat.NewDense(k, d, nil)
	for i := range k {
		for j := 1; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
		a.Set(i, 0, -10)
	}
	c, err := houdini.NewConstraints(a, make([]float64, k))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestDescentDegenerateVertexStall: at the apex of a cone of 100 rows in ℝ⁵ (a degenerate
// vertex) the working set's face is {0} and the descent phase's steps followed the
// rounding of the projection onto it: 2,050 steps of about 1e-21, 41,000 gradient calls,
// before the escape that lowers f at once. The phase now ends after a few negligible
// steps (negligibleStep) and the escape moves.
func TestDescentDegenerateVertexStall(t *testing.T) {
	d, k := 5, 100
	c := apexCone(t, d, k)
	p := sweepSaddle(d, 1, 0, true, false)
	s := houdini.Settings{Delta: 1e-2, Radius: 0.5, Method: houdini.MethodCorner, MaxEscapes: 3}
	res, err := houdini.Minimize(context.Background(), p, c, make([]float64, d), s)
	if err != nil {
		t.Fatal(err)
	}
	moves := 0
	for _, n := range res.Stats.Cases {
		moves += n
	}
	t.Logf("status %v, F %.4g, %d gradient calls, %d descent steps, %d escapes (%d moves)", res.Status, res.F, res.Stats.GradEvals, res.Stats.DescentSteps, res.Stats.Escapes, moves)
	if moves == 0 || !(res.F < -0.1) {
		t.Errorf("no escape move from the apex: F = %g, %d moves", res.F, moves)
	}
	if res.Stats.GradEvals > 5000 {
		t.Errorf("%d gradient calls: the descent phase stalls at the vertex", res.Stats.GradEvals)
	}
}

// BenchmarkMinimizeApex_d5_k100 is TestDescentDegenerateVertexStall's run (before
// negligibleStep: 7.2 s and 14,413 gradient calls; after: 10 ms and 98).
func BenchmarkMinimizeApex_d5_k100(b *testing.B) {
	d, k := 5, 100
	c := apexCone(b, d, k)
	p := sweepSaddle(d, 1, 0, true, false)
	s := houdini.Settings{Delta: 1e-2, Radius: 0.5, Method: houdini.MethodCorner, MaxEscapes: 3}
	for b.Loop() {
		res, err := houdini.Minimize(context.Background(), p, c, make([]float64, d), s)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Stats.GradEvals), "grad/op")
	}
}
