// Command families runs houdini on the five benchmark families of issue 14 — standard
// quadratic programs and Motzkin–Straus clique programs on the simplex, a balanced max-cut
// relaxation (Σx = 0 on a box), a budget portfolio with an indefinite quadratic, and BoxQP
// — from two starts each, and prints per family and start the certified count, the radius,
// the solved count (gap ≤ 0.01 %), the mean gap, the subsets examined and pruned and the
// time, and for one escape at each end point the rows walked and forced, its subsets, its
// time and the certified radius, beside SciPy's SLSQP and trust-constr from the same starts (peers/families.csv,
// made by peers/run_scipy.py). The instances are generated here, seeded; -write stores
// them as JSON for the peers.
//
// Run from the repository root:
//
//	go run ./examples/families -write /tmp/families                       # instances for the peers
//	/usr/bin/python3 examples/families/peers/run_scipy.py /tmp/families   # SciPy, writes peers/
//	go run ./examples/families                                             # houdini beside the peers
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/houdini-opt/houdini/examples/internal/repo"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "families:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("families", flag.ContinueOnError)
	only := fs.String("families", "", "comma-separated family names to run (default: all of "+familyNames()+")")
	seed := fs.Uint64("seed", 1, "seed of the instances and random starts, and Settings.Seed")
	write := fs.String("write", "", "write the instances as <dir>/<name>.json and exit")
	peers := fs.String("peers", "examples/families/peers/families.csv", "the peers' per-run CSV (missing: no peers)")
	csvOut := fs.String("csv", "examples/families/houdini.csv", "write houdini's per-run rows here (empty: don't)")
	maxSubsets := fs.Int("maxsubsets", 0, "Settings.MaxSubsets (0: houdini's default)")
	rungs := fs.Int("rungs", 0, "Settings.Search.Rungs (0: houdini's default; -1: no deeper search)")
	timeout := fs.Duration("timeout", 20*time.Second, "wall-time budget per run (status canceled); 0: none")
	perRun := fs.Bool("runs", true, "print the per-run table too")
	names := fs.String("instances", "", "comma-separated substrings: run only the instances whose name contains one")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the runs here")
	if err := fs.Parse(args); err != nil {
		return err
	}
	fams, err := selectFamilies(*only)
	if err != nil {
		return err
	}
	sets := make([][]*Instance, len(fams))
	for k, f := range fams {
		sets[k] = keepNamed(f.generate(*seed), *names)
	}
	if *write != "" {
		return writeAll(w, *write, fams, sets)
	}
	peerRuns, err := ReadPeers(repo.Path(*peers))
	if err != nil {
		return err
	}
	cfg := Config{MaxSubsets: *maxSubsets, Rungs: *rungs, Seed: *seed, Timeout: *timeout}
	subsets := "default"
	if *maxSubsets > 0 {
		subsets = fmt.Sprint(*maxSubsets)
	}
	fmt.Fprintf(w, "houdini on the benchmark families: seed %d, MaxSubsets %s, Search.Rungs %d, timeout %v per run, otherwise default settings\n\n",
		*seed, subsets, *rungs, *timeout)
	if *cpuprofile != "" {
		pf, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var outs []*Outcome
	for k, f := range fams {
		for _, in := range sets[k] {
			for _, st := range in.Starts {
				o, err := Run(context.Background(), in, f, st, cfg)
				if err != nil {
					return err
				}
				outs = append(outs, o)
			}
		}
	}
	refs := bestKnown(outs, peerRuns)
	printFamilies(w, fams, sets)
	printSummary(w, fams, outs, peerRuns, refs)
	if *perRun {
		printRuns(w, outs, peerRuns, refs)
	}
	if *csvOut != "" {
		f, err := os.Create(repo.Path(*csvOut))
		if err != nil {
			return err
		}
		if err := WriteOutcomes(f, outs); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

func familyNames() string {
	var names []string
	for _, f := range Families {
		names = append(names, f.Name)
	}
	return strings.Join(names, ",")
}

func selectFamilies(only string) ([]Family, error) {
	if only == "" {
		return Families, nil
	}
	var out []Family
	for _, name := range strings.Split(only, ",") {
		k := slices.IndexFunc(Families, func(f Family) bool { return f.Name == name })
		if k < 0 {
			return nil, fmt.Errorf("unknown family %q (have %s)", name, familyNames())
		}
		out = append(out, Families[k])
	}
	return out, nil
}

func writeAll(w io.Writer, dir string, fams []Family, sets [][]*Instance) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	count := 0
	for k, f := range fams {
		for _, in := range sets[k] {
			if err := WriteInstance(dir, in, f); err != nil {
				return err
			}
			count++
		}
	}
	fmt.Fprintf(w, "wrote %d instances to %s\n", count, dir)
	return nil
}

// keepNamed returns the instances whose name contains one of the comma-separated
// substrings of names (all of them when names is empty).
func keepNamed(ins []*Instance, names string) []*Instance {
	if names == "" {
		return ins
	}
	var out []*Instance
	for _, in := range ins {
		for _, s := range strings.Split(names, ",") {
			if strings.Contains(in.Name, s) {
				out = append(out, in)
				break
			}
		}
	}
	return out
}
