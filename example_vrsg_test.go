package houdini_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/houdini-opt/houdini"
)

// ExampleVRSG estimates the gradient of f(x) = ½‖x − (1, 2)‖² from an oracle with
// Gaussian noise of σ = 1, to accuracy 0.1 except with probability 10⁻³.
func ExampleVRSG() {
	rng := rand.New(rand.NewPCG(1, 2))
	grad := func(g, x []float64) {
		g[0] = x[0] - 1 + 0.7*rng.NormFloat64()
		g[1] = x[1] - 2 + 0.7*rng.NormFloat64()
	}
	g, calls, err := houdini.VRSG(grad, []float64{0, 0}, 1, 0.1, 1e-3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("g ≈ (%.1f, %.1f) from %d calls\n", g[0], g[1], calls)
	// Output: g ≈ (-1.0, -2.0) from 15300 calls
}

// ExampleMinimize_stochastic escapes the saddle of f(x, y) = x² − y² at the origin on
// the box [−1, 1]² with a noisy gradient oracle whose σ is estimated.
func ExampleMinimize_stochastic() {
	rng := rand.New(rand.NewPCG(3, 4))
	p := houdini.Problem{Grad: func(g, x []float64) {
		g[0] = 2*x[0] + 0.1*rng.NormFloat64()
		g[1] = -2*x[1] + 0.1*rng.NormFloat64()
	}}
	box, _ := houdini.NewBox([]float64{-1, -1}, []float64{1, 1})
	res, err := houdini.Minimize(context.Background(), p, box, []float64{0, 0},
		houdini.Settings{Delta: 0.1, Radius: 0.5, Stochastic: houdini.StochasticSettings{Grad: true}, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v at (%.1f, %.1f), σ̂ = %.2f\n", res.Status, res.X[0], res.X[1], res.Sigma)
	// Output: certified δ-SOSP at (0.0, 1.0), σ̂ = 0.14
}
