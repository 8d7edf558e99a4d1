// Command quickstart escapes the constrained saddle of the paper's illustration
// (fig:escape-illustration): f(x, y) = x² − y² rotated by π/6, on the quadrant x ≤ 0,
// y ≤ 0, from the origin, where the gradient is zero and every first-order method stops.
// It prints one escape, then runs Minimize on a box to a certified δ-SOSP.
package main

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

func main() {
	c, s := math.Sqrt(3)/2, 0.5
	// f = u² − w² with u = c·x + s·y, w = −s·x + c·y.
	f := func(x []float64) float64 {
		u, w := c*x[0]+s*x[1], -s*x[0]+c*x[1]
		return u*u - w*w
	}
	grad := func(g, x []float64) {
		u, w := c*x[0]+s*x[1], -s*x[0]+c*x[1]
		g[0] = 2*c*u + 2*s*w
		g[1] = 2*s*u - 2*c*w
	}
	p := houdini.Problem{Func: f, Grad: grad}

	// The quadrant {x ≤ 0, y ≤ 0} as rows of Ax ≤ b.
	quadrant, err := houdini.NewConstraints(mat.NewDense(2, 2, []float64{1, 0, 0, 1}), []float64{0, 0})
	if err != nil {
		log.Fatal(err)
	}
	o, err := houdini.New(p, quadrant, houdini.Settings{Delta: 0.1, Radius: 1})
	if err != nil {
		log.Fatal(err)
	}
	e, err := o.Escape(context.Background(), []float64{0, 0})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("escape from the saddle at the origin (∇f = 0, r = 1, δ = 0.1):")
	fmt.Printf("  found %v by the %s candidate with rows %v held as equalities\n", e.Found, e.Case, e.Subset)
	fmt.Printf("  X = (%.4f, %.4f), f decreased by %.4f, %d subsets examined, %d pruned\n",
		e.X[0], e.X[1], e.Decrease, e.Examined, e.Pruned)

	// The same function on the box [−1, 1]²: Minimize escapes and descends to a corner
	// and certifies it.
	box, err := houdini.NewBox([]float64{-1, -1}, []float64{1, 1})
	if err != nil {
		log.Fatal(err)
	}
	res, err := houdini.Minimize(context.Background(), p, box, []float64{0, 0}, houdini.Settings{Delta: 1e-3, Radius: 0.5})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("Minimize on the box [−1, 1]² from the origin (δ = 1e-3, r = 0.5):")
	fmt.Printf("  status: %s after %d escapes and %d descent steps\n", res.Status, res.Stats.Escapes, res.Stats.DescentSteps)
	fmt.Printf("  X = (%.4f, %.4f), f(X) = %.4f, max violation %.1g, %d gradient calls\n",
		res.X[0], res.X[1], res.F, res.MaxViolation, res.Stats.GradEvals)
}
