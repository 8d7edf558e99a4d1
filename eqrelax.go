package houdini

import "math"

// The cone bound with the equality relaxed by a multiplier (issue 14): at a degenerate
// vertex of an equality and bounds, e.g. a balanced ±1 point of {−1 ≤ x ≤ 1, Σx = 0}
// where n bounds and the equality meet in ℝⁿ, the cone bound (cone.go) holds the equality
// and must drop one of the walked rows to make its cone simplicial (coneIndep). Dropping
// row k fixes the equality's multiplier at the value that zeroes ℓₖ, which leaves
// zero multipliers on the rows tied with k and opens the direction that leaves row k: a
// zero-multiplier row with negative curvature along it, and (∗) fails although every
// feasible move costs first-order (all transfer rates positive).
//
// The bound. Let E be the one equality, held by the walk at âₑ·h = sₑ, and μ any real.
// On the walk's set, âₑ·h = sₑ, so the model is
//
//	m(h) = m̂(h) − μsₑ,   m̂(h) = m(h) + μâₑ·h   (v̂ = v + μâₑ, the same M),
//
// and the walk's root set (E and the forced rows held, the walked rows as inequalities
// âᵢ·h ≤ sᵢ, ‖h‖ ≤ r) lies in the set S₂ that holds the forced rows alone, at the same
// offsets, with the same inequalities and ball. Any lower bound L̂ on m̂ over S₂ therefore
// gives m ≥ L̂ − μsₑ on the walk's set, for every μ: the cone bound of m̂ at S₂'s root is
// one. Without the equality the walked bounds are independent (the vertex's cone is the
// orthant of their multipliers), and μ moves every multiplier, ℓᵢ(μ) = ℓᵢ(0) + μ·δℓᵢ with
// δℓ = −Xᵀ(Uᵀâₑ) in the cone frame's X and U: μ is chosen to maximize minᵢ ℓᵢ(μ)/Tᵢ, the
// least of the diagonal terms 2ℓᵢ/Tᵢ that (∗) gains from the multipliers (for the balanced
// vertex, the middle of [max over upper-bound coordinates of gⱼ, min over lower-bound ones],
// where every transfer's rate is split between its two rows). The choice is a heuristic;
// the bound holds for any μ.
//
// Rounding: m̂ is evaluated with v̂ rounded, fl(v + μâₑ) = v̂ + e with |e| ≤ ε|v̂|
// entrywise, which moves m̂ by at most ε‖v̂‖r on the ball; that, and the rounding of μsₑ,
// are charged (eqRelaxErr) before the cone bound is asked for its bar.
//
// Where the bound fails, the rows whose multipliers stay least at μ, ℓᵢ(μ)/Tᵢ within
// eqProbeTol of the least, are those along which a move may cost nothing to first order
// (at a balanced vertex where [max gⱼ, min gᵢ] is the single point μ, the zero-rate
// transfers; where the least is negative, the point is not stationary on the walk's set
// and they are the transfers of negative rate). eqRelaxProbe then holds every other row of
// the frame and runs the cone bound with the equality held on that face, for its
// candidates only (coneCandidate, each checked against every row by walk.consider), and
// offers the rays that leave one row of negative multiplier there (descentRays): a
// transfer of negative curvature or of negative rate between two such rows lies on that
// face, where the subset walk, in near's order, would reach it only after 2^m subsets.
// The probe finds moves; it proves nothing, and its bound is discarded.
//
// Cost: one walk stack of the forced rows and two cone frames (the first for δℓ) beside
// the cone bound's own work; the probe, one stack of the frame's other rows and one more
// cone bound.

// eqRelaxSpan: the bound is tried only where the equality's normal lies in the span of the
// held and walked rows, up to eqRelaxSpan: elsewhere it leaves free directions, along
// which the cone bound with the equality held is the better one.
const eqRelaxSpan = 1e-8

// eqProbeTol: eqRelaxProbe leaves free the rows with ℓᵢ/Tᵢ at most the least plus
// eqProbeTol times the largest |ℓᵢ/Tᵢ| (a choice of face to search, not a decision).
const eqProbeTol = 1e-6

// eqRelaxBound returns L ≥ min(keep, qmin) of the package comment when the cone bound of
// m̂ proves it, else −Inf. Only dense models with one equality are tried.
func (w *walk) eqRelaxBound() float64 {
	eqs := w.c.equalities()
	if len(eqs) != 1 || w.mod == nil || w.mod.M == nil {
		return math.Inf(-1)
	}
	e := eqs[0]
	w2 := w.withoutEqualities()
	if w2 == nil {
		return math.Inf(-1)
	}
	fr := w2.newConeFrame()
	if fr == nil {
		return math.Inf(-1)
	}
	ae := w.c.row(e)
	var held [][]float64
	if !w2.coneByCoords() {
		held = w2.basis.dense(len(w.x))
	}
	if norm(w2.coneOffHeld(ae, held, fr.U)) > eqRelaxSpan {
		return math.Inf(-1)
	}
	m := len(fr.rows)
	ue := make([]float64, m)
	for j, u := range fr.U {
		ue[j] = dot(u, ae)
	}
	a, b := make([]float64, m), make([]float64, m) // ℓᵢ(μ)/Tᵢ = aᵢ + μbᵢ
	for i := range m {
		s := 0.0
		for k := i; k < m; k++ {
			s -= fr.X[k][i] * ue[k]
		}
		a[i], b[i] = fr.ell[i]/fr.T[i], s/fr.T[i]
	}
	mu, ok := maxMinLine(a, b)
	if !ok {
		return math.Inf(-1)
	}
	mod := *w.mod
	mod.v = make([]float64, len(w.x))
	for j, vj := range w.mod.v {
		mod.v[j] = vj + mu*ae[j]
	}
	w2.mod = &mod
	shift := mu * w.s[e]
	err := eqRelaxErr(len(w.x), norm(mod.v), mu, w.s[e], w.r)
	bar := math.Min(w.pool.keep, w.pool.qmin) + shift + err
	w2.pool = candidatePool{keep: bar, qmin: bar}
	L := w2.coneBound()
	if math.IsInf(L, -1) {
		L = w2.directedBound(0, false) // coupling.go: each multiplier spent across rows
	}
	if math.IsInf(L, -1) {
		w.eqRelaxProbe(fr.rows, a, b, mu)
		return L
	}
	return L - shift - err
}

