package houdini

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// The block bound: a lower bound on the model over the walk's set at its root when the
// face's Hessian falls apart into small blocks, as it does at a vertex of a box with a
// sparse Hessian (max-cut: the coordinates neither forced nor far from their bounds — the
// ties and the free coordinates — meet few edges among themselves). It decides in one
// step the walks whose rows are too many for the cone bound (cone.go, conekrylov.go: m·d
// and k² floats) and whose face's smallest eigenvalue, in the Krylov examiner's bound, is
// too negative to prune: the negative curvature of a block is often not reachable inside
// the cone of its ties.
//
// The bound. Let every held row be a bound held as its coordinate, with no equalities, p
// the walk's offset (on the held coordinates) and r′ = √(r² − ‖p‖²), so that the walk's
// set is {p + z : z on the other coordinates J, ‖z‖ ≤ r′, z in S_w}. Of the near rows
// keep the bounds on coordinates of J whose slack σⱼ at p (relaxed by two roundTol, as
// cone.go does) is at most blockSlack·r′, one per coordinate, and drop every other row: a
// relaxation. With q the shift qⱼ = sⱼσⱼ⁺ on those coordinates (sⱼ the
// row's sign), z = q + y, y in the cone K = {sⱼyⱼ ≤ 0} and ‖y‖ ≤ R = r′ + ‖q‖. Then
//
//	m(p + q + y) = c + gᵀy + ½yᵀMy,   c = m(p + q),  g = v + M(p + q).
//
// On a cone coordinate with multiplier ℓⱼ = −sⱼgⱼ ≥ 0, gⱼyⱼ = ℓⱼ|yⱼ| ≥ ℓⱼyⱼ²/R, as
// |yⱼ| ≤ ‖y‖ ≤ R (cone.go spends multipliers so): the diagonal D = diag(2ℓⱼ/R) joins M;
// the rest of g, g′, gives at least −‖g′‖·‖y‖. Let the graph on J join j and k when
// M_jk + M_kj ≠ 0, and let its components be the blocks b, with M_b the symmetric part
// of M + D on b and K_b the cone's factor on b: yᵀ(M + D)y = Σ_b y_bᵀM_b y_b. If
// μ_b ≤ min{uᵀM_b u : u ∈ K_b, ‖u‖ = 1}, then with ρ_b = ‖y_b‖, Σ ρ_b² ≤ R²,
//
//	m ≥ c − ‖g′‖R + Σ_b ½μ_bρ_b² ≥ L = c − ‖g′‖R + ½·min(0, min_b μ_b)·R².
//
// μ_b. A minimizer u* of uᵀM_b u over K_b ∩ {‖u‖ = 1} is, on the coordinates I where it is
// nonzero or free, a local minimizer of the Rayleigh quotient of M_I (the cone's
// constraints are inactive there), hence an eigenvector of its smallest eigenvalue (the
// Rayleigh quotient has no other local minima), with the cone's strict signs on I's tie
// coordinates. So μ_b is the least λ_min(M_I) over the sets I = free ∪ T′ (T′ any subset
// of the block's cone coordinates) where some λ_min-eigenvector of M_I has the cone's
// signs on T′. blockMu takes every I, and skips one only when its smallest eigenvalue is
// simple by a margin (blockGap) and the computed eigenvector has, both ways round, an
// entry of the wrong sign beyond blockSignTol (far beyond the vector's rounding at that
// gap); a block with more than blockMaxTies cone coordinates, or whose sets cost more
// than blockWork, takes λ_min(M_b), a bound without the cone. Each eigenvalue is lowered by its rounding, blockRound·n·ε·‖M_I‖_F.
//
// The blocks of an operator. Any symmetric M̂ on J serves: with e ≥ ‖M_JJ − M̂‖₂,
// yᵀMy ≥ yᵀM̂y − e‖y‖², so the bound holds with the μ_b of M̂'s blocks lowered by e, and
// how M̂ was found decides its tightness alone. blockRecover finds M_JJ's entries by
// group testing: J split into G = blockGroups groups by a hash, two products per group,
// M·Σ_{j∈g} e_j and M·Σ_{j∈g} τ_j e_j with distinct weights τ_j ∈ [1, 2); a row k
// with one neighbour j in g shows the ratio τ_j (and the entry), a row whose ratio names
// no member has two or more there and gets its own product M e_k (M taken as symmetric,
// as everywhere on the Krylov path). e is spectrumBounds' bound on the residual operator
// P_J M P_J − M̂ from a random start, which holds except with probability krylovFailProb
// (walk.blockFail, charged to the certificate), plus the rounding of its products,
// blockRound·(|J| + 2)·ε·‖M‖₂. So 2G + (rows with collisions) + about 60 products
// instead of |J|. A dense M gives M_JJ's entries by indexing, e = 0.
//
// Limits: the bound is tried only when |J| ≤ blockFreeMax, and gives up (−Inf) when M̂
// has more than blockDensity·|J| entries or a block more than blockMaxDim coordinates: a
// dense face has no blocks. Rounding: c, g and ‖g′‖ are computed with d-vectors and carry
// cone.go's vm.

