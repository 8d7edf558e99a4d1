package houdini_test

import (
	"context"
	"fmt"
	"math"

	"github.com/houdini-opt/houdini"
)

// ExampleOptimizer_Escape_corner escapes the corner 0 of the orthant x ≥ 0 of
// f(x) = ½xᵀMx, with M not copositive (M₀₁ = −2), from gradients alone: the corner path
// needs no Hessian and forms no d×d matrix. The move is the first power iterate that
// passes alg:matrix_copositivity's test f(X) < f(x) − δ/2, not the deepest point.
func ExampleOptimizer_Escape_corner() {
	M := [3][3]float64{{1, -2, 0}, {-2, 1, 0}, {0, 0, 1}}
	grad := func(g, x []float64) {
		for i := range g {
			g[i] = 0
			for j := range x {
				g[i] += M[i][j] * x[j]
			}
		}
	}
	inf := math.Inf(1)
	c, err := houdini.NewBox([]float64{0, 0, 0}, []float64{inf, inf, inf})
	if err != nil {
		panic(err)
	}
	s := houdini.Settings{Delta: 0.1, Radius: 1, Method: houdini.MethodCorner, Seed: 1}
	o, err := houdini.New(houdini.Problem{Grad: grad}, c, s)
	if err != nil {
		panic(err)
	}
	res, err := o.Escape(context.Background(), []float64{0, 0, 0})
	if err != nil {
		panic(err)
	}
	fmt.Println("method:", res.Method, "found:", res.Found, "certified:", res.Certified)
	fmt.Printf("X ≈ (%.2f, %.2f, %.2f), decrease %.2f, subset %v\n",
		res.X[0], res.X[1], res.X[2], res.Decrease, res.Subset)
	// Output:
	// method: corner found: true certified: false
	// X ≈ (0.52, 0.78, 0.35), decrease 0.31, subset []
}