// descentRays offers the walk, for each row i of the cone frame at w's current depth
// with a negative multiplier ℓᵢ, the ray y = −U·X·eᵢ, which leaves row i and keeps the
// frame's other rows and the held ones: the model's slope along it is ℓᵢ < 0 (a
// first-order descent, which the cone bound, paying ℓᵢ⁻Tᵢ linearly, gives up on before
// its copositivity test could offer a vertex), as lineCandidate's candidates.
func (w *walk) descentRays() {
	fr := w.newConeFrame()
	if fr == nil {
		return
	}
	for i, l := range fr.ell {
		if !(l < 0) {
			continue
		}
		y := make([]float64, len(w.x))
		for j := i; j < len(fr.U); j++ {
			axpy(y, -fr.X[j][i], fr.U[j])
		}
		w.lineCandidate(y)
	}
}

// eqRelaxProbe holds, on w at its root, the rows of the relaxed frame whose multipliers
// at μ (ℓᵢ/Tᵢ = aᵢ + μbᵢ) are not within eqProbeTol of the least, runs the cone bound with
// the equality held there for its candidates, and releases them (see the package
// comment). It does nothing when no row or every row would be held.
func (w *walk) eqRelaxProbe(rows []int, a, b []float64, mu float64) {
	least, big := math.Inf(1), 0.0
	for i := range a {
		v := a[i] + mu*b[i]
		least, big = math.Min(least, v), math.Max(big, math.Abs(v))
	}
	cut := least + eqProbeTol*big
	var hold []int
	for i, l := range rows {
		if a[i]+mu*b[i] > cut {
			hold = append(hold, l)
		}
	}
	if len(hold) == 0 || len(hold) == len(rows) {
		return
	}
	n := 0
	for _, l := range hold {
		if w.push(l) {
			n++
		}
	}
	if n > 0 && !w.stopped {
		w.coneBound()
		w.descentRays()
	}
	for range n {
		w.pop()
	}
}

// eqRelaxErr bounds the rounding eqRelaxBound charges: ε‖v̂‖r for v̂'s entries and
// |μsₑ|'s, with the margin coneRound·(d + 2) of the cone bound's own.
func eqRelaxErr(d int, nv, mu, se, r float64) float64 {
	return coneRound * float64(d+2) * eps * (nv*r + math.Abs(mu*se))
}

// withoutEqualities returns a walk over the same rows, offsets, ball and model that holds
// the forced rows (w's rows after its equalities) and not the equalities, at w's root;
// nil when one cannot be held (it is then farther than r: only by rounding).
func (w *walk) withoutEqualities() *walk {
	w2 := &walk{c: w.c, x: w.x, r: w.r, feasTol: w.feasTol, ctx: w.ctx, mod: w.mod,
		s: w.s, near: w.near, close: w.close, maxSubsets: w.maxSubsets, pool: w.pool}
	w2.h, w2.dist2 = make([]float64, len(w.x)), []float64{0}
	for _, i := range w.rows[w.base:] {
		if !w2.push(i) {
			return nil
		}
	}
	return w2
}

// maxMinLine returns a μ that maximizes φ(μ) = minᵢ (aᵢ + μbᵢ), a concave piecewise-linear
// function, by bisection on the crossing of its rising and falling parts; ok is false when
// φ is unbounded above or the lines are not finite. With no rising or no falling line φ
// is monotone and μ = 0 is returned when every slope is zero.
func maxMinLine(a, b []float64) (mu float64, ok bool) {
	up, down := false, false
	for i := range a {
		if math.IsNaN(a[i]) || math.IsInf(a[i], 0) || math.IsNaN(b[i]) || math.IsInf(b[i], 0) {
			return 0, false
		}
		up, down = up || b[i] > 0, down || b[i] < 0
	}
	if !up && !down {
		return 0, true
	}
	if !up || !down {
		return 0, false
	}
	// rise(μ) − fall(μ) increases: the least of the rising lines minus the least of the
	// falling ones.
	diff := func(mu float64) float64 {
		rise, fall := math.Inf(1), math.Inf(1)
		for i := range a {
			switch v := a[i] + mu*b[i]; {
			case b[i] > 0:
				rise = math.Min(rise, v)
			case b[i] < 0:
				fall = math.Min(fall, v)
			}
		}
		return rise - fall
	}
	lo, hi, step := -1.0, 1.0, 1.0
	for diff(lo) > 0 {
		step *= 2
		if step > 1e300 {
			return 0, false
		}
		lo -= step
	}
	step = 1
	for diff(hi) < 0 {
		step *= 2
		if step > 1e300 {
			return 0, false
		}
		hi += step
	}
	for range 200 {
		mid := 0.5 * (lo + hi)
		if mid <= lo || mid >= hi {
			break
		}
		if diff(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi), true
}
