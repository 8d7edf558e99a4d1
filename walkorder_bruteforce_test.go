package houdini_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini"
	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// TestWalkOrderAgainstIndexOrder (issue 14 item 3): the walk's order (walk.walkOrder, a
// test switch: each subset's children by how much its best candidate violates them) decides which
// subsets a budget reaches, never the verdict of a complete walk. On seeded instances of
// every internal/bruteforce family, in two forms and with a translated, rescaled copy, at
// δ around the exhaustive minimum m, a complete escape in walkOrder's order and one in
// near's order must agree on Certified and Found and on the model decrease (the least
// candidate value of the whole tree, up to rounding), and neither may contradict the
// brute force. 1200 instances, 240 under -short.
func TestWalkOrderAgainstIndexOrder(t *testing.T) {
	n := 1200
	if testing.Short() {
		n = 240
	}
	ratios := []float64{0.5, 1, 1.9, 2.1, 4, 10}
	var examined, indexExamined, compared, bad int
	var tl polyTally
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(2026, uint64(i)))
		base := bruteforce.Generate(rng, bruteforce.Spec{Family: bruteforce.Family(i % int(bruteforce.NumFamilies)),
			Model: bruteforce.Model(rng.IntN(int(bruteforce.NumModels)))})
		tr := [][3]float64{{0, 1, 1}, {1e3, 1e-3, 1e2}, {10, 1e3, 1e-2}}[i%3]
		in := base.Transform(tr[0], tr[1], tr[2])
		truth := bruteforce.Min(in.Problem()).Value
		scale := polyScale(in)
		if math.IsInf(truth, 0) || truth >= -1e-6*scale {
			continue
		}
		delta := -truth * ratios[i%len(ratios)]
		f := []polyForm{formFirstClass, formAllRows}[i/3%2]
		if msg := polyCheck(in, f, delta, truth, &tl); msg != "" {
			bad++
			t.Errorf("instance %d (%s): %s", i, in.Name, msg)
			continue
		}
		var es [2]*houdini.EscapeResult
		for k := range es {
			c, err := polyConstraints(in, f)
			if err != nil {
				t.Fatal(err)
			}
			o, err := houdini.New(polyProblem(in), c, houdini.Settings{Delta: delta, Radius: in.R, MaxSubsets: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				o.UseWalkOrder()
			}
			if es[k], err = o.Escape(context.Background(), in.X); err != nil {
				t.Fatal(err)
			}
		}
		a, b := es[0], es[1]
		examined += a.Examined
		indexExamined += b.Examined
		if a.NumericalFailure || b.NumericalFailure {
			continue
		}
		compared++
		tol := 1e-7 * scale
		if a.Certified != b.Certified || a.Found != b.Found || math.Abs(a.ModelDecrease-b.ModelDecrease) > tol {
			bad++
			t.Errorf("instance %d (%s), δ = %g: walk order certified %v found %v model decrease %g; index order %v %v %g",
				i, in.Name, delta, a.Certified, a.Found, a.ModelDecrease, b.Certified, b.Found, b.ModelDecrease)
		}
	}
	t.Logf("%d escapes compared: subsets examined %d in walk order, %d in index order; brute force: certified %d, moved %d, neither %d",
		compared, examined, indexExamined, tl.certified, tl.found, tl.neither)
	if compared < n/2 {
		t.Errorf("only %d of %d instances compared", compared, n)
	}
	if bad > 0 {
		t.Errorf("%d disagreements", bad)
	}
}