// Guards of the block bound.
const (
	// blockSlack: the near rows with slack σ ≤ blockSlack·r′ at p are the cone's (coneSlack).
	blockSlack = coneSlack
	// blockFreeMax bounds |J|.
	blockFreeMax = 1 << 15
	// blockGroups is G, the groups of blockRecover: 2G products.
	blockGroups = 64
	// blockRatioTol: a ratio within blockRatioTol·τ of a member's weight names it.
	blockRatioTol = 1e-9
	// blockDensity·|J| bounds the entries of the columns kept.
	blockDensity = 32
	// blockMaxDim bounds a block's dimension (one eigendecomposition per set I).
	blockMaxDim = 200
	// blockMaxTies bounds the cone coordinates t of a block whose 2^t sets I are tried,
	// and blockWork the arithmetic 2^t·n³ of their eigendecompositions.
	blockMaxTies = 12
	blockWork    = 1 << 24
	// blockGap, relative to ‖M_I‖_F: a smaller gap between the two smallest eigenvalues
	// counts as a repeated eigenvalue, whose eigenspace may hold a vector of the cone.
	blockGap = 1e-8
	// blockSignTol: the least tolerance on an eigenvector entry of the wrong sign (of a
	// unit vector) before it excludes the set I; the tolerance used is the larger of it
	// and the vector's proven rounding, eigvecRound (≈ 10⁻⁶ at n = 3, gap = blockGap·‖M_I‖_F;
	// 10⁻⁴ at n = 200): a floor, kept from earlier versions, that only adds margin.
	blockSignTol = 1e-5
	// blockRound multiplies the rounding bound n·ε·‖M_I‖_F of a computed eigenvalue.
	blockRound = 16
	// blockStopTol: the walk stops at its root when the block bound is within
	// blockStopTol·|keep| (keep = −δ/3) of its best candidate, which is then the escape's
	// move (no subset can beat it by more); it stops there too when blockSplit's candidate,
	// a block's exact minimizer, was accepted below keep (walk.blockMove).
	blockStopTol = 1.0 / 16
	// blockExactMax and blockExactDim bound the blocks blockSplit takes exactly (2^rows
	// faces each: the torus of n = 10⁴ from a BMZ vector has one of 13 coordinates), and
	// blockFeasTol·R the violation its candidates may have.
	blockExactMax = 64
	blockExactDim = 16
	blockFeasTol  = 1e-9
)

