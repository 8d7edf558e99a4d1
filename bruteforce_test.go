package houdini_test

// An independent reference for the escape problem of a quadratic:
//
//	minimize q(h) = gᵀh + ½ hᵀHh   subject to  A(x + h) ≤ b,  ‖h‖ ≤ r.
//
// It shares no code and no method with the package. The package walks only independent
// subsets of the rows near x, builds each affine set by Gram–Schmidt and Householder QR,
// and solves one secular equation per pole interval. Here refEnumerate tries every subset
// of rows with no pruning, parametrizes the affine set by an SVD (least-squares point and
// null space), and finds the trust-region KKT points on the sphere as the real
// eigenvalues of a 2m×2m nonsymmetric matrix (Adachi, Iwata, Nakatsukasa and Takeda,
// "Solving the trust-region subproblem by a generalized eigenvalue problem", SIAM J.
// Optim. 2017, with B = I). refSample is a second, unrelated estimate: rejection sampling
// of the ball plus projected gradient with Dykstra projections.

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// quadProblem is the escape problem at x. Rows of A need not be normalized.
type quadProblem struct {
	d int
	A [][]float64 // k rows of length d
	b []float64
	x []float64
	g []float64 // ∇f(x)
	H [][]float64
	r float64
}

// q returns gᵀh + ½hᵀHh by plain loops.
func (p *quadProblem) q(h []float64) float64 {
	s := 0.0
	for i := 0; i < p.d; i++ {
		s += p.g[i] * h[i]
		for j := 0; j < p.d; j++ {
			s += 0.5 * h[i] * p.H[i][j] * h[j]
		}
	}
	return s
}

// gradQ writes g + Hh into out.
func (p *quadProblem) gradQ(out, h []float64) {
	for i := 0; i < p.d; i++ {
		s := p.g[i]
		for j := 0; j < p.d; j++ {
			s += p.H[i][j] * h[j]
		}
		out[i] = s
	}
}

// scaledViolation returns max over rows of (aᵢ·y − bᵢ)/‖aᵢ‖ − tol·max(1, |bᵢ|/‖aᵢ‖), the
// package's scaled test, for the point y = x + h. Positive means infeasible at tol.
func (p *quadProblem) scaledViolation(y []float64, tol float64) float64 {
	worst := math.Inf(-1)
	for i, a := range p.A {
		n := vnorm(a)
		v := (vdot(a, y)-p.b[i])/n - tol*math.Max(1, math.Abs(p.b[i])/n)
		worst = math.Max(worst, v)
	}
	return worst
}

// refTol is the feasibility tolerance of reference points, a hundred times tighter than
// the package's default, so a reference point is feasible by the package's test too.
const refTol = 1e-11

// accept returns h (possibly pulled back onto the ball) if x + h is feasible at refTol
// and within r, else nil.
func (p *quadProblem) accept(h []float64) []float64 {
	n := vnorm(h)
	if n > p.r {
		if n > p.r*(1+1e-9) {
			return nil
		}
		h = vscale(h, p.r/n*(1-1e-15))
	}
	if len(p.A) > 0 && p.scaledViolation(vadd(p.x, h), refTol) > 0 {
		return nil
	}
	return h
}

// refResult is the lowest feasible point a reference method found.
type refResult struct {
	h []float64
	q float64
}

func (rr *refResult) offer(p *quadProblem, h []float64) {
	if h = p.accept(h); h == nil {
		return
	}
	if v := p.q(h); v < rr.q {
		rr.q, rr.h = v, h
	}
}

