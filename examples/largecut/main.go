// Command largecut is issue 16's benchmark: HOUDINI at large d. It runs the max-cut
// relaxation f(x) = ½ Σ_{ij ∈ E} wᵢⱼxᵢxⱼ on [−1, 1]ⁿ from x₀ = 0 (a saddle: ∇f(0) = 0)
// on seeded Erdős–Rényi graphs of average degree 6 and 2-D toroidal grids with ±1
// weights, the gradient from adjacency lists, and prints time, peak memory, gradient
// calls, the cut of sign(x) and the status beside three peers: the best of ten 1-flip
// local searches, the best of ten runs of Burer, Monteiro & Zhang's rank-2 angle
// heuristic (both in peers.go), and SciPy's L-BFGS-B from x₀ = 1e-3·N(0, 1)
// (peers/scipy.csv). Then dense random box QPs: houdini's time against one gonum
// EigenSym of the same size, in the same process.
//
// Every run is a child process (jobs.go), killed when it outlives -timeout by -grace:
// houdini's NewBox and a dense eigendecomposition do not watch the context. Houdini is
// skipped where NewBox's dense rows (16·n² bytes) would not fit in memory.
//
// Run from the repository root:
//
//	go run ./examples/largecut                                    # n = 800, 2000; QP d = 400
//	go run ./examples/largecut -n 800,2000,10000,100000 -qp 400,800,1600 -timeout 90s
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if childMain() {
		return
	}
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "largecut:", err)
		os.Exit(1)
	}
}

// options are the command line's.
type options struct {
	families   []string
	ns, qps    []int
	cfg        Config
	runs       int
	seed       uint64
	houdiniMax int
	grace      time.Duration
	verbose    bool
	bmzStart   bool
	startRuns  int
	peers      bool
}

