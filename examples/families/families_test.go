package main

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// bruteClique returns the clique number of g by trying every vertex subset (n ≤ 16).
func bruteClique(g Graph) int {
	n, best := len(g), 0
	for mask := 0; mask < 1<<n; mask++ {
		var vs []int
		for i := 0; i < n; i++ {
			if mask>>i&1 == 1 {
				vs = append(vs, i)
			}
		}
		if len(vs) > best && isClique(g, vs) {
			best = len(vs)
		}
	}
	return best
}

func isClique(g Graph, vs []int) bool {
	for a, u := range vs {
		for _, v := range vs[a+1:] {
			if !g[u][v] {
				return false
			}
		}
	}
	return true
}

func TestMaxCliqueBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(14)
		p := []float64{0.2, 0.5, 0.8, 0.95}[trial%4]
		g := Gnp(n, p, rng)
		c := MaxClique(g)
		if !isClique(g, c) || !slices.IsSorted(c) {
			t.Fatalf("trial %d: %v is not a sorted clique", trial, c)
		}
		if want := bruteClique(g); len(c) != want {
			t.Fatalf("trial %d (n %d, p %g): clique of %d, brute force %d", trial, n, p, len(c), want)
		}
	}
}

// TestVertexTransitiveGraphs checks the Hamming and Johnson graphs' sizes, degrees and
// clique numbers against their formulas.
func TestVertexTransitiveGraphs(t *testing.T) {
	check := func(name string, g Graph, n, deg, omega int) {
		t.Helper()
		if len(g) != n {
			t.Errorf("%s: %d vertices, want %d", name, len(g), n)
		}
		for i := range g {
			d := 0
			for j := range g {
				if g[i][j] {
					d++
				}
			}
			if d != deg || g[i][i] {
				t.Fatalf("%s: vertex %d has degree %d (loop %v), want %d", name, i, d, g[i][i], deg)
			}
		}
		if w := len(MaxClique(g)); w != omega {
			t.Errorf("%s: clique number %d, want %d", name, w, omega)
		}
	}
	for _, hq := range [][2]int{{1, 4}, {2, 3}, {2, 5}, {3, 3}, {4, 3}, {2, 10}, {3, 5}} {
		d, q := hq[0], hq[1]
		check("H", Hamming(d, q), int(math.Pow(float64(q), float64(d))), d*(q-1), q)
	}
	binom := func(n, k int) int {
		r := 1
		for i := 0; i < k; i++ {
			r = r * (n - i) / (i + 1)
		}
		return r
	}
	for _, nk := range [][2]int{{4, 2}, {5, 2}, {6, 3}, {7, 2}, {8, 3}, {10, 3}, {9, 4}} {
		n, k := nk[0], nk[1]
		check("J", Johnson(n, k), binom(n, k), k*(n-k), max(k+1, n-k+1))
	}
}

// TestMotzkinStrausScaling checks min −xᵀAx = −(1 − 1/ω) on the simplex by the KKT
// enumeration, independently of the clique code's use in MotzkinStraus.
func TestMotzkinStrausScaling(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 40; trial++ {
		n := 2 + rng.IntN(9)
		g := Gnp(n, []float64{0.3, 0.6, 0.9}[trial%3], rng)
		in := MotzkinStraus("t", "ms", g)
		want := -(1 - 1/float64(bruteClique(g)))
		got, x := KKTMin(in)
		if math.Abs(got-want) > 1e-9 || math.Abs(in.Ref-want) > 1e-12 {
			t.Fatalf("trial %d (n %d): KKT min %v, Ref %v, want −(1 − 1/ω) = %v", trial, n, got, in.Ref, want)
		}
		if in.Violation(x) > 1e-9 {
			t.Fatalf("trial %d: argmin violates by %g", trial, in.Violation(x))
		}
	}
}

