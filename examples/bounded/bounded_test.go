package main

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// points returns x₀ and two seeded random points of the case's box.
func points(c Case, rng *rand.Rand) [][]float64 {
	pts := [][]float64{c.X0}
	for k := 0; k < 2; k++ {
		x := make([]float64, c.D)
		for i := range x {
			x[i] = c.Lower[i] + rng.Float64()*(c.Upper[i]-c.Lower[i])
		}
		pts = append(pts, x)
	}
	return pts
}

// TestDerivatives checks every gradient against central differences of F and every
// Hessian against central differences of Grad, at x₀ and random points of the box.
func TestDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const h = 1e-6
	for _, d := range []int{4, 10, 13} {
		for _, c := range Cases(d) {
			H := mat.NewSymDense(c.D, nil)
			g, gp, gm := make([]float64, c.D), make([]float64, c.D), make([]float64, c.D)
			for _, x := range points(c, rng) {
				c.Fn.Grad(g, x)
				c.Fn.Hess(H, x)
				y := append([]float64(nil), x...)
				for i := range x {
					y[i] = x[i] + h
					fp := c.Fn.F(y)
					c.Fn.Grad(gp, y)
					y[i] = x[i] - h
					fm := c.Fn.F(y)
					c.Fn.Grad(gm, y)
					y[i] = x[i]
					if fd := (fp - fm) / (2 * h); math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(g[i])) {
						t.Errorf("%s: ∂f/∂x%d = %v, difference %v", c.Key(), i, g[i], fd)
					}
					for j := range x {
						if fd := (gp[j] - gm[j]) / (2 * h); math.Abs(fd-H.At(i, j)) > 1e-5*math.Max(1, math.Abs(H.At(i, j))) {
							t.Errorf("%s: H[%d][%d] = %v, difference %v", c.Key(), i, j, H.At(i, j), fd)
						}
					}
				}
			}
		}
	}
}