// blockBound returns L of the block bound at the walk's root, or −Inf where it does not
// apply or gives up.
func (w *walk) blockBound() float64 {
	d := len(w.x)
	if w.base != 0 {
		return math.Inf(-1)
	}
	for k := range w.basis.size() {
		if j, _ := w.basis.isCoord(k); j < 0 {
			return math.Inf(-1)
		}
	}
	rs := w.radius()
	if !(rs > 0) || d-w.basis.size() > blockFreeMax {
		return math.Inf(-1)
	}
	p := w.offset()
	idx := make([]int32, d) // 1 + the position of j in J, 0 for a held coordinate
	var J []int
	for j := range d {
		if w.basis.heldAt(j) < 0 {
			J = append(J, j)
			idx[j] = int32(len(J))
		}
	}
	// The cone's coordinates: sign s and relaxed slack σ⁺ of the tightest row on each;
	// and every near bound on J, for the exact minima (blockExact).
	sgn := make([]float64, len(J))
	sig := make([]float64, len(J))
	var bounds []blockRow
	for _, l := range w.near {
		j := w.c.boundCoord(l)
		if j < 0 || idx[j] == 0 || slices.Contains(w.rows, l) {
			continue
		}
		s := w.slack(l, p) + 2*w.roundTol(l)
		bounds = append(bounds, blockRow{int(idx[j] - 1), w.c.coordSign(l), s})
		if s > blockSlack*rs {
			continue
		}
		if a := idx[j] - 1; sgn[a] == 0 { // both bounds of a coordinate: the first is kept
			sgn[a], sig[a] = w.c.coordSign(l), math.Max(0, s)
		}
	}
	h := slices.Clone(p) // p + q
	nq := 0.0
	for a, j := range J {
		h[j] += sgn[a] * sig[a]
		nq += sig[a] * sig[a]
	}
	R := (rs + math.Sqrt(nq)) * (1 + 1e-9)
	c := w.mod.value(h)
	g := make([]float64, d)
	w.mod.mul(g, h)
	axpy(g, 1, w.mod.v)
	gp := 0.0                       // ‖g′‖²
	diag := make([]float64, len(J)) // 2ℓⱼ/R on the cone's coordinates with ℓⱼ > 0
	for a, j := range J {
		switch ell := -sgn[a] * g[j]; {
		case sgn[a] == 0 || ell < 0:
			gp += g[j] * g[j]
		case ell > 0:
			diag[a] = 2 * ell / R
		}
	}
	vm := coneRound * float64(d+2) * eps * (norm(g) + w.mod.normF()*R) * R
	cols, ok := w.blockRecover(J, idx)
	if !ok {
		return math.Inf(-1)
	}
	e, fail, ok := w.blockResidual(J, cols)
	if !ok {
		return math.Inf(-1)
	}
	comps := blockComponents(cols)
	mus := make([]float64, len(comps))
	var worst []int // the block of the least μ_b, and its vector u
	var wu []float64
	least := 0.0
	for k, b := range comps {
		if len(b) > blockMaxDim || w.ctx.Err() != nil {
			return math.Inf(-1)
		}
		var u []float64
		if mus[k], u = blockMu(b, cols, sgn, diag); mus[k] < least {
			least, worst, wu = mus[k], b, u
		}
	}
	w.blockFail = math.Max(w.blockFail, fail)
	L := c - math.Sqrt(gp)*R + 0.5*(least-e)*R*R - vm
	if bar := math.Min(w.pool.keep, w.pool.qmin); L < bar {
		for k := range bounds { // in the frame of y = z − q
			br := &bounds[k]
			br.sigma -= br.s * sgn[br.a] * sig[br.a]
		}
		L = math.Max(L, w.blockSplit(J, comps, mus, cols, bounds, sgn, g, p, c-vm, e, rs, R, bar))
	}
	if wu != nil {
		w.blockCandidate(J, worst, wu, rs)
	}
	if pl := &w.pool; pl.qmin < pl.keep && (L >= pl.qmin+blockStopTol*pl.keep || w.blockMove) {
		// No subset holds a candidate lower by more than blockStopTol·|keep|, or a block's
		// exact minimizer is a move: the escape takes it (a move, not the best one), rather
		// than a walk over 2^m subsets of thousands of rows.
		w.stop(false)
	}
	return L
}

// blockRow is a near bound on the coordinate at position a of J: s·zₐ ≤ σ, and once
// blockBound moves it to the frame of y = z − q, s·yₐ ≤ σ − s·qₐ.
type blockRow struct {
	a        int
	s, sigma float64
}

