package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary serve as the child process of spawn.
func TestMain(m *testing.M) {
	if childMain() {
		return
	}
	os.Exit(m.Run())
}

// manual builds a graph from an edge list.
func manual(n int, edges [][3]float64) *Graph {
	g := &Graph{Name: "manual", N: n}
	for _, e := range edges {
		g.add(int(e[0]), int(e[1]), e[2])
	}
	g.build()
	return g
}

func cycle(n int) *Graph {
	var e [][3]float64
	for i := 0; i < n; i++ {
		e = append(e, [3]float64{float64(i), float64((i + 1) % n), 1})
	}
	return manual(n, e)
}

// bruteMaxCut returns the maximum cut weight over all 2ⁿ⁻¹ partitions, from the edge
// list alone.
func bruteMaxCut(g *Graph) float64 {
	best := math.Inf(-1)
	for mask := 0; mask < 1<<(g.N-1); mask++ {
		var c float64
		for k := range g.I {
			if (mask>>g.I[k])&1 != (mask>>g.J[k])&1 {
				c += g.EW[k]
			}
		}
		best = math.Max(best, c)
	}
	return best
}

func smallGraphs(t *testing.T) []*Graph {
	var gs []*Graph
	for _, n := range []int{9, 12, 16} {
		er, err := ER(n, uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		tor, err := Torus(n, uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, er, tor)
	}
	return append(gs, cycle(9), cycle(10))
}

func TestGenerators(t *testing.T) {
	for _, n := range []int{9, 100, 800} {
		g, err := ER(n, 1)
		if err != nil {
			t.Fatal(err)
		}
		if g.M() != 3*n {
			t.Errorf("ER(%d): %d edges, want %d (average degree 6)", n, g.M(), 3*n)
		}
		seen := map[[2]int32]bool{}
		for k := range g.I {
			a, b := min(g.I[k], g.J[k]), max(g.I[k], g.J[k])
			if a == b || seen[[2]int32{a, b}] || g.EW[k] != 1 {
				t.Errorf("ER(%d): edge %d–%d (weight %v) is a loop, a repeat or not unit", n, a, b, g.EW[k])
			}
			seen[[2]int32{a, b}] = true
		}
		tor, err := Torus(n, 1)
		if err != nil {
			t.Fatal(err)
		}
		for v := 0; v < n; v++ {
			if d := tor.Off[v+1] - tor.Off[v]; d != 4 {
				t.Errorf("%s: vertex %d has degree %d, want 4", tor.Name, v, d)
			}
		}
		for _, w := range tor.EW {
			if w != 1 && w != -1 {
				t.Errorf("%s: weight %v", tor.Name, w)
			}
		}
	}
	if _, err := Torus(14, 1); err == nil {
		t.Error("Torus(14) = 2×7 accepted; a 2-row torus has repeated edges")
	}
}

// TestAgainstPython checks that the graphs of peers/scipy.csv are the Go program's:
// same name, edge count and checksum (edges and weights in order).
func TestAgainstPython(t *testing.T) {
	runs, err := ReadScipy(scipyCSV)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) == 0 {
		t.Fatal("peers/scipy.csv has no rows")
	}
	for _, r := range runs {
		if r.N > 20000 && testing.Short() {
			continue
		}
		fam := "er"
		if strings.HasPrefix(r.Graph, "torus") {
			fam = "torus"
		}
		g, err := graphFor(fam, r.N, r.Seed)
		if err != nil {
			t.Fatal(err)
		}
		if g.Name != r.Graph || g.M() != r.M || g.Checked != r.Checksum {
			t.Errorf("%s: Go %s m=%d checksum %d, Python m=%d checksum %d", r.Graph, g.Name, g.M(), g.Checked, r.M, r.Checksum)
		}
		if b := bruteMaxCutBound(g); r.Cut > b || r.FracPM1 < 0.5 {
			t.Errorf("%s: SciPy cut %v above Σ max(w, 0) = %v, or only %v at ±1", r.Graph, r.Cut, b, r.FracPM1)
		}
	}
}

