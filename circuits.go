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

// circuitRule is the circuit rule's data for one walk: the unit normal c of the equality or
// of the budget, and per coordinate the sign σⱼ of its bound row through p_E (offset ≤ 0
// in the frame), 0 for a free coordinate, and blocked for one at both of its bounds.
type circuitRule struct {
	w      *walk
	fr     forcedFrame
	c      []float64
	sigma  []float64
	bounds [][]int // near bound rows per coordinate
	cols   [][]float64
	ineq   bool // c is a budget row cᵀz ≤ 0 of E, not an equality
}

const blocked = 2

// newCircuitRule returns the circuit rule for the walk in the frame fr with the rows E
// through p_E (holdForcedRows), or nil where it does not apply: every near row a bound
// but for the one row c, which is either the one equality held (N = c^⊥) or a budget
// inequality of E (no equality; every row of E then with offset 0 in the frame), and the
// work within maxCircuitWork.
func (w *walk) newCircuitRule(fr forcedFrame, E []int) *circuitRule {
	d := len(w.x)
	if len(E)*d*d > maxCircuitWork || w.base > 1 || (w.base == 1 && fr.pF == nil) {
		return nil
	}
	cr := &circuitRule{w: w, fr: fr, sigma: make([]float64, d), bounds: make([][]int, d)}
	if w.base == 1 {
		cr.c = w.basisVec(0)
	}
	inE := make(map[int]bool, len(E))
	for _, i := range E {
		inE[i] = true
		if fr.pF == nil && w.s[i] != 0 {
			return nil
		}
	}
	for _, l := range w.near {
		j := w.c.boundCoord(l)
		if j < 0 {
			if cr.c != nil || !inE[l] {
				return nil
			}
			cr.c, cr.ineq = w.c.row(l), true // the budget
			continue
		}
		cr.bounds[j] = append(cr.bounds[j], l)
		if inE[l] || cr.offset(l) <= 0 { // E's rows have offset 0 in the frame
			if cr.sigma[j] != 0 {
				cr.sigma[j] = blocked
			} else {
				cr.sigma[j] = w.c.coordSign(l)
			}
		}
	}
	if cr.c == nil || w.mod.M == nil {
		return nil // no budget row; or a matrix-free model, whose d columns would cost d products
	}
	M := w.mod.M
	cr.cols = make([][]float64, d)
	for j := range cr.cols {
		cr.cols[j] = mat.Col(nil, j, M)
	}
	return cr
}

// offset returns row l's offset in the frame: sₗ at x, else its slack at p_E.
func (cr *circuitRule) offset(l int) float64 {
	if cr.fr.pF == nil {
		return cr.w.s[l]
	}
	return cr.w.slack(l, cr.fr.pF)
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
//
// A budget cᵀz ≤ 0 of E (slack t_b = −cᵀz ≥ 0; N = ℝᵈ) in place of the equality: the partner
// and spread moves keep cᵀz, so they stay feasible, and the case analysis gains the term
// −cᵢσᵢt_b in cᵢσᵢ·c_F·z_F = −cᵢσᵢt_b + cᵢ²tᵢ + Σ cᵢσᵢcⱼσⱼtⱼ. Where cᵢσᵢ < 0 (bringing i
// back frees budget) that term is ≥ 0 and the proof above holds. Where cᵢσᵢ > 0 and no
// partner has slack, either t_b = 0 (the proof above), or t_b > 0, and then
// z′ = z + τσᵢeᵢ with τ = min(tᵢ, t_b/(cᵢσᵢ)) is feasible (it spends budget slack only) with
// ‖z′‖² = ‖z‖² − 2τtᵢ + τ² ≤ ‖z‖²: so the rule also asks d = σᵢeᵢ to gain.
func (cr *circuitRule) forced(i int) bool {
	w := cr.w
	k := w.c.boundCoord(i)
	si := w.c.coordSign(i)
	ci := cr.c[k]
	if ci == 0 {
		return cr.gains([]move{{k, si}})
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
			if !cr.gains([]move{{k, si}, {j, -ci * si / cr.c[j]}}) {
				return false
			}
		}
	}
	if cr.ineq && ci*si > 0 && !cr.gains([]move{{k, si}}) {
		return false // the move into the budget's slack
	}
	if cF2 == 0 {
		return true
	}
	d := []move{{k, si}}
	for _, j := range spread {
		dj := -ci * si * cr.c[j] / cF2
		d = append(d, move{j, dj})
		for _, l := range cr.bounds[j] { // (b) on the near bounds of F
			if w.c.coordSign(l)*dj > 0 && !cr.holdsOnDisc(l) {
				return false
			}
		}
	}
	return cr.gains(d)
}

// holdsOnDisc reports whether near row l holds on the whole disc: ‖P_N âₗ‖·ρ ≤ its offset.
func (cr *circuitRule) holdsOnDisc(l int) bool {
	pa := 1.0
	if !cr.ineq {
		pa = math.Sqrt(math.Max(0, 1-math.Pow(cr.w.c.dotRow(l, cr.c), 2)))
	}
	return pa*cr.fr.rho*(1+1e-9) <= cr.offset(l)
}

// move is one coordinate j of a sparse move d and its entry dⱼ.
type move struct {
	j int
	v float64
}

// gains reports −ṽ·d̂ > ρ‖P_N M d̂‖ + ½ρ·max(0, −d̂ᵀMd̂) for the sparse move d, summed in
// d's order (so that the verdict is the same on every run).
func (cr *circuitRule) gains(d []move) bool {
	n := 0.0
	for _, m := range d {
		n += m.v * m.v
	}
	n = math.Sqrt(n)
	Md := make([]float64, len(cr.c))
	lin, curv := 0.0, 0.0
	for _, m := range d {
		axpy(Md, m.v/n, cr.cols[m.j])
		lin -= cr.fr.v[m.j] * m.v / n
	}
	for _, m := range d {
		curv += Md[m.j] * m.v / n
	}
	if !cr.ineq {
		axpy(Md, -dot(cr.c, Md), cr.c) // P_N
	}
	return lin > cr.fr.rho*norm(Md)+0.5*cr.fr.rho*math.Max(0, -curv)
}
