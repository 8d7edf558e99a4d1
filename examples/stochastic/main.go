// Command stochastic benchmarks HOUDINI with sampled (mini-batch) gradients, the setting
// of the paper's headline theorem (thm_general_case_sgd), on three seeded synthetic
// problems at d = 4, 50 and 500:
//
//	robust  robust regression with the nonconvex Geman–McClure loss under budget
//	        constraints, N = 5000 samples (the original example);
//	lsq     least squares with a nonconvex regularizer on a box, a stream of samples
//	        (an expectation; its exact gradient is known in closed form);
//	net     a two-layer tanh network with box-constrained weights from the saddle at
//	        zero, N = 2000 samples.
//
// For each it runs Minimize three ways and prints one table row: the exact mode (full
// gradients), the stochastic mode on a houdini.Sampled oracle (mini-batches named by id,
// common samples, growing batches), and projected mini-batch SGD and Adam (batch 32,
// best of a small step-size grid) run to the exact mode's objective plus δ/10 without a
// certificate. Beside the sample gradients of each it prints the information floor of a
// certificate, (d + 1)·c·σ̂²/tol² (see floor), for the σ̂ of the same run, and it checks
// issue 17's acceptance: certified, at most 5× the floor, at most 3× the exact mode's
// sample gradients where the data set is finite, and the certified points' objectives
// within δ of each other.
//
// Run from the repository root:
//
//	go run ./examples/stochastic                          # every problem at d = 4, 50, 500
//	go run ./examples/stochastic -problem robust -d 4 -v  # one, with Minimize's progress
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "stochastic:", err)
		os.Exit(1)
	}
}

var problems = map[string]func(d int, seed uint64) *bench{
	"robust":     newRobust,
	"lsq":        newLSQ,
	"lsq-stream": newLSQStream,
	"net":        newNet,
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("stochastic", flag.ContinueOnError)
	which := fs.String("problem", "robust,lsq,net", "comma-separated problems: robust, lsq, net")
	dims := fs.String("d", "4,50,500", "comma-separated dimensions")
	seed := fs.Uint64("seed", 1, "seed of the data, of Settings.Seed and of the baselines")
	verbose := fs.Bool("v", false, "print Minimize's progress to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var progress io.Writer
	if *verbose {
		progress = os.Stderr
	}
	header(w)
	failed := 0
	for _, name := range strings.Split(*which, ",") {
		mk, ok := problems[name]
		if !ok {
			return fmt.Errorf("unknown problem %q", name)
		}
		for _, ds := range strings.Split(*dims, ",") {
			d, err := strconv.Atoi(ds)
			if err != nil || d < 2 {
				return fmt.Errorf("bad dimension %q", ds)
			}
			r, err := runBench(mk(d, *seed), *seed, progress)
			if err != nil {
				return err
			}
			if row(w, r) {
				failed++
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d benchmarks fail issue 17's acceptance", failed)
	}
	return nil
}

func header(w io.Writer) {
	fmt.Fprintf(w, "%-10s %4s %6s | %11s %11s %6s %11s %6s | %8s %7s %9s | %11s %11s | %s\n",
		"problem", "d", "N", "exact", "stochastic", "÷exact", "floor", "÷floor",
		"σ̂", "conf", "|Δf|/δ", "SGD", "Adam", "checks")
}

// row prints r and reports whether it fails a check.
func row(w io.Writer, r *result) bool {
	n := "stream"
	ratioExact := "—"
	if r.b.n > 0 {
		n = strconv.Itoa(r.b.n)
		ratioExact = fmt.Sprintf("%.2f", r.stoSamples()/r.exactSamples)
	}
	fail := r.checks()
	verdict := "ok"
	if len(fail) > 0 {
		verdict = "FAIL: " + strings.Join(fail, ", ")
	}
	fmt.Fprintf(w, "%-10s %4d %6s | %11.4g %11.4g %6s %11.4g %6.3f | %8.4g %7.4g %9.3f | %11s %11s | %s\n",
		r.b.name, r.b.d, n, r.exactSamples, r.stoSamples(), ratioExact, r.floor,
		r.stoSamples()/r.floor, r.sto.Sigma, r.sto.Confidence,
		abs(r.fSto-r.fExact)/r.b.delta, samples(r.sgd), samples(r.adam), verdict)
	fmt.Fprintf(w, "%18s exact: %v, f %.6g, %d escapes, %.4g sample losses, %v; stochastic: %v, f %.6g, %d escapes, %d descent steps (last batch %d), %.4g sample losses, %.1f passes, %v; baselines %v\n",
		"", r.exact.Status, r.fExact, r.exact.Stats.Escapes, r.exactLosses, r.exactTime.Round(1e6),
		r.sto.Status, r.fSto, r.sto.Stats.Escapes, r.sto.Stats.DescentSteps, r.sto.Stats.DescentBatch,
		float64(r.sto.Stats.SampleFuncs), r.sto.Stats.Passes, r.stoTime.Round(1e6), r.fTim.Round(1e6))
	return len(fail) > 0
}

func samples(f firstOrderResult) string {
	if f.samples < 0 {
		return "not reached"
	}
	return fmt.Sprintf("%d", f.samples)
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
