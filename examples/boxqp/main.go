// Command boxqp runs HOUDINI on the 54 BoxQP instances of Vandenbussche and Nemhauser's
// basic set (MAXIMISE ½xᵀQx + cᵀx over [0, 1]ⁿ, minimised here as the negation) and
// prints per instance the value, the gap to the proven optimum, the status and the time,
// then a summary row beside what SciPy, NLopt and IPOPT reach from the same starts.
//
// Run from the repository root:
//
//	go run ./examples/boxqp -start center -radius 0.3
//	go run ./examples/boxqp -start rand1 -radius 0.3
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/houdini-opt/houdini/examples/internal/repo"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "boxqp:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("boxqp", flag.ContinueOnError)
	dir := fs.String("dir", "testdata/boxqp/basic", "directory of *.in instances with optimal.txt")
	startFlag := fs.String("start", "center", `"center" (x₀ = 0.5·1), "rand1" (the peers' numpy default_rng(1) start) or "both"`)
	radius := fs.Float64("radius", 0.3, "r, the escape radius (any r is valid for a quadratic: ρ = 0)")
	delta := fs.Float64("delta", 1e-3, "δ of the δ-SOSP certificate")
	mode := fs.String("mode", "fast", `"fast" (descent between escapes) or "paper" (Settings.EscapesOnly)`)
	maxEscapes := fs.Int("maxescapes", 1000, "escape budget per instance (StatusEscapeLimit)")
	maxSubsets := fs.Int("maxsubsets", 4096, "subset budget per escape (StatusSubsetLimit)")
	timeout := fs.Duration("timeout", 10*time.Second, "wall-time budget per instance (StatusCanceled); 0: none")
	only := fs.String("only", "", "run only instances whose name contains this string")
	seed := fs.Uint64("seed", 1, "Settings.Seed")
	rungs := fs.Int("rungs", 0, "Settings.Search.Rungs: after a certificate, restarts mirroring 2, 4, …, 2^N coordinates of the best certified point; 0: the default (6 where f is a nonconvex quadratic, as here); -1: no search")
	tries := fs.Int("tries", 0, "Settings.Search.Tries: restarts per rung (0: the default, 6)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *mode != "fast" && *mode != "paper" {
		return fmt.Errorf("unknown -mode %q", *mode)
	}
	var starts []string
	switch *startFlag {
	case "center", "rand1":
		starts = []string{*startFlag}
	case "both":
		starts = []string{"center", "rand1"}
	default:
		return fmt.Errorf("unknown -start %q", *startFlag)
	}
	set, err := ReadSet(repo.Path(*dir))
	if err != nil {
		return err
	}
	cfg := Config{Delta: *delta, Radius: *radius, MaxEscapes: *maxEscapes, MaxSubsets: *maxSubsets,
		Timeout: *timeout, EscapesOnly: *mode == "paper", Seed: *seed, SearchRungs: *rungs, SearchTries: *tries}
	fmt.Fprintf(w, "BoxQP basic set, %s mode, δ = %g, r = %g, Search.Rungs %d, Search.Tries %d, MaxEscapes %d, MaxSubsets %d, timeout %v\n\n",
		*mode, *delta, *radius, *rungs, *tries, *maxEscapes, *maxSubsets, *timeout)
	for _, start := range starts {
		var outs []*Outcome
		fmt.Fprintf(w, "start %s\n\n| instance | n | value | optimum | gap %% | IPOPT centre gap %% | status | escapes / descent steps | s |\n|---|---:|---:|---:|---:|---:|---|---:|---:|\n", start)
		for _, in := range set {
			if *only != "" && !strings.Contains(in.Name, *only) {
				continue
			}
			x0, err := startPoint(start, in.N, filepath.Dir(repo.Path(*dir)))
			if err != nil {
				return err
			}
			o, err := Run(context.Background(), in, x0, cfg)
			if err != nil {
				return err
			}
			outs = append(outs, o)
			ip := "—"
			if g, ok := ipoptCenterGap[in.Name]; ok {
				ip = fmt.Sprintf("%.3f", g)
			}
			st := o.Result.Stats
			fmt.Fprintf(w, "| %s | %d | %.4f | %.4f | %.3f | %s | %s | %d / %d | %.2f |\n",
				in.Name, in.N, o.Value, in.Opt, o.Gap, ip, o.Result.Status, st.Escapes, st.DescentSteps, o.Wall.Seconds())
		}
		s := Summarize(outs)
		pg := 0.0
		for _, o := range outs {
			pg = math.Max(pg, ProjectedGradient(o.Instance, o.X))
		}
		fmt.Fprintf(w, "\nlargest pg∞ = ‖P(x − ∇f) − x‖∞ at the returned points: %.1e (the descent phase's tolerance on ‖P∇f‖₂: 10⁻²·δ/r = %.1e)\n", pg, 1e-2**delta / *radius)
		fmt.Fprintf(w, "\n| solver | start | mean gap %% | median gap %% | max gap %% | solved /%d | total s |\n|---|---|---:|---:|---:|---:|---:|\n", len(outs))
		name := fmt.Sprintf("houdini %s, r = %g", *mode, *radius)
		switch {
		case *rungs > 0:
			name += fmt.Sprintf(", search %d×%d", *rungs, cmp.Or(*tries, 6))
		case *rungs < 0:
			name += ", no search"
		}
		fmt.Fprintf(w, "| **%s** | %s | %.3f | %.3f | %.2f | %d | %.2f |\n",
			name, start, s.MeanGap, s.MedianGap, s.MaxGap, s.Solved, s.Total.Seconds())
		for _, p := range peerRows {
			fmt.Fprintf(w, "| %s | %s | %.3f | %.3f | %.2f | %d | %.2f |\n", p.Solver, p.Start, p.MeanGap, p.MedianGap, p.MaxGap, p.Solved, p.TotalSeconds)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// startPoint returns the centre 0.5·1 or the rand1 start read from
// dir/boxqp_start_rand1_n<N>.txt.
func startPoint(start string, n int, dir string) ([]float64, error) {
	switch start {
	case "center":
		x := make([]float64, n)
		for i := range x {
			x[i] = 0.5
		}
		return x, nil
	case "rand1":
		path := filepath.Join(dir, fmt.Sprintf("boxqp_start_rand1_n%d.txt", n))
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var x []float64
		for _, s := range strings.Fields(string(data)) {
			var v float64
			if _, err := fmt.Sscan(s, &v); err != nil || v < 0 || v > 1 {
				return nil, fmt.Errorf("%s: bad value %q", path, s)
			}
			x = append(x, v)
		}
		if len(x) != n {
			return nil, fmt.Errorf("%s: %d values, want %d", path, len(x), n)
		}
		return x, nil
	}
	return nil, fmt.Errorf("unknown start %q", start)
}