// refEnumerate minimizes q over every subset of rows held as equalities. For each subset
// I with affine set {h : A_I h = c_I} (c = b − Ax), the SVD A_I = UΣVᵀ gives the
// minimum-norm point h₀ = V Σ⁺ Uᵀ c_I (kept when A_I h₀ = c_I) and a null-space basis N,
// so h = h₀ + Nz with ‖h‖² = ‖h₀‖² + ‖z‖². On that set q is c₀ + wᵀz + ½zᵀPz and the
// trust-region candidates in ‖z‖ ≤ ρ are: z = 0; the minimum-norm stationary point
// −P⁺w; every KKT point on the sphere, (P + λI)z = −w with ‖z‖ = ρ, where λ ranges over
// the real eigenvalues of −[[P, −I], [−wwᵀ/ρ², P]] because
//
//	det([[P+λI, −I], [−wwᵀ/ρ², P+λI]]) = det(P+λI)² (1 − wᵀ(P+λI)⁻²w/ρ²);
//
// and for every eigenvalue cluster λ_c of P the hard-case points z_off ± t·u with
// z_off = −(P − λ_c I)⁺w and u every eigenvector of the cluster (plus a few random unit
// vectors of it). The global minimizer with the most active rows is one of these for its
// own subset, so the enumeration is exact up to rounding; every candidate is checked for
// feasibility and its value computed from q directly.
func refEnumerate(p *quadProblem, rng *rand.Rand) refResult {
	d, k := p.d, len(p.A)
	best := refResult{h: make([]float64, d), q: 0} // h = 0 is feasible
	c := make([]float64, k)
	for i := range c {
		c[i] = p.b[i] - vdot(p.A[i], p.x)
	}
	for mask := 0; mask < 1<<k; mask++ {
		var rows []int
		for i := 0; i < k; i++ {
			if mask&(1<<i) != 0 {
				rows = append(rows, i)
			}
		}
		h0, N, ok := affineSet(p, rows, c)
		if !ok {
			continue
		}
		rho2 := p.r*p.r - vdot(h0, h0)
		if rho2 < 0 {
			continue
		}
		rho := math.Sqrt(rho2)
		best.offer(p, h0)
		m := 0
		if N != nil {
			_, m = N.Dims()
		}
		if m == 0 || rho == 0 {
			continue
		}
		for _, z := range trsCandidates(p, h0, N, rho, rng) {
			zv := mat.NewVecDense(m, z)
			hv := mat.NewVecDense(d, nil)
			hv.MulVec(N, zv)
			best.offer(p, vadd(h0, hv.RawVector().Data))
		}
	}
	return best
}

// affineSet returns the minimum-norm solution h₀ of A_I h = c_I and a basis N (d×m, nil
// when m = 0) of A_I's null space, by a full SVD of the rows scaled to unit norm; ok is
// false for an inconsistent system.
func affineSet(p *quadProblem, rows []int, c []float64) (h0 []float64, N *mat.Dense, ok bool) {
	d := p.d
	if len(rows) == 0 {
		I := mat.NewDense(d, d, nil)
		for i := 0; i < d; i++ {
			I.Set(i, i, 1)
		}
		return make([]float64, d), I, true
	}
	t := len(rows)
	AI := mat.NewDense(t, d, nil)
	cI := make([]float64, t)
	for j, i := range rows { // unit rows: the rank test must not depend on row scaling
		n := vnorm(p.A[i])
		AI.SetRow(j, vscale(p.A[i], 1/n))
		cI[j] = c[i] / n
	}
	var svd mat.SVD
	if !svd.Factorize(AI, mat.SVDFull) {
		return nil, nil, false
	}
	sv := svd.Values(nil)
	var U, V mat.Dense
	svd.UTo(&U)
	svd.VTo(&V)
	rank := 0
	for _, s := range sv {
		if s > 1e-10*sv[0] {
			rank++
		}
	}
	h0 = make([]float64, d)
	for j := 0; j < rank; j++ {
		coef := 0.0
		for i := 0; i < t; i++ {
			coef += U.At(i, j) * cI[i]
		}
		coef /= sv[j]
		for i := 0; i < d; i++ {
			h0[i] += coef * V.At(i, j)
		}
	}
	// Consistency: the least-squares point must solve the system.
	for j := range rows {
		if res := mat.Dot(AI.RowView(j), mat.NewVecDense(d, h0)) - cI[j]; math.Abs(res) > 1e-9*math.Max(1, vnorm(h0)) {
			return nil, nil, false
		}
	}
	if rank == d {
		return h0, nil, true
	}
	return h0, mat.DenseCopyOf(V.Slice(0, d, rank, d)), true
}

