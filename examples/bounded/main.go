// Command bounded runs HOUDINI on bound-constrained smooth test functions of the
// literature (extended and chained Rosenbrock, Styblinski–Tang, chained Wood, extended
// Powell singular, Broyden tridiagonal; see functions.go for the formulas, sources,
// boxes and starts) at d = 10, 100, 1000 and prints, per case, f, gradient and function
// calls, wall time, the projected-gradient norm and the status beside SciPy's L-BFGS-B,
// SLSQP and trust-constr from the same starts (peers/scipy.csv, written by
// peers/run_scipy.py). This is issue 15's benchmark.
//
// Run from the repository root:
//
//	go run ./examples/bounded                       # δ = 1e-6, r = 0.01, d = 10, 100, 1000
//	go run ./examples/bounded -dims 10 -hess        # with the exact Hessian oracle
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bounded:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("bounded", flag.ContinueOnError)
	dims := fs.String("dims", "10,100,1000", "comma-separated dimensions (the Powell function runs at the next multiple of 4)")
	delta := fs.Float64("delta", 1e-6, "δ of the δ-SOSP certificate")
	radius := fs.Float64("radius", 0.01, "r, the escape radius")
	hess := fs.Bool("hess", false, "give houdini the exact Hessian (the peers' L-BFGS-B and SLSQP use gradients only)")
	maxSubsets := fs.Int("maxsubsets", 4096, "subset budget per escape (StatusSubsetLimit)")
	maxGrad := fs.Int("maxgradevals", 0, "gradient-call budget per run (StatusEvalLimit); 0: none")
	timeout := fs.Duration("timeout", 120*time.Second, "wall-time budget per run (StatusCanceled); 0: none")
	only := fs.String("only", "", "run only cases whose name contains this string")
	seed := fs.Uint64("seed", 1, "Settings.Seed")
	repeat := fs.Int("repeat", 1, "run each case this many times and print the run of least CPU time (timing at ms scale; peers/run_scipy.py --repeat)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the houdini runs to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	peers, err := ReadPeers(scipyCSV)
	if err != nil {
		return err
	}
	byKey := make(map[string][]PeerRun)
	for _, p := range peers {
		byKey[p.Key()] = append(byKey[p.Key()], p)
	}
	cfg := Config{Delta: *delta, Radius: *radius, Hess: *hess, MaxSubsets: *maxSubsets,
		MaxGradEvals: *maxGrad, Timeout: *timeout, Seed: *seed}
	fmt.Fprintf(w, "houdini δ = %g, r = %g, Hessian oracle %v, MaxSubsets %d, MaxGradEvals %d, timeout %v; peers: SciPy (peers/scipy.csv)\n\n",
		*delta, *radius, *hess, *maxSubsets, *maxGrad, *timeout)
	fmt.Fprintln(w, "| case | d | solver | f | grad calls | func calls | wall s | cpu s | pg∞ | status |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|---:|---:|---:|---|")
	for _, s := range strings.Split(*dims, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || d < 1 {
			return fmt.Errorf("bad dimension %q", s)
		}
		for _, c := range Cases(d) {
			if *only != "" && !strings.Contains(c.Name, *only) {
				continue
			}
			var o *Outcome
			for range max(1, *repeat) {
				oi, err := RunHoudini(context.Background(), c, cfg)
				if err != nil {
					return fmt.Errorf("%s: %w", c.Key(), err)
				}
				if o == nil || oi.CPU < o.CPU {
					o = oi
				}
			}
			name := c.Name
			if !c.CutsOff {
				name += " (min inside)"
			}
			fmt.Fprintf(w, "| %s | %d | **houdini** | %.6g | %d | %d | %.4f | %.4f | %.1e | %s (%d escapes, %d descent steps) |\n",
				name, c.D, o.F, o.GradCalls, o.FuncCalls, o.Wall.Seconds(), o.CPU.Seconds(), o.PG, o.Status, o.Escapes, o.DescentSteps)
			for _, p := range byKey[c.Key()] {
				fmt.Fprintf(w, "| | | %s | %.6g | %d | %d | %.3f | %.3f | %.1e | %s |\n",
					p.Solver, p.F, p.GradCalls, p.FuncCalls, p.Wall, p.CPU, p.PG, p.Status)
			}
		}
	}
	return nil
}
