package houdini_test

// Issue 12, defect 9: one Optimizer shared by goroutines. Run with -race.

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sync"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// TestConcurrentCallsShareOptimizer (issue 12, defect 9): concurrent Minimize and Escape
// calls on one Optimizer give exactly the results of the same calls made one at a time, and
// are clean under -race. The oracles are pure functions, safe for concurrent use. The first
// problem, f = −x₀² + 10x₀⁴ + x₁² on [−2, 2]², makes Minimize halve its radius twice (the
// model at r = 1 promises a decrease f does not deliver), the state that leaked into
// concurrent escapes on 58ff85a; the second is a rotated saddle in [−1, 1]³ under three general rows.
func TestConcurrentCallsShareOptimizer(t *testing.T) {
	quartic := houdini.Problem{
		Func: func(x []float64) float64 { return -x[0]*x[0] + 10*x[0]*x[0]*x[0]*x[0] + x[1]*x[1] },
		Grad: func(g, x []float64) {
			runtime.Gosched() // interleave the goroutines' calls even on one core
			g[0] = -2*x[0] + 40*x[0]*x[0]*x[0]
			g[1] = 2 * x[1]
		},
	}
	box, err := houdini.NewBox([]float64{-2, -2}, []float64{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	rf, rg := relRotatedSaddle3()
	rows, err := houdini.NewConstraints(mat.NewDense(9, 3, []float64{1, 1, 1, -1, 0.5, 0, 0, -1, 2,
		1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1}), []float64{1, 0.5, 1, 1, 1, 1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		p      houdini.Problem
		c      *houdini.Constraints
		s      houdini.Settings
		points [][]float64
	}{
		{"quartic", quartic, box, houdini.Settings{Delta: 0.01, Radius: 1, EscapesOnly: true},
			[][]float64{{0, 0.3}, {0.1, -0.5}, {-1, 1}}},
		{"rotated saddle, rows", houdini.Problem{Func: rf, Grad: rg}, rows, houdini.Settings{Delta: 1e-3, Radius: 0.4},
			[][]float64{{0, 0, 0}, {0.2, -0.1, 0.3}, {-0.3, 0.1, 0}}},
	}
	for _, tc := range cases {
		o, err := houdini.New(tc.p, tc.c, tc.s)
		if err != nil {
			t.Fatal(err)
		}
		relConcurrentCheck(t, tc.name, o, tc.points)
	}
}

// relConcurrentCheck calls Minimize and then Escape at each point, one at a time, then
// the same calls from 4 goroutines (25 rounds each, started together), and reports every
// concurrent result that differs from the sequential one.
func relConcurrentCheck(t *testing.T, name string, o *houdini.Optimizer, points [][]float64) {
	const goroutines, rounds = 4, 25
	ctx := context.Background()
	type pair struct {
		m *houdini.Result
		e *houdini.EscapeResult
	}
	call := func(x []float64) (pair, error) {
		m, err := o.Minimize(ctx, x)
		if err != nil {
			return pair{}, err
		}
		m.Stats.Runtime = 0
		e, err := o.Escape(ctx, x)
		return pair{m, e}, err
	}
	want := make([]pair, len(points))
	for i, x := range points {
		var err error
		if want[i], err = call(x); err != nil {
			t.Fatalf("%s: sequential call at %v: %v", name, x, err)
		}
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan string, goroutines*rounds)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			<-start
			for r := 0; r < rounds; r++ {
				i := (g + r) % len(points)
				got, err := call(points[i])
				switch {
				case err != nil:
					errs <- fmt.Sprintf("goroutine %d at %v: %v", g, points[i], err)
				case !reflect.DeepEqual(got.m, want[i].m):
					errs <- fmt.Sprintf("goroutine %d: Minimize from %v: %s", g, points[i], relFirstDiff(*got.m, *want[i].m))
				case !reflect.DeepEqual(got.e, want[i].e):
					errs <- fmt.Sprintf("goroutine %d: Escape at %v: %s", g, points[i], relFirstDiff(*got.e, *want[i].e))
				}
			}
		}(g)
	}
	close(start)
	wg.Wait()
	close(errs)
	n := 0
	for msg := range errs {
		if n++; n <= 5 {
			t.Errorf("%s: %s", name, msg)
		}
	}
	if n > 0 {
		t.Errorf("%s: %d of %d concurrent calls differ from the same calls made one at a time", name, n, goroutines*rounds)
	}
}

// relRotatedSaddle3 is u² − w² + ½z² with (u, w) the paper's rotation of (x₀, x₁) by 30°,
// z = x₂.
func relRotatedSaddle3() (func([]float64) float64, func(g, x []float64)) {
	c, s := math.Sqrt(3)/2, 0.5
	f := func(x []float64) float64 {
		u, w := c*x[0]+s*x[1], -s*x[0]+c*x[1]
		return u*u - w*w + 0.5*x[2]*x[2]
	}
	g := func(g, x []float64) {
		u, w := c*x[0]+s*x[1], -s*x[0]+c*x[1]
		g[0] = 2*c*u + 2*s*w
		g[1] = 2*s*u - 2*c*w
		g[2] = x[2]
	}
	return f, g
}

// relFirstDiff names the first field of two structs that differs, with both values
// (concurrent, then alone); nested structs (Stats) are searched too.
func relFirstDiff(got, want any) string {
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := 0; i < g.NumField(); i++ {
		if !g.Field(i).CanInterface() {
			continue
		}
		gi, wi := g.Field(i).Interface(), w.Field(i).Interface()
		if reflect.DeepEqual(gi, wi) {
			continue
		}
		name := g.Type().Field(i).Name
		if g.Field(i).Kind() == reflect.Struct {
			return name + "." + relFirstDiff(gi, wi)
		}
		return fmt.Sprintf("%s = %v concurrently, %v alone", name, gi, wi)
	}
	return "equal"
}