// trsCandidates lists points z of the reduced trust-region problem at h₀ (see
// refEnumerate); none is filtered here.
func trsCandidates(p *quadProblem, h0 []float64, N *mat.Dense, rho float64, rng *rand.Rand) [][]float64 {
	d := p.d
	_, m := N.Dims()
	gh := make([]float64, d)
	p.gradQ(gh, h0)
	w := make([]float64, m)
	mat.NewVecDense(m, w).MulVec(N.T(), mat.NewVecDense(d, gh))
	Hd := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		Hd.SetRow(i, p.H[i])
	}
	var HN, PN mat.Dense
	HN.Mul(Hd, N)
	PN.Mul(N.T(), &HN)
	P := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			P.SetSym(i, j, 0.5*(PN.At(i, j)+PN.At(j, i)))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(P, true) {
		return nil
	}
	lam := es.Values(nil)
	var Q mat.Dense
	es.VectorsTo(&Q)
	wt := make([]float64, m)
	mat.NewVecDense(m, wt).MulVec(Q.T(), mat.NewVecDense(m, w))
	scale := math.Max(1e-300, math.Max(math.Abs(lam[0]), math.Abs(lam[m-1])))
	fromEigen := func(zt []float64) []float64 {
		z := make([]float64, m)
		mat.NewVecDense(m, z).MulVec(&Q, mat.NewVecDense(m, zt))
		return z
	}
	col := func(j int) []float64 {
		u := make([]float64, m)
		for i := 0; i < m; i++ {
			u[i] = Q.At(i, j)
		}
		return u
	}
	var out [][]float64
	out = append(out, make([]float64, m))
	if nw := vnorm(w); nw > 0 {
		out = append(out, vscale(w, -rho/nw))
	}

	// Minimum-norm stationary point.
	zt := make([]float64, m)
	for i := range lam {
		if math.Abs(lam[i]) > 1e-12*scale {
			zt[i] = -wt[i] / lam[i]
		}
	}
	if vnorm(zt) <= rho {
		out = append(out, fromEigen(zt))
	}

	// Sphere KKT points from the 2m×2m eigenproblem.
	M0 := mat.NewDense(2*m, 2*m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			M0.Set(i, j, -P.At(i, j))
			M0.Set(m+i, m+j, -P.At(i, j))
			M0.Set(m+i, j, w[i]*w[j]/(rho*rho))
		}
		M0.Set(i, m+i, 1)
	}
	var eg mat.Eigen
	if eg.Factorize(M0, mat.EigenNone) {
		for _, ev := range eg.Values(nil) {
			if math.Abs(imag(ev)) > 1e-6*(1+cmplx.Abs(ev)) {
				continue
			}
			l := real(ev)
			zt := make([]float64, m)
			for i := range lam {
				if den := lam[i] + l; math.Abs(den) > 1e-13*scale {
					zt[i] = -wt[i] / den
				}
			}
			if n := vnorm(zt); n > 0 {
				out = append(out, fromEigen(vscale(zt, rho/n)))
			}
		}
	}

	// Hard-case points for every eigenvalue cluster.
	for s := 0; s < m; {
		e := s + 1
		for e < m && lam[e]-lam[s] <= 1e-9*scale {
			e++
		}
		lc := lam[s]
		off := make([]float64, m)
		for i := 0; i < m; i++ {
			if i < s || i >= e {
				off[i] = -wt[i] / (lam[i] - lc)
			}
		}
		if no := vnorm(off); no <= rho {
			t := math.Sqrt(rho*rho - no*no)
			zo := fromEigen(off)
			var dirs [][]float64
			for j := s; j < e; j++ {
				dirs = append(dirs, col(j))
			}
			if e-s > 1 {
				for rep := 0; rep < 4; rep++ {
					u := make([]float64, m)
					for j := s; j < e; j++ {
						u = vadd(u, vscale(col(j), rng.NormFloat64()))
					}
					dirs = append(dirs, vscale(u, 1/vnorm(u)))
				}
			}
			for _, u := range dirs {
				out = append(out, vadd(zo, vscale(u, t)), vadd(zo, vscale(u, -t)))
			}
		}
		s = e
	}
	return out
}

