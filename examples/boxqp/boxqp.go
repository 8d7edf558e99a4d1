package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// Instance is a BoxQP: MAXIMISE ½xᵀQx + cᵀx over [0, 1]ⁿ.
type Instance struct {
	Name string
	N    int
	Q    *mat.Dense // as read
	C    []float64
	Opt  float64 // proven global optimum of the maximisation; NaN when unknown
	sym  *mat.SymDense
}

// ReadInstance reads the format of Vandenbussche and Nemhauser's basic set: n, then c
// (n numbers), then Q row by row (n² numbers), whitespace separated. Opt is NaN.
func ReadInstance(path string) (*Instance, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("%s: bad dimension %q", path, fields[0])
	}
	if len(fields) != 1+n+n*n {
		return nil, fmt.Errorf("%s: %d numbers after n = %d, want n + n² = %d", path, len(fields)-1, n, n+n*n)
	}
	vals := make([]float64, n+n*n)
	for k, s := range fields[1:] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: number %d: bad value %q", path, k+2, s)
		}
		vals[k] = v
	}
	in := &Instance{
		Name: strings.TrimSuffix(filepath.Base(path), ".in"),
		N:    n,
		C:    vals[:n],
		Q:    mat.NewDense(n, n, vals[n:]),
		Opt:  math.NaN(),
		sym:  mat.NewSymDense(n, nil),
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			in.sym.SetSym(i, j, 0.5*(in.Q.At(i, j)+in.Q.At(j, i)))
		}
	}
	return in, nil
}

// ReadOptima reads "name value" lines.
func ReadOptima(path string) (map[string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	opt := make(map[string]float64)
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 2 {
			return nil, fmt.Errorf("%s:%d: want name and value", path, line)
		}
		v, err := strconv.ParseFloat(fs[1], 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		opt[fs[0]] = v
	}
	return opt, sc.Err()
}

// ReadSet reads every *.in file of dir, sorted by name, with the optima of dir/optimal.txt.
func ReadSet(dir string) ([]*Instance, error) {
	opt, err := ReadOptima(filepath.Join(dir, "optimal.txt"))
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.in"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var set []*Instance
	for _, f := range files {
		in, err := ReadInstance(f)
		if err != nil {
			return nil, err
		}
		v, ok := opt[in.Name]
		if !ok {
			return nil, fmt.Errorf("%s: no optimum in optimal.txt", in.Name)
		}
		in.Opt = v
		set = append(set, in)
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("%s: no *.in files", dir)
	}
	return set, nil
}

// Value returns the maximisation objective ½xᵀQx + cᵀx.
func (in *Instance) Value(x []float64) float64 {
	xv := mat.NewVecDense(in.N, x)
	var qx mat.VecDense
	qx.MulVec(in.Q, xv)
	return 0.5*mat.Dot(xv, &qx) + mat.Dot(mat.NewVecDense(in.N, in.C), xv)
}

// Problem returns the minimisation f(x) = −(½xᵀQx + cᵀx), with ∇f = −(Sx + c) and
// ∇²f = −S for the symmetric part S = (Q + Qᵀ)/2.
func (in *Instance) Problem() houdini.Problem {
	return houdini.Problem{
		Func: func(x []float64) float64 { return -in.Value(x) },
		Grad: func(grad, x []float64) {
			g := mat.NewVecDense(in.N, grad)
			g.MulVec(in.sym, mat.NewVecDense(in.N, x))
			for i := range grad {
				grad[i] = -(grad[i] + in.C[i])
			}
		},
		Hess: func(h *mat.SymDense, _ []float64) {
			for i := 0; i < in.N; i++ {
				for j := i; j < in.N; j++ {
					h.SetSym(i, j, -in.sym.At(i, j))
				}
			}
		},
	}
}

// Gap returns 100·(opt − value)/|opt|, the relative gap in percent of a value of the
// maximisation against the optimum opt.
func Gap(value, opt float64) float64 { return 100 * (opt - value) / math.Abs(opt) }

// solvedGap: an instance is solved when its gap is below 0.01 %, the peers' criterion.
const solvedGap = 0.01

// Config is one run's settings.
type Config struct {
	Delta, Radius float64
	MaxEscapes    int
	MaxSubsets    int
	Timeout       time.Duration // per instance; 0: none
	EscapesOnly   bool
	Seed          uint64
	SearchRungs   int // Settings.Search.Rungs
	SearchTries   int // Settings.Search.Tries
}

// Outcome is one instance's result.
type Outcome struct {
	Instance *Instance
	Result   *houdini.Result
	X        []float64
	Value    float64 // ½XᵀQX + cᵀX
	Gap      float64 // percent
	Wall     time.Duration
}

// Run minimizes −(½xᵀQx + cᵀx) over [0, 1]ⁿ from x0.
func Run(ctx context.Context, in *Instance, x0 []float64, cfg Config) (*Outcome, error) {
	if len(x0) != in.N {
		return nil, fmt.Errorf("%s: start has %d coordinates, want %d", in.Name, len(x0), in.N)
	}
	lo, hi := make([]float64, in.N), make([]float64, in.N)
	for i := range hi {
		hi[i] = 1
	}
	box, err := houdini.NewBox(lo, hi)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	s := houdini.Settings{Delta: cfg.Delta, Radius: cfg.Radius, MaxEscapes: cfg.MaxEscapes,
		MaxSubsets: cfg.MaxSubsets, EscapesOnly: cfg.EscapesOnly, Seed: cfg.Seed,
		Search: houdini.SearchSettings{Rungs: cfg.SearchRungs, Tries: cfg.SearchTries}}
	start := time.Now()
	res, err := houdini.Minimize(ctx, in.Problem(), box, x0, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	o := &Outcome{Instance: in, Result: res, X: res.X, Wall: time.Since(start)}
	o.Value = in.Value(res.X)
	o.Gap = Gap(o.Value, in.Opt)
	return o, nil
}

// Summary aggregates a set of outcomes as the peers' table does.
type Summary struct {
	Solved             int
	MeanGap, MedianGap float64
	MaxGap             float64
	Total              time.Duration
}

// Summarize returns the solved count (gap < solvedGap), mean, median and max gap and the
// total wall time.
func Summarize(outs []*Outcome) Summary {
	var s Summary
	gaps := make([]float64, len(outs))
	for i, o := range outs {
		gaps[i] = o.Gap
		s.MeanGap += o.Gap
		s.MaxGap = math.Max(s.MaxGap, o.Gap)
		s.Total += o.Wall
		if o.Gap < solvedGap {
			s.Solved++
		}
	}
	if len(outs) == 0 {
		return s
	}
	s.MeanGap /= float64(len(outs))
	sort.Float64s(gaps)
	if m := len(gaps); m%2 == 1 {
		s.MedianGap = gaps[m/2]
	} else {
		s.MedianGap = 0.5 * (gaps[m/2-1] + gaps[m/2])
	}
	return s
}

// ProjectedGradient returns ‖P(x − ∇f(x)) − x‖∞ for the minimized f = −(½xᵀQx + cᵀx) on
// [0, 1]ⁿ: zero exactly at a first-order point.
func ProjectedGradient(in *Instance, x []float64) float64 {
	g := make([]float64, len(x))
	in.Problem().Grad(g, x)
	pg := 0.0
	for i, xi := range x {
		pg = math.Max(pg, math.Abs(math.Max(0, math.Min(1, xi-g[i]))-xi))
	}
	return pg
}