// blockSplit returns the block bound with the blocks that keep it below bar also taken
// exactly: B the blocks whose μ_b is below θ = 2(bar − c₀ + ‖g′‖R)/R² (those that alone
// keep L below bar; at most blockExactMax of them, each of at most blockExactDim
// coordinates, else −Inf), G the others. A block's part φ_b of the model, at ρ_b = ‖y_b‖,
// is at least −‖g′_b‖ρ_b + ½μ_bρ_b² (blockBound) and at least m_b, the exact minimum of
// g_bᵀy + ½yᵀM_b y over the block's bounds ∩ B(0, R) (blockExact; the form of M without
// D, the multipliers being in g_b), so φ_b ≥ max(m_b, ½μ_b t_b) − ‖g′_b‖ρ_b with
// t_b = ρ_b²; M̂'s error costs ½e·Σt_b ≤ ½eR². Hence, with Cauchy–Schwarz on the g′ terms,
//
//	m ≥ c₀ − ‖g′‖R − ½eR² + min{Σ_B max(m_b, ½μ_b t_b) + ½·min(0, min_G μ_b)·t_G : Σ t ≤ R², t ≥ 0},
//
// a minimum of convex piecewise linear functions of t over a simplex, which filling the
// steepest slopes first attains: slope ½μ_b on B up to t_b = 2m_b/μ_b, then ½·min_G μ_b.
//
// The least m_b's minimizer y_b, at p + t·y_b with t = r′/R (inside the ball, and, as
// σ ≥ 0 off the cone and q = 0 there, inside the bounds y_b keeps), is offered to the walk
// as a candidate; consider checks it against S_w.
func (w *walk) blockSplit(J []int, comps [][]int, mus []float64, cols [][]blockEntry, bounds []blockRow, sgn, g, p []float64, c0, e, rs, R, bar float64) float64 {
	gp := 0.0
	for a, j := range J {
		if sgn[a] == 0 || -sgn[a]*g[j] < 0 {
			gp += g[j] * g[j]
		}
	}
	theta := 2 * (bar - c0 + math.Sqrt(gp)*R) / (R * R)
	type piece struct{ slope, cap float64 }
	var pieces []piece
	good := 0.0
	nb := 0
	var best []float64 // the least m_b's minimizer, as an offset
	bestM := 0.0
	for k, b := range comps {
		if mus[k] >= theta {
			good = math.Min(good, mus[k])
			continue
		}
		if nb++; nb > blockExactMax || len(b) > blockExactDim {
			return math.Inf(-1)
		}
		mb, y, ok := w.blockExact(J, b, cols, bounds, g, R)
		if !ok {
			return math.Inf(-1)
		}
		if y != nil && mb < bestM {
			bestM, best = mb, slices.Clone(p)
			for i, a := range b {
				best[J[a]] += y[i] * rs / R * (1 - 1e-9)
			}
		}
		if mb < 0 && mus[k] < 0 {
			pieces = append(pieces, piece{0.5 * mus[k], 2 * mb / mus[k]})
		}
	}
	pieces = append(pieces, piece{0.5 * good, math.Inf(1)})
	if best != nil && bestM < w.pool.keep {
		q := w.mod.value(best)
		w.consider(best, q, CaseBoundary)
		w.blockMove = w.pool.qmin <= q && q < w.pool.keep
	}
	slices.SortFunc(pieces, func(a, b piece) int { return cmp.Compare(a.slope, b.slope) })
	L, left := c0-math.Sqrt(gp)*R-0.5*e*R*R, R*R
	for _, pc := range pieces {
		t := math.Min(left, pc.cap)
		L += pc.slope * t
		if left -= t; left <= 0 {
			break
		}
	}
	return L
}

