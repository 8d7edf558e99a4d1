package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// instanceJSON is the file format of one instance, <dir>/<name>.json, read by
// peers/run_scipy.py. Numbers are Go's shortest round-trip decimals; +Inf (an upper
// bound) and an unknown ref are null. The problem is
//
//	minimize ½xᵀHx + gᵀx  s.t.  lower ≤ x ≤ upper,  Σx = sum_rhs ("eq") / ≤ sum_rhs ("le") / none.
type instanceJSON struct {
	Name    string      `json:"name"`
	Family  string      `json:"family"`
	N       int         `json:"n"`
	H       [][]float64 `json:"H"` // symmetric, row by row
	G       []float64   `json:"g"`
	Lower   []float64   `json:"lower"`
	Upper   []*float64  `json:"upper"`
	Sum     SumKind     `json:"sum"`
	SumRHS  float64     `json:"sum_rhs"`
	Starts  []startJSON `json:"starts"`
	Ref     *float64    `json:"ref"`
	RefKind string      `json:"ref_kind"`
	Houdini certJSON    `json:"houdini"`
}

type startJSON struct {
	Name string    `json:"name"`
	X    []float64 `json:"x"`
}

// certJSON records the family's δ and r, for information.
type certJSON struct {
	Delta  float64 `json:"delta"`
	Radius float64 `json:"radius"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// WriteInstance writes in to dir/<name>.json.
func WriteInstance(dir string, in *Instance, fam Family) error {
	j := instanceJSON{Name: in.Name, Family: in.Family, N: in.N, G: in.G, Lower: in.Lower,
		Sum: in.Sum, SumRHS: in.SumRHS, Ref: finite(in.Ref), RefKind: in.RefKind,
		Houdini: certJSON{fam.Delta, fam.Radius}}
	for i := 0; i < in.N; i++ {
		row := make([]float64, in.N)
		for k := range row {
			row[k] = in.H.At(i, k)
		}
		j.H = append(j.H, row)
		j.Upper = append(j.Upper, finite(in.Upper[i]))
	}
	for _, s := range in.Starts {
		j.Starts = append(j.Starts, startJSON(s))
	}
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, in.Name+".json"), data, 0o644)
}

// PeerRun is one row of peers/families.csv (written by run_scipy.py).
type PeerRun struct {
	Instance, Start, Solver string
	Success                 bool
	Value, Wall, Violation  float64
}

// ReadPeers reads the peers' per-run rows; a missing file gives no rows.
func ReadPeers(path string) ([]PeerRun, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"instance", "start", "solver", "success", "value", "wall_s", "max_viol"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("%s: no column %q", path, h)
		}
	}
	var out []PeerRun
	for k, r := range recs[1:] {
		num := func(h string) float64 {
			v, e := strconv.ParseFloat(r[col[h]], 64)
			if e != nil && err == nil {
				err = fmt.Errorf("%s:%d: %s: %v", path, k+2, h, e)
			}
			return v
		}
		out = append(out, PeerRun{Instance: r[col["instance"]], Start: r[col["start"]], Solver: r[col["solver"]],
			Success: r[col["success"]] == "1", Value: num("value"), Wall: num("wall_s"), Violation: num("max_viol")})
	}
	return out, err
}

// WriteOutcomes writes houdini's per-run rows as CSV (read by run_scipy.py for the best
// known values): family, instance, n, start, status, certified, value (f), ref (the exact
// minimum, empty when unknown), radius, escapes, examined, pruned, last_examined, max_viol,
// wall_s.
func WriteOutcomes(w io.Writer, outs []*Outcome) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"family", "instance", "n", "start", "status", "certified", "value", "ref", "radius",
		"escapes", "examined", "pruned", "last_examined", "max_viol", "wall_s"})
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, o := range outs {
		ref := ""
		if !math.IsNaN(o.Instance.Ref) {
			ref = g(o.Instance.Ref)
		}
		cert := "0"
		if o.Certified {
			cert = "1"
		}
		cw.Write([]string{o.Instance.Family, o.Instance.Name, strconv.Itoa(o.Instance.N), o.Start, o.Status, cert,
			g(o.F), ref, g(o.Radius), strconv.Itoa(o.Escapes), strconv.Itoa(o.Examined), strconv.Itoa(o.Pruned),
			strconv.Itoa(o.LastExamined), g(o.Violation), strconv.FormatFloat(o.Wall.Seconds(), 'f', 3, 64)})
	}
	cw.Flush()
	return cw.Error()
}
