// Command maxcut runs the paper's experiment (app:experiments, fig:experiments): HOUDINI
// on the max-cut relaxation f(x) = ½xᵀAx over [−1, 1]ⁿ, A the adjacency matrix of an
// Erdős–Rényi graph G(300, 0.05), δ = 1e-2, r = 1e-1. It prints, per graph, the final f,
// the cut of sign(x), the fractions of coordinates at ±1, the work and the status beside
// what SciPy, NLopt and IPOPT reach on the same data, and, with -out, draws the paper's
// figure as PNG and SVG into the folder it names. With -balanced it adds Σᵢ xᵢ = 0 (balanced graph partitioning). With -purify
// (the default) a certified point's flat coordinates are moved to ±1 at no cost in f and the
// escapes resume (Settings.Purify); -purify=false shows the escapes alone.
//
// Run from the repository root:
//
//	go run ./examples/maxcut -start zero -mode paper -out figures
//	go run ./examples/maxcut -start gauss7 -mode fast
//	go run ./examples/maxcut -balanced -start zero -mode paper
package main

import (
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
		fmt.Fprintln(os.Stderr, "maxcut:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("maxcut", flag.ContinueOnError)
	graphs := fs.String("graphs", "", "comma-separated edge-list files (default: the five er300_seed{1..5}.edges in testdata/maxcut)")
	start := fs.String("start", "zero", `start point: "zero" (x₀ = 0, the saddle), "gauss7" (the peers' perturbed start) or a file with one value a line`)
	mode := fs.String("mode", "paper", `"paper" (Settings.EscapesOnly: the paper's pure escape loop), "fast" (descent between escapes) or "both"`)
	balanced := fs.Bool("balanced", false, "add the balance constraint Σᵢ xᵢ = 0 (an equality)")
	purify := fs.Bool("purify", true, "Settings.Purify: after a certificate, move flat coordinates to ±1 at no cost in f and escape again")
	delta := fs.Float64("delta", 1e-2, "δ of the δ-SOSP certificate")
	radius := fs.Float64("radius", 1e-1, "r, the escape radius")
	maxEscapes := fs.Int("maxescapes", 3000, "escape budget per run (StatusEscapeLimit)")
	maxSubsets := fs.Int("maxsubsets", 4096, "subset budget per escape (StatusSubsetLimit)")
	timeout := fs.Duration("timeout", 60*time.Second, "wall-time budget per run (StatusCanceled); 0: none")
	seed := fs.Uint64("seed", 1, "Settings.Seed")
	rungs := fs.Int("rungs", 0, "Settings.Search.Rungs: after a certificate, restarts mirroring 2, 4, …, 2^N coordinates of the best certified point; 0: the default (6 where f is a nonconvex quadratic, as here); -1: no search")
	tries := fs.Int("tries", 0, "Settings.Search.Tries: restarts per rung (0: the default, 6)")
	out := fs.String("out", "", "directory for the figures (fig_<mode>_<start>[_balanced].{png,svg}), created if missing; empty: no figure")
	verbose := fs.Bool("v", false, "log every escape to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}

	var files []string
	if *graphs == "" {
		for i := 1; i <= 5; i++ {
			files = append(files, repo.Path(fmt.Sprintf("testdata/maxcut/er300_seed%d.edges", i)))
		}
	} else {
		files = strings.Split(*graphs, ",")
	}
	var modes []string
	switch *mode {
	case "paper", "fast":
		modes = []string{*mode}
	case "both":
		modes = []string{"paper", "fast"}
	default:
		return fmt.Errorf("unknown -mode %q", *mode)
	}

	fmt.Fprintf(w, "max-cut relaxation f = ½xᵀAx on [−1,1]ⁿ%s, δ = %g, r = %g, start %s, Purify %v, Search.Rungs %d, Search.Tries %d, MaxEscapes %d, MaxSubsets %d, timeout %v\n\n",
		map[bool]string{true: " ∩ {Σx = 0}", false: ""}[*balanced], *delta, *radius, *start, *purify, *rungs, *tries, *maxEscapes, *maxSubsets, *timeout)
	for _, m := range modes {
		cfg := Config{Delta: *delta, Radius: *radius, MaxEscapes: *maxEscapes, MaxSubsets: *maxSubsets,
			Timeout: *timeout, EscapesOnly: m == "paper", Purify: *purify, Balanced: *balanced, Seed: *seed,
			SearchRungs: *rungs, SearchTries: *tries}
		if *verbose {
			cfg.Log = os.Stderr
		}
		var series []Series
		var outs []*Outcome
		pg := 0.0 // the largest projected gradient at a returned point
		fmt.Fprintf(w, "mode %s\n\n", m)
		fmt.Fprintln(w, "| graph | f | cut of sign(x) | at −1 / at 1 | at ±1, first certificate | balance | escapes / descent steps / purifications | grad/Hess/func calls | wall s | status | IPOPT gauss7 f / cut | greedy cut | cut bound |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|")
		for _, file := range files {
			g, err := ReadGraph(file)
			if err != nil {
				return err
			}
			x0, err := startPoint(*start, g.N)
			if err != nil {
				return err
			}
			o, err := Run(context.Background(), g, x0, cfg)
			if err != nil {
				return fmt.Errorf("%s: %w", g.Name, err)
			}
			outs = append(outs, o)
			pg = math.Max(pg, ProjectedGradient(g, o.X))
			series = append(series, Series{Label: g.Name, Trace: o.Trace})
			peer := "—"
			greedy, bound := "—", "—"
			if p, ok := peerGraph[g.Name]; ok {
				peer = fmt.Sprintf("%.0f / %.0f", p.IpoptF, p.IpoptCut)
				greedy = fmt.Sprintf("%.0f", p.GreedyCut)
				bound = fmt.Sprintf("%.1f", p.CutUpperBound)
			}
			st := o.Result.Stats
			first := "—"
			if o.FirstCertified >= 0 {
				first = fmt.Sprintf("%.3f", o.FirstCertified)
			}
			fmt.Fprintf(w, "| %s | %.1f | %d | %.3f / %.3f | %s | %d | %d / %d / %d | %d/%d/%d | %.1f | %s | %s | %s | %s |\n",
				g.Name, o.F, o.Cut, o.FracMinus, o.FracPlus, first, o.Balance, st.Escapes, st.DescentSteps, st.Purifications,
				o.GradCalls, o.HessCalls, o.FuncCalls, o.Wall.Seconds(), o.Result.Status, peer, greedy, bound)
		}
		var mf, mc, mfrac, ms float64
		for _, o := range outs {
			mf += o.F
			mc += float64(o.Cut)
			mfrac += o.FracMinus + o.FracPlus
			ms += o.Wall.Seconds()
		}
		k := float64(len(outs))
		if !*balanced {
			fmt.Fprintf(w, "\nlargest pg∞ = ‖P(x − ∇f) − x‖∞ at the returned points: %.1e (the descent phase's tolerance on ‖P∇f‖₂: 10⁻²·δ/r = %.1e)\n", pg, 1e-2**delta / *radius)
		}
		fmt.Fprintf(w, "\n| solver | start | mean f | mean cut of sign(x) | fraction at ±1 | mean s |\n|---|---|---:|---:|---:|---:|\n")
		fmt.Fprintf(w, "| **houdini %s** | %s | %.1f | %.1f | %.3f | %.2f |\n", m, *start, mf/k, mc/k, mfrac/k, ms/k)
		if !*balanced {
			for _, p := range peerSummary {
				secs := "—"
				if p.MeanSeconds > 0 {
					secs = fmt.Sprintf("%.3g", p.MeanSeconds)
				}
				fmt.Fprintf(w, "| %s | %s | %.1f | %.1f | %.3f | %s |\n", p.Solver, p.Start, p.MeanF, p.MeanCut, p.FracPM1, secs)
			}
		}
		fmt.Fprintln(w)
		if *out != "" {
			name := fmt.Sprintf("fig_%s_%s", m, filepath.Base(strings.TrimSuffix(*start, ".txt")))
			if *balanced {
				name += "_balanced"
			}
			if err := os.MkdirAll(*out, 0o755); err != nil {
				return err
			}
			base := filepath.Join(*out, name)
			title := fmt.Sprintf("%s mode, x₀ = %s", m, *start)
			if *purify {
				title += ", Purify"
			}
			if err := SaveFigure(base, title, series); err != nil {
				return err
			}
			fmt.Fprintf(w, "figure: %s.png, %s.svg\n\n", base, base)
		}
	}
	return nil
}

// startPoint returns x₀ for the -start flag.
func startPoint(start string, n int) ([]float64, error) {
	var path string
	switch start {
	case "zero":
		return make([]float64, n), nil
	case "gauss7":
		path = repo.Path(fmt.Sprintf("testdata/maxcut/maxcut_start_gauss7_n%d.txt", n))
	default:
		path = start
	}
	x, err := ReadVector(path)
	if err != nil {
		return nil, err
	}
	if len(x) != n {
		return nil, fmt.Errorf("%s: %d values, want %d", path, len(x), n)
	}
	for i, v := range x {
		if math.Abs(v) > 1 {
			return nil, fmt.Errorf("%s: value %d = %g outside [−1, 1]", path, i+1, v)
		}
	}
	return x, nil
}
