package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/houdini-opt/houdini"
	"github.com/houdini-opt/houdini/examples/internal/repo"
	"gonum.org/v1/gonum/mat"
)

// randomGraph writes an Erdős–Rényi G(n, p) edge list to dir and reads it back.
func randomGraph(t *testing.T, dir string, n int, p float64, seed uint64) *Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	var lines []string
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rng.Float64() < p {
				lines = append(lines, fmt.Sprintf("%d %d", i, j))
			}
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("er%d_seed%d.edges", n, seed))
	text := fmt.Sprintf("%d %d\n%s\n", n, len(lines), strings.Join(lines, "\n"))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := ReadGraph(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Edges) != len(lines) || g.N != n {
		t.Fatalf("read %d edges on %d vertices, wrote %d on %d", len(g.Edges), g.N, len(lines), n)
	}
	return g
}

// dense returns the adjacency matrix, built independently of Graph's adjacency lists.
func dense(g *Graph) *mat.Dense {
	A := mat.NewDense(g.N, g.N, nil)
	for _, e := range g.Edges {
		A.Set(e[0], e[1], 1)
		A.Set(e[1], e[0], 1)
	}
	return A
}

// cutByMatrix counts Σ_{i<j} Aᵢⱼ [sign xᵢ = −sign xⱼ ≠ 0] from the dense matrix.
func cutByMatrix(A *mat.Dense, x []float64) int {
	n, _ := A.Dims()
	cut := 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			si, sj := math.Copysign(1, x[i]), math.Copysign(1, x[j])
			if A.At(i, j) != 0 && x[i] != 0 && x[j] != 0 && si != sj {
				cut++
			}
		}
	}
	return cut
}

func TestReadGraphRejects(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"count":    "3 2\n0 1\n",
		"loop":     "3 1\n1 1\n",
		"range":    "3 1\n0 3\n",
		"fields":   "3 1\n0 1 2\n",
		"negative": "3 1\n-1 2\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadGraph(path); err == nil {
			t.Errorf("%s: ReadGraph accepted %q", name, text)
		}
	}
}

// TestOracles checks F, Grad, Hess and Cut against the dense adjacency matrix:
// F = ½xᵀAx, Grad = Ax, Hess = A, and F = |E| − 2·Cut on {−1, 1}ⁿ.
func TestOracles(t *testing.T) {
	g := randomGraph(t, t.TempDir(), 40, 0.2, 1)
	A := dense(g)
	p := g.Problem()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		x := make([]float64, g.N)
		for i := range x {
			x[i] = 2*rng.Float64() - 1
		}
		xv := mat.NewVecDense(g.N, x)
		var ax mat.VecDense
		ax.MulVec(A, xv)
		if want := 0.5 * mat.Dot(xv, &ax); math.Abs(p.Func(x)-want) > 1e-10 {
			t.Fatalf("F = %v, ½xᵀAx = %v", p.Func(x), want)
		}
		grad := make([]float64, g.N)
		p.Grad(grad, x)
		for i := range grad {
			if math.Abs(grad[i]-ax.AtVec(i)) > 1e-12 {
				t.Fatalf("Grad[%d] = %v, (Ax)[%d] = %v", i, grad[i], i, ax.AtVec(i))
			}
		}
		s := make([]float64, g.N)
		for i := range s {
			s[i] = float64(2*rng.IntN(2) - 1)
		}
		cut := g.Cut(s)
		if cut != cutByMatrix(A, s) {
			t.Fatalf("Cut = %d, matrix count %d", cut, cutByMatrix(A, s))
		}
		if f := p.Func(s); f != float64(len(g.Edges)-2*cut) {
			t.Fatalf("on ±1: F = %v, |E| − 2·cut = %d", f, len(g.Edges)-2*cut)
		}
	}
	h := mat.NewSymDense(g.N, nil)
	for i := 0; i < g.N; i++ {
		h.SetSym(i, i, 7) // stale values must be overwritten
	}
	p.Hess(h, make([]float64, g.N))
	if !mat.Equal(h, A) {
		t.Fatal("Hess ≠ A")
	}
	if g.Cut(make([]float64, g.N)) != 0 {
		t.Fatal("Cut(0) ≠ 0")
	}
}