// refSample estimates the minimum by sampling: n uniform points of the ball and n of the
// sphere, rejecting infeasible ones, then projected gradient from the best few feasible
// samples (and from 0), each projection onto S ∩ B computed by Dykstra's algorithm over
// the half-spaces and the ball.
func refSample(p *quadProblem, rng *rand.Rand, n int) refResult {
	d := p.d
	best := refResult{h: make([]float64, d), q: 0}
	type pt struct {
		h []float64
		q float64
	}
	var pool []pt
	for s := 0; s < 2*n; s++ {
		u := make([]float64, d)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		rad := p.r
		if s < n {
			rad *= math.Pow(rng.Float64(), 1/float64(d))
		}
		h := vscale(u, rad/vnorm(u))
		if h = p.accept(h); h == nil {
			continue
		}
		v := p.q(h)
		best.offer(p, h)
		pool = append(pool, pt{h, v})
	}
	// Starting points: the five lowest samples and x itself.
	for i := 0; i < len(pool) && i < 5; i++ {
		m := i
		for j := i + 1; j < len(pool); j++ {
			if pool[j].q < pool[m].q {
				m = j
			}
		}
		pool[i], pool[m] = pool[m], pool[i]
	}
	starts := [][]float64{make([]float64, d)}
	for i := 0; i < len(pool) && i < 5; i++ {
		starts = append(starts, pool[i].h)
	}
	L := 0.0
	for i := 0; i < d; i++ {
		row := 0.0
		for j := 0; j < d; j++ {
			row += math.Abs(p.H[i][j])
		}
		L = math.Max(L, row)
	}
	step := 1 / math.Max(L, 1e-3)
	gr := make([]float64, d)
	for _, h := range starts {
		if vnorm(h) == 0 { // a small random kick off x, which may be a stationary point
			k := make([]float64, d)
			for i := range k {
				k[i] = rng.NormFloat64() * 1e-3 * p.r
			}
			h = dykstra(p, k)
		}
		for it := 0; it < 150; it++ {
			p.gradQ(gr, h)
			next := dykstra(p, vadd(h, vscale(gr, -step)))
			best.offer(p, next)
			if p.accept(next) != nil {
				h = next
			}
		}
	}
	return best
}

// dykstra projects x + z onto S ∩ B(x, r), in offsets from x, by Dykstra's alternating
// projections (each set's correction kept), which converge to the exact projection. Each
// step is w = y + incᵢ, y = Pᵢ(w), incᵢ = w − y, in two buffers: the reference samplers
// call it 60·(k+1) steps a call about 10⁵ times a test, and a fresh vector a step was most
// of TestEscapeBruteForce's time. The float64 conversions keep every product rounded before
// its sum, as when the step was written with vadd and vscale (no fused multiply-add), so
// the results are the same to the bit.
func dykstra(p *quadProblem, z []float64) []float64 {
	k := len(p.A)
	c := make([]float64, k)
	for i := range c {
		c[i] = p.b[i] - vdot(p.A[i], p.x)
	}
	inc := make([][]float64, k+1)
	for i := range inc {
		inc[i] = make([]float64, p.d)
	}
	y := append([]float64(nil), z...)
	w := make([]float64, p.d)
	for cycle := 0; cycle < 60; cycle++ {
		for i := 0; i <= k; i++ {
			for j := range w {
				w[j] = y[j] + inc[i][j]
			}
			copy(y, w)
			if i == k {
				if n := vnorm(w); n > p.r {
					s := p.r / n
					for j := range y {
						y[j] = s * w[j]
					}
				}
			} else {
				a := p.A[i]
				if ex := vdot(a, w) - c[i]; ex > 0 {
					s := -ex / vdot(a, a)
					for j := range y {
						y[j] = w[j] + float64(s*a[j])
					}
				}
			}
			for j := range w {
				inc[i][j] = w[j] - y[j]
			}
		}
	}
	return y
}

func vdot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

func vnorm(x []float64) float64 { return math.Sqrt(vdot(x, x)) }

func vadd(x, y []float64) []float64 {
	z := make([]float64, len(x))
	for i := range x {
		z[i] = x[i] + y[i]
	}
	return z
}

func vsub(x, y []float64) []float64 {
	z := make([]float64, len(x))
	for i := range x {
		z[i] = x[i] - y[i]
	}
	return z
}

func vscale(x []float64, s float64) []float64 {
	z := make([]float64, len(x))
	for i := range x {
		z[i] = s * x[i]
	}
	return z
}

// Kinds of constraint sets built around x by genInstance. Each is built by construction,
// so every degenerate configuration appears in every run.
const (
	ckInterior   = iota // x strictly inside; rows near, far and tangent to the ball
	ckFace              // 1 ≤ t < d rows active at x
	ckVertex            // d independent rows active
	ckDegenerate        // d+1 or d+2 rows active (a degenerate vertex), with an interior cone
	ckCopies            // duplicated, scaled and opposite (slab) rows
	ckEquality          // an equality slab: a row and its negation with the same offset
	ckDependent         // rows that are linear combinations of active rows
	ckKKT               // a face or vertex where −∇f(x) lies in the normal cone
	ckNone              // no constraints
	ckNear              // near-degenerate: nearly parallel, nearly tangent, nearly active rows
	numCK
)

var ckNames = [numCK]string{"interior", "face", "vertex", "degenerate vertex", "copies",
	"equality slab", "dependent", "KKT point", "unconstrained", "near-degenerate"}

