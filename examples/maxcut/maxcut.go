package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// Graph is an undirected simple graph on vertices 0..N−1.
type Graph struct {
	Name  string
	N     int
	Edges [][2]int
	adj   [][]int
}

// ReadGraph reads an edge list: a first line "n m", then m lines "i j" with 0-based
// vertices. It rejects self-loops, out-of-range vertices and a count that differs from m.
func ReadGraph(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var ints [][]int
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: want two integers, got %q", path, len(ints)+1, sc.Text())
		}
		a, err1 := strconv.Atoi(fields[0])
		b, err2 := strconv.Atoi(fields[1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: want two integers, got %q", path, len(ints)+1, sc.Text())
		}
		ints = append(ints, []int{a, b})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(ints) == 0 {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	n, m := ints[0][0], ints[0][1]
	if n <= 0 || m != len(ints)-1 {
		return nil, fmt.Errorf("%s: header says n=%d m=%d, file has %d edges", path, n, m, len(ints)-1)
	}
	g := &Graph{Name: strings.TrimSuffix(filepath.Base(path), ".edges"), N: n, adj: make([][]int, n)}
	for k, e := range ints[1:] {
		i, j := e[0], e[1]
		if i < 0 || j < 0 || i >= n || j >= n || i == j {
			return nil, fmt.Errorf("%s:%d: bad edge %d %d", path, k+2, i, j)
		}
		g.Edges = append(g.Edges, [2]int{i, j})
		g.adj[i] = append(g.adj[i], j)
		g.adj[j] = append(g.adj[j], i)
	}
	return g, nil
}

// F returns f(x) = ½xᵀAx = Σ_{ij ∈ E} xᵢxⱼ for the adjacency matrix A.
func (g *Graph) F(x []float64) float64 {
	var s float64
	for _, e := range g.Edges {
		s += x[e[0]] * x[e[1]]
	}
	return s
}

// Problem returns f(x) = ½xᵀAx with its gradient Ax and constant Hessian A. Passing the
// Hessian saves the d gradient differences of each escape.
func (g *Graph) Problem() houdini.Problem {
	return houdini.Problem{
		Func: g.F,
		Grad: func(grad, x []float64) {
			for i, nb := range g.adj {
				var s float64
				for _, j := range nb {
					s += x[j]
				}
				grad[i] = s
			}
		},
		Hess: func(h *mat.SymDense, _ []float64) {
			for i := 0; i < g.N; i++ {
				for j := i; j < g.N; j++ {
					h.SetSym(i, j, 0)
				}
			}
			for _, e := range g.Edges {
				h.SetSym(e[0], e[1], 1)
			}
		},
	}
}

// Cut returns the number of edges whose ends have strictly opposite signs in x: the cut
// of the partition sign(x). A zero coordinate is on neither side, so Cut(0) = 0. On
// {−1, 1}ⁿ, F = |E| − 2·Cut.
func (g *Graph) Cut(x []float64) int {
	cut := 0
	for _, e := range g.Edges {
		if x[e[0]]*x[e[1]] < 0 {
			cut++
		}
	}
	return cut
}

// boundTol decides that a coordinate sits at a bound ±1. Escapes that hold a bound row put
// the coordinate there up to rounding of the projection, far below this.
const boundTol = 1e-6

// Fractions returns the fractions of coordinates at −1 and at +1 (within boundTol).
func Fractions(x []float64) (minus, plus float64) {
	for _, v := range x {
		switch {
		case math.Abs(v+1) <= boundTol:
			minus++
		case math.Abs(v-1) <= boundTol:
			plus++
		}
	}
	n := float64(len(x))
	return minus / n, plus / n
}

// Constraints returns the box [−1, 1]ⁿ, with balanced also the equality Σᵢ xᵢ = 0
// (first-class: held in every subset of the escape's walk, never a walk choice).
func Constraints(n int, balanced bool) (*houdini.Constraints, error) {
	P := houdini.Polyhedron{Lower: make([]float64, n), Upper: make([]float64, n)}
	for i := range P.Lower {
		P.Lower[i], P.Upper[i] = -1, 1
	}
	if balanced {
		ones := mat.NewDense(1, n, nil)
		for i := 0; i < n; i++ {
			ones.Set(0, i, 1)
		}
		P.Aeq, P.Beq = ones, []float64{0}
	}
	return houdini.NewPolyhedron(P)
}

// ReadVector reads one number a line.
func ReadVector(path string) ([]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var x []float64
	for k, s := range strings.Fields(string(data)) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: value %d: %v", path, k+1, err)
		}
		x = append(x, v)
	}
	return x, nil
}

// Config is one run's settings.
type Config struct {
	Delta, Radius float64
	MaxEscapes    int
	MaxSubsets    int
	Timeout       time.Duration // 0: none; a run cut short ends with StatusCanceled
	EscapesOnly   bool          // true: the paper's pure escape loop
	Purify        bool          // Settings.Purify: move flat coordinates to ±1 after a certificate
	Balanced      bool
	Seed          uint64
	SearchRungs   int // Settings.Search.Rungs
	SearchTries   int // Settings.Search.Tries
	// Log, when not nil, receives one line per escape: examined and pruned subsets, the
	// case and subset size of the move, f and the elapsed time.
	Log io.Writer
}