// blockExact returns the minimum of g_bᵀy + ½yᵀM_b y over the near bounds of the block b
// (positions in J, in the frame of y) and ‖y‖ ≤ R, lowered by its rounding: the least value of findInside's
// candidates (every one, keep = +Inf) on each face of the bounds — each coordinate at one
// of its bounds or free — that satisfies the bounds within blockFeasTol·R. The minimizer,
// on the face of its active bounds, is one of that face's candidates (findInside's
// completeness, as in the walk; a bound of both signs on one coordinate is a face of
// its own); accepting candidates slightly outside only lowers the minimum. y is the
// minimizer found (positions of b; nil: y = 0). ok is false when a factorization fails.
func (w *walk) blockExact(J, b []int, cols [][]blockEntry, bounds []blockRow, g []float64, R float64) (m float64, y []float64, ok bool) {
	n := len(b)
	pos := make(map[int]int, n)
	for i, a := range b {
		pos[a] = i
	}
	M := mat.NewSymDense(n, nil)
	for i, a := range b {
		for _, en := range cols[a] {
			k := pos[int(en.k)]
			M.SetSym(i, k, M.At(i, k)+0.5*en.v)
			if k == i {
				M.SetSym(i, i, M.At(i, i)+0.5*en.v)
			}
		}
	}
	gb := make([]float64, n)
	for i, a := range b {
		gb[i] = g[J[a]]
	}
	var rows []blockRow // the block's bounds, a as positions in b
	for _, br := range bounds {
		if i, ok := pos[br.a]; ok {
			rows = append(rows, blockRow{i, br.s, br.sigma})
		}
	}
	scale := (norm(gb) + mat.Norm(M, 2)*R) * R
	tol := blockFeasTol * R
	best := 0.0 // y = 0
	var arg []float64
	for set := 0; set < 1<<len(rows); set++ {
		y := make([]float64, n)
		fixed := make([]bool, n)
		ok := true
		for k, br := range rows {
			if set>>k&1 == 0 {
				continue
			}
			v := br.s * br.sigma // s·y = σ
			if fixed[br.a] && y[br.a] != v {
				ok = false // both bounds of a coordinate: an empty face unless they agree
				break
			}
			y[br.a], fixed[br.a] = v, true
		}
		ny2 := dot(y, y)
		if !ok || ny2 > R*R {
			continue
		}
		var F []int
		for i := range n {
			if !fixed[i] {
				F = append(F, i)
			}
		}
		My := make([]float64, n)
		for i := range n {
			for k := range n {
				My[i] += M.At(i, k) * y[k]
			}
		}
		c0 := dot(gb, y) + 0.5*dot(y, My)
		MF := mat.NewSymDense(max(1, len(F)), nil)
		vF := make([]float64, len(F))
		for x, i := range F {
			vF[x] = gb[i] + My[i]
			for z := x; z < len(F); z++ {
				MF.SetSym(x, z, M.At(i, F[z]))
			}
		}
		if len(F) == 0 {
			if feasibleBlock(y, rows, tol) && c0 < best {
				best, arg = c0, y
			}
			continue
		}
		cands, _, ok := findInsideDense(w.ctx, MF, vF, math.Sqrt(R*R-ny2), c0, math.Inf(1))
		if !ok {
			return 0, nil, false
		}
		for _, cd := range cands {
			full := slices.Clone(y)
			for x, i := range F {
				full[i] += cd.y[x]
			}
			if feasibleBlock(full, rows, tol) && cd.q < best {
				best, arg = cd.q, full
			}
		}
	}
	return best - blockRound*float64(n+2)*eps*scale, arg, true
}

// feasibleBlock reports whether y satisfies the rows within tol.
func feasibleBlock(y []float64, rows []blockRow, tol float64) bool {
	for _, br := range rows {
		if br.s*y[br.a] > br.sigma+tol {
			return false
		}
	}
	return true
}

// blockCandidate offers the walk the point p + t·r′·u of the block bound's least block
// (u on the positions b of J, in the cone), t ≤ 1 the largest step the rows within r
// allow along it (consider checks the rest).
func (w *walk) blockCandidate(J, b []int, u []float64, rs float64) {
	d := len(w.x)
	y := make([]float64, d)
	for i, a := range b {
		y[J[a]] = u[i] * rs
	}
	h := slices.Clone(w.offset())
	t := 1.0
	for _, l := range w.close {
		if ay := w.c.dotRow(l, y); ay > 0 {
			t = math.Min(t, math.Max(0, w.slack(l, h))/ay)
		}
	}
	if !(t > 0) {
		return
	}
	axpy(h, t, y)
	w.consider(h, w.mod.value(h), CaseBoundary)
}

// blockEntry is one entry M_jk, j and k positions in J.
type blockEntry struct {
	k int32
	v float64
}