// feasibleSample draws a random feasible point: uniform on the box (the simplex: on the
// simplex), then projected onto the sum row by a bisection on a shift, clipped to the box.
func feasibleSample(in *Instance, rng *rand.Rand) []float64 {
	x := make([]float64, in.N)
	if in.Sum == SumEq && math.IsInf(in.Upper[0], 1) {
		var s float64
		for i := range x {
			x[i] = -math.Log(1 - rng.Float64())
			s += x[i]
		}
		for i := range x {
			x[i] *= in.SumRHS / s
		}
		if rng.IntN(2) == 0 { // also faces: zero some coordinates and renormalize
			x[rng.IntN(in.N)] = 0
			s = 0
			for _, v := range x {
				s += v
			}
			for i := range x {
				x[i] *= in.SumRHS / s
			}
		}
		return x
	}
	for i := range x {
		x[i] = in.Lower[i] + (in.Upper[i]-in.Lower[i])*rng.Float64()
		if rng.IntN(4) == 0 { // vertices and faces are where minima of nonconvex QPs sit
			x[i] = []float64{in.Lower[i], in.Upper[i]}[rng.IntN(2)]
		}
	}
	sum := func(c float64) (s float64) {
		for i := range x {
			s += max(in.Lower[i], min(in.Upper[i], x[i]+c))
		}
		return s
	}
	if in.Sum == SumEq || (in.Sum == SumLE && sum(0) > in.SumRHS) {
		lo, hi := -1e3, 1e3
		for range 200 {
			if mid := 0.5 * (lo + hi); sum(mid) > in.SumRHS {
				hi = mid
			} else {
				lo = mid
			}
		}
		for i := range x {
			x[i] = max(in.Lower[i], min(in.Upper[i], x[i]+lo))
		}
	}
	return x
}

// TestKKTMinAgainstSampling checks the enumeration on small instances of every shape:
// its argmin is feasible with f = the minimum, no feasible sample is lower, and on
// dimension 3 a dense grid comes within the grid's resolution of it.
func TestKKTMinAgainstSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 60; trial++ {
		n := 3 + rng.IntN(4)
		var in *Instance
		switch trial % 4 {
		case 0:
			in = StQP(n, rng)
		case 1:
			in = Portfolio(n, rng)
		case 2:
			in = BalancedCut("t", Gnp(n, 0.5, rng))
		case 3:
			in = BoxQP(n, 50, rng)
		}
		fmin, x := KKTMin(in)
		if x == nil || in.Violation(x) > 1e-9 || math.Abs(in.F(x)-fmin) > 1e-9*math.Max(1, math.Abs(fmin)) {
			t.Fatalf("trial %d (%s, n %d): argmin %v violates by %g or f %v ≠ %v", trial, in.Family, n, x, in.Violation(x), in.F(x), fmin)
		}
		tol := 1e-7 * math.Max(1, math.Abs(fmin))
		for range 20000 {
			y := feasibleSample(in, rng)
			if in.Violation(y) > 1e-9 {
				t.Fatalf("trial %d: sampler gave an infeasible point (%g)", trial, in.Violation(y))
			}
			if f := in.F(y); f < fmin-tol {
				t.Fatalf("trial %d (%s, n %d): sample f %v below the KKT minimum %v", trial, in.Family, n, f, fmin)
			}
		}
	}
}

// TestKKTMinGrid compares the enumeration with a grid on n = 3 simplices and boxes: the
// grid's minimum is no lower, and within ‖∇f‖max·(half the grid's diagonal) of it.
func TestKKTMinGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 10; trial++ {
		in, steps := StQP(3, rng), 300
		if trial%2 == 1 {
			in, steps = BoxQP(3, 100, rng), 60
		}
		fmin, _ := KKTMin(in)
		grid := math.Inf(1)
		for i := 0; i <= steps; i++ {
			for j := 0; j <= steps; j++ {
				for k := 0; k <= steps; k++ {
					if in.Sum == SumEq && i+j+k != steps {
						continue
					}
					x := []float64{float64(i) / float64(steps), float64(j) / float64(steps), float64(k) / float64(steps)}
					grid = math.Min(grid, in.F(x))
				}
			}
		}
		var hf, gn float64 // ‖∇f(x)‖ ≤ ‖H‖_F·‖x‖ + ‖g‖, ‖x‖ ≤ √3
		for i := 0; i < 3; i++ {
			gn += in.G[i] * in.G[i]
			for j := 0; j < 3; j++ {
				hf += in.H.At(i, j) * in.H.At(i, j)
			}
		}
		tol := (math.Sqrt(hf)*math.Sqrt(3) + math.Sqrt(gn)) * math.Sqrt(3) / (2 * float64(steps))
		if grid < fmin-1e-9 || grid > fmin+tol {
			t.Errorf("trial %d (%s): grid min %v, KKT min %v, tolerance %v", trial, in.Family, grid, fmin, tol)
		}
	}
}