// Trace records the paper's figure: per iteration (0 = the start, then one per escape)
// the objective and the fractions of coordinates at −1 and at +1, plus the end point
// when it is not the last escape's (after a purification). In fast mode an iteration includes the descent phase
// that precedes its escape.
type Trace struct {
	Iter             []int
	F                []float64
	FracMinus, Frac1 []float64
}

func (t *Trace) add(iter int, x []float64, f float64) {
	m, p := Fractions(x)
	t.Iter = append(t.Iter, iter)
	t.F = append(t.F, f)
	t.FracMinus = append(t.FracMinus, m)
	t.Frac1 = append(t.Frac1, p)
}

// Outcome is one run's result with the figures the example prints.
type Outcome struct {
	Result              *houdini.Result
	X                   []float64
	F                   float64
	Cut                 int
	FracMinus, FracPlus float64
	// FirstCertified is the fraction at ±1 where the first escape certified, before any
	// purification; −1 when none did.
	FirstCertified       float64
	Balance              int // #{xᵢ > 0} − #{xᵢ < 0}
	Trace                Trace
	Wall                 time.Duration
	GradCalls, HessCalls int
	FuncCalls            int
}

// Run minimizes f = ½xᵀAx over [−1, 1]ⁿ (and Σxᵢ = 0 when cfg.Balanced) from x0 and
// records the trace through Settings.Callback. In the balanced variant x0 is first
// shifted by its mean so that it meets Σxᵢ = 0.
func Run(ctx context.Context, g *Graph, x0 []float64, cfg Config) (*Outcome, error) {
	if len(x0) != g.N {
		return nil, fmt.Errorf("start has %d coordinates, graph %d vertices", len(x0), g.N)
	}
	x0 = append([]float64(nil), x0...)
	if cfg.Balanced {
		var mean float64
		for _, v := range x0 {
			mean += v
		}
		mean /= float64(len(x0))
		for i := range x0 {
			x0[i] = max(-1, min(1, x0[i]-mean))
		}
	}
	c, err := Constraints(g.N, cfg.Balanced)
	if err != nil {
		return nil, err
	}
	out := &Outcome{FirstCertified: -1}
	lastX := x0
	out.Trace.add(0, x0, g.F(x0))
	start := time.Now()
	s := houdini.Settings{
		Delta:       cfg.Delta,
		Radius:      cfg.Radius,
		MaxEscapes:  cfg.MaxEscapes,
		MaxSubsets:  cfg.MaxSubsets,
		Seed:        cfg.Seed,
		EscapesOnly: cfg.EscapesOnly,
		Purify:      cfg.Purify,
		Search:      houdini.SearchSettings{Rungs: cfg.SearchRungs, Tries: cfg.SearchTries},
		Callback: func(iter int, e *houdini.EscapeResult) bool {
			// e.X is the point after the escape: the move when Found, else the point the
			// escape examined (in fast mode, where the descent phase stopped).
			out.Trace.add(iter, e.X, g.F(e.X))
			lastX = e.X
			if e.Certified && out.FirstCertified < 0 {
				m, p := Fractions(e.X)
				out.FirstCertified = m + p
			}
			if cfg.Log != nil {
				fmt.Fprintf(cfg.Log, "escape %d: found %v case %v |subset| %d examined %d pruned %d complete %v f %.3f t %.1fs\n",
					iter, e.Found, e.Case, len(e.Subset), e.Examined, e.Pruned, e.Complete,
					out.Trace.F[len(out.Trace.F)-1], time.Since(start).Seconds())
			}
			return false
		},
	}
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	res, err := houdini.Minimize(ctx, g.Problem(), c, x0, s)
	if err != nil {
		return nil, err
	}
	out.Wall = time.Since(start)
	if n := len(out.Trace.Iter); !slices.Equal(res.X, lastX) {
		// The run ended elsewhere than the last escape's point: Purify undid its last move
		// (X is the point certified before it), or the run stopped right after one.
		out.Trace.add(out.Trace.Iter[n-1]+1, res.X, g.F(res.X))
	}
	out.Result = res
	out.X = res.X
	out.F = g.F(res.X)
	out.Cut = g.Cut(res.X)
	out.FracMinus, out.FracPlus = Fractions(res.X)
	for _, v := range res.X {
		switch {
		case v > 0:
			out.Balance++
		case v < 0:
			out.Balance--
		}
	}
	out.GradCalls, out.HessCalls, out.FuncCalls = res.Stats.GradEvals, res.Stats.HessEvals, res.Stats.FuncEvals
	return out, nil
}

// ProjectedGradient returns ‖P(x − ∇f(x)) − x‖∞ for f = ½xᵀAx on [−1, 1]ⁿ: zero exactly
// at a first-order point.
func ProjectedGradient(g *Graph, x []float64) float64 {
	grad := make([]float64, len(x))
	g.Problem().Grad(grad, x)
	pg := 0.0
	for i, xi := range x {
		pg = math.Max(pg, math.Abs(math.Max(-1, math.Min(1, xi-grad[i]))-xi))
	}
	return pg
}
