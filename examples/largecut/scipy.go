package main

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
)

// scipyCSV holds SciPy L-BFGS-B's runs from x₀ = 1e-3·N(0, 1) on the same graphs,
// written by peers/run_scipy.py (SciPy 1.10.1, default options, exact gradient from a
// sparse matrix; single runs on a 2-core machine, times ±30 %; peak memory is the whole
// Python process's, numpy and SciPy included).
//
//go:embed peers/scipy.csv
var scipyCSV []byte

// ScipyRun is one row of peers/scipy.csv.
type ScipyRun struct {
	Graph, Status        string
	N, M                 int
	Seed, Checksum       uint64
	F, Cut               float64
	CutEdges             int
	FuncCalls, GradCalls int
	Seconds, CPU         float64
	PeakRSS              int64   // bytes
	FracPM1              float64 // fraction of coordinates at ±1
}

// ReadScipy parses the CSV written by run_scipy.py.
func ReadScipy(data []byte) ([]ScipyRun, error) {
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) < 1 {
		return nil, fmt.Errorf("scipy.csv: empty")
	}
	col := make(map[string]int)
	for i, name := range recs[0] {
		col[name] = i
	}
	var runs []ScipyRun
	for line, r := range recs[1:] {
		var errs []error
		get := func(name string) string {
			i, ok := col[name]
			if !ok {
				errs = append(errs, fmt.Errorf("no column %q", name))
				return "0"
			}
			return r[i]
		}
		num := func(name string) float64 {
			v, err := strconv.ParseFloat(get(name), 64)
			errs = append(errs, err)
			return v
		}
		u64 := func(name string) uint64 {
			v, err := strconv.ParseUint(get(name), 10, 64)
			errs = append(errs, err)
			return v
		}
		s := ScipyRun{Graph: get("graph"), Status: get("status"), N: int(num("n")), M: int(num("m")),
			Seed: u64("seed"), Checksum: u64("checksum"), F: num("f"), Cut: num("cut"),
			CutEdges: int(num("cut_edges")), FuncCalls: int(num("nfev")), GradCalls: int(num("ngev")),
			Seconds: num("wall_s"), CPU: num("cpu_s"), PeakRSS: int64(num("vmhwm_kb")) * 1024, FracPM1: num("frac_pm1")}
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("scipy.csv: line %d: %v", line+2, err)
			}
		}
		runs = append(runs, s)
	}
	return runs, nil
}
