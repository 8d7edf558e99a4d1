package main

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
)

// scipyCSV holds SciPy's runs from the same starts, written by peers/run_scipy.py
// (SciPy 1.10.1, default options, exact gradients, trust-constr with the exact sparse
// Hessian; single runs on a 2-core machine, times ±30 %).
//
//go:embed peers/scipy.csv
var scipyCSV []byte

// PeerRun is one row of peers/scipy.csv.
type PeerRun struct {
	Case, Solver, Status       string
	D                          int
	F                          float64
	FuncCalls, GradCalls, Hess int
	Wall, CPU                  float64 // seconds
	PG                         float64 // ‖P(x − ∇f) − x‖∞ at the end
	// F0, GNorm0 and HNorm0 are f, ‖∇f‖₂ and ‖∇²f‖_F at x₀ as Python computes them.
	F0, GNorm0, HNorm0 float64
}

// Key is the case's key (Case.Key).
func (p PeerRun) Key() string { return fmt.Sprintf("%s@%d", p.Case, p.D) }

// ReadPeers parses the CSV written by run_scipy.py.
func ReadPeers(data []byte) ([]PeerRun, error) {
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("peers: empty CSV")
	}
	col := make(map[string]int)
	for i, name := range recs[0] {
		col[name] = i
	}
	for _, name := range []string{"case", "d", "solver", "status", "f", "nfev", "ngev", "nhev", "wall_s", "cpu_s", "pg_inf", "f0", "gnorm0", "hnorm0"} {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("peers: no column %q", name)
		}
	}
	var runs []PeerRun
	for line, r := range recs[1:] {
		var p PeerRun
		var errs []error
		num := func(name string) float64 {
			v, err := strconv.ParseFloat(r[col[name]], 64)
			errs = append(errs, err)
			return v
		}
		p.Case, p.Solver, p.Status = r[col["case"]], r[col["solver"]], r[col["status"]]
		p.D = int(num("d"))
		p.F, p.Wall, p.CPU, p.PG = num("f"), num("wall_s"), num("cpu_s"), num("pg_inf")
		p.FuncCalls, p.GradCalls, p.Hess = int(num("nfev")), int(num("ngev")), int(num("nhev"))
		p.F0, p.GNorm0, p.HNorm0 = num("f0"), num("gnorm0"), num("hnorm0")
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("peers: line %d: %v", line+2, err)
			}
		}
		runs = append(runs, p)
	}
	return runs, nil
}
