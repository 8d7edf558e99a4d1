package houdini_test

import (
	"context"
	"fmt"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// ExampleNewPolyhedron minimizes f(x) = ½‖x − z‖², z = (0.8, 0.6, −0.5), over the simplex
// {x ≥ 0, Σx = 1}: the bounds as bounds and the sum as one equality, not as two rows. The
// Result lists the constraints active at X with their KKT multipliers,
// ∇f(X) + 0.2·1 − 0.7·e₂ = 0.
func ExampleNewPolyhedron() {
	c, err := houdini.NewPolyhedron(houdini.Polyhedron{
		Lower: []float64{0, 0, 0},
		Aeq:   mat.NewDense(1, 3, []float64{1, 1, 1}),
		Beq:   []float64{1},
	})
	if err != nil {
		panic(err)
	}
	z := []float64{0.8, 0.6, -0.5}
	p := houdini.Problem{
		Func: func(x []float64) float64 {
			s := 0.0
			for j := range x {
				s += 0.5 * (x[j] - z[j]) * (x[j] - z[j])
			}
			return s
		},
		Grad: func(g, x []float64) {
			for j := range x {
				g[j] = x[j] - z[j]
			}
		},
	}
	res, err := houdini.Minimize(context.Background(), p, c, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3},
		houdini.Settings{Delta: 1e-9, Radius: 0.3})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status)
	fmt.Printf("X ≈ (%.2f, %.2f, %.2f)\n", res.X[0], res.X[1], res.X[2])
	for _, a := range res.Active {
		fmt.Printf("%v: μ = %.2f\n", a.Constraint, a.Multiplier)
	}
	// Output:
	// certified δ-SOSP
	// X ≈ (0.60, 0.40, 0.00)
	// row 0 of Aeq: μ = 0.20
	// lower bound of x[2]: μ = 0.70
}
