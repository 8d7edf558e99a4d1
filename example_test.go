package houdini_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// saddle is f(x) = ½xᵀMx with M = diag(1, −1): the origin is a strict saddle.
var saddle = houdini.Problem{
	Func: func(x []float64) float64 { return 0.5 * (x[0]*x[0] - x[1]*x[1]) },
	Grad: func(g, x []float64) { g[0], g[1] = x[0], -x[1] },
}

// Minimize leaves the saddle at the origin, where the gradient vanishes, and stops at a
// corner of the box that it certifies as a δ-SOSP.
func ExampleMinimize() {
	box, err := houdini.NewBox([]float64{-1, -2}, []float64{1, 1})
	if err != nil {
		log.Fatal(err)
	}
	res, err := houdini.Minimize(context.Background(), saddle, box, []float64{0, 0},
		houdini.Settings{Delta: 1e-3, Radius: 0.5})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status)
	fmt.Printf("x = (%.3f, %.3f), f = %.3f\n", res.X[0], res.X[1], res.F)
	// Output:
	// certified δ-SOSP
	// x = (0.000, -2.000), f = -2.000
}

// Escape is one HoudiniEscape: at the corner x = 0 of the orthant x ≥ 0 with a
// Hessian that is not copositive, it finds the feasible direction of negative curvature.
func ExampleOptimizer_Escape() {
	// f(x) = ½xᵀMx, M = [[1, −2], [−2, 1]]: v = (1, 1) gives f = −1 < 0.
	M := mat.NewSymDense(2, []float64{1, -2, -2, 1})
	p := houdini.Problem{
		Grad: func(g, x []float64) { mat.NewVecDense(2, g).MulVec(M, mat.NewVecDense(2, x)) },
	}
	orthant, err := houdini.NewBox([]float64{0, 0}, []float64{math.Inf(1), math.Inf(1)})
	if err != nil {
		log.Fatal(err)
	}
	o, err := houdini.New(p, orthant, houdini.Settings{Delta: 0.1, Radius: 1})
	if err != nil {
		log.Fatal(err)
	}
	e, err := o.Escape(context.Background(), []float64{0, 0})
	if err != nil {
		log.Fatal(err)
	}
	// With v = ∇f(0) = 0 every weight of the secular equation vanishes: the move is the
	// exact hard case of the trust-region subproblem, an eigenvector of M on the sphere.
	fmt.Println(e.Found, e.Case)
	fmt.Printf("X = (%.4f, %.4f), decrease %.4f\n", e.X[0], e.X[1], e.Decrease)
	// Output:
	// true hard case
	// X = (0.7071, 0.7071), decrease 0.5000
}

// NewConstraints takes general rows; here a budget x₀ + x₁ ≤ 1 on the nonnegative
// quadrant, with the start on the budget's face.
func ExampleNewConstraints() {
	A := mat.NewDense(3, 2, []float64{
		1, 1, // x₀ + x₁ ≤ 1
		-1, 0, // x₀ ≥ 0
		0, -1, // x₁ ≥ 0
	})
	c, err := houdini.NewConstraints(A, []float64{1, 0, 0})
	if err != nil {
		log.Fatal(err)
	}
	// Violation is the signed distance to the nearest row's half-space: negative inside.
	row, v := c.Violation([]float64{0.25, 0.25})
	fmt.Printf("worst row %d, violation %.2f\n", row, v)
	_, err = houdini.Minimize(context.Background(), saddle, c, []float64{2, 0}, houdini.Settings{Delta: 0.1, Radius: 1})
	fmt.Println(err)
	// Output:
	// worst row 1, violation -0.25
	// houdini: point is infeasible: row 0 of A is violated by 0.7071067811865475
}