// TestGradientAndCut checks Grad against central differences of F, Cut against a
// count from the definition, and f = ½(Σw − 2·cut) on ±1 points.
func TestGradientAndCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, g := range smallGraphs(t) {
		x := make([]float64, g.N)
		for i := range x {
			x[i] = 2*rng.Float64() - 1
		}
		grad := make([]float64, g.N)
		g.Grad(grad, x)
		for i := range x {
			y := append([]float64(nil), x...)
			y[i] += 1e-6
			fp := g.F(y)
			y[i] -= 2e-6
			fm := g.F(y)
			if fd := (fp - fm) / 2e-6; math.Abs(fd-grad[i]) > 1e-7 {
				t.Errorf("%s: ∂f/∂x%d = %v, difference %v", g.Name, i, grad[i], fd)
			}
		}
		for i := range x {
			x[i] = float64(2*rng.IntN(2) - 1)
		}
		x[0] = 0 // on neither side
		cut, edges := g.Cut(x)
		var want float64
		wantEdges := 0
		for k := range g.I {
			a, b := x[g.I[k]], x[g.J[k]]
			if a != 0 && b != 0 && a != b {
				want += g.EW[k]
				wantEdges++
			}
		}
		if cut != want || edges != wantEdges {
			t.Errorf("%s: Cut = %v, %d edges; by definition %v, %d", g.Name, cut, edges, want, wantEdges)
		}
		x[0] = 1
		cut, _ = g.Cut(x)
		if f := g.F(x); math.Abs(f-(g.TotalW-2*cut)/2) > 1e-12 {
			t.Errorf("%s: f = %v, ½(Σw − 2·cut) = %v", g.Name, f, (g.TotalW-2*cut)/2)
		}
	}
}

// TestPeersBruteForce checks the peers against the brute-force maximum on tiny graphs:
// never above it, 1-flip at a 1-flip optimum, BMZ optimal where the answer is known.
func TestPeersBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, g := range smallGraphs(t) {
		opt := bruteMaxCut(g)
		one := g.BestOneFlip(10, rng)
		bmz := g.BMZ(10, rng)
		for name, p := range map[string]PeerResult{"1-flip": one, "BMZ": bmz} {
			if c, _ := g.Cut(p.X); c != p.Cut || p.Cut > opt {
				t.Errorf("%s %s: cut %v (recomputed %v), brute-force maximum %v", g.Name, name, p.Cut, c, opt)
			}
		}
		for v := 0; v < g.N; v++ {
			y := append([]float64(nil), one.X...)
			y[v] = -y[v]
			if c, _ := g.Cut(y); c > one.Cut {
				t.Errorf("%s: flipping %d raises the 1-flip result %v to %v", g.Name, v, one.Cut, c)
			}
		}
		t.Logf("%s: max cut %v, 1-flip %v, BMZ %v", g.Name, opt, one.Cut, bmz.Cut)
	}
	// Known answers: an even cycle is bipartite (every edge cut), an odd cycle of length n
	// cuts n − 1, K₃,₄ cuts all 12.
	var k34 [][3]float64
	for i := 0; i < 3; i++ {
		for j := 3; j < 7; j++ {
			k34 = append(k34, [3]float64{float64(i), float64(j), 1})
		}
	}
	for _, c := range []struct {
		g    *Graph
		want float64
	}{{cycle(10), 10}, {cycle(9), 8}, {cycle(101), 100}, {manual(7, k34), 12}} {
		if got := c.g.BMZ(10, rng).Cut; got != c.want {
			t.Errorf("BMZ on %d vertices: cut %v, want %v", c.g.N, got, c.want)
		}
	}
}

// TestAngleSweep checks the sweep against a dense scan of the line's angle α.
func TestAngleSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, g := range smallGraphs(t) {
		theta := make([]float64, g.N)
		for i := range theta {
			theta[i] = 20*rng.Float64() - 10 // any real angle, negative ones too
		}
		x, cut := g.AngleSweep(theta)
		if c, _ := g.Cut(x); c != cut {
			t.Errorf("%s: sweep reports %v, its partition cuts %v", g.Name, cut, c)
		}
		best := math.Inf(-1)
		y := make([]float64, g.N)
		for k := 0; k < 20000; k++ {
			alpha := math.Pi * float64(k) / 20000
			for i, th := range theta {
				u := math.Mod(th-alpha, 2*math.Pi)
				if u < 0 {
					u += 2 * math.Pi
				}
				y[i] = -1
				if u < math.Pi {
					y[i] = 1
				}
			}
			c, _ := g.Cut(y)
			best = math.Max(best, c)
		}
		if best != cut {
			t.Errorf("%s: sweep %v, scan of α %v", g.Name, cut, best)
		}
	}
}

