package houdini_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// quarticProblem is f(x) = Σᵢ (xᵢ⁴/4 − xᵢ²) + ½xᵀBx + cᵀx, nonconvex with many saddles
// and local minima, and ∇²f Lipschitz with constant 3·max|xᵢ|·2 on a box.
func quarticProblem(B [][]float64, c []float64, withHess, withFunc bool) houdini.Problem {
	d := len(c)
	p := houdini.Problem{
		Grad: func(g, x []float64) {
			for i := 0; i < d; i++ {
				g[i] = x[i]*x[i]*x[i] - 2*x[i] + c[i]
				for j := 0; j < d; j++ {
					g[i] += B[i][j] * x[j]
				}
			}
		},
	}
	if withFunc {
		p.Func = func(x []float64) float64 {
			s := 0.0
			for i := 0; i < d; i++ {
				s += x[i]*x[i]*x[i]*x[i]/4 - x[i]*x[i] + c[i]*x[i]
				for j := 0; j < d; j++ {
					s += 0.5 * x[i] * B[i][j] * x[j]
				}
			}
			return s
		}
	}
	if withHess {
		p.Hess = func(h *mat.SymDense, x []float64) {
			for i := 0; i < d; i++ {
				for j := i; j < d; j++ {
					v := B[i][j]
					if i == j {
						v += 3*x[i]*x[i] - 2
					}
					h.SetSym(i, j, v)
				}
			}
		}
	}
	return p
}