// blockRecover returns M̂ as rows: for each position c in J, entries (a, M_{J[c]J[a]}) —
// M's own for a dense M, else found by group testing (the package comment) — or false
// when they exceed blockDensity·|J|, a product fails or the context is done.
func (w *walk) blockRecover(J []int, idx []int32) ([][]blockEntry, bool) {
	d, m := len(w.x), len(J)
	rows := make([][]blockEntry, m)
	if M := w.mod.M; M != nil {
		n := 0
		for c, k := range J {
			for a, j := range J {
				if v := M.At(k, j); v != 0 {
					rows[c] = append(rows[c], blockEntry{int32(a), v})
				}
			}
			if n += len(rows[c]); n > blockDensity*m {
				return nil, false
			}
		}
		return rows, true
	}
	G := min(blockGroups, m)
	group, tau := make([]int, m), make([]float64, m)
	members := make([][]int, G) // by increasing weight
	for a := range m {
		hsh := splitmix(uint64(a))
		group[a] = int(hsh % uint64(G))
		tau[a] = 1 + float64(hsh>>11)/(1<<53)
		members[group[a]] = append(members[group[a]], a)
	}
	collided := make([]bool, m)
	z1, z2, y1, y2 := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	n := 0
	for g := range G {
		if w.ctx.Err() != nil {
			return nil, false
		}
		slices.SortFunc(members[g], func(a, b int) int { return cmp.Compare(tau[a], tau[b]) })
		for _, a := range members[g] {
			z1[J[a]], z2[J[a]] = 1, tau[a]
		}
		w.mod.mul(y1, z1)
		w.mod.mul(y2, z2)
		if w.mod.err != nil {
			return nil, false
		}
		for _, a := range members[g] {
			z1[J[a]], z2[J[a]] = 0, 0
		}
		for c, k := range J {
			v1, v2 := y1[k], y2[k]
			if v1 == 0 && v2 == 0 || collided[c] {
				continue
			}
			a, ok := memberOf(members[g], tau, v2/v1)
			if v1 == 0 || !ok {
				collided[c], rows[c] = true, nil
				continue
			}
			rows[c] = append(rows[c], blockEntry{int32(a), v1})
			if n++; n > blockDensity*m {
				return nil, false
			}
		}
	}
	unit := make([]float64, d)
	for c, k := range J { // a row with a collision: its own product, M taken as symmetric
		if !collided[c] {
			continue
		}
		if w.ctx.Err() != nil {
			return nil, false
		}
		unit[k] = 1
		w.mod.mul(y1, unit)
		unit[k] = 0
		if w.mod.err != nil {
			return nil, false
		}
		for a, j := range J {
			if y1[j] != 0 {
				rows[c] = append(rows[c], blockEntry{int32(a), y1[j]})
			}
		}
		if n += len(rows[c]); n > blockDensity*m {
			return nil, false
		}
	}
	return rows, true
}

// memberOf returns the member of g (sorted by weight) whose weight is within
// blockRatioTol of t.
func memberOf(g []int, tau []float64, t float64) (int, bool) {
	i, _ := slices.BinarySearchFunc(g, t, func(a int, t float64) int { return cmp.Compare(tau[a], t) })
	for _, k := range []int{i - 1, i} {
		if k >= 0 && k < len(g) && math.Abs(tau[g[k]]-t) <= blockRatioTol*t {
			return g[k], true
		}
	}
	return 0, false
}

// splitmix returns the SplitMix64 hash of a: blockRecover's groups and weights, the same
// for every run.
func splitmix(a uint64) uint64 {
	a += 0x9e3779b97f4a7c15
	a = (a ^ a>>30) * 0xbf58476d1ce4e5b9
	a = (a ^ a>>27) * 0x94d049bb133111eb
	return a ^ a>>31
}

// blockResidual returns e ≥ ‖P_J M P_J − M̂‖₂ (M̂ the symmetric part of rows) and the
// probability that it fails: 0 for a dense M (M̂ is M_JJ's symmetric part, whose form is
// M's), else spectrumBounds' on the residual operator plus the products' rounding
// (package comment); ok is false when a product fails or the walk's examiner is not the
// Krylov examiner, whose generator gives the random start.
func (w *walk) blockResidual(J []int, rows [][]blockEntry) (e, fail float64, ok bool) {
	if w.mod.M != nil {
		return 0, 0, true
	}
	d, m := len(w.x), len(J)
	held := func(v []float64) {
		for j := range v {
			if w.basis.heldAt(j) >= 0 {
				v[j] = 0
			}
		}
	}
	op := faceOp{
		mul: func(dst, y []float64) {
			w.mod.mul(dst, y)
			for c, k := range J {
				for _, en := range rows[c] {
					dst[k] -= 0.5 * en.v * y[J[en.k]]
					dst[J[en.k]] -= 0.5 * en.v * y[k]
				}
			}
		},
		proj: held,
		m:    m,
		err:  func() error { return w.mod.err },
	}
	kry, isKry := w.ex.(*krylovExaminer)
	if !isKry {
		return 0, 0, false
	}
	z := make([]float64, d)
	for _, k := range J { // a random start on J, from the escape's generator
		z[k] = kry.rng.NormFloat64()
	}
	lo, hi, exact := spectrumBounds(op, z, spectrumMaxSteps, kry.rng)
	if w.mod.err != nil || math.IsInf(lo, -1) {
		return 0, 0, false
	}
	if !exact {
		fail = krylovFailProb
	}
	return math.Max(-lo, hi) + blockRound*float64(m+2)*eps*w.mod.nrm2, fail, true
}

