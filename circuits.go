package houdini

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Forced bounds beside one equality by circuits (issue 14 item 2): where the bounds at x
// meet the equality's hyperplane at acute angles in N (a lower and an upper bound beside
// Σx = 0, the balanced box), holdForcedRows's least-squares transfers fail their
// condition (a); the elementary moves (circuits) of the bounds and the equality decide
// them instead.

// maxCircuitWork bounds the arithmetic of the circuit rule (rows × partners × d).
const maxCircuitWork = 1 << 26

// forcedFrame is the frame of holdForcedRows's proof: the offset pF of its origin (nil:
// x itself), the model's gradient v there, the radius rho of the disc that holds the
// ball's section and p = ‖p_F − p_c‖.
type forcedFrame struct {
	pF     []float64
	v      []float64
	rho, p float64
}

// circuitRule is the circuit rule's data for one walk: the equality's unit normal c, and
// per coordinate the sign σⱼ of its bound row through p_E (offset ≤ 0 in the frame), 0 for
// a free coordinate, and blocked for one at both of its bounds.
type circuitRule struct {
	w      *walk
	fr     forcedFrame
	c      []float64
	sigma  []float64
	bounds [][]int // near bound rows per coordinate
	cols   [][]float64
}

const blocked = 2

// newCircuitRule returns the circuit rule for the walk in the frame fr with the rows E
// through p_E (holdForcedRows), or nil where it does not apply: exactly one equality held,
// every near row a bound, and the work within maxCircuitWork.
func (w *walk) newCircuitRule(fr forcedFrame, E []int) *circuitRule {
	d := len(w.x)
	if w.base != 1 || fr.pF == nil || len(E)*d*d > maxCircuitWork {
		return nil
	}
	cr := &circuitRule{w: w, fr: fr, c: w.basis[0], sigma: make([]float64, d), bounds: make([][]int, d)}
	inE := make(map[int]bool, len(E))
	for _, i := range E {
		inE[i] = true
	}
	for _, l := range w.near {
		j := w.c.boundCoord(l)
		if j < 0 {
			return nil
		}
		cr.bounds[j] = append(cr.bounds[j], l)
		if inE[l] || w.slack(l, fr.pF) <= 0 { // E's rows have offset 0 in the frame
			if cr.sigma[j] != 0 {
				cr.sigma[j] = blocked
			} else {
				cr.sigma[j] = w.c.coordSign(l)
			}
		}
	}
	M := w.mod.M
	cr.cols = make([][]float64, d)
	for j := range cr.cols {
		cr.cols[j] = mat.Col(nil, j, M)
	}
	return cr
}