// TestMinimizeDeterministic runs Minimize twice with the same Settings, with and without
// noise, and requires bit-identical Results: X, F, Decrease, MaxViolation, Status, δ, r
// and every Stats field but Runtime. A reused Optimizer must repeat itself as well, and
// with noise another seed must give another X.
func TestMinimizeDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const d = 4
	B := make([][]float64, d)
	for i := range B {
		B[i] = make([]float64, d)
	}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := 0.6 * rng.NormFloat64()
			B[i][j], B[j][i] = v, v
		}
	}
	c := vscale(randVec2(rng, d), 0.1)
	// The box [−2, 2]⁴ plus two oblique rows through the start, a corner of S.
	rows := [][]float64{{1, 1, 0, 0}, {0, -1, 1, 1}}
	x0 := []float64{-2, 2, -0.5, 0.3}
	A := mat.NewDense(2*d+len(rows), d, nil)
	b := make([]float64, 2*d+len(rows))
	for i := 0; i < d; i++ {
		A.Set(2*i, i, 1)
		A.Set(2*i+1, i, -1)
		b[2*i], b[2*i+1] = 2, 2
	}
	for k, r := range rows {
		A.SetRow(2*d+k, r)
		b[2*d+k] = vdot(r, x0)
	}
	cons, err := houdini.NewConstraints(A, b)
	if err != nil {
		t.Fatal(err)
	}
	settings := []struct {
		s                  houdini.Settings
		withHess, withFunc bool
	}{
		{houdini.Settings{Delta: 1e-3, Rho: 24}, true, true},
		{houdini.Settings{Delta: 1e-3, Rho: 24, Full: houdini.FullSettings{Noise: 0.5}, Seed: 7, EscapesOnly: true}, false, true},
		{houdini.Settings{Delta: 1e-2, Radius: 0.3, Full: houdini.FullSettings{Noise: 1}, Seed: 0, EscapesOnly: true}, true, false},
		{houdini.Settings{Delta: 1e-4, Rho: 24, Full: houdini.FullSettings{Noise: 0.2}, Seed: 99, MaxEscapes: 3, EscapesOnly: true}, false, false},
	}
	for n, tc := range settings {
		t.Run(fmt.Sprintf("%d/noise=%g", n, tc.s.Full.Noise), func(t *testing.T) {
			p := quarticProblem(B, c, tc.withHess, tc.withFunc)
			r1, err := houdini.Minimize(context.Background(), p, cons, x0, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := houdini.Minimize(context.Background(), p, cons, x0, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			// The noise acts in escapes; the descent phase between them is deterministic
			// arithmetic. Either way a run of one step would compare nothing.
			if steps := r1.Stats.Escapes + r1.Stats.DescentSteps; steps < 2 {
				t.Fatalf("only %d escapes and descent steps: nothing to compare", steps)
			}
			if tc.s.Full.Noise > 0 && tc.s.EscapesOnly && r1.Stats.Escapes < 2 {
				t.Fatalf("only %d escapes with noise: nothing to compare", r1.Stats.Escapes)
			}
			sameResult(t, "fresh runs", r1, r2)
			o, err := houdini.New(p, cons, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			for rep := 0; rep < 2; rep++ {
				r3, err := o.Minimize(context.Background(), x0)
				if err != nil {
					t.Fatal(err)
				}
				sameResult(t, fmt.Sprintf("reused Optimizer, run %d", rep+1), r1, r3)
			}
			if tc.s.Full.Noise > 0 {
				// The comparison means something only if the noise reaches the result:
				// another seed must change some bit of X.
				s2 := tc.s
				s2.Seed++
				r4, err := houdini.Minimize(context.Background(), p, cons, x0, s2)
				if err != nil {
					t.Fatal(err)
				}
				differ := false
				for i := range r4.X {
					differ = differ || math.Float64bits(r4.X[i]) != math.Float64bits(r1.X[i])
				}
				if !differ {
					t.Errorf("seeds %d and %d give the same X: the noise has no effect", tc.s.Seed, s2.Seed)
				}
			}
			t.Logf("status %v after %d escapes, decrease %.6g, cases %v", r1.Status, r1.Stats.Escapes, r1.Decrease, r1.Stats.Cases)
		})
	}
}

func sameResult(t *testing.T, what string, a, b *houdini.Result) {
	t.Helper()
	bits := math.Float64bits
	if len(a.X) != len(b.X) {
		t.Fatalf("%s: len(X) %d vs %d", what, len(a.X), len(b.X))
	}
	for i := range a.X {
		if bits(a.X[i]) != bits(b.X[i]) {
			t.Errorf("%s: X[%d] = %v vs %v", what, i, a.X[i], b.X[i])
		}
	}
	for _, f := range []struct {
		name string
		x, y float64
	}{{"F", a.F, b.F}, {"Decrease", a.Decrease, b.Decrease}, {"MaxViolation", a.MaxViolation, b.MaxViolation},
		{"Delta", a.Delta, b.Delta}, {"Radius", a.Radius, b.Radius}} {
		if bits(f.x) != bits(f.y) {
			t.Errorf("%s: %s = %v vs %v", what, f.name, f.x, f.y)
		}
	}
	if a.Status != b.Status {
		t.Errorf("%s: Status %v vs %v", what, a.Status, b.Status)
	}
	sa, sb := a.Stats, b.Stats
	sa.Runtime, sb.Runtime = 0, 0
	if sa != sb {
		t.Errorf("%s: Stats %+v vs %+v", what, sa, sb)
	}
}

// TestGOMAXPROCSInvariant: gonum's BLAS splits large products across goroutines; the
// result must not depend on how many run. Minimize on a G(300, 0.05) max-cut relaxation
// (fast mode to a certificate, and 30 escapes of the paper's loop) gives bit-identical
// Results at GOMAXPROCS 1 and 2.
func TestGOMAXPROCSInvariant(t *testing.T) {
	if testing.Short() {
		t.Skip("two max-cut runs at d = 300")
	}
	const n = 300
	A := randomGraph(n, 0.05, 11)
	p := houdini.Problem{
		Func: func(x []float64) float64 { v := mat.NewVecDense(n, x); return 0.5 * mat.Inner(v, A, v) },
		Grad: func(g, x []float64) { mat.NewVecDense(n, g).MulVec(A, mat.NewVecDense(n, x)) },
		Hess: func(h *mat.SymDense, x []float64) { h.CopySym(A) },
	}
	box := unitBox(t, n)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, s := range []houdini.Settings{
		{Delta: 1e-2, Radius: 0.1},
		{Delta: 1e-2, Radius: 0.1, EscapesOnly: true, MaxEscapes: 30, Full: houdini.FullSettings{Noise: 0.1}, Seed: 3},
	} {
		var res [2]*houdini.Result
		for k, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			r, err := houdini.Minimize(context.Background(), p, box, make([]float64, n), s)
			if err != nil {
				t.Fatal(err)
			}
			res[k] = r
		}
		sameResult(t, fmt.Sprintf("GOMAXPROCS 1 vs 2, EscapesOnly %v", s.EscapesOnly), res[0], res[1])
	}
}