// Kinds of Hessian and gradient.
const (
	hkRandom   = iota // indefinite, distinct eigenvalues
	hkRepeated        // two eigenvalues, each repeated
	hkHard            // ∇f(x) orthogonal to the (repeated) lowest, negative eigenspace
	hkZeroGrad        // v = ∇f(x) = 0
	hkConvex          // positive semidefinite, sometimes singular
	hkConcave         // negative definite
	hkLinear          // H = 0
	hkNearHard        // ∇f(x) has a 1e-9 part on the lowest eigenspace, split by 1e-12
	numHK
)

var hkNames = [numHK]string{"random", "repeated", "hard case", "zero gradient", "convex",
	"concave", "linear", "near hard case"}

// genInstance builds instance i: constraint kind i mod numCK, Hessian kind
// (i / numCK) mod numHK, all else from rng.
func genInstance(i int, rng *rand.Rand) (p *quadProblem, ck, hk int) {
	ck, hk = i%numCK, (i/numCK)%numHK
	d := 1 + rng.IntN(6)
	if ck == ckDegenerate && d == 1 {
		d = 2
	}
	p = &quadProblem{d: d, r: []float64{0.3, 1, 2.5}[rng.IntN(3)]}
	kktRows := 0 // for ckKKT, the leading rows active at x
	p.x = make([]float64, d)
	for j := range p.x {
		p.x[j] = 2 * rng.NormFloat64()
	}
	randVec := func() []float64 {
		u := make([]float64, d)
		for j := range u {
			u[j] = rng.NormFloat64()
		}
		return u
	}
	// addRow appends a·y ≤ a·x + s‖a‖: the hyperplane at distance s ≥ 0 from x.
	addRow := func(a []float64, s float64) {
		p.A = append(p.A, a)
		p.b = append(p.b, vdot(a, p.x)+s*vnorm(a))
	}
	randSlack := func() float64 {
		switch rng.IntN(4) {
		case 0:
			return p.r // tangent to the ball
		case 1:
			return p.r * (1.5 + 3.5*rng.Float64()) // far
		default:
			return p.r * rng.Float64() // cuts the ball
		}
	}
	extras := func(n int) {
		for j := 0; j < n && len(p.A) < 8; j++ {
			addRow(randVec(), randSlack())
		}
	}
	active := func(t int) { // t rows through x, independent when t ≤ d
		for j := 0; j < t; j++ {
			addRow(randVec(), 0)
		}
	}
	switch ck {
	case ckInterior:
		extras(rng.IntN(9))
	case ckFace:
		active(1 + rng.IntN(max(1, d-1)))
		extras(rng.IntN(3))
	case ckVertex:
		active(d)
		extras(rng.IntN(3))
	case ckDegenerate:
		e := randVec()
		e = vscale(e, 1/vnorm(e))
		t := d + 1 + rng.IntN(2)
		for j := 0; j < t; j++ {
			a := randVec()
			a = vscale(a, 1/vnorm(a))
			// Make a·e ≤ −0.2: e points into the cone {h : ah ≤ 0} of every row.
			if c := vdot(a, e); c > -0.2 {
				a = vadd(a, vscale(e, -0.2-c))
			}
			addRow(a, 0)
		}
	case ckCopies:
		base := 1 + rng.IntN(min(d, 3))
		active(base)
		extras(1)
		n := len(p.A)
		for j := 0; j < 2*n && len(p.A) < 8; j++ {
			src := rng.IntN(n)
			a, b := p.A[src], p.b[src] // a·y ≤ b
			switch rng.IntN(3) {
			case 0: // exact duplicate
				p.A, p.b = append(p.A, append([]float64(nil), a...)), append(p.b, b)
			case 1: // scaled copy
				f := []float64{1e-3, 0.5, 7, 1e3}[rng.IntN(4)]
				p.A, p.b = append(p.A, vscale(a, f)), append(p.b, f*b)
			case 2: // opposite row at distance s from x: a slab, of width 0 when both are active
				s := p.r * []float64{0, 0.2, 1, 3}[rng.IntN(4)]
				addRow(vscale(a, -1), s)
			}
		}
	case ckEquality:
		a := randVec()
		addRow(a, 0)
		p.A, p.b = append(p.A, vscale(a, -1)), append(p.b, -p.b[0])
		if d > 2 && rng.IntN(2) == 0 { // a second equality, scaled
			a2 := randVec()
			addRow(a2, 0)
			p.A, p.b = append(p.A, vscale(a2, -3)), append(p.b, -3*p.b[2])
		}
		active(rng.IntN(max(1, d-len(p.A)/2)))
		extras(rng.IntN(3))
	case ckDependent:
		t := min(d, 2+rng.IntN(2))
		active(t)
		n := len(p.A)
		for j := 0; j < 3 && len(p.A) < 8; j++ {
			a := make([]float64, d)
			for l := 0; l < n; l++ {
				a = vadd(a, vscale(p.A[l], rng.NormFloat64()))
			}
			s := 0.0
			if rng.IntN(2) == 0 {
				s = p.r * rng.Float64()
			}
			addRow(a, s)
		}
		extras(rng.IntN(2))
	case ckNear:
		a := randVec()
		addRow(a, 0)
		for j := 0; j < 5; j++ {
			switch rng.IntN(5) {
			case 0: // nearly parallel to the active row, through x or just off it
				addRow(vadd(a, vscale(randVec(), 1e-13*vnorm(a))), []float64{0, 1e-13, 1e-9}[rng.IntN(3)])
			case 1: // nearly tangent to the ball, from either side
				addRow(randVec(), p.r*(1+[]float64{-1e-12, 1e-12, -1e-9, 1e-9}[rng.IntN(4)]))
			case 2: // nearly active
				addRow(randVec(), p.r*[]float64{1e-14, 1e-12, 1e-10}[rng.IntN(3)])
			case 3: // nearly dependent on the active row and the last one
				last := p.A[len(p.A)-1]
				addRow(vadd(vadd(a, last), vscale(randVec(), 1e-11)), 0)
			case 4: // nearly opposite: a slab of width 1e-12·r
				addRow(vadd(vscale(a, -1), vscale(randVec(), 1e-13*vnorm(a))), 1e-12*p.r)
			}
		}
	case ckKKT:
		kktRows = 1 + rng.IntN(d)
		active(kktRows)
		extras(rng.IntN(3))
	}
	// Row scales spread over four decades; the geometry is unchanged.
	for j := range p.A {
		f := math.Pow(10, 4*rng.Float64()-2)
		p.A[j] = vscale(p.A[j], f)
		p.b[j] *= f
	}

	// Hessian H = Q diag(λ) Qᵀ with Q from a QR of a Gaussian matrix.
	lam := make([]float64, d)
	// stiff: a convex H with eigenvalues in [0.01, 1] and one of 100, and ∇f(x) = QΛz for
	// the stationary point −Qz with z = 0.1r on the softest direction, 0.2r on the stiff one
	// and 1.2r in all on the others, so for d ≥ 3 it lies outside the ball while the step
	// −r∇f/‖∇f‖ overshoots along the stiff direction: the minimizer is a secular root
	// μ < 0 (left of λ₁ though λ₁ > |z₁|λ₁/r) and nothing else finds it.
	stiff := false
	switch hk {
	case hkRandom, hkZeroGrad:
		for j := range lam {
			lam[j] = 6*rng.Float64() - 3
		}
	case hkRepeated, hkHard, hkNearHard:
		lo, hi := -3*rng.Float64()-0.2, 3*rng.Float64()-1
		split := max(1, (d+1)/2)
		for j := range lam {
			lam[j] = hi
			if j < split {
				lam[j] = lo
			}
		}
	case hkConvex:
		stiff = (i/(numCK*numHK))%2 == 0 // by construction, for every constraint kind
		for j := range lam {
			lam[j] = 3 * rng.Float64()
			if stiff {
				lam[j] = math.Pow(10, 2*rng.Float64()-2)
			}
		}
		if stiff {
			slices.Sort(lam)
			lam[d-1] = 100
		}
		if !stiff && rng.IntN(2) == 0 {
			lam[0] = 0
		}
	case hkConcave:
		for j := range lam {
			lam[j] = -0.1 - 3*rng.Float64()
		}
	}
	if hk == hkNearHard && d > 1 {
		lam[1] = lam[0] + 1e-12 // the cluster split below the package's merge tolerance or above it
	}
	var qr mat.QR
	qr.Factorize(mat.NewDense(d, d, randVec2(rng, d*d)))
	var Q mat.Dense
	qr.QTo(&Q)
	p.H = make([][]float64, d)
	for a := 0; a < d; a++ {
		p.H[a] = make([]float64, d)
		for b := 0; b < d; b++ {
			for j := 0; j < d; j++ {
				p.H[a][b] += Q.At(a, j) * lam[j] * Q.At(b, j)
			}
		}
	}
	gs := p.r * math.Pow(10, 2.5*rng.Float64()-2)
	gt := randVec()
	switch hk {
	case hkZeroGrad:
		gt = make([]float64, d)
	case hkHard:
		for j := range gt {
			if lam[j] == lam[0] {
				gt[j] = 0
			}
		}
	case hkConvex:
		if stiff {
			for j := range gt {
				z := 1.2 * p.r / math.Sqrt(float64(max(1, d-2)))
				switch j {
				case 0:
					z = 0.1 * p.r
				case d - 1:
					z = 0.2 * p.r
				}
				gt[j] = lam[j] * z / gs
			}
		}
	case hkNearHard:
		for j := range gt {
			if lam[j]-lam[0] < 1e-9 {
				gt[j] *= 1e-9
			}
		}
	}
	p.g = make([]float64, d)
	for a := 0; a < d; a++ {
		for j := 0; j < d; j++ {
			p.g[a] += Q.At(a, j) * gs * gt[j]
		}
	}
	if ck == ckKKT && hk != hkZeroGrad {
		// −g = Σ μⱼ aⱼ/‖aⱼ‖ over the active rows (the first t), μⱼ > 0.
		p.g = make([]float64, d)
		for j := 0; j < kktRows; j++ {
			p.g = vadd(p.g, vscale(p.A[j], -gs*(0.1+rng.Float64())/vnorm(p.A[j])))
		}
	}
	return p, ck, hk
}