// blockComponents returns the components of the graph joining a and b where column a has
// an entry at b or column b one at a, each in increasing order.
func blockComponents(cols [][]blockEntry) [][]int {
	parent := make([]int, len(cols))
	for a := range parent {
		parent[a] = a
	}
	var find func(int) int
	find = func(a int) int {
		for parent[a] != a {
			parent[a] = parent[parent[a]]
			a = parent[a]
		}
		return a
	}
	for a, col := range cols {
		for _, e := range col {
			if ra, rb := find(a), find(int(e.k)); ra != rb {
				parent[max(ra, rb)] = min(ra, rb)
			}
		}
	}
	at := make(map[int]int)
	var comps [][]int
	for a := range cols {
		r := find(a)
		k, ok := at[r]
		if !ok {
			k = len(comps)
			at[r] = k
			comps = append(comps, nil)
		}
		comps[k] = append(comps[k], a)
	}
	return comps
}

// blockMu returns μ_b ≤ min{uᵀM_b u : u ∈ K_b, ‖u‖ = 1} for the block b (positions in J,
// increasing), cols its entries of M, diag those of D and sgn the cone's signs (0:
// free), by the sets I of the package comment; and u, a unit vector on b (positions of b)
// of the cone at which the form is μ_b up to rounding, nil when the set that gave μ_b
// showed none (a multiple eigenvalue, or the fallback without the cone).
func blockMu(b []int, cols [][]blockEntry, sgn, diag []float64) (mu float64, u []float64) {
	n := len(b)
	pos := make(map[int]int, n)
	for i, a := range b {
		pos[a] = i
	}
	Mb := mat.NewSymDense(n, nil) // the symmetric part
	for i, a := range b {
		for _, e := range cols[a] {
			k := pos[int(e.k)]
			Mb.SetSym(i, k, Mb.At(i, k)+0.5*e.v)
			if k == i {
				Mb.SetSym(i, i, Mb.At(i, i)+0.5*e.v)
			}
		}
	}
	var ties []int
	for i, a := range b {
		Mb.SetSym(i, i, Mb.At(i, i)+diag[a])
		if sgn[a] != 0 {
			ties = append(ties, i)
		}
	}
	if len(ties) > blockMaxTies || float64(n*n*n)*math.Ldexp(1, len(ties)) > blockWork {
		lam, _, _, ok := smallestEig(Mb)
		if !ok {
			return math.Inf(-1), nil
		}
		return lam, nil
	}
	mu = math.Inf(1)
	for set := 0; set < 1<<len(ties); set++ {
		var I []int // free coordinates and the ties in set
		t := 0
		for i := range n {
			if t < len(ties) && ties[t] == i {
				t++
				if set>>(t-1)&1 == 0 {
					continue
				}
			}
			I = append(I, i)
		}
		if len(I) == 0 {
			continue
		}
		MI := mat.NewSymDense(len(I), nil)
		for x, i := range I {
			for y := x; y < len(I); y++ {
				MI.SetSym(x, y, Mb.At(i, I[y]))
			}
		}
		lam, v, gap, ok := smallestEig(MI)
		if !ok {
			return math.Inf(-1), nil
		}
		if lam >= mu {
			continue
		}
		nrm := mat.Norm(MI, 2)
		in := coneSigns(v, I, b, sgn, blockSignTol)
		if gap > blockGap*nrm && in == 0 && coneSigns(v, I, b, sgn, math.Max(blockSignTol, eigvecRound(len(I), nrm, gap))) == 0 {
			continue // simple, and neither ±v lies in the cone
		}
		mu, u = lam, nil
		if in != 0 {
			u = make([]float64, n)
			for x, i := range I {
				u[i] = in * v[x]
			}
		}
	}
	return mu, u
}

