package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
)

// solvedGap: a run is solved when its gap is at most 0.01 %.
const solvedGap = 0.01

// peerFeasTol: a peer's end point counts (for the best known value and as solved) only
// when it violates no bound or sum by more than this.
const peerFeasTol = 1e-6

// peerSolvers are the peers' rows, in print order.
var peerSolvers = []string{"slsqp", "trust-constr"}

// Ref is an instance's reference value: exact, or the best over all runs.
type Ref struct {
	Value float64
	Exact bool
}

// bestKnown returns each instance's reference: its exact minimum when known, else the
// lowest f over houdini's runs and the peers' feasible runs.
func bestKnown(outs []*Outcome, peers []PeerRun) map[string]Ref {
	refs := map[string]Ref{}
	lower := func(name string, v float64) {
		if r, ok := refs[name]; !ok || v < r.Value {
			refs[name] = Ref{Value: v}
		}
	}
	for _, o := range outs {
		lower(o.Instance.Name, o.F)
	}
	for _, p := range peers {
		if _, ok := refs[p.Instance]; ok && p.Violation <= peerFeasTol {
			lower(p.Instance, p.Value)
		}
	}
	for _, o := range outs {
		if !math.IsNaN(o.Instance.Ref) {
			refs[o.Instance.Name] = Ref{Value: o.Instance.Ref, Exact: true}
		}
	}
	return refs
}

// Gap returns 100·(f − ref)/|ref| in percent (ref is a minimum, so gaps are ≥ 0 up to
// rounding).
func Gap(f, ref float64) float64 { return 100 * (f - ref) / math.Max(math.Abs(ref), 1e-12) }

// fmtGap prints a gap with three decimals, rounding's −0.000 as 0.000.
func fmtGap(g float64) string {
	if math.Abs(g) < 5e-4 {
		g = 0
	}
	return fmt.Sprintf("%.3f", g)
}

// printFamilies prints each family's instances, reference kinds, δ and r, and how far the
// certificate reaches: the range over the family of κ = ½·|λmin|·r²/δ, λmin the least
// eigenvalue of H on the tangent space of the sum row when it is an equality (of H
// otherwise) — the decrease negative curvature alone gives over a step of length r, in
// units of δ. κ ≫ 1 means the certificate at radius r is not vacuous.
func printFamilies(w io.Writer, fams []Family, sets [][]*Instance) {
	fmt.Fprintln(w, "| family | instances (n) | references | centre start | δ | r | κ = ½|λmin|r²/δ |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|---:|")
	for k, f := range fams {
		var ns []string
		exact := 0
		kmin, kmax := math.Inf(1), 0.0
		for _, in := range sets[k] {
			ns = append(ns, fmt.Sprint(in.N))
			if !math.IsNaN(in.Ref) {
				exact++
			}
			kappa := 0.5 * math.Abs(tangentLambdaMin(in)) * f.Radius * f.Radius / f.Delta
			kmin, kmax = math.Min(kmin, kappa), math.Max(kmax, kappa)
		}
		fmt.Fprintf(w, "| %s | %d (%s) | %d exact, %d best known | %s | %g | %g | %.3g – %.3g |\n", f.Name, len(sets[k]),
			strings.Join(ns, ", "), exact, len(sets[k])-exact, f.Center, f.Delta, f.Radius, kmin, kmax)
	}
	fmt.Fprintln(w)
}

// tangentLambdaMin returns min(0, λmin) of PHP, P the projector onto 1⊥ when the sum row
// is an equality and the identity otherwise.
func tangentLambdaMin(in *Instance) float64 {
	n := in.N
	m := mat.NewSymDense(n, nil)
	m.CopySym(in.H)
	if in.Sum == SumEq {
		var P mat.Dense
		P.Outer(-1/float64(n), onesVec(n), onesVec(n))
		for i := 0; i < n; i++ {
			P.Set(i, i, P.At(i, i)+1)
		}
		var t mat.Dense
		t.Product(&P, in.H, &P)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				m.SetSym(i, j, 0.5*(t.At(i, j)+t.At(j, i)))
			}
		}
	}
	var es mat.EigenSym
	if !es.Factorize(m, false) {
		return math.NaN()
	}
	return math.Min(0, es.Values(nil)[0])
}

func onesVec(n int) *mat.VecDense {
	v := mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		v.SetVec(i, 1)
	}
	return v
}

// row is one summary row.
type row struct {
	runs, certified, solved, infeasible int
	gaps                                []float64
	examined, pruned                    int
	wall                                time.Duration
	statuses                            map[string]int
	radii                               map[float64]bool
	end                                 []EndEscape
}

// endText returns the end escapes' columns: median rows walked / forced, subsets examined
// / pruned (summed), the median and largest CPU time (the machine is shared: wall times
// vary with its load, CPU times less), and the smallest certified radius
// r′ (r where the run certified; 0: none).
func (r *row) endText() string {
	if len(r.end) == 0 {
		return "— | — | — | —"
	}
	var walked, forced, ms []float64
	ex, pr := 0, 0
	minR := math.Inf(1)
	for _, e := range r.end {
		walked = append(walked, float64(e.Walked))
		forced = append(forced, float64(e.Forced))
		ms = append(ms, e.CPU.Seconds()*1e3)
		ex, pr = ex+e.Examined, pr+e.Pruned
		minR = math.Min(minR, e.CertRadius)
	}
	return fmt.Sprintf("%g / %g | %d / %d | %.0f / %.0f | %.3g", median(walked), median(forced), ex, pr,
		median(ms), slices.Max(ms), minR)
}

// median returns the median of xs (which it sorts).
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

