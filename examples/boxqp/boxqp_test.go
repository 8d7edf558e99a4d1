package main

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/houdini-opt/houdini/examples/internal/repo"
)

// checkOutcome checks one run: X in [0, 1]ⁿ, the value recomputed by a plain double
// loop over the file's Q and c, the gap against the optimum read from optimal.txt, no
// value above the proven optimum, and no loss against the start.
func checkOutcome(t *testing.T, o *Outcome, x0 []float64, opt map[string]float64) {
	t.Helper()
	in := o.Instance
	for i, v := range o.X {
		if v < -1e-9 || v > 1+1e-9 {
			t.Errorf("%s: x[%d] = %v outside [0, 1]", in.Name, i, v)
		}
	}
	value := func(x []float64) float64 {
		var s float64
		for i := 0; i < in.N; i++ {
			s += in.C[i] * x[i]
			for j := 0; j < in.N; j++ {
				s += 0.5 * x[i] * in.Q.At(i, j) * x[j]
			}
		}
		return s
	}
	v := value(o.X)
	if math.Abs(v-o.Value) > 1e-9*math.Max(1, math.Abs(v)) {
		t.Errorf("%s: value %v, recomputed %v", in.Name, o.Value, v)
	}
	if math.Abs(-o.Result.F-v) > 1e-9*math.Max(1, math.Abs(v)) {
		t.Errorf("%s: Result.F %v, −value %v", in.Name, o.Result.F, -v)
	}
	best := opt[in.Name]
	if gap := 100 * (best - v) / math.Abs(best); math.Abs(gap-o.Gap) > 1e-9 {
		t.Errorf("%s: gap %v, from optimal.txt %v", in.Name, o.Gap, gap)
	}
	if v > best+1e-6*math.Abs(best) {
		t.Errorf("%s: value %v above the proven optimum %v", in.Name, v, best)
	}
	if v < value(x0)-1e-9 {
		t.Errorf("%s: value %v below the start's %v", in.Name, v, value(x0))
	}
}

func TestReadSet(t *testing.T) {
	dir := repo.Path("testdata/boxqp/basic")
	set, err := ReadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != 54 {
		t.Fatalf("%d instances, want 54", len(set))
	}
	// Spot-check the first instance against the raw file: n, c₁ and Q₁₁.
	raw, err := os.ReadFile(filepath.Join(dir, "spar020-100-1.in"))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(raw))
	c1, _ := strconv.ParseFloat(f[1], 64)
	q11, _ := strconv.ParseFloat(f[21], 64)
	in := set[0]
	if in.Name != "spar020-100-1" || in.N != 20 || in.C[0] != c1 || in.Q.At(0, 0) != q11 || in.Opt != 706.5 {
		t.Errorf("first instance %s n=%d c₁=%v Q₁₁=%v opt=%v", in.Name, in.N, in.C[0], in.Q.At(0, 0), in.Opt)
	}
	bad := filepath.Join(t.TempDir(), "bad.in")
	if err := os.WriteFile(bad, []byte("2\n1 2\n1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadInstance(bad); err == nil {
		t.Error("ReadInstance accepted a short Q")
	}
}

// TestGradient compares Grad with central differences of Func on random points.
func TestGradient(t *testing.T) {
	in, err := ReadInstance(repo.Path("testdata/boxqp/basic/spar030-060-1.in"))
	if err != nil {
		t.Fatal(err)
	}
	p := in.Problem()
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, in.N)
	for i := range x {
		x[i] = rng.Float64()
	}
	g := make([]float64, in.N)
	p.Grad(g, x)
	const h = 1e-4
	for i := range x {
		xp := append([]float64(nil), x...)
		xm := append([]float64(nil), x...)
		xp[i] += h
		xm[i] -= h
		fd := (p.Func(xp) - p.Func(xm)) / (2 * h)
		if math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(g[i])) {
			t.Fatalf("∂f/∂x%d = %v, central difference %v", i, g[i], fd)
		}
	}
}

func TestSummarize(t *testing.T) {
	outs := []*Outcome{{Gap: 0}, {Gap: 0.005}, {Gap: 3}, {Gap: 1}}
	s := Summarize(outs)
	if s.Solved != 2 || s.MeanGap != 1.00125 || s.MedianGap != 0.5025 || s.MaxGap != 3 {
		t.Errorf("%+v", s)
	}
}

func TestRun(t *testing.T) {
	dir := repo.Path("testdata/boxqp/basic")
	opt, err := ReadOptima(filepath.Join(dir, "optimal.txt"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := ReadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		set = set[:3] // n = 20
	}
	for _, start := range []string{"center", "rand1"} {
		for _, paper := range []bool{false, true} {
			if paper && !testing.Short() {
				continue // the paper's loop over all 54 takes tens of seconds
			}
			cfg := Config{Delta: 1e-3, Radius: 0.3, MaxEscapes: 1000, MaxSubsets: 4096,
				Timeout: 20 * time.Second, EscapesOnly: paper, Seed: 1}
			var outs []*Outcome
			for _, in := range set {
				x0, err := startPoint(start, in.N, filepath.Dir(dir))
				if err != nil {
					t.Fatal(err)
				}
				o, err := Run(context.Background(), in, x0, cfg)
				if err != nil {
					t.Fatal(err)
				}
				checkOutcome(t, o, x0, opt)
				outs = append(outs, o)
			}
			s := Summarize(outs)
			solved := 0
			for _, o := range outs {
				if o.Gap < solvedGap {
					solved++
				}
			}
			if s.Solved != solved {
				t.Errorf("Summarize solved %d, recount %d", s.Solved, solved)
			}
		}
	}
}

func TestRunCommand(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-only", "spar020-100", "-start", "both"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| spar020-100-1 |", "| spar020-100-3 |", "| **houdini fast, r = 0.3** | center |", "| **houdini fast, r = 0.3** | rand1 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