func parse(args []string) (*options, error) {
	fs := flag.NewFlagSet("largecut", flag.ContinueOnError)
	families := fs.String("graphs", "er,torus", `graph families: "er" (Erdős–Rényi, average degree 6), "torus" (2-D toroidal grid, ±1 weights)`)
	ns := fs.String("n", "800,2000", "comma-separated numbers of vertices")
	qps := fs.String("qp", "400", "comma-separated dimensions of the dense random box QPs; empty: none")
	delta := fs.Float64("delta", 1e-2, "δ of the δ-SOSP certificate")
	radius := fs.Float64("radius", 0.1, "r, the escape radius")
	hess := fs.Bool("hess", false, "give houdini the max-cut Hessian as a dense d×d oracle (the QPs always have theirs)")
	hessVec := fs.Bool("hessvec", true, "give houdini the max-cut Hessian-vector product ½Wv (O(n + m) a call)")
	maxSubsets := fs.Int("maxsubsets", 4096, "subset budget per escape (StatusSubsetLimit)")
	timeout := fs.Duration("timeout", 60*time.Second, "houdini's context deadline per run (StatusCanceled)")
	grace := fs.Duration("grace", 30*time.Second, "time after -timeout before the run's process is killed")
	houdiniMax := fs.Int("houdinimax", 1000000, "skip houdini above this n (with -hess also where the 8·n² bytes of the Hessian exceed memory)")
	runs := fs.Int("runs", 10, "restarts of each Go peer (best of)")
	seed := fs.Uint64("seed", 1, "graph, QP and peer seed; Settings.Seed")
	bmzStart := fs.Bool("bmzstart", true, "also run houdini from the best vector of BMZ runs (their time included)")
	startRuns := fs.Int("startruns", 1, "BMZ runs (best of, the peer's first ones) whose best vector houdini starts from with -bmzstart")
	peers := fs.Bool("peers", true, "run the peers (1-flip, BMZ) and show SciPy's stored row; false: houdini's rows alone")
	verbose := fs.Bool("v", false, "show the runs' logs (phases, escapes) on stderr")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o := &options{families: strings.Split(*families, ","), runs: *runs, seed: *seed, houdiniMax: *houdiniMax,
		grace: *grace, verbose: *verbose, peers: *peers, bmzStart: *bmzStart, startRuns: max(1, *startRuns),
		cfg: Config{Delta: *delta, Radius: *radius, Hess: *hess, HessVec: *hessVec, MaxSubsets: *maxSubsets, Timeout: *timeout, Seed: *seed}}
	var err error
	if o.ns, err = ints(*ns); err != nil {
		return nil, err
	}
	if o.qps, err = ints(*qps); err != nil {
		return nil, err
	}
	return o, nil
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("bad size %q", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func run(args []string, w io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	scipy, err := ReadScipy(scipyCSV)
	if err != nil {
		return err
	}
	mem := memTotal()
	fmt.Fprintf(w, "houdini δ = %g, r = %g, Hessian oracle %v, Hessian-vector oracle %v, MaxSubsets %d, timeout %v (+%v before kill), x₀ = 0 and (-bmzstart) the best of %d BMZ runs; peers best of %d, seed %d\n\n",
		o.cfg.Delta, o.cfg.Radius, o.cfg.Hess, o.cfg.HessVec, o.cfg.MaxSubsets, o.cfg.Timeout, o.grace, o.startRuns, o.runs, o.seed)
	fmt.Fprintln(w, "| graph | n | m | solver | cut weight | edges cut | f | grad calls | wall s | cpu s | peak RSS MB | status |")
	fmt.Fprintln(w, "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, fam := range o.families {
		for _, n := range o.ns {
			g, err := graphFor(fam, n, o.seed)
			if err != nil {
				return err
			}
			head := fmt.Sprintf("| %s | %d | %d |", g.Name, g.N, g.M())
			if skip := skipHoudini(n, o.houdiniMax, mem, o.cfg.Hess); skip != "" {
				fmt.Fprintf(w, "%s **houdini** | — | — | — | — | — | — | — | skipped: %s |\n", head, skip)
			} else {
				out, err := spawn(Job{Kind: "houdini", Family: fam, N: n, Seed: o.seed, Cfg: o.cfg}, o.cfg.Timeout+o.grace, o.verbose)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%s **houdini** | %s |\n", head, cells(out, true))
				if o.bmzStart {
					out, err := spawn(Job{Kind: "houdini-bmz", Family: fam, N: n, Seed: o.seed, Runs: o.startRuns, Cfg: o.cfg}, 2*o.cfg.Timeout+o.grace, o.verbose) // BMZ first, then houdini's own deadline
					if err != nil {
						return err
					}
					fmt.Fprintf(w, "| | | | **houdini from BMZ (best of %d)** | %s |\n", o.startRuns, cells(out, true))
				}
			}
			if !o.peers {
				continue
			}
			for _, kind := range []string{"oneflip", "bmz"} {
				out, err := spawn(Job{Kind: kind, Family: fam, N: n, Seed: o.seed, Runs: o.runs}, 0, o.verbose)
				if err != nil {
					return err
				}
				name := map[string]string{"oneflip": "1-flip", "bmz": "BMZ rank-2"}[kind]
				fmt.Fprintf(w, "| | | | %s, best of %d | %s |\n", name, o.runs, cells(out, false))
			}
			fmt.Fprintln(w, scipyCell(scipy, g, o.seed))
		}
	}
	if len(o.qps) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nDense random box QPs ½xᵀQx + cᵀx on [−1, 1]ᵈ from x₀ = 0, Hessian oracle, δ = %g, r = %g\n\n", o.cfg.Delta, o.cfg.Radius)
	fmt.Fprintln(w, "| d | one EigenSym wall s (cpu s) | houdini wall s (cpu s) | houdini / EigenSym (wall) | f | grad / Hess calls | escapes | peak RSS MB | status |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, d := range o.qps {
		out, err := spawn(Job{Kind: "qp", N: d, Seed: o.seed, Cfg: o.cfg}, o.cfg.Timeout+o.grace, o.verbose)
		if err != nil {
			return err
		}
		secs, cpu := out.Wall.Seconds()-out.EigSym, out.ProcCPU-out.EigSymCPU // killed: all but the EigenSym
		if out.Done {
			secs, cpu = out.Seconds, out.CPU
		}
		fmt.Fprintf(w, "| %d | %.2f (%.2f) | %.1f (%.1f) | %.1f | %.4g | %d / %d | %d | %.0f | %s |\n", d, out.EigSym, out.EigSymCPU,
			secs, cpu, secs/out.EigSym, out.F, out.GradCalls, out.HessCalls, out.Escapes, float64(out.PeakRSS)/1e6, status(out))
	}
	return nil
}

// cells formats a run's cells after the solver's name.
func cells(o *Outcome, houdini bool) string {
	calls := "—"
	if houdini || o.GradCalls > 0 {
		calls = strconv.Itoa(o.GradCalls)
	}
	if !o.Done {
		return fmt.Sprintf("— | — | — | — | %.1f | %.1f | %.0f | %s", o.Wall.Seconds(), o.ProcCPU, float64(o.PeakRSS)/1e6, status(o))
	}
	return fmt.Sprintf("%.0f | %d | %.1f | %s | %s | %s | %.0f | %s", o.Cut, o.CutEdges, o.F, calls, secs(o.Seconds), secs(o.CPU), float64(o.PeakRSS)/1e6, status(o))
}

// secs formats seconds with three significant digits, down to 0.0001 s.
func secs(s float64) string {
	if s < 1e-4 {
		return "<0.0001"
	}
	return strconv.FormatFloat(s, 'g', 3, 64)
}

func status(o *Outcome) string {
	switch {
	case o.Killed:
		return fmt.Sprintf("killed after %.0f s; last log: %q", o.Wall.Seconds(), o.Last)
	case !o.Done:
		return "no result; last log: " + o.Last
	case o.Escapes > 0:
		return fmt.Sprintf("%s (%d escapes, NewBox %.1f s)", o.Status, o.Escapes, o.NewBox)
	}
	return o.Status
}

// scipyCell returns the table row of SciPy L-BFGS-B on g, or a row saying it is missing
// or was run on another graph.
func scipyCell(runs []ScipyRun, g *Graph, seed uint64) string {
	for _, s := range runs {
		if s.Graph != g.Name || s.Seed != seed {
			continue
		}
		if s.Checksum != g.Checked || s.M != g.M() {
			return fmt.Sprintf("| | | | L-BFGS-B (SciPy) | — | — | — | — | — | — | — | peers/scipy.csv has another graph (checksum %d, Go %d) |", s.Checksum, g.Checked)
		}
		return fmt.Sprintf("| | | | L-BFGS-B (SciPy), x₀ = 1e-3·N(0,1) | %.0f | %d | %.1f | %d | %s | %s | %.0f | %s |",
			s.Cut, s.CutEdges, s.F, s.GradCalls, secs(s.Seconds), secs(s.CPU), float64(s.PeakRSS)/1e6, s.Status)
	}
	return fmt.Sprintf("| | | | L-BFGS-B (SciPy) | — | — | — | — | — | — | — | not in peers/scipy.csv (seed %d) |", seed)
}

// skipHoudini returns why houdini is not run at n, or "". NewBox stores bounds as
// vectors (O(n) memory), and without a dense Hessian the escape forms no n×n matrix, so
// only -houdinimax (and, with -hess, the 8·n² bytes of the Hessian) limit it.
func skipHoudini(n, max int, mem int64, hess bool) string {
	if need := 8 * float64(n) * float64(n); hess && mem > 0 && need > float64(mem) {
		return fmt.Sprintf("the dense Hessian (-hess) takes 8·n² bytes = %.0f GB > this machine's %.0f GB", need/1e9, float64(mem)/1e9)
	}
	if n > max {
		return fmt.Sprintf("n > -houdinimax %d", max)
	}
	return ""
}

// memTotal returns MemTotal of /proc/meminfo in bytes, or 0.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb int64
		if _, err := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); err == nil {
			return kb * 1024
		}
	}
	return 0
}