// coneSigns returns 1 when u, −1 when −u, has the cone's signs, sⱼuⱼ ≤ tol, on the tie
// coordinates of I (positions in the block b), and 0 when neither has.
func coneSigns(u []float64, I, b []int, sgn []float64, tol float64) float64 {
	plus, minus := true, true
	for x, i := range I {
		if s := sgn[b[i]]; s != 0 {
			plus = plus && s*u[x] <= tol
			minus = minus && -s*u[x] <= tol
		}
	}
	switch {
	case plus:
		return 1
	case minus:
		return -1
	}
	return 0
}

// eigvecRound returns a bound on ‖v̂ − u‖∞ for smallestEig's unit vector v̂ of an n×n
// symmetric A with ‖A‖_F = nrm and computed gap λ̂₂ − λ̂₁ = gap, u the unit eigenvector of
// λ₁(A) of the sign with v̂·u ≥ 0 (+Inf when gap ≤ 3e, no bound). The symmetric
// eigensolver is backward stable: (λ̂, v̂) is an eigenpair of A + E, ‖E‖₂ ≤ e = p(n)·ε·‖A‖₂
// up to v̂'s departure from unit length, O(nε) (LAPACK Users' Guide, 3rd ed., §4.7.1; p(n)
// is taken as blockRound·n, the convention smallestEig charges on eigenvalues). By Weyl,
// λ̂₁ ≤ λ₁ + e and the exact gap λ₂ − λ₁ ≥ gap − 2e, so λ̂₁ lies at least gap − 3e from the
// rest of A's spectrum, and the Davis–Kahan sin θ theorem (Davis & Kahan, SIAM J. Numer.
// Anal. 7 (1970); Golub & Van Loan, Matrix Computations, 4th ed., Thm 8.1.12) bounds the
// angle: sin θ ≤ e/(gap − 3e). Then ‖v̂ − u‖∞ ≤ ‖v̂ − u‖₂ = 2sin(θ/2) ≤ √2·sin θ (θ ≤ π/2),
// plus the O(nε) of v̂'s length, charged as blockRound·n·ε. So when u has the cone's signs,
// sⱼuⱼ ≤ 0, the computed v̂ has sⱼv̂ⱼ ≤ eigvecRound: a set I that blockMu skips because v̂
// has an entry of the wrong sign beyond it (both ways round) has no λ₁-eigenvector in the
// cone, when λ₁ is simple (gap > blockGap·nrm ≫ 3e).
func eigvecRound(n int, nrm, gap float64) float64 {
	e := blockRound * float64(n) * eps * nrm // ‖A‖₂ ≤ ‖A‖_F
	if !(gap > 3*e) {
		return math.Inf(1)
	}
	return math.Sqrt2*e/(gap-3*e) + blockRound*float64(n)*eps
}

// smallestEig returns the smallest eigenvalue of A lowered by its rounding
// (blockRound·n·ε·‖A‖_F), a unit eigenvector, and the gap to the next eigenvalue (+Inf
// for n = 1); ok is false when the factorization fails.
func smallestEig(A *mat.SymDense) (lam float64, u []float64, gap float64, ok bool) {
	n := A.SymmetricDim()
	var es mat.EigenSym
	if !es.Factorize(A, true) {
		return 0, nil, 0, false
	}
	vals := es.Values(nil)
	var V mat.Dense
	es.VectorsTo(&V)
	gap = math.Inf(1)
	if n > 1 {
		gap = vals[1] - vals[0]
	}
	return vals[0] - blockRound*float64(n)*eps*mat.Norm(A, 2), mat.Col(nil, 0, &V), gap, true
}

// withBlockBound returns the bound at the walk's root of the block bound, and where it
// does not prune (below min(keep, qmin)) the larger of it and next's (the cone bound,
// nil: none): both bound the model over the walk's whole set.
func withBlockBound(next func(*walk) float64) func(*walk) float64 {
	return func(w *walk) float64 {
		L := w.blockBound()
		if next == nil || L >= math.Min(w.pool.keep, w.pool.qmin) {
			return L
		}
		return math.Max(L, next(w))
	}
}