func (r *row) add(gap float64, feasible bool, wall time.Duration, status string) {
	r.runs++
	r.gaps = append(r.gaps, gap)
	if gap <= solvedGap && feasible {
		r.solved++
	}
	if !feasible {
		r.infeasible++
	}
	r.wall += wall
	if r.statuses == nil {
		r.statuses = map[string]int{}
	}
	r.statuses[status]++
}

func (r *row) meanMax() (mean, mx float64) {
	for _, g := range r.gaps {
		mean += g
		mx = math.Max(mx, g)
	}
	return mean / math.Max(1, float64(len(r.gaps))), mx
}

func (r *row) statusText() string {
	var keys []string
	for k := range r.statuses {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return r.statuses[keys[i]] > r.statuses[keys[j]] || r.statuses[keys[i]] == r.statuses[keys[j]] && keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", r.statuses[k], k))
	}
	if r.infeasible > 0 {
		parts = append(parts, fmt.Sprintf("%d infeasible end points", r.infeasible))
	}
	return strings.Join(parts, ", ")
}

// printSummary prints per family and start houdini's row and the peers'.
func printSummary(w io.Writer, fams []Family, outs []*Outcome, peers []PeerRun, refs map[string]Ref) {
	fmt.Fprintln(w, "| family | start | solver | runs | certified | r | solved | mean gap % | max gap % | subsets examined / pruned | s | end status | end escape: rows walked / forced (median) | subsets examined / pruned | CPU ms median / max | min certified r′ |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
	for _, f := range fams {
		for _, start := range []string{"center", "random"} {
			h := &row{radii: map[float64]bool{}}
			names := map[string]bool{}
			for _, o := range outs {
				if o.Instance.Family != f.Name || o.Start != start {
					continue
				}
				names[o.Instance.Name] = true
				h.add(Gap(o.F, refs[o.Instance.Name].Value), o.Violation <= peerFeasTol, o.Wall, o.Status)
				if o.Certified {
					h.certified++
				}
				h.examined += o.Examined
				h.pruned += o.Pruned
				h.radii[o.Radius] = true
				if o.End.Wall > 0 {
					h.end = append(h.end, o.End)
				}
			}
			if h.runs == 0 {
				continue
			}
			mean, mx := h.meanMax()
			var radii []string
			for r := range h.radii {
				radii = append(radii, fmt.Sprint(r))
			}
			slices.Sort(radii)
			fmt.Fprintf(w, "| %s | %s | **houdini** | %d | %d | %s | %d | %s | %s | %d / %d | %.2f | %s | %s |\n", f.Name, start, h.runs,
				h.certified, strings.Join(radii, ", "), h.solved, fmtGap(mean), fmtGap(mx), h.examined, h.pruned, h.wall.Seconds(), h.statusText(), h.endText())
			for _, solver := range peerSolvers {
				p := &row{}
				for _, r := range peers {
					if names[r.Instance] && r.Start == start && r.Solver == solver {
						status := "success"
						if !r.Success {
							status = "failure"
						}
						p.add(Gap(r.Value, refs[r.Instance].Value), r.Violation <= peerFeasTol,
							time.Duration(r.Wall*float64(time.Second)), status)
					}
				}
				if p.runs == 0 {
					continue
				}
				mean, mx := p.meanMax()
				fmt.Fprintf(w, "| %s | %s | %s | %d | — | — | %d | %s | %s | — | %.2f | %s | — | — | — | — |\n", f.Name, start, solver, p.runs,
					p.solved, fmtGap(mean), fmtGap(mx), p.wall.Seconds(), p.statusText())
			}
		}
	}
	fmt.Fprintln(w)
}

// printRuns prints one row per houdini run with the peers' gaps from the same start.
func printRuns(w io.Writer, outs []*Outcome, peers []PeerRun, refs map[string]Ref) {
	peerGap := map[[3]string]string{}
	for _, p := range peers {
		g := fmtGap(Gap(p.Value, refs[p.Instance].Value))
		if p.Violation > peerFeasTol {
			g += " (infeasible)"
		}
		peerGap[[3]string{p.Instance, p.Start, p.Solver}] = g
	}
	fmt.Fprintln(w, "| instance | n | reference | start | houdini f | gap % | status | escapes | subsets examined / pruned (last escape) | s | end escape: walked / forced, examined / pruned, CPU ms, certified r′ | SLSQP gap % | trust-constr gap % |")
	fmt.Fprintln(w, "|---|---:|---:|---|---:|---:|---|---:|---:|---:|---|---:|---:|")
	for _, o := range outs {
		ref := refs[o.Instance.Name]
		kind := "best"
		if ref.Exact {
			kind = "exact"
		}
		pg := func(s string) string {
			if g, ok := peerGap[[3]string{o.Instance.Name, o.Start, s}]; ok {
				return g
			}
			return "—"
		}
		e := o.End
		fmt.Fprintf(w, "| %s | %d | %.6g (%s) | %s | %.6g | %s | %s | %d | %d / %d (%d) | %.2f | %d / %d, %d / %d, %.0f, %.3g | %s | %s |\n",
			o.Instance.Name, o.Instance.N, ref.Value, kind, o.Start, o.F, fmtGap(Gap(o.F, ref.Value)), o.Status, o.Escapes,
			o.Examined, o.Pruned, o.LastExamined, o.Wall.Seconds(), e.Walked, e.Forced, e.Examined, e.Pruned,
			e.CPU.Seconds()*1e3, e.CertRadius, pg("slsqp"), pg("trust-constr"))
	}
	fmt.Fprintln(w)
}