// TestAgainstPython checks that Go and run_scipy.py define the same functions, boxes
// and starts: f, ‖∇f‖₂ and ‖∇²f‖_F at x₀ against the values the script stored, for
// every case in the CSV, and that every case of every stored dimension is there.
func TestAgainstPython(t *testing.T) {
	peers, err := ReadPeers(scipyCSV)
	if err != nil {
		t.Fatal(err)
	}
	// The dimensions asked of the script are those of the rosen-chain rows (defined at
	// every d ≥ 2); the Powell rows sit at the next multiple of 4.
	cases := make(map[string]Case)
	for _, p := range peers {
		if strings.HasPrefix(p.Case, "rosen-chain/") {
			for _, c := range Cases(p.D) {
				cases[c.Key()] = c
			}
		}
	}
	seen := make(map[string]int)
	for _, p := range peers {
		c, ok := cases[p.Key()]
		if !ok {
			t.Errorf("peer row %s %s: no Go case", p.Key(), p.Solver)
			continue
		}
		seen[p.Key()]++
		g := make([]float64, c.D)
		c.Fn.Grad(g, c.X0)
		H := mat.NewSymDense(c.D, nil)
		c.Fn.Hess(H, c.X0)
		for _, q := range []struct {
			name      string
			got, want float64
		}{{"f(x₀)", c.Fn.F(c.X0), p.F0}, {"‖∇f(x₀)‖", math.Sqrt(dot(g, g)), p.GNorm0}, {"‖∇²f(x₀)‖_F", mat.Norm(H, 2), p.HNorm0}} {
			if math.Abs(q.got-q.want) > 1e-10*math.Max(1, math.Abs(q.want)) {
				t.Errorf("%s: Go %s = %v, Python %v", p.Key(), q.name, q.got, q.want)
			}
		}
	}
	for key := range cases {
		if seen[key] != 3 {
			t.Errorf("%s: %d peer rows, want 3 (L-BFGS-B, SLSQP, trust-constr)", key, seen[key])
		}
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestBoxes checks the documented boxes: x₀ inside, and for the cases that say so the
// unconstrained minimizer outside.
func TestBoxes(t *testing.T) {
	minimizer := map[string]func(d int) []float64{
		"rosen-chain":     func(d int) []float64 { return fill(d, 1) },
		"rosen-ext":       func(d int) []float64 { return fill(d, 1) },
		"chained-wood":    func(d int) []float64 { return fill(d, 1) },
		"powell-singular": func(d int) []float64 { return fill(d, 0) },
		"styblinski-tang": func(d int) []float64 { return fill(d, -2.903534) },
	}
	for _, c := range Cases(12) {
		for i, v := range c.X0 {
			if v < c.Lower[i] || v > c.Upper[i] {
				t.Errorf("%s: x₀[%d] = %v outside [%v, %v]", c.Key(), i, v, c.Lower[i], c.Upper[i])
			}
		}
		m, ok := minimizer[c.Fn.Name]
		if !ok {
			continue // Broyden: its minimizer has no closed form; f > 0 on the box is checked below
		}
		x := m(c.D)
		if g := make([]float64, c.D); c.Fn.Name != "styblinski-tang" {
			c.Fn.Grad(g, x)
			if n := math.Sqrt(dot(g, g)); n > 1e-12 {
				t.Errorf("%s: ∇f at the stated minimizer has norm %v", c.Key(), n)
			}
		}
		inside := true
		for i, v := range x {
			inside = inside && v >= c.Lower[i] && v <= c.Upper[i]
		}
		if inside == c.CutsOff {
			t.Errorf("%s: minimizer inside the box %v, CutsOff %v", c.Key(), inside, c.CutsOff)
		}
	}
}

func fill(d int, v float64) []float64 {
	x := make([]float64, d)
	for i := range x {
		x[i] = v
	}
	return x
}

func TestProjGradNorm(t *testing.T) {
	lo, hi := []float64{0, 0, 0}, []float64{1, 1, 1}
	x := []float64{0, 0.5, 1}
	// At the lower bound a positive gradient is blocked, at the upper a negative one;
	// the free coordinate moves by min(|g|, distance to the bound).
	if got := ProjGradNorm([]float64{3, 0.2, -5}, x, lo, hi); got != 0.2 {
		t.Errorf("got %v, want 0.2", got)
	}
	if got := ProjGradNorm([]float64{-3, 0, 0}, x, lo, hi); got != 1 {
		t.Errorf("got %v, want 1 (clipped at the upper bound)", got)
	}
}

// TestRunHoudini checks a run's invariants: X in the box, F = f(X), the counts equal
// an independent counter around the oracles, the projected gradient recomputed.
func TestRunHoudini(t *testing.T) {
	for _, c := range Cases(10)[:2] {
		var nf, ng int
		fn := c.Fn
		c.Fn.F = func(x []float64) float64 { nf++; return fn.F(x) }
		c.Fn.Grad = func(g, x []float64) { ng++; fn.Grad(g, x) }
		o, err := RunHoudini(context.Background(), c, Config{Delta: 1e-6, Radius: 0.01, MaxSubsets: 4096, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range o.X {
			if v < c.Lower[i] || v > c.Upper[i] {
				t.Errorf("%s: X[%d] = %v outside the box", c.Key(), i, v)
			}
		}
		if f := fn.F(o.X); f != o.F {
			t.Errorf("%s: F = %v, f(X) = %v", c.Key(), o.F, f)
		}
		// RunHoudini's own gradient call for the projected gradient is not houdini's.
		if o.GradCalls != ng-1 || o.FuncCalls != nf {
			t.Errorf("%s: reported %d grad / %d func calls, counted %d / %d", c.Key(), o.GradCalls, o.FuncCalls, ng-1, nf)
		}
		g := make([]float64, c.D)
		fn.Grad(g, o.X)
		if pg := ProjGradNorm(g, o.X, c.Lower, c.Upper); pg != o.PG {
			t.Errorf("%s: PG %v, recomputed %v", c.Key(), o.PG, pg)
		}
	}
}

func TestRunPrintsPeers(t *testing.T) {
	var buf bytes.Buffer
	if err := run([]string{"-dims", "10", "-only", "styblinski"}, &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"**houdini**", "lbfgsb", "slsqp", "trust-constr", "styblinski-tang/[-2.5,2.5] | 10"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// BenchmarkBounded runs houdini on each case at d = 1000 once per iteration, for
// profiles of the whole run (`go test -run '^$' -bench Bounded -cpuprofile …`).
func BenchmarkBounded(b *testing.B) {
	for _, c := range Cases(1000) {
		b.Run(strings.ReplaceAll(c.Name, "/", "_"), func(b *testing.B) {
			cfg := Config{Delta: 1e-6, Radius: 0.01, MaxSubsets: 4096, Timeout: 20 * time.Second, Seed: 1}
			for b.Loop() {
				if _, err := RunHoudini(context.Background(), c, cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGradCalls_d1000 makes 1000 gradient calls per iteration on each case at
// d = 1000, each at a point moved in one coordinate (as the d finite-difference columns
// of a certificate are): the floor of an exact certificate from gradients alone, beside
// BenchmarkBounded's whole runs.
func BenchmarkGradCalls_d1000(b *testing.B) {
	for _, c := range Cases(1000) {
		b.Run(strings.ReplaceAll(c.Name, "/", "_"), func(b *testing.B) {
			g, x := make([]float64, c.D), append([]float64(nil), c.X0...)
			for b.Loop() {
				for i := range 1000 {
					x[i%c.D] += 1e-8
					c.Fn.Grad(g, x)
				}
			}
		})
	}
}