// forced reports whether bound row i of E is forced by circuits: every
// elementary move that brings a point which left row i back onto it gains more than the
// model can give back. With σᵢ, cᵢ its sign and coefficient in the equality, the moves are
//
//	d = σᵢeᵢ                                  when cᵢ = 0,
//	d⁽ᵖ⁾ = σᵢeᵢ − (cᵢσᵢ/cₚ)eₚ                 for each partner p: a coordinate at a bound
//	                                           with cᵢσᵢcₚσₚ < 0, moved toward its bound,
//	d^F = σᵢeᵢ − (cᵢσᵢ/‖c_F‖²)c_F             spread over the coordinates F at no bound
//	                                           through p_E (when c_F ≠ 0),
//
// and each must satisfy −ṽ·d̂ > ρ‖P_N M d̂‖ + ½ρ·max(0, −d̂ᵀMd̂) (d̂ = d/‖d‖), d^F also the
// sign condition (b) of holdForcedRows on the near bounds of F.
//
// Proof, in holdForcedRows's frame (z ∈ N, ‖z‖ ≤ ρ, each bound row l through p_E with
// offset s′ₗ ≤ 0 and slack tₗ = s′ₗ − σₗzₗ ≥ 0): let z be feasible with tᵢ > 0. If a
// partner p has tₚ > 0, z′ = z + τd⁽ᵖ⁾ with τ = min(tᵢ, tₚ|cₚ/cᵢ|) moves i and p toward
// their bounds by at most their slacks and nothing else: z′ is feasible (cᵀd⁽ᵖ⁾ = 0, the
// opposite bounds of i and p gain slack, every near row is a bound), and
// ‖z′‖² − ‖z‖² = 2τzᵢσᵢ + τ² + 2zₚΔₚ + Δₚ² ≤ −τtᵢ − |Δₚ|tₚ ≤ 0 (σᵢzᵢ ≤ −tᵢ, zₚΔₚ ≤
// −tₚ|Δₚ|), with τ‖d⁽ᵖ⁾‖ = ‖(τ, Δₚ)‖ ≤ ‖(zᵢ, zₚ)‖ ≤ ρ. Otherwise every partner has tₚ = 0, and
// cᵀz = 0 gives cᵢσᵢ·c_F·z_F = cᵢ²tᵢ + Σ cᵢσᵢcⱼσⱼtⱼ over the other coordinates at bounds
// with cᵢσᵢcⱼσⱼ > 0, so cᵢσᵢ·c_F·z_F ≥ cᵢ²tᵢ; if c_F = 0 this contradicts tᵢ > 0, cᵢ ≠ 0;
// else z·d^F ≤ −tᵢ − cᵢ²tᵢ/‖c_F‖² = −tᵢ‖d^F‖² and z′ = z + tᵢd^F has
// ‖z′‖² ≤ ‖z‖² − tᵢ²‖d^F‖², tᵢ‖d^F‖ ≤ ‖z‖ ≤ ρ; it is feasible by the sign condition
// (coordinates at no bound through p_E move away from their near bounds, or those hold on
// the whole disc). With cᵢ = 0, z′ = z + tᵢσᵢeᵢ (‖z′‖² = ‖z‖² − tᵢ²). In every case z′ ∈ N,
// ‖z′‖ ≤ ρ, τ‖d‖ ≤ ρ, and
//
//	q(z) − q(z′) = τ(−ṽ·d − z′ᵀMd + ½τ·dᵀMd) ≥ τ‖d‖(−ṽ·d̂ − ρ‖P_N M d̂‖ − ½ρ·max(0, −d̂ᵀMd̂)) > 0,
//
// so no minimizer over S_w ∩ D leaves row i: the conclusion of holdForcedRows, in its
// frame, from which its forcedErr follows unchanged.
func (cr *circuitRule) forced(i int) bool {
	w := cr.w
	k := w.c.boundCoord(i)
	si := w.c.coordSign(i)
	ci := cr.c[k]
	if ci == 0 {
		return cr.gains(map[int]float64{k: si})
	}
	var spread []int
	cF2 := 0.0
	for j, sj := range cr.sigma {
		switch {
		case j == k || cr.c[j] == 0 || sj == blocked:
		case sj == 0:
			spread = append(spread, j)
			cF2 += cr.c[j] * cr.c[j]
		case ci*si*cr.c[j]*sj < 0:
			if !cr.gains(map[int]float64{k: si, j: -ci * si / cr.c[j]}) {
				return false
			}
		}
	}
	if cF2 == 0 {
		return true
	}
	d := map[int]float64{k: si}
	for _, j := range spread {
		d[j] = -ci * si * cr.c[j] / cF2
		for _, l := range cr.bounds[j] { // (b) on the near bounds of F
			if w.c.coordSign(l)*d[j] > 0 && !cr.holdsOnDisc(l) {
				return false
			}
		}
	}
	return cr.gains(d)
}

// holdsOnDisc reports whether near row l holds on the whole disc: ‖P_N âₗ‖·ρ ≤ its offset.
func (cr *circuitRule) holdsOnDisc(l int) bool {
	pa := math.Sqrt(math.Max(0, 1-math.Pow(cr.w.c.dotRow(l, cr.c), 2)))
	return pa*cr.fr.rho*(1+1e-9) <= cr.w.slack(l, cr.fr.pF)
}

// gains reports −ṽ·d̂ > ρ‖P_N M d̂‖ + ½ρ·max(0, −d̂ᵀMd̂) for the sparse move d.
func (cr *circuitRule) gains(d map[int]float64) bool {
	n := 0.0
	for _, v := range d {
		n += v * v
	}
	n = math.Sqrt(n)
	Md := make([]float64, len(cr.c))
	lin, curv := 0.0, 0.0
	for j, v := range d {
		axpy(Md, v/n, cr.cols[j])
		lin -= cr.fr.v[j] * v / n
	}
	for j, v := range d {
		curv += Md[j] * v / n
	}
	axpy(Md, -dot(cr.c, Md), cr.c)
	return lin > cr.fr.rho*norm(Md)+0.5*cr.fr.rho*math.Max(0, -curv)
}