func TestLBFGS(t *testing.T) {
	// Rosenbrock from (−1.2, 1): the minimum (1, 1).
	fg := func(x, g []float64) float64 {
		a, b := x[0], x[1]
		g[0] = -400*a*(b-a*a) - 2*(1-a)
		g[1] = 200 * (b - a*a)
		return 100*(b-a*a)*(b-a*a) + (1-a)*(1-a)
	}
	x := []float64{-1.2, 1}
	lbfgs(fg, x, 5, 1000, 1e-8, 0)
	if math.Abs(x[0]-1) > 1e-6 || math.Abs(x[1]-1) > 1e-6 {
		t.Errorf("L-BFGS on Rosenbrock ends at %v", x)
	}
}

// TestQP checks the QP's gradient against central differences and a small houdini run.
func TestQP(t *testing.T) {
	q := NewQP(12, 1)
	rng := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, q.D)
	for i := range x {
		x[i] = 2*rng.Float64() - 1
	}
	g := make([]float64, q.D)
	q.Grad(g, x)
	for i := range x {
		y := append([]float64(nil), x...)
		y[i] += 1e-6
		fp := q.F(y)
		y[i] -= 2e-6
		if fd := (fp - q.F(y)) / 2e-6; math.Abs(fd-g[i]) > 1e-6 {
			t.Errorf("QP: ∂f/∂x%d = %v, difference %v", i, g[i], fd)
		}
	}
	h, err := runHoudini(context.Background(), QPProblem(q), make([]float64, q.D), Config{Delta: 1e-2, Radius: 0.1, MaxSubsets: 4096, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if h.F >= 0 || h.Status != "certified δ-SOSP" {
		t.Errorf("QP d = 12: f = %v from f(0) = 0, status %s", h.F, h.Status)
	}
}

// TestChildJobs runs each job kind in this process and checks the reported cut against
// the graph's, then one spawned child end to end through run.
func TestChildJobs(t *testing.T) {
	for _, kind := range []string{"houdini", "oneflip", "bmz"} {
		var out, log bytes.Buffer
		job := Job{Kind: kind, Family: "torus", N: 30, Seed: 1, Runs: 3,
			Cfg: Config{Delta: 1e-2, Radius: 0.1, MaxSubsets: 4096, Seed: 1}}
		if err := runChild(job, &out, &log); err != nil {
			t.Fatal(err)
		}
		var r JobResult
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		g, _ := Torus(30, 1)
		if !r.Done || r.Cut > bruteMaxCutBound(g) || math.Abs(r.F-(g.TotalW-2*r.Cut)/2) > 1e-9 && kind != "houdini" {
			t.Errorf("%s: %+v", kind, r)
		}
	}
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	var buf bytes.Buffer
	if err := run([]string{"-n", "30", "-qp", "10", "-runs", "2", "-timeout", "20s"}, &buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"torus5x6", "er30", "**houdini**", "BMZ rank-2", "not in peers/scipy.csv", "| 10 |"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, buf.String())
		}
	}
}

// bruteMaxCutBound is Σ max(w, 0), an upper bound on any cut.
func bruteMaxCutBound(g *Graph) float64 {
	var s float64
	for _, w := range g.EW {
		s += math.Max(w, 0)
	}
	return s
}

func TestSkipHoudini(t *testing.T) {
	if s := skipHoudini(100000, 1<<30, 24e9, true); !strings.Contains(s, "80 GB") {
		t.Errorf("n = 10⁵ with -hess: %q", s)
	}
	if s := skipHoudini(100000, 1<<30, 24e9, false); s != "" {
		t.Errorf("n = 10⁵: skipped: %q", s)
	}
	if s := skipHoudini(800, 20000, 24e9, false); s != "" {
		t.Errorf("n = 800: skipped: %q", s)
	}
}