func randVec2(rng *rand.Rand, n int) []float64 {
	u := make([]float64, n)
	for j := range u {
		u[j] = rng.NormFloat64()
	}
	return u
}

// problemOf returns the package's Problem for f(y) = f0 + q(y − x), written out again so
// that the oracles are plain loops.
func problemOf(p *quadProblem, f0 float64, withHess, withFunc bool) houdini.Problem {
	d := p.d
	hOf := func(y []float64) []float64 { return vsub(y, p.x) }
	prob := houdini.Problem{
		Grad: func(grad, y []float64) { p.gradQ(grad, hOf(y)) },
	}
	if withFunc {
		prob.Func = func(y []float64) float64 { return f0 + p.q(hOf(y)) }
	}
	if withHess {
		prob.Hess = func(h *mat.SymDense, _ []float64) {
			for a := 0; a < d; a++ {
				for b := a; b < d; b++ {
					h.SetSym(a, b, p.H[a][b])
				}
			}
		}
	}
	return prob
}

func constraintsOf(t *testing.T, p *quadProblem) *houdini.Constraints {
	t.Helper()
	if len(p.A) == 0 {
		return nil
	}
	A := mat.NewDense(len(p.A), p.d, nil)
	for j, a := range p.A {
		A.SetRow(j, a)
	}
	c, err := houdini.NewConstraints(A, p.b)
	if err != nil {
		t.Fatalf("NewConstraints: %v", err)
	}
	return c
}