// checkOutcome checks the invariants of a run: X feasible, the trace non-increasing and
// ending at the reported f, the cut equal to an independent count, the fractions
// recounted, and the saddle at 0 left.
func checkOutcome(t *testing.T, g *Graph, o *Outcome, balanced bool) {
	t.Helper()
	const tol = 1e-8
	var sum float64
	for i, v := range o.X {
		if math.Abs(v) > 1+tol {
			t.Errorf("x[%d] = %v outside [−1, 1]", i, v)
		}
		sum += v
	}
	if balanced && math.Abs(sum) > tol*float64(g.N) {
		t.Errorf("Σx = %v, want 0", sum)
	}
	tr := o.Trace
	if len(tr.F) < 2 {
		t.Fatalf("trace has %d points", len(tr.F))
	}
	// Escapes lower f, except where the deeper search (on by default here: f is a nonconvex
	// quadratic) restarts from a point above the best one.
	for i := 1; i < len(tr.F) && o.Result.Stats.Restarts == 0; i++ {
		if tr.F[i] > tr.F[i-1]+1e-9 {
			t.Errorf("trace rises at %d: %v → %v", tr.Iter[i], tr.F[i-1], tr.F[i])
		}
		if tr.Iter[i] <= tr.Iter[i-1] {
			t.Errorf("iterations not increasing: %d after %d", tr.Iter[i], tr.Iter[i-1])
		}
	}
	if last := tr.F[len(tr.F)-1]; math.Abs(last-o.F) > 1e-9 {
		t.Errorf("trace ends at %v, outcome F %v", last, o.F)
	}
	xv := mat.NewVecDense(g.N, o.X)
	var ax mat.VecDense
	ax.MulVec(dense(g), xv)
	if f := 0.5 * mat.Dot(xv, &ax); math.Abs(o.F-f) > 1e-9 || math.Abs(o.F-o.Result.F) > 1e-9 {
		t.Errorf("F = %v, ½XᵀAX = %v, Result.F = %v", o.F, f, o.Result.F)
	}
	if want := cutByMatrix(dense(g), o.X); o.Cut != want {
		t.Errorf("cut %d, independent count %d", o.Cut, want)
	}
	nm, np := 0, 0
	for _, v := range o.X {
		if v <= -1+boundTol {
			nm++
		}
		if v >= 1-boundTol {
			np++
		}
	}
	if o.FracMinus != float64(nm)/float64(g.N) || o.FracPlus != float64(np)/float64(g.N) {
		t.Errorf("fractions %v/%v, recount %d/%d of %d", o.FracMinus, o.FracPlus, nm, np, g.N)
	}
	if !(o.F < -1e-3) {
		t.Errorf("f = %v: the saddle at 0 was not left", o.F)
	}
	if o.GradCalls != o.Result.Stats.GradEvals {
		t.Errorf("grad calls %d, Stats %d", o.GradCalls, o.Result.Stats.GradEvals)
	}
}

func TestRunSmall(t *testing.T) {
	g := randomGraph(t, t.TempDir(), 30, 0.2, 3)
	for _, balanced := range []bool{false, true} {
		for _, paper := range []bool{true, false} {
			for _, purify := range []bool{false, true} {
				name := fmt.Sprintf("paper=%v/balanced=%v/purify=%v", paper, balanced, purify)
				t.Run(name, func(t *testing.T) {
					cfg := Config{Delta: 1e-2, Radius: 1e-1, MaxEscapes: 400, MaxSubsets: 64,
						Timeout: time.Minute, EscapesOnly: paper, Purify: purify, Balanced: balanced, Seed: 1}
					o, err := Run(context.Background(), g, make([]float64, g.N), cfg)
					if err != nil {
						t.Fatal(err)
					}
					checkOutcome(t, g, o, balanced)
					// Without the balance row f is multilinear on the box: a certified,
					// purified point is a vertex.
					if purify && !balanced && (o.Result.Status != houdini.StatusCertified || math.Abs(o.FracMinus+o.FracPlus-1) > 1e-12) {
						t.Errorf("purified: status %v, %.3f of the coordinates at ±1; want certified at a vertex", o.Result.Status, o.FracMinus+o.FracPlus)
					}
					// The same settings give the same run.
					o2, err := Run(context.Background(), g, make([]float64, g.N), cfg)
					if err != nil {
						t.Fatal(err)
					}
					if o2.F != o.F || len(o2.Trace.F) != len(o.Trace.F) {
						t.Errorf("rerun: f %v vs %v, trace %d vs %d", o2.F, o.F, len(o2.Trace.F), len(o.Trace.F))
					}
				})
			}
		}
	}
}

// TestRunPaperGraph runs the fast mode on the paper's first graph from the saddle x₀ = 0
// and from the peers' perturbed start.
func TestRunPaperGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("d = 300 run")
	}
	g, err := ReadGraph(repo.Path("testdata/maxcut/er300_seed1.edges"))
	if err != nil {
		t.Fatal(err)
	}
	for _, start := range []string{"zero", "gauss7"} {
		x0, err := startPoint(start, g.N)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Delta: 1e-2, Radius: 1e-1, MaxEscapes: 50, MaxSubsets: 64, Timeout: time.Minute, Seed: 1}
		o, err := Run(context.Background(), g, x0, cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkOutcome(t, g, o, false)
	}
}

func TestSaveFigure(t *testing.T) {
	tr := Trace{Iter: []int{0, 1, 2}, F: []float64{0, -1, -3}, FracMinus: []float64{0, .1, .4}, Frac1: []float64{0, .2, .5}}
	base := filepath.Join(t.TempDir(), "fig")
	if err := SaveFigure(base, "test", []Series{{"a", tr}, {"b", tr}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 200 {
		t.Errorf("PNG is %v", b)
	}
	svg, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("<svg")) {
		t.Error("SVG has no <svg element")
	}
}

// TestRunCommand runs the command on a small graph and checks that it prints a row for
// it and writes the figure.
func TestRunCommand(t *testing.T) {
	dir := t.TempDir()
	g := randomGraph(t, dir, 20, 0.3, 5)
	var out bytes.Buffer
	path := filepath.Join(dir, g.Name+".edges")
	if err := run([]string{"-graphs", path, "-mode", "both", "-out", dir, "-maxescapes", "200"}, &out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "| "+g.Name+" |"); n != 2 {
		t.Errorf("%d rows for %s, want 2:\n%s", n, g.Name, out.String())
	}
	for _, f := range []string{"fig_paper_zero.png", "fig_fast_zero.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
