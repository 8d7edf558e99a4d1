package bruteforce_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// ExampleMin finds the escape of the paper's rotated saddle f = x² − y² (fig:escape-
// illustration) from the corner of the quadrant x, y ≤ 0 at r = 1: both unconstrained
// directions of negative curvature leave the quadrant, and the minimum, −½, lies on the
// face x = 0.
func ExampleMin() {
	s3 := math.Sqrt(3)
	p := bruteforce.Problem{
		G: []float64{0, 0},
		Q: [][]float64{{1, s3}, {s3, -1}},
		A: [][]float64{{1, 0}, {0, 1}},
		B: []float64{0, 0}, // offsets b − a·x: both rows pass through x
		R: 1,
	}
	r := bruteforce.Min(p)
	fmt.Printf("min %.6f at (%.6f, %.6f), rows held %v\n", r.Value, r.H[0], r.H[1], r.Held)
	// Output: min -0.500000 at (0.000000, -1.000000), rows held [0]
}

// ExampleSample checks Min against sampling on the same problem, with the sampling held
// to a far tighter tolerance (see the package doc).
func ExampleSample() {
	p := bruteforce.Problem{
		G: []float64{0, 0},
		Q: [][]float64{{-2, 0}, {0, 1}},
		A: [][]float64{{-1, 0}},
		B: []float64{0.5}, // y₀ ≥ x₀ − 0.5
		R: 1,
	}
	m := bruteforce.Min(p)
	p.Tol = 1e-15
	s := bruteforce.Sample(p, rand.New(rand.NewPCG(1, 2)), 100)
	fmt.Printf("Min %.6f, Sample %.6f, Sample below Min: %v\n", m.Value, s.Value, s.Value < m.Value-1e-12)
	// Output: Min -1.000000, Sample -1.000000, Sample below Min: false
}

// ExampleCase builds catalogue instances and translates one far from the origin, as the
// scale property test of issue 12 does; the minimum is unchanged while the translation
// is small against r/ε.
func ExampleCase() {
	for i := range 3 {
		in := bruteforce.Case(1, i)
		fmt.Println(in.Name)
	}
	in := bruteforce.Case(1, 2)
	base := bruteforce.Min(in.Problem())
	far := bruteforce.Min(in.Transform(1000, 0x1p-20, 4).Problem())
	fmt.Printf("min %.9f; translated by 1000, rows ×2⁻²⁰, f ×4, then ÷4: %.9f\n", base.Value, far.Value/4)
	// Output:
	// case (1, 0) simplex/vertex, sum as two rows, bounds, indefinite, d=4 r=0.6
	// case (1, 1) budget/budget slack, bounds, indefinite, d=6 r=0.05
	// case (1, 2) balanced box/2 free, sum as two rows, bounds, indefinite, d=5 r=0.3
	// min -0.074061004; translated by 1000, rows ×2⁻²⁰, f ×4, then ÷4: -0.074061004
}