// checkMove asserts that a move X from x is feasible (scaled, 1e-9), within r(1+1e-10)
// and lowers the true f by more than δ/3; it returns q(X − x).
func checkMove(t *testing.T, p *quadProblem, X []float64, delta float64, tag string) float64 {
	t.Helper()
	if len(X) != p.d {
		t.Fatalf("%s: len(X) = %d, want %d", tag, len(X), p.d)
	}
	h := vsub(X, p.x)
	if n := vnorm(h); !(n <= p.r*(1+1e-10)) {
		t.Errorf("%s: ‖X − x‖ = %.17g > r = %g", tag, n, p.r)
	}
	if len(p.A) > 0 {
		if v := p.scaledViolation(X, 1e-9); v > 0 {
			t.Errorf("%s: X violates a row by %g beyond the tolerance", tag, v)
		}
	}
	qx := p.q(h)
	if !(qx < -delta/3) {
		t.Errorf("%s: f(X) − f(x) = %g, not below −δ/3 = %g", tag, qx, -delta/3)
	}
	return qx
}

// TestEscapeBruteForce cross-checks Escape against refEnumerate and refSample on seeded
// random quadratics over adversarial polyhedra, with the Hessian given and by finite
// differences, δ chosen per instance so the reference minimum m* lands at −3δ, −1.2δ,
// −0.75δ or −0.25δ (or m* ≈ 0). With Noise = 0 the model is f itself, and:
//   - m* < −1.5δ ⇒ Found;  m* < −δ ⇒ not Certified;  m* ≥ −δ/2 ⇒ Certified or Found;
//   - every move is feasible, within r and lowers the true f by more than δ/3;
//   - and, checking the reference itself: no sample beats the enumeration, nor does a move.
func TestEscapeBruteForce(t *testing.T) {
	n := 320
	if testing.Short() {
		n = 72
	}
	rng := rand.New(rand.NewPCG(1, 2))
	type cnt struct{ found, cert, neither int }
	var byCat [5]cnt
	catNames := [5]string{"m*=−3δ (must find)", "m*=−1.2δ (no cert)", "m*=−0.75δ (either)",
		"m*=−0.25δ (cert or move)", "m*≈0 (cert or move)"}
	var byCK [numCK]int
	var byHK [numHK]int
	cases := map[houdini.Case]int{}
	refWins, refGap := 0, 0.0
	for i := 0; i < n; i++ {
		p, ck, hk := genInstance(i, rng)
		byCK[ck]++
		byHK[hk]++
		enum := refEnumerate(p, rng)
		samp := refSample(p, rng, 400)
		hn := 0.0
		for a := range p.H {
			for b := range p.H[a] {
				hn = math.Max(hn, math.Abs(p.H[a][b]))
			}
		}
		scale := vnorm(p.g)*p.r + float64(p.d)*hn*p.r*p.r + 1e-300
		tolAbs := 1e-7 * scale
		tag0 := fmt.Sprintf("instance %d (d=%d k=%d %s, %s)", i, p.d, len(p.A), ckNames[ck], hkNames[hk])
		if samp.q < enum.q-tolAbs {
			t.Errorf("%s: reference disagrees: sampling found %g below the enumeration's %g", tag0, samp.q, enum.q)
		}
		mstar := math.Min(enum.q, samp.q)
		if samp.q < enum.q {
			refWins++
			refGap = math.Max(refGap, (enum.q-samp.q)/scale)
		}
		cat := i % 4
		var delta float64
		if mstar > -1e-6*scale {
			cat = 4
			delta = scale * math.Pow(10, -1-2*rng.Float64())
		} else {
			delta = -mstar / []float64{3, 1.2, 0.75, 0.25}[cat]
		}
		f0 := 10 * rng.NormFloat64()
		for variant := 0; variant < 2; variant++ {
			withHess := variant == 0
			withFunc := withHess || i%3 != 0
			tag := fmt.Sprintf("%s hess=%v func=%v δ=%.3g m*=%.6g", tag0, withHess, withFunc, delta, mstar)
			o, err := houdini.New(problemOf(p, f0, withHess, withFunc), constraintsOf(t, p),
				houdini.Settings{Delta: delta, Radius: p.r})
			if err != nil {
				t.Fatalf("%s: New: %v", tag, err)
			}
			e, err := o.Escape(context.Background(), p.x)
			if err != nil {
				t.Errorf("%s: Escape: %v", tag, err)
				continue
			}
			if e.Found && e.Certified {
				t.Errorf("%s: both Found and Certified", tag)
			}
			switch {
			case e.Found:
				byCat[cat].found++
				cases[e.Case]++
				qx := checkMove(t, p, e.X, delta, tag)
				if qx < enum.q-tolAbs {
					t.Errorf("%s: reference is not exact: Escape's move has q = %.10g below the enumeration's %.10g", tag, qx, enum.q)
				}
			case e.Certified:
				byCat[cat].cert++
			default:
				byCat[cat].neither++
			}
			if mstar < -1.5*delta && !e.Found {
				t.Errorf("%s: reference point with q = %g < −1.5δ, but Escape found no move (certified=%v complete=%v)",
					tag, mstar, e.Certified, e.Complete)
			}
			if mstar < -delta && e.Certified {
				t.Errorf("%s: certified, but the reference point h = %v has q = %g < −δ", tag, enum.h, mstar)
			}
			if mstar >= -delta/2 && !e.Certified && !e.Found {
				t.Errorf("%s: reference minimum %g ≥ −δ/2, yet neither certified nor moved (complete=%v examined=%d)",
					tag, mstar, e.Complete, e.Examined)
			}
		}
	}
	for c, k := range byCat {
		t.Logf("%-26s found %4d  certified %4d  neither %4d", catNames[c], k.found, k.cert, k.neither)
	}
	for c, k := range byCK {
		t.Logf("constraints %-18s %d instances", ckNames[c], k)
	}
	for h, k := range byHK {
		t.Logf("hessian %-14s %d instances", hkNames[h], k)
	}
	t.Logf("moves by case: %v", cases)
	t.Logf("sampling beat the enumeration %d times, by at most %.2g of the scale of q", refWins, refGap)
}