// TestBalancedVertexMin checks the vertex enumeration against the KKT enumeration.
func TestBalancedVertexMin(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 20; trial++ {
		n := 2 * (1 + rng.IntN(5))
		in := BalancedCut("t", Gnp(n, 0.5, rng))
		fv, xv := BalancedVertexMin(in)
		fk, _ := KKTMin(in)
		if math.Abs(fv-fk) > 1e-9 || in.Violation(xv) > 0 || in.F(xv) != fv {
			t.Fatalf("trial %d (n %d): vertex min %v at %v, KKT min %v", trial, n, fv, xv, fk)
		}
	}
}

// TestGenerated checks every family's instances: distinct names, feasible starts of the
// right size, a centre start as documented, exact references where promised, and the same
// instances from the same seed.
func TestGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("generates every instance, with the exact references (a few seconds)")
	}
	names := map[string]bool{}
	for _, f := range Families {
		set, again := f.generate(1), []*Instance(nil)
		if f.Name != "stqp" { // its exact references take seconds; the other families' are cheap
			again = f.generate(1)
		}
		for k, in := range set {
			if names[in.Name] {
				t.Errorf("duplicate name %s", in.Name)
			}
			names[in.Name] = true
			if in.Family != f.Name || len(in.Starts) != 2 || in.Starts[0].Name != "center" || in.Starts[1].Name != "random" {
				t.Errorf("%s: family %q, starts %v", in.Name, in.Family, len(in.Starts))
			}
			for _, s := range in.Starts {
				if len(s.X) != in.N || in.Violation(s.X) > 1e-12 {
					t.Errorf("%s: start %s has %d coordinates, violation %g", in.Name, s.Name, len(s.X), in.Violation(s.X))
				}
			}
			if (in.RefKind == "") != math.IsNaN(in.Ref) {
				t.Errorf("%s: Ref %v with kind %q", in.Name, in.Ref, in.RefKind)
			}
			for _, s := range in.Starts {
				if f := in.F(s.X); f < in.Ref-1e-9*math.Abs(in.Ref) {
					t.Errorf("%s: start %s has f %v below the exact minimum %v", in.Name, s.Name, f, in.Ref)
				}
			}
			if again == nil {
				continue
			}
			b := again[k]
			if b.Name != in.Name || b.F(b.Starts[1].X) != in.F(in.Starts[1].X) || !(b.Ref == in.Ref || math.IsNaN(in.Ref)) {
				t.Errorf("%s: not reproducible from the seed", in.Name)
			}
		}
	}
}

// TestPortfolioIndefinite checks that the portfolio's H has negative eigenvalues (about a
// third, as documented).
func TestPortfolioIndefinite(t *testing.T) {
	in := Portfolio(50, rand.New(rand.NewPCG(1, 1)))
	if l := tangentLambdaMin(in); !(l < -1) {
		t.Errorf("λmin(H) = %v, want well below 0", l)
	}
}

func TestWriteInstance(t *testing.T) {
	dir := t.TempDir()
	in := StQP(4, rand.New(rand.NewPCG(1, 1)))
	simplexStarts(in, rand.New(rand.NewPCG(2, 2)))
	if err := WriteInstance(dir, in, Families[0]); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, in.Name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var j instanceJSON
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	if j.N != 4 || j.Ref != nil || j.Sum != SumEq || j.Upper[0] != nil || j.H[1][2] != in.H.At(1, 2) || j.H[2][1] != in.H.At(1, 2) ||
		!slices.Equal(j.Starts[1].X, in.Starts[1].X) {
		t.Errorf("round trip: %+v", j)
	}
}

// TestRun runs houdini on small instances with exact minima: the end point is feasible,
// its reported f is the instance's, no lower than the exact minimum, and certified.
func TestRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ins := []*Instance{StQP(6, rng), Portfolio(6, rng), BalancedCut("t", Gnp(8, 0.5, rng))}
	for k, in := range ins {
		f := Families[slices.IndexFunc(Families, func(f Family) bool { return f.Name == in.Family })]
		simplexStarts(in, rng) // feasible for the simplex; replaced below otherwise
		if in.Sum != SumEq || in.Lower[0] != 0 {
			in.Starts = []Start{{"center", make([]float64, in.N)}}
		}
		ref, _ := KKTMin(in)
		for _, s := range in.Starts {
			o, err := Run(context.Background(), in, f, s, Config{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if o.Violation > 1e-9 || o.F < ref-1e-9*math.Abs(ref) || o.F > in.F(s.X)+1e-9 || !o.Certified || o.Escapes == 0 {
				t.Errorf("instance %d from %s: f %v (min %v, start %v), violation %g, %s after %d escapes",
					k, s.Name, o.F, ref, in.F(s.X), o.Violation, o.Status, o.Escapes)
			}
		}
	}
}
