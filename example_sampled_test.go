package houdini_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/houdini-opt/houdini"
)

// ExampleSampled fits y ≈ w₀a₀ + w₁a₁ on 2000 samples, under 0 ≤ w ≤ 1, by naming
// mini-batches: the library draws the ids (seeded by Settings.Seed), evaluates the same
// batch at two points where it needs differences, takes full passes where they are
// cheaper than estimates, and reports the data it used.
func ExampleSampled() {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 2000
	a := make([][2]float64, n)
	y := make([]float64, n)
	for i := range a {
		a[i] = [2]float64{rng.NormFloat64(), rng.NormFloat64()}
		y[i] = 0.7*a[i][0] + 1.5*a[i][1] + 0.3*rng.NormFloat64()
	}
	p := houdini.Problem{Sampled: &houdini.Sampled{
		N: n,
		Grad: func(g, w []float64, ids []int) { // mean of (a·w − y)a over the batch
			g[0], g[1] = 0, 0
			for _, i := range ids {
				res := a[i][0]*w[0] + a[i][1]*w[1] - y[i]
				g[0] += res * a[i][0] / float64(len(ids))
				g[1] += res * a[i][1] / float64(len(ids))
			}
		},
		Func: func(w []float64, ids []int) float64 { // mean of ½(a·w − y)²
			s := 0.0
			for _, i := range ids {
				res := a[i][0]*w[0] + a[i][1]*w[1] - y[i]
				s += 0.5 * res * res / float64(len(ids))
			}
			return s
		},
	}}
	box, _ := houdini.NewBox([]float64{0, 0}, []float64{1, 1})
	res, err := houdini.Minimize(context.Background(), p, box, []float64{0, 0},
		houdini.Settings{Delta: 1e-3, Radius: 0.1, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v at (%.2f, %.2f), confidence %g, %.0f passes over the data\n",
		res.Status, res.X[0], res.X[1], res.Confidence, res.Stats.Passes)
	// Output: certified δ-SOSP at (0.69, 1.00), confidence 1, 6 passes over the data
}
