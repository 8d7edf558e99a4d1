package houdini

import (
	"context"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// The eigenbasis backend of FindInside. Its guards (ebSepTol, ebWeightTol, ebGradTol,
// ebBandTol, ebResTol, ebRootTol, ebMaxIter) are among FindInside's tolerances
// (findinside.go): each marks a band, far wider than the dense backend's own thresholds
// (about 1e3·ε·s), around a decision the dense backend takes, or a region where the
// bordered formulas lose accuracy; a subset that meets one is declined and examined by
// the dense backend instead.

// eigenbasis holds the model on the base affine set — the one of the rows held when the
// walk starts (the forced rows, holdForcedRows; none without them) — in the eigenbasis of
// its matrix, computed once per escape: with O_F an orthonormal basis of the base set's
// directions and p_F the projection of x on it, O_Fᵀ M O_F = Q′ΛQ′ᵀ and Q = O_F·Q′
// (full × d, orthonormal columns). Every row the walk pushes later has its direction u
// orthogonal to the forced rows, so u = QQᵀu and the subsets below the base are examined
// from t×t systems in these d coordinates (see ebSubset); depths t count the rows
// pushed after the base. Rebasing matters at a vertex of a box, where dozens of rows are
// forced: the bordered systems then only carry the few weakly active rows.
type eigenbasis struct {
	d     int        // dimension of the base set, full − (rows held at the base)
	full  int        // dimension of the space
	lam   []float64  // λ₁ ≤ … ≤ λ_d
	Q     *mat.Dense // full × d, columns: eigenvectors in the full space
	vt    []float64  // Qᵀg_F, g_F = v + M(p_F − x) the model's gradient at p_F
	c0    float64    // the model's value at p_F
	scale float64    // s = max|λᵢ|
	ut    [][]float64
	ht    [][]float64     // ht[t] = Qᵀ(p − p_F) at depth t below the base
	chain *reflectorChain // the QR of ut and the projections of Λ, for dense

	// Scratch of one subset.
	gt, pg, h, z, q1, q2 []float64
	bs                   bordered
}

// newEigenbasis builds the eigenbasis of the model v, M at x on the affine set through
// x + h0 (h0 = p_F − x) whose directions are orthogonal to the orthonormal basis (the rows
// held at the base);
// nil when that set is a point or the eigendecomposition fails (the dense backend then
// examines every subset), or when ctx is done before the eigendecomposition ends
// (symEigenCtx). Cost: one eigendecomposition of order d − t₀ and, with t₀ =
// len(basis) rows held, O(full²·t₀) to project M and map the eigenvectors back.
func newEigenbasis(ctx context.Context, M *mat.SymDense, v, h0 []float64, basis [][]float64) *eigenbasis {
	full, t0 := len(h0), len(basis)
	d := full - t0
	if d == 0 {
		return nil
	}
	g := make([]float64, full) // g_F = v + M(p_F − x)
	mat.NewVecDense(full, g).MulVec(M, mat.NewVecDense(full, h0))
	c0 := dot(v, h0) + 0.5*dot(g, h0)
	for j := range g {
		g[j] += v[j]
	}
	Ms := M
	var sp *subspace
	if t0 > 0 {
		sp = newSubspace(basis, full)
		Ms = sp.project(M)
	}
	Qs := new(mat.Dense)
	lam, ok := symEigenCtx(ctx, Ms, Qs)
	if !ok {
		return nil
	}
	Q := Qs
	if sp != nil { // Q = O_F·Q′ = Q_house·[0; Q′]
		c := blas64.General{Rows: full, Cols: d, Stride: d, Data: make([]float64, full*d)}
		for i := 0; i < d; i++ {
			copy(c.Data[(t0+i)*d:(t0+i+1)*d], Qs.RawRowView(i))
		}
		sp.apply(blas.Left, blas.NoTrans, c)
		Q = mat.NewDense(full, d, c.Data)
	}
	eb := &eigenbasis{d: d, full: full, lam: lam, Q: Q, c0: c0}
	eb.vt = make([]float64, d)
	mat.NewVecDense(d, eb.vt).MulVec(Q.T(), mat.NewVecDense(full, g))
	eb.scale = math.Max(math.Abs(lam[0]), math.Abs(lam[d-1]))
	eb.ht = [][]float64{make([]float64, d)}
	eb.chain = newReflectorChain(lam)
	for _, p := range []*[]float64{&eb.gt, &eb.pg, &eb.h, &eb.z, &eb.q1, &eb.q2} {
		*p = make([]float64, d)
	}
	eb.bs.dinv = make([]float64, d)
	return eb
}

// base returns FindInside for the base subset, in the eigenbasis: candidates y in its
// coordinates (the point p_F + Qy, offset h_F + Qy) and the relaxed bound, for the ball of radius rs. The
// spectrum is known, so this is the dense backend at no factorization cost.
func (eb *eigenbasis) base(rs, keep float64) ([]subCandidate, float64) {
	diag := mat.NewSymDense(eb.d, nil)
	id := mat.NewDense(eb.d, eb.d, nil)
	for i, l := range eb.lam {
		diag.SetSym(i, i, l)
		id.Set(i, i, 1)
	}
	cands, lower, _ := findInsideEigen(diag, eb.vt, eb.lam, id, rs, eb.c0, keep)
	return cands, lower
}

// cheaper reports whether the bordered systems are expected to beat the dense backend
// for a subset of t rows below the base (eigenbasisCheaper).
func (eb *eigenbasis) cheaper(t int) bool { return eigenbasisCheaper(eb.d, t) }

// Flop-count model of one subset of t held rows in dimension d, fitted to
// BenchmarkEscape (d300_k8: ≈0.4 ms against ≈60 ms a subset) and the BoxQP runs: the
// eigenbasis backend makes about eigenbasisEvals evaluations of its t×t bordered system,
// each O(d·t²) plus a t×t symmetric eigensolve (≈9t³); the dense backend projects M
// (O(d²t) with the reflectors) and factors M′ of order d − t (≈9(d − t)³).
const eigenbasisEvals = 50

// eigenbasisCheaper reports whether the eigenbasis backend is expected to beat the dense
// backend for a subset of t rows in dimension d. Near a vertex (t close to d) the dense
// backend's eigenproblem is tiny while the bordered systems grow like t³.
func eigenbasisCheaper(d, t int) bool {
	fd, ft := float64(d), float64(t)
	fast := eigenbasisEvals * (fd*ft*ft + 9*ft*ft*ft)
	ref := 9*(fd-ft)*(fd-ft)*(fd-ft) + 4*fd*fd*ft
	return fast < ref
}

// dense returns FindInside by the dense backend for the subset t rows below the base, in
// the eigenbasis: the model there is c0 + g̃ᵀz + ½zᵀΛz over z ⟂ C = [c₁ … c_t] (prepare),
// so with Z an orthonormal basis of C's complement (C's Householder QR, kept level by
// level in reflectorChain) it is the dense problem M′ = ZᵀΛZ, v′ = Zᵀg̃ of order d − t,
// whose candidates y are returned as z = Zy (eigenbasis coordinates, toOffset maps them
// to offsets). It is the reference examiner's problem in another orthonormal basis of the
// same affine set, at O((d − t)²) for the projection when the parent subset's is kept
// (O(d²t) at worst) instead of O(full²·(t₀ + t)); ok is false when the eigensolver fails
// or ctx is done.
func (eb *eigenbasis) dense(ctx context.Context, t int, rs, keep float64) ([]subCandidate, float64, bool) {
	c0 := eb.prepare(t)
	cands, lower, ok := findInsideDense(ctx, eb.chain.project(t), eb.chain.coords(t, eb.gt), rs, c0, keep)
	for k := range cands {
		cands[k].y = eb.chain.point(t, cands[k].y)
	}
	return cands, lower, ok
}

// toOffset returns h0 + Qh for h in the eigenbasis (h0 = p − x, so the result is the
// offset of p + Qh).
func (eb *eigenbasis) toOffset(h0, h []float64) []float64 {
	X := append([]float64(nil), h0...)
	blas64.Gemv(blas.NoTrans, 1, eb.Q.RawMatrix(), blas64.Vector{N: eb.d, Inc: 1, Data: h}, 1, blas64.Vector{N: eb.full, Inc: 1, Data: X})
	return X
}

// push records the new basis vector u and the step p′ = p + τu in the eigenbasis:
// O(d²) once per push, shared by every subset below it.
func (eb *eigenbasis) push(u []float64, tau float64) {
	d := eb.d
	ut := make([]float64, d)
	blas64.Gemv(blas.Trans, 1, eb.Q.RawMatrix(), blas64.Vector{N: eb.full, Inc: 1, Data: u}, 0, blas64.Vector{N: d, Inc: 1, Data: ut})
	t := len(eb.ut)
	h := make([]float64, d)
	for i := range h {
		h[i] = eb.ht[t][i] + tau*ut[i]
	}
	eb.ut = append(eb.ut, ut)
	eb.ht = append(eb.ht, h)
	eb.chain.push(ut)
}

func (eb *eigenbasis) pop() {
	t := len(eb.ut) - 1
	eb.ut = eb.ut[:t]
	eb.ht = eb.ht[:t+1]
	eb.chain.pop()
}

// bordered is the constrained resolvent of M in its eigenbasis at a shift μ: for columns
// C = [c₁ … c_t] (orthonormal, the held rows' basis in the eigenbasis) and D = (Λ − μI)⁻¹,
// F = CᵀDC and its eigendecomposition F = VΦVᵀ.
type bordered struct {
	mu   float64
	t    int
	cols [][]float64
	dinv []float64
	dc   [][]float64 // D·cⱼ
	f    []float64   // t×t; V after factor
	phi  []float64
	work []float64
	c    []float64
	nu   []float64
	ipiv []int
	lu   bool // f holds F's LU factors, else its eigenvectors
}

// setCols sets the columns and sizes the scratch; it allocates only when t grows.
func (b *bordered) setCols(cols [][]float64) {
	d, t := len(b.dinv), len(cols)
	b.cols, b.t = cols, t
	for len(b.dc) < t {
		b.dc = append(b.dc, make([]float64, d))
	}
	if cap(b.f) < t*t {
		b.f = make([]float64, t*t)
		b.phi = make([]float64, t)
		b.c = make([]float64, t)
		b.nu = make([]float64, t)
		b.ipiv = make([]int, t)
		work := []float64{0}
		lapack64.Syev(lapack.EVCompute, blas64.Symmetric{N: t, Stride: t, Data: b.f, Uplo: blas.Upper}, b.phi, work, -1)
		b.work = make([]float64, int(work[0]))
	}
	b.f, b.phi, b.c, b.nu, b.ipiv = b.f[:t*t], b.phi[:t], b.c[:t], b.nu[:t], b.ipiv[:t]
}

// form sets D and F = CᵀDC at μ; false when μ is a pole.
func (b *bordered) form(lam []float64, mu float64) bool {
	b.mu = mu
	for i, l := range lam {
		if l == mu {
			return false
		}
		b.dinv[i] = 1 / (l - mu)
	}
	t := b.t
	for j := 0; j < t; j++ {
		floats.MulTo(b.dc[j], b.dinv, b.cols[j])
	}
	for j := 0; j < t; j++ {
		for k := j; k < t; k++ {
			v := floats.Dot(b.dc[j], b.cols[k])
			b.f[j*t+k], b.f[k*t+j] = v, v
		}
	}
	return true
}

// factor forms F at μ and eigendecomposes it (for its inertia and null vector); false
// when Syev fails or μ is a pole.
func (b *bordered) factor(lam []float64, mu float64) bool {
	b.lu = false
	return b.form(lam, mu) && lapack64.Syev(lapack.EVCompute, blas64.Symmetric{N: b.t, Stride: b.t, Data: b.f, Uplo: blas.Upper}, b.phi, b.work, len(b.work))
}

// factorLU forms F at μ and factors it by LU with partial pivoting, for solves alone;
// false when F is singular or μ is a pole.
func (b *bordered) factorLU(lam []float64, mu float64) bool {
	b.lu = true
	return b.form(lam, mu) && lapack64.Getrf(blas64.General{Rows: b.t, Cols: b.t, Stride: b.t, Data: b.f}, b.ipiv)
}

// neg is the number of negative eigenvalues of F.
func (b *bordered) neg() int {
	n := 0
	for _, p := range b.phi {
		if p < 0 {
			n++
		}
	}
	return n
}

// solve writes into out the h̃ ⟂ C with (Λ − μI)h̃ + rhs ∈ span C, that is
// h̃ = −D(rhs + Cν) with ν = −F⁻¹CᵀD·rhs: h = −O(M′ − μI)⁻¹Oᵀ(Q·rhs) in eigencoordinates.
func (b *bordered) solve(out, rhs []float64) {
	t := b.t
	for j := 0; j < t; j++ {
		b.c[j] = floats.Dot(b.dc[j], rhs)
	}
	copy(out, rhs)
	if b.lu { // ν = −F⁻¹c
		copy(b.nu, b.c)
		lapack64.Getrs(blas.NoTrans, blas64.General{Rows: t, Cols: t, Stride: t, Data: b.f}, blas64.General{Rows: t, Cols: 1, Stride: 1, Data: b.nu}, b.ipiv)
		for j := 0; j < t; j++ {
			floats.AddScaled(out, -b.nu[j], b.cols[j])
		}
	} else { // ν = −V Φ⁻¹ Vᵀ c
		for k := 0; k < t; k++ {
			s := 0.0
			for j := 0; j < t; j++ {
				s += b.f[j*t+k] * b.c[j]
			}
			b.nu[k] = s / b.phi[k]
		}
		for j := 0; j < t; j++ {
			s := 0.0
			for k := 0; k < t; k++ {
				s += b.f[j*t+k] * b.nu[k]
			}
			floats.AddScaled(out, -s, b.cols[j])
		}
	}
	for i := range out {
		out[i] *= -b.dinv[i]
	}
}

// nullDir writes into out D·C·V[:, j], the direction h̃ that the j-th eigenpair of F gives,
// and returns its squared norm, the derivative φⱼ′(μ) = ‖DCνⱼ‖² (F′ = CᵀD²C).
func (b *bordered) nullDir(out []float64, j int) float64 {
	t := b.t
	for i := range out {
		out[i] = 0
	}
	for k := 0; k < t; k++ {
		floats.AddScaled(out, b.f[k*t+j], b.dc[k])
	}
	return floats.Dot(out, out)
}

// countBelow returns the number of λᵢ < μ.
func countBelow(lam []float64, mu float64) int {
	return sort.SearchFloat64s(lam, mu)
}

// nearPole reports whether μ is within ebSepTol·s of an eigenvalue of M.
func (eb *eigenbasis) nearPole(mu float64) bool {
	i := countBelow(eb.lam, mu)
	tol := ebSepTol * eb.scale
	return (i < eb.d && eb.lam[i]-mu <= tol) || (i > 0 && mu-eb.lam[i-1] <= tol)
}

// compressedEig returns λₖ′, the k-th smallest eigenvalue of M′ = OᵀMO, and writes its unit
// eigenvector, in the eigenbasis of M, into vec. It needs lo < λₖ′ ≤ hi. ok is false when
// the result cannot be trusted (see ebSubset).
//
// Sylvester's law of inertia on the bordered matrix K(μ) = [M − μI, U; Uᵀ, 0], reduced
// once by M − μI and once through the basis [O U], gives for μ no eigenvalue of M or M′
//
//	N′(μ) = N(μ) − neg(F(μ)),
//
// with N, N′ the numbers of eigenvalues of M, M′ below μ and neg the number of negative
// eigenvalues of F(μ) = ŨᵀDŨ: In(K) = In(M − μI) + In(−F) = In(M′ − μI) + (t, t, 0). So
// every evaluation of F brackets λₖ′ exactly; the search takes Newton steps on the
// eigenvalue φ(μ) of F whose zero is λₖ′ (φ′ = ‖DŨν‖² > 0 by Hellmann–Feynman) and
// bisects when a step leaves the bracket.
func (eb *eigenbasis) compressedEig(k int, lo, hi float64, vec []float64) (float64, bool) {
	b := &eb.bs
	s := eb.scale
	mu := 0.5 * (lo + hi)
	for it := 0; it < ebMaxIter; it++ {
		if !b.factor(eb.lam, mu) {
			mu = math.Nextafter(mu, hi)
			continue
		}
		neg := b.neg()
		j := neg // smallest positive φ: its zero is at or below μ
		if countBelow(eb.lam, mu)-neg < k {
			lo = mu
			j = neg - 1 // largest negative φ: its zero is above μ
		} else {
			hi = mu
		}
		next := 0.5 * (lo + hi)
		if j >= 0 && j < b.t {
			d1 := b.nullDir(eb.z, j)
			step := -b.phi[j] / d1
			if math.Abs(step) <= 4*eps*s {
				return eb.eigenvector(k, mu+step, vec)
			}
			if n := mu + step; n > lo && n < hi {
				next = n
			}
		}
		if hi-lo <= 4*eps*s {
			return eb.eigenvector(k, 0.5*(lo+hi), vec)
		}
		mu = next
	}
	return 0, false
}

// eigenvector computes the eigenvector of M′ for the eigenvalue mu from the null vector
// ν of F(μ): h̃ = DŨν, Ũᵀh̃ = Fν = φν ≈ 0. It refuses μ near a pole of M (an eigenvalue
// of M′ there may have an eigenvector of M ⟂ the rows, invisible to F) and a residual
// ‖P(M − μI)h‖ above ebResTol·s.
func (eb *eigenbasis) eigenvector(k int, mu float64, vec []float64) (float64, bool) {
	b := &eb.bs
	if eb.nearPole(mu) || !b.factor(eb.lam, mu) {
		return 0, false
	}
	j := 0
	for i, p := range b.phi {
		if math.Abs(p) < math.Abs(b.phi[j]) {
			j = i
		}
	}
	nv := math.Sqrt(b.nullDir(vec, j))
	floats.Scale(1/nv, vec)
	// Ũᵀh̃ = φν/‖DŨν‖; the residual of the eigen-equation is at most s times it.
	if math.Abs(b.phi[j])/nv > ebResTol {
		return 0, false
	}
	eb.projectOut(vec, b.cols)
	floats.Scale(1/floats.Norm(vec, 2), vec)
	return mu, true
}

// projectOut removes from h its components along the orthonormal columns, twice.
func (eb *eigenbasis) projectOut(h []float64, cols [][]float64) {
	for pass := 0; pass < 2; pass++ {
		for _, c := range cols {
			floats.AddScaled(h, -floats.Dot(c, h), c)
		}
	}
}

// kktOK checks that h̃ (⟂ C after projection) satisfies P((Λ − μI)h̃ + g̃) = 0 up to
// ebResTol·(s‖h‖ + ‖g‖), projecting h̃ onto C⊥ first; res is the computed residual
// ‖P((Λ − μI)h̃ + g̃)‖, the gradient on C⊥ that lowerBound charges.
func (eb *eigenbasis) kktOK(h []float64, mu float64, cols [][]float64) (res float64, ok bool) {
	nh := floats.Norm(h, 2)
	if nh > 0 {
		off := 0.0
		for _, c := range cols {
			off = math.Max(off, math.Abs(floats.Dot(c, h)))
		}
		if off > ebResTol*nh {
			return 0, false
		}
	}
	eb.projectOut(h, cols)
	z := eb.z
	for i := range z {
		z[i] = (eb.lam[i]-mu)*h[i] + eb.gt[i]
	}
	eb.projectOut(z, cols)
	res = floats.Norm(z, 2)
	return res, res <= ebResTol*(eb.scale*nh+floats.Norm(eb.gt, 2))
}

// prepare sets g̃ = Qᵀg_F + Λ·Qᵀ(p − p_F) for depth t below the base and returns the
// model's value at p, c0 = c0_F + g_Fᵀ(p − p_F) + ½(p − p_F)ᵀM(p − p_F) (p − p_F lies in
// the range of Q).
func (eb *eigenbasis) prepare(t int) (c0 float64) {
	c0 = eb.c0
	ht := eb.ht[t]
	for i, l := range eb.lam {
		eb.gt[i] = eb.vt[i] + l*ht[i]
		c0 += eb.vt[i]*ht[i] + 0.5*l*ht[i]*ht[i]
	}
	return c0
}

// value is the model's value c0 + g̃ᵀh̃ + ½h̃ᵀΛh̃ at p + Qh̃.
func (eb *eigenbasis) value(c0 float64, h []float64) float64 {
	q := c0
	for i, hi := range h {
		q += eb.gt[i]*hi + 0.5*eb.lam[i]*hi*hi
	}
	return q
}

// psi evaluates ψ(μ) = ‖h(μ)‖² with h(μ) = −R(μ)g, R(μ) = O(M′ − μI)⁻¹Oᵀ, and its first
// two derivatives ψ′ = 2hᵀRh, ψ″ = 6‖R²g‖²; h is left in eb.h. ok is false when μ is a pole.
func (eb *eigenbasis) psi(mu float64) (psi, d1, d2 float64, ok bool) {
	b := &eb.bs
	if !b.factorLU(eb.lam, mu) {
		return 0, 0, 0, false
	}
	b.solve(eb.h, eb.gt)
	b.solve(eb.z, eb.h) // z = −Rh = R²g
	psi = floats.Dot(eb.h, eb.h)
	return psi, -2 * floats.Dot(eb.h, eb.z), 6 * floats.Dot(eb.z, eb.z), true
}

// root returns the root of ψ(μ) = r′² in [a, b], where ψ − r′² changes sign once, by
// Newton's method on 1/√ψ − 1/r′ safeguarded by bisection (as secular.solve).
func (eb *eigenbasis) root(a, b, rs float64) (float64, bool) {
	ir := 1 / rs
	// Start where ψ > r′²: Newton on a concave decreasing function stays on this side.
	return bracketedNewton(func(mu float64) (float64, float64, bool) {
		psi, d1, _, ok := eb.psi(mu)
		sq := math.Sqrt(psi)
		return 1/sq - ir, -0.5 * d1 / (psi * sq), ok
	}, a, b, true, ebRootTol/rs, ebMaxIter)
}

// ebSubset is the eigenbasis backend of FindInside for the current subset (t held rows
// below the base, 0 < t < d), computed in the eigenbasis of M = QΛQᵀ with no
// factorization of order d: driven by findInside it lists the same candidates as the
// dense backend (p, large gradient, interior, the secular roots μ ≤ muMax, the hard case
// at λ₁′) with the same cases and values, in eigencoordinates y = h̃ (the point is
// p + Qh̃, so y has length d, not m = d − t). A method returning false declines the
// subset, which then goes to the dense backend.
//
// The method (G. H. Golub, "Some modified matrix eigenvalue problems", SIAM Review 15(2),
// 1973). Let U be the held rows' orthonormal basis, Ũ = QᵀU (computed once per push),
// O a basis of U⊥, M′ = OᵀMO and g = v + M(p − x), so g̃ = Qᵀv + Λ·Qᵀ(p − x). For μ not
// an eigenvalue of M, the constrained system
//
//	(M − μI)h + g + Uν = 0,   Uᵀh = 0
//
// has, with D = (Λ − μI)⁻¹ and F(μ) = ŨᵀDŨ (t×t),
//
//	ν = −F⁻¹ŨᵀDg̃,   h̃ = Qᵀh = −D(g̃ + Ũν),
//
// and h = −O(M′ − μI)⁻¹Oᵀg: the subspace problem's point y(μ) = −(M′ − μI)⁻¹v′ mapped by
// O. It costs O(d·t²), and F is singular exactly at the eigenvalues of M′ that are not
// eigenvalues of M (the null vector ν gives the eigenvector DŨν); interlacing gives
// λᵢ(M) ≤ λᵢ′ ≤ λᵢ₊ₜ(M). From these:
//
//   - λ₁′, λ₂′ and their eigenvectors by compressedEig (inertia-safe bisection with Newton);
//   - ψ(μ) = ‖y(μ)‖² = ‖h(μ)‖², ψ′ = 2hᵀR h and ψ″ = 6‖R h‖² (R = O(M′ − μI)⁻¹Oᵀ, R′ = R²),
//     each a second solve with the same F;
//   - the left root: ψ increases on (−∞, λ₁′) from 0 to ∞ and lies in
//     [λ₁′ − ‖v′‖/r′, λ₁′ − √w₁/r′] with w₁ = (q₁′ᵀv′)² (polyroots.go, facts 3–4);
//     1/√ψ is concave there (Moré–Sorensen), so Newton from the right end converges;
//   - when λ₁′ < 0, the roots in (λ₁′, λ₂′), where ψ is convex: the minimizer of ψ by
//     Newton on ψ′ (convexMin, as the dense backend), then one root on each side, kept
//     when μ ≤ muMax (Martínez 1994 admits no other local minimizer, see findInside);
//   - the interior point −R(0)g when λ₁′ > 0;
//   - the hard case when λ₁′ < 0: findInside's y_off = Σ_{i≥2} ṽᵢ/(λ₁′ − λᵢ′)qᵢ′ is the
//     solution at μ = λ₁′ with q₁′ added to the columns (then M′ restricted to q₁′⊥ has
//     no eigenvalue λ₁′ and the system is regular), and the candidates are
//     y_off ± √(r′² − ‖y_off‖²)·q₁′ (findInside's sign of u only orders the pair).
//
// Every decision the dense backend takes at a tolerance (M′ ⪰ 0, muMax, deflation of a
// small weight, clusters, the ball test of the interior point and of y_off, tangency) is
// taken here only outside a band far wider than that tolerance (the eb* guards), so
// both backends decide alike; inside a band, near a pole of M, after a failed inertia or
// iteration, or when a computed eigenvector or KKT point has a residual above ebResTol,
// the subset is declined. Cost: O(d·t²) per evaluation of F, O(d·t) per solve, a few dozen
// evaluations per subset, and O(d²) per candidate mapped back by the caller.
type ebSubset struct {
	eb     *eigenbasis
	t, m   int // rows held below the base; the subspace's dimension d − t
	rs, c0 float64
	cols   [][]float64 // Ũ, the held rows' basis in the eigenbasis
	gzero  bool        // g̃ = 0 exactly: no roots, y_off = 0
	nv     float64     // ‖v′‖ = ‖P g̃‖, P the projector onto Ũ⊥ (eb.pg holds P g̃)
	l1, w1 float64     // λ₁′ and |q₁′ᵀg̃|, the square root of λ₁′'s gradient weight
	l2     float64     // λ₂′, +Inf when m = 1

	psi0Done bool    // ψ(0) has been computed (interior), nh0 = ‖h(0)‖
	nh0      float64 // ‖h(0)‖ = √ψ(0)

	duals []ebDual // the stationary points lowerBound bounds from
}

// ebDual is a computed stationary point h̃ ⟂ C of the Lagrangian at multiplier λ = −μ ≥ 0
// (a left root μ < 0, or μ = 0 when λ₁′ > 0), as lowerBound uses it: the model's value
// there, ‖h̃‖, the residual ‖P((Λ − μI)h̃ + g̃)‖ (kktOK) and Σ|g̃ᵢh̃ᵢ| + ½Σ|λᵢ|h̃ᵢ², the size
// of the value's terms.
type ebDual struct {
	mu, val, nh, res, terms float64
}

// dual records eb.h, projected on C⊥ by kktOK, as the stationary point at μ with
// residual res.
func (s *ebSubset) dual(mu, res float64) {
	eb := s.eb
	terms := 0.0
	for i, hi := range eb.h {
		terms += math.Abs(eb.gt[i]*hi) + 0.5*math.Abs(eb.lam[i])*hi*hi
	}
	s.duals = append(s.duals, ebDual{mu: mu, val: eb.value(s.c0, eb.h), nh: floats.Norm(eb.h, 2), res: res, terms: terms})
}

// lowerBound returns a lower bound on min g over z ⟂ C, ‖z‖ ≤ r′ (g(z) = c0 + g̃ᵀz +
// ½zᵀΛz, the subset's model in the eigenbasis), by Lagrangian duality as
// denseTRS.lowerBound, so that the walk may prune on it whatever the accuracy of the
// roots; −Inf when no multiplier qualifies. For λ = −μ ≥ 0 and z in the ball,
//
//	g(z) ≥ L(z) = g(z) + ½λ(‖z‖² − r′²) = c0 + q(z) + ½μr′²,   q(z) = g̃ᵀz + ½zᵀ(Λ − μI)z.
//
// When zᵀ(Λ − μI)z ≥ κ‖z‖² on C⊥ (κ > 0), q is κ-strongly convex there, so for any
// h ⟂ C and every z ⟂ C, with ρ = ‖P∇q(h)‖ = ‖P((Λ − μI)h + g̃)‖ (P the projector on C⊥),
//
//	q(z) ≥ q(h) + ∇q(h)ᵀ(z − h) + ½κ‖z − h‖² ≥ q(h) − ρ²/(2κ),
//
// and therefore, at the computed stationary point h of μ (a left root μ < min(0, λ₁′), or
// μ = 0 when λ₁′ > 0: ebDual),
//
//	min g ≥ g(h) − ½μ‖h‖² + ½μr′² − ρ²/(2κ) − margin.
//
// κ = ℓ − μ for an ℓ ∈ (μ, λ₁′) that definiteAbove proves below the spectrum of M′
// (tried at the midpoint of (μ, λ₁′), then a quarter of the way); at a root computed
// exactly ρ = 0 and ‖h‖ = r′, and the bound is the root's candidate value. The
// bound does not rest on the root's accuracy: a root resolved to ‖h‖ = r′(1 − 10⁻⁶)
// gives the same valid inequality with a larger ρ. With g̃ = 0 no Lagrangian is needed:
// for ℓ proven ≤ λ₁′, g(z) = c0 + ½zᵀM′z ≥ c0 + ½min(0, ℓ)r′² on the ball, ℓ = λ₁′/2 when
// λ₁′ > 0 and ℓ = λ₁′ − ebSepTol·s otherwise.
//
// Rounding. The data (Λ, C, g̃, c0) are exact for a model within ½‖E‖r′² + ‖e‖r′ + |Δc0|
// of the subset's on the ball, ‖E‖ ≲ d·ε·s and ‖e‖ ≲ d·ε·‖g̃‖ (the eigendecomposition's
// and the projections' backward errors, as denseTRS.lowerBound charges). The computed h
// is ⟂ C up to ≈ 2tε‖h‖ and its residual ρ is computed with error ≤ 4(d + t + 2)·ε·
// ((s + |μ|)‖h‖ + ‖g̃‖), which ρ is raised by; moving h onto C⊥ and evaluating g(h),
// ½μ‖h‖² and ½μr′² cost at most 16(d + 2)·ε times |c0| + Σ|g̃ᵢhᵢ| + ½Σ|λᵢ|hᵢ² +
// |μ|(r′² + ‖h‖²) + (s + |μ|)(r′² + ‖h‖²) + ‖g̃‖(r′ + ‖h‖), the margin, which also covers the
// data's error above. Cost: one t×t eigendecomposition and O(d·t²) per point (two at
// most), O(d) per point for the rest.
func (s *ebSubset) lowerBound() float64 {
	eb, rs := s.eb, s.rs
	d, t := float64(eb.d), float64(s.t)
	sc, ng := eb.scale, floats.Norm(eb.gt, 2)
	r2 := rs * rs
	if s.gzero {
		l := s.l1 / 2
		if s.l1 <= 0 {
			l = s.l1 - ebSepTol*sc
		}
		if !eb.definiteAbove(l) {
			return math.Inf(-1)
		}
		return s.c0 + 0.5*math.Min(0, l)*r2 - 16*(d+2)*eps*(math.Abs(s.c0)+(sc+math.Abs(l))*r2)
	}
	best := math.Inf(-1)
	for _, p := range s.duals {
		kappa := 0.0
		for _, frac := range [2]float64{0.5, 0.25} {
			if l := p.mu + frac*(s.l1-p.mu); l > p.mu && eb.definiteAbove(l) {
				kappa = l - p.mu
				break
			}
		}
		if kappa == 0 {
			continue
		}
		am, nh2 := math.Abs(p.mu), p.nh*p.nh
		rho := p.res + 4*(d+t+2)*eps*((sc+am)*p.nh+ng)
		margin := 16 * (d + 2) * eps * (math.Abs(s.c0) + p.terms + am*(r2+nh2) + (sc+am)*(r2+nh2) + ng*(rs+p.nh))
		best = math.Max(best, p.val-0.5*p.mu*nh2+0.5*p.mu*r2-rho*rho/(2*kappa)-margin)
	}
	return best
}

// definiteAbove reports whether M′ − ℓI ≻ 0 on C⊥ is proven for the eigenbasis data: by
// Sylvester's law of inertia (compressedEig) M′ has N(ℓ) − neg(F(ℓ)) eigenvalues below ℓ
// when F(ℓ) = CᵀDC is nonsingular, so the claim holds when that count is 0 and no
// eigenvalue φ of F can have the wrong sign. F is formed with error ‖ΔF‖₂ ≤ ‖ΔF‖_F ≤
// γ_{d+3}·max|Dᵢᵢ|·‖C‖_F² (t columns of unit norm) and Syev's eigenvalues are those of the
// formed F within a few t·ε·‖F‖₂ (Weyl), so every |φⱼ| must exceed
// 2(d + 8)·t·ε·(max|Dᵢᵢ| + max|φ|). False also at a pole of M or when Syev fails.
func (eb *eigenbasis) definiteAbove(l float64) bool {
	b := &eb.bs
	if !b.factor(eb.lam, l) {
		return false
	}
	maxD, maxPhi := 0.0, 0.0
	for _, x := range b.dinv {
		maxD = math.Max(maxD, math.Abs(x))
	}
	for _, p := range b.phi {
		maxPhi = math.Max(maxPhi, math.Abs(p))
	}
	tol := 2 * float64(eb.d+8) * float64(b.t) * eps * (maxD + maxPhi)
	for _, p := range b.phi {
		if math.Abs(p) <= tol {
			return false
		}
	}
	return countBelow(eb.lam, l) == b.neg()
}

// subset returns the backend for the subset t rows below the base, ball radius rs: it
// sets g̃ (prepare), the bordered system's columns and the projected gradient.
func (eb *eigenbasis) subset(t int, rs float64) *ebSubset {
	s := &ebSubset{eb: eb, t: t, m: eb.d - t, rs: rs, c0: eb.prepare(t), cols: eb.ut[:t], gzero: true}
	eb.bs.setCols(s.cols)
	for _, g := range eb.gt {
		if g != 0 {
			s.gzero = false
			break
		}
	}
	copy(eb.pg, eb.gt)
	eb.projectOut(eb.pg, s.cols)
	s.nv = floats.Norm(eb.pg, 2)
	return s
}

func (s *ebSubset) dim() int                  { return s.eb.d }
func (s *ebSubset) base() float64             { return s.c0 }
func (s *ebSubset) value(y []float64) float64 { return s.eb.value(s.c0, y) }

// spectrum returns λ₁′ and λ₂′ by compressedEig, declining when either, or their gap, is
// within ebSepTol·s of a decision, or λ₁′'s gradient weight is a near-hard case. With
// g̃ = 0 only λ₁′ is needed (its sign).
func (s *ebSubset) spectrum() (l1, l2, scale float64, ok bool) {
	eb, t, d := s.eb, s.t, s.eb.d
	sc := eb.scale
	if sc == 0 {
		return 0, 0, 0, false
	}
	// λ₁′ ∈ [λ₁, λ₁₊ₜ], λ₂′ ∈ [max(λ₁′, λ₂), λ₂₊ₜ] (interlacing; λ_m′ ≤ λ_d).
	margin := 4 * eps * sc
	l1, ok = eb.compressedEig(1, eb.lam[0]-margin, eb.lam[min(t, d-1)]+margin, eb.q1)
	if !ok {
		return 0, 0, 0, false
	}
	s.l1, s.l2 = l1, math.Inf(1)
	if s.gzero {
		// v′ = 0: no roots. The candidates are p, the interior point p when λ₁′ ≥ 0, and,
		// when λ₁′ ≤ 0, ±r′q₁′ for any unit q₁′ of λ₁′'s eigenspace (the hard case; one
		// vector suffices, by findInside's connectivity argument), so neither λ₂′ nor the
		// separation of λ₁′ from 0 or λ₂′ is needed.
		return l1, s.l2, sc, true
	}
	if math.Abs(l1) <= ebSepTol*sc {
		return 0, 0, 0, false
	}
	if s.m >= 2 {
		s.l2, ok = eb.compressedEig(2, math.Max(l1, eb.lam[1])-margin, eb.lam[min(t+1, d-1)]+margin, eb.q2)
		if !ok || s.l2-l1 <= ebSepTol*sc || math.Abs(s.l2) <= ebSepTol*sc {
			return 0, 0, 0, false
		}
	}
	s.w1 = math.Abs(floats.Dot(eb.q1, eb.gt))
	if s.w1 <= ebWeightTol*sc*s.rs {
		return 0, 0, 0, false
	}
	return l1, s.l2, sc, true
}

// gradient returns P g̃, declining when it is not exactly 0 but too short for its
// direction to be more than rounding.
func (s *ebSubset) gradient() ([]float64, float64, bool) {
	eb := s.eb
	if !s.gzero && s.nv <= ebGradTol*(eb.scale*s.rs+floats.Norm(eb.gt, 2)) {
		return nil, 0, false
	}
	return eb.pg, s.nv, true
}

// psiZero computes h(0) = −R(0)g into eb.h and returns ‖h(0)‖, declining near a pole,
// for a residual above ebResTol, or when ‖h(0)‖ is within ebBandTol of r′.
func (s *ebSubset) psiZero() (float64, bool) {
	eb := s.eb
	if eb.nearPole(0) {
		return 0, false
	}
	if _, _, _, ok := eb.psi(0); !ok {
		return 0, false
	}
	res, ok := eb.kktOK(eb.h, 0, s.cols)
	if !ok {
		return 0, false
	}
	nh := floats.Norm(eb.h, 2)
	if s.l1 > 0 {
		s.dual(0, res) // the stationary point of g itself (λ = 0)
	}
	if math.Abs(nh/s.rs-1) <= ebBandTol {
		return 0, false
	}
	s.psi0Done, s.nh0 = true, nh
	return nh, true
}

// interior adds −R(0)g when it lies in the ball (λ₁′ > 0 here, by the bands), or p itself
// when g̃ = 0.
func (s *ebSubset) interior(muMax float64, add addFunc) bool {
	eb := s.eb
	if s.gzero {
		add(make([]float64, eb.d), s.c0, CaseInterior)
		return true
	}
	nh, ok := s.psiZero()
	if !ok {
		return false
	}
	if nh <= s.rs {
		add(eb.h, eb.value(s.c0, eb.h), CaseInterior)
	}
	return true
}

// addRoot adds the boundary candidate of the root μ, checked and put on the ball, when
// μ ≤ muMax; it declines near 0 or a pole of M, or for a residual above ebResTol.
func (s *ebSubset) addRoot(mu, muMax float64, add addFunc) bool {
	eb, sc := s.eb, s.eb.scale
	if math.Abs(mu) <= ebSepTol*sc || eb.nearPole(mu) {
		return false
	}
	// A bracket without a sign change makes the root finder stop at its end: then
	// ‖h(μ)‖ ≠ r′, μ is no root, and the candidate it would give is not the KKT point
	// that completeness needs.
	if psi, _, _, ok := eb.psi(mu); !ok || math.Abs(math.Sqrt(psi)/s.rs-1) > ebBandTol {
		return false
	}
	res, ok := eb.kktOK(eb.h, mu, s.cols)
	if !ok {
		return false
	}
	if mu < 0 && mu < s.l1 {
		s.dual(mu, res) // the left root: λ = −μ > 0 and M′ − μI ≻ 0
	}
	if nh := floats.Norm(eb.h, 2); nh > s.rs {
		floats.Scale(s.rs/nh, eb.h)
	}
	if mu <= muMax {
		add(eb.h, eb.value(s.c0, eb.h), CaseBoundary)
	}
	return true
}

// roots adds the left root (in [λ₁′ − 2‖v′‖/r′, λ₁′ − √w₁/(2r′)], kept when ≤ 0: when
// λ₁′ > 0, iff ψ(0) ≥ r′²) and, when λ₁′ < 0, the roots in (λ₁′, λ₂′).
func (s *ebSubset) roots(muMax float64, add addFunc) bool {
	if s.gzero {
		return true
	}
	l1, rs := s.l1, s.rs
	leftHi := l1 - 0.5*s.w1/rs // ψ ≥ 4r′² there (fact 3 with half the exclusion radius)
	if l1 > 0 {
		nh := s.nh0
		if !s.psi0Done {
			var ok bool
			if nh, ok = s.psiZero(); !ok {
				return false
			}
		}
		// The left root is ≤ 0 iff ψ(0) ≥ r′².
		if nh > rs {
			leftHi = math.Min(leftHi, 0)
		} else {
			leftHi = math.Inf(-1)
		}
	}
	// ψ(λ₁′ − ‖v′‖/r′) ≤ r′² (fact 4) holds with equality when v′ lies on q₁′, and
	// rounding then leaves no sign change in the bracket: twice as far, ψ ≤ r′²/4.
	if leftLo := l1 - 2*s.nv/rs; !math.IsInf(leftHi, -1) {
		mu, ok := s.eb.root(math.Min(leftLo, leftHi), leftHi, rs)

		if !ok || !s.addRoot(mu, muMax, add) {
			return false
		}
	}
	return l1 >= 0 || s.m < 2 || s.innerRoots(muMax, add)
}

// innerRoots finds the roots of ψ = r′² in (λ₁′, λ₂′) and adds those ≤ muMax. ψ is
// convex there; its exclusion zones (fact 3) are at least half of √w/r′ wide on each
// side.
func (s *ebSubset) innerRoots(muMax float64, add addFunc) bool {
	eb, rs := s.eb, s.rs
	w2 := math.Abs(floats.Dot(eb.q2, eb.gt))
	if w2 <= ebWeightTol*eb.scale*rs {
		return false
	}
	a, b := s.l1+0.5*s.w1/rs, s.l2-0.5*w2/rs
	if a >= b || a > muMax {
		return true // the zones overlap, or every root would be > muMax
	}
	_, da, _, ok1 := eb.psi(a)
	_, db, _, ok2 := eb.psi(b)
	if !ok1 || !ok2 {
		return false
	}
	if da >= 0 || db <= 0 {
		return true // ψ monotone between the zones and ≥ 4r′² at both ends
	}
	// The minimizer of ψ by convexMin, stopped at a step below ebMinStepTol of the distance
	// to the nearer pole.
	l1, l2 := s.l1, s.l2
	mu, ok := convexMin(func(mu float64) (float64, float64, bool) {
		_, d1, d2, ok := eb.psi(mu)
		return d1, d2, ok
	}, a, b, func(mu float64) float64 { return ebMinStepTol * math.Min(mu-l1, l2-mu) }, ebMaxIter, true)
	if !ok {
		return false
	}
	psi, _, _, _ := eb.psi(mu)
	r2 := rs * rs
	if math.Abs(psi/r2-1) <= ebBandTol {
		return false // tangency: the dense backend's tangentTol decides
	}
	if psi > r2 {
		return true
	}
	left, ok1 := eb.root(a, mu, rs)
	right, ok2 := eb.root(mu, b, rs)
	return ok1 && ok2 && s.addRoot(left, muMax, add) && s.addRoot(right, muMax, add)
}

// hardCase adds the hard-case pair at λ₁′: y_off ± √(r′² − ‖y_off‖²)·q₁′. y_off is the
// solution at μ = λ₁′ with q₁′ added to the columns; with m = 1, q₁′ spans the subspace
// and y_off = 0, and with g̃ = 0, y_off = 0 too. Scratch: y_off lives in eb.h and the
// candidates in eb.z, which kktOK also uses — safe only because kktOK runs before the
// candidates are formed; keep that order.
func (s *ebSubset) hardCase(add addFunc) bool {
	eb, rs := s.eb, s.rs
	yoff := eb.h
	if s.m == 1 || s.gzero {
		for i := range yoff {
			yoff[i] = 0
		}
	} else {
		b := &eb.bs
		ext := append(s.cols[:len(s.cols):len(s.cols)], eb.q1)
		b.setCols(ext)
		defer b.setCols(s.cols)
		if eb.nearPole(s.l1) || !b.factorLU(eb.lam, s.l1) {
			return false
		}
		b.solve(yoff, eb.gt)
		if _, ok := eb.kktOK(yoff, s.l1, ext); !ok {
			return false
		}
	}
	off := floats.Dot(yoff, yoff)
	r2 := rs * rs
	if math.Abs(off/r2-1) <= ebBandTol {
		return false
	}
	if off > r2 {
		return true
	}
	tt := math.Sqrt(r2 - off)
	y := eb.z
	for _, sign := range [2]float64{1, -1} {
		copy(y, yoff)
		floats.AddScaled(y, sign*tt, eb.q1)
		add(y, eb.value(s.c0, y), CaseHard)
	}
	return true
}
