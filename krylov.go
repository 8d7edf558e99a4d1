package houdini

import (
	"context"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// The Krylov backend of FindInside, for models with no d×d matrix (quadModel's operator
// form, from MatrixFreeDim on) and for dense models whose full spectrum costs too much.
// On a face with projector P (an orthogonal projector onto the face's directions) and
// operator M′ = PMP it builds two Krylov spaces by Lanczos with full reorthogonalization:
//
//   - from the gradient v′ = Pg: the space of GLTR (Gould, Lucidi, Roma & Toint 1999,
//     "Solving the trust-region subproblem using the Lanczos method", SIAM J. Optim.
//     9(2)), where the trust-region minimizer converges when it is not the hard case;
//   - from a random start uniform on the face's unit sphere: the extreme eigenpairs, and a
//     bound on the smallest eigenvalue λ₁ that holds with probability 1 − ξ by the
//     theorem of Kuczyński & Woźniakowski (1992, SIAM J. Matrix Anal. Appl. 13(4),
//     thm. 4.2): for A ⪰ 0 of order n and k Lanczos steps from such a start,
//     P(θ_max(A) < (1 − ε)λ_max(A)) ≤ 1.648·√n·e^{−√ε(2k − 1)}. Lanczos is shift
//     invariant, so with A = M′ − λ₁I and A = λ_nI − M′ and S = λ_n − λ₁, except with
//     probability 2·1.648·√n·e^{−√ε(2k−1)} both λ_n − θ_max ≤ εS and θ_min − λ₁ ≤ εS,
//     hence S ≤ (θ_max − θ_min)/(1 − 2ε) and λ₁ ≥ θ_min − εS. Its Ritz vectors carry
//     the hard case: a gradient with no component on λ₁'s eigenspace never reaches it.
//
// The union of both spaces, V (orthonormal), gives the Rayleigh–Ritz problem
// T = VᵀM′V, Vᵀv′ of order K ≤ 2·krylovMaxSteps, which the dense backend solves in full
// (every case of findInside, the hard case and repeated eigenvalues included): every
// candidate is a point of the face, its value the model's. The candidates are thus
// genuine but may miss the face's minimizers, so the subset's bound is not the
// subspace's minimum but the Lagrangian bound from λ₁'s lower bound L₁ (krylovLower), which
// holds with probability 1 − ξ. Why Lanczos and not a partial LAPACK eigensolver: gonum
// v0.17's lapack64 offers Syev alone (no dsyevr/dstebz subset selection), and a dense
// d = 1600 EigenSym costs seconds where the escape needs the two smallest eigenpairs,
// which k ≈ 100 products find.

// Constants of the Krylov backend.
const (
	// krylovMaxSteps caps each Lanczos run (products per run, and the memory: two
	// d-vectors per step, basis and product).
	krylovMaxSteps = 300
	// krylovGradSteps caps the GLTR run from the gradient; it stops earlier when the
	// Krylov minimum stalls (krylovStallTol·δ over krylovCheckEvery steps).
	krylovGradSteps  = 120
	krylovCheckEvery = 8
	krylovStallTol   = 1e-4
	// krylovFailProb is ξ per subset, the probability that the bound on λ₁ of one Lanczos
	// run from a random start fails (split between its two sides).
	krylovFailProb = 1e-6
	// krylovMinSteps: the random-start run stops once ±r′u₁ lowers the model by δ, but
	// not before this many steps, so that the move it offers is near the best.
	krylovMinSteps = 24
	// krylovLamTol·δ/r′² is the accuracy sought for the bound on λ₁: it costs the subset's
	// bound at most ½·krylovLamTol·δ.
	krylovLamTol = 1.0 / 12
	// krylovDropTol: a Ritz vector whose part orthogonal to the GLTR space is below this
	// length adds nothing to it (and would divide its product's rounding by that length).
	krylovDropTol = 1e-6
)

// faceOp is the operator M′ = PMP of one face: mul writes M·y into dst (y in the face),
// proj applies P in place, m is the face's dimension.
type faceOp struct {
	mul  func(dst, y []float64)
	proj func(v []float64)
	m    int
	err  func() error // the products' first error, if any
}

// lanczosRun is one Lanczos run with full reorthogonalization: Q orthonormal (in the
// face), W[j] = P·M·Q[j], T tridiagonal (alpha, beta); invariant when span Q is invariant
// under M′ (a breakdown).
type lanczosRun struct {
	Q, W        [][]float64
	alpha, beta []float64
	next        float64 // the last residual's length, β_k
	invariant   bool
	breakdown   bool // the plain recurrence's β_k fell below lanczosBreakdown (lanczosPass1)
	// fresh, when not nil, draws a new random start after a breakdown (lanczosRestarted);
	// seg is the index of the first step of the run's last segment, whole reports that Q
	// spans the whole face (len(Q) = m: T is M′ in the basis Q).
	fresh func() []float64
	seg   int
	whole bool
	// spill is Σb over the breakdowns a restart went on from: their residuals, each at most
	// lanczosBreakdown·max|α|, are dropped from T (β = 0 there), so QᵀM′Q − T is a
	// symmetric coupling of norm at most spill (lam1Bound).
	spill float64
}

// lanczosRunFrom runs Lanczos from start on op for at most kmax steps, asking done after
// each step whether to stop. O(k·d) memory and O(k²·d) reorthogonalization.
func lanczosRunFrom(op faceOp, start []float64, kmax int, done func(*lanczosRun) bool) *lanczosRun {
	return (&lanczosRun{}).run(op, start, kmax, done)
}

// lanczosRestarted is lanczosRunFrom from the random start z that, after a breakdown
// before the face is spanned and before kmax, goes on from a fresh start drawn from rng
// (krylovStart) and orthogonalized against Q, in the same run (T gets a zero
// off-diagonal entry there: a new segment, run without done): lam1Bound's restart. Where
// kmax ≥ m the segments go on until they span the face (lr.whole: exact, at most m
// products, as an exact face costs), else one segment more, to its breakdown or kmax.
func lanczosRestarted(op faceOp, z []float64, kmax int, rng *rand.Rand, done func(*lanczosRun) bool) *lanczosRun {
	lr := &lanczosRun{fresh: func() []float64 { return krylovStart(rng, len(z)) }}
	return lr.run(op, z, kmax, done)
}

func (lr *lanczosRun) run(op faceOp, start []float64, kmax int, done func(*lanczosRun) bool) *lanczosRun {
	q := append([]float64(nil), start...)
	if !faceStart(op, q) {
		lr.invariant = true
		return lr
	}
	big := 0.0
	for k := 0; k < kmax; k++ {
		w := make([]float64, len(q))
		op.mul(w, q)
		op.proj(w)
		lr.Q, lr.W = append(lr.Q, q), append(lr.W, w)
		a := dot(q, w)
		lr.alpha = append(lr.alpha, a)
		big = math.Max(big, math.Abs(a))
		r := orthogonalize(w, lr.Q) // twice, which is enough (Kahan–Parlett)
		op.proj(r)
		b := norm(r)
		lr.next = b
		if len(lr.Q) == op.m { // the whole face: T is M′ in the basis Q
			lr.invariant, lr.whole = true, true
			return lr
		}
		if !(b > lanczosBreakdown*math.Max(big, 1e-300)) {
			if lr.fresh == nil || (lr.seg > 0 && kmax < op.m) || op.err() != nil || k+1 == kmax {
				lr.invariant = true
				return lr
			}
			if r = lr.restart(op); r == nil {
				lr.invariant = true
				return lr
			}
			lr.beta = append(lr.beta, 0) // span Q is invariant: T = diag(T₁, T₂, …)
			lr.seg = len(lr.alpha)
			lr.spill += b
			q = r
			continue
		}
		if op.err() != nil || (lr.seg == 0 && done(lr)) { // a restarted run goes on to its breakdown
			return lr
		}
		lr.beta = append(lr.beta, b)
		q = r
		scale(q, 1/b)
	}
	return lr
}

// restart returns the unit start of a new segment after a breakdown: a fresh Gaussian
// start projected on the face and orthogonalized twice against Q (Kahan–Parlett), or
// nil when less than 1 − 1/√2 of its face part survives each of two passes (faceStart's
// rule: Q spans the face to rounding).
func (lr *lanczosRun) restart(op faceOp) []float64 {
	q := lr.fresh()
	op.proj(q)
	n := norm(q)
	for range 2 {
		q = orthogonalize(q, lr.Q)
		op.proj(q)
		m := norm(q)
		if m > n/math.Sqrt2 {
			if unitDir(q, q) > 0 {
				return q
			}
			return nil
		}
		n = m
	}
	return nil
}

// faceStart projects the start q of a Lanczos run on the face, in place, and makes it a
// unit vector (unitDir: 1/‖q‖ overflows for a subnormal gradient); false when q has no
// part in the face that the projection resolves, q then not to be used. The projection
// P·s is computed with an error of cε‖s‖ (op.proj: Gram–Schmidt over at most d vectors),
// so it lies in the face only to cε‖s‖/‖Ps‖. Where s is almost normal to the face — the
// face's gradient P(v + Mh₀) of a zero-rate move (an eigenvector of negative curvature
// with no first-order change, as a transfer between two coordinates of equal gradient on
// a simplex), which examineFace's projection has already reduced to rounding — P·s is
// rounding in no particular direction, and a run from it has basis vectors off the face:
// candidates that leave the face (the walk rejects them as infeasible) from a face it
// reports examined exactly, a false certificate (TestMatrixFreeZeroRateTransfer).
//
// The rule is Kahan's "twice is enough" (Parlett, The Symmetric Eigenvalue Problem, 1998,
// §6.9): project; if more than 1 − 1/√2 of the length is lost, project again; if that
// loses as much, take the face part as 0. Proof that 0 is within rounding: write
// y₁ = P̃s = Ps + e₁ and y₂ = P̃y₁ = Py₁ + e₂ (P exact, P̃ computed), ‖e₁‖ ≤ cε‖s‖,
// ‖e₂‖ ≤ cε‖y₁‖. The part of y₁ normal to the face is (I − P)e₁, so
// ‖y₂‖ ≥ ‖y₁‖ − ‖e₁‖ − ‖e₂‖, and ‖y₂‖ ≤ ‖y₁‖/√2 gives ‖y₁‖(1 − 1/√2 − cε) ≤ cε‖s‖,
// ‖y₁‖ ≤ 3.5cε‖s‖, hence ‖Ps‖ ≤ ‖y₁‖ + ‖e₁‖ ≤ 4.5cε‖s‖. For the GLTR start
// s = P̃(v + Mh₀) (examineFace, ‖h₀‖ ≤ r, ‖s‖ ≤ (1 + cε)(‖v‖ + ‖M‖_F·r)) the face
// gradient taken as 0 thus moves the face's values on the ball of radius r by at most
// 4.5cε(1 + cε)(‖v‖ + ‖M‖_F·r)·r, which η's bullet on projections (modelRounding)
// already charges (precisionFactor·(d + 2) ≥ 5c). Where a projection keeps more than
// 1/√2 of its input's length ‖u‖, the unit vector returned is off the face by at most
// cε‖u‖/(‖u‖/√2) = √2cε. A random start (N(0, I)) is taken as 0 only when its face part
// is below 4.5cε of its length, with probability about (cε√d)^m for a face of dimension
// m, far below krylovFailProb and not charged; findInsideKrylov and the face certificate then give no bound,
// spectrumBoundsPlain the empty face's 0 spectrum, as for a start of exactly 0 before.
func faceStart(op faceOp, q []float64) bool {
	n := norm(q)
	for range 2 {
		op.proj(q)
		m := norm(q)
		if m > n/math.Sqrt2 {
			return unitDir(q, q) > 0
		}
		n = m
	}
	return false
}

// ritzExtremes returns the smallest and largest eigenvalues of the run's tridiagonal T.
func (lr *lanczosRun) ritzExtremes() (lo, hi float64) {
	k := len(lr.alpha)
	d := append([]float64(nil), lr.alpha...)
	e := append([]float64(nil), lr.beta[:k-1]...)
	if !(gonum.Implementation{}).Dsterf(k, d, e) {
		return math.Inf(-1), math.Inf(1)
	}
	return d[0], d[k-1]
}

// kwEps returns ε of the Kuczyński–Woźniakowski bound for k steps in dimension m at
// failure probability xi for one side: 1.648·√m·e^{−√ε(2k−1)} = xi. It holds for a k
// fixed before the run; a run stopped at a step chosen from its iterates needs kwStopEps.
func kwEps(k, m int, xi float64) float64 {
	s := math.Log(1.648*math.Sqrt(float64(m))/xi) / float64(2*k-1)
	return s * s
}

// kwStopEps returns ε of the Kuczyński–Woźniakowski bound for a run that stopped after k
// of at most kmax steps, at a step its stopping rule chose by looking at the iterates, with
// failure probability xi for one side over the whole run. For a fixed step j the bound at
// failure probability ξⱼ fails on an event Eⱼ of the random start with P(Eⱼ) ≤ ξⱼ; the
// rule's step τ is random and depends on the start, so P(E_τ) ≤ ξ_τ does not follow, but
// E_τ ⊆ E₁ ∪ … ∪ E_kmax, so with ξⱼ = xi/kmax
//
//	P(the bound fails at the step the run stopped) ≤ Σⱼ₌₁..kmax ξⱼ = xi.
//
// kmax must not depend on the run (findInsideKrylov's is min(m, krylovMaxSteps)). The cost
// is ln(kmax) in the exponent: at kmax = 300 and xi = 5·10⁻⁷, √ε grows by about 30%.
func kwStopEps(k, kmax, m int, xi float64) float64 {
	return kwEps(k, m, xi/float64(kmax))
}

// lam1Bound returns L₁ ≤ λ₁(M′), which holds except with probability fail, from a run
// from a random start z of at most kmax steps (lanczosRestarted), stopped by a rule that
// looks at its iterates (kwStopEps), and the smallest and largest Ritz values seen, lo
// and hi (those of a larger space containing the run's are as good); L₁ = −Inf when
// ε ≥ ½. Only a run whose basis spans the whole face (lr.whole) is exact: L₁ = lo − spill,
// fail 0.
//
// The dropped residuals (lr.spill). At a breakdown at step k the computed residual rₖ,
// ‖rₖ‖ = bₖ ≤ lanczosBreakdown·max|α|, is orthogonal to q₁ … qₖ, so M′qₖ = Σⱼ≤ₖ Tⱼₖqⱼ + rₖ,
// and every later basis vector qⱼ (j > k, the segments after the restart) has
// qⱼᵀM′qₖ = qⱼᵀrₖ, which T sets to 0. Hence QᵀM′Q = T + Σₖ (eₖcₖᵀ + cₖeₖᵀ), cₖ = Qᵀrₖ
// supported on the indices after k (cₖ ⟂ eₖ), each term of norm ‖cₖ‖ ≤ bₖ, and by Weyl
// every eigenvalue of QᵀM′Q is within spill = Σₖ bₖ of T's: where Q spans the face
// (lr.whole), λ₁(M′) = λ_min(QᵀM′Q) ≥ lo − spill; otherwise the Rayleigh–Ritz values
// the bound below speaks of lie in [lo − spill, hi + spill], which it uses. Without the
// charge, M′ with the eigenvalue −1 twice, its eigenvectors coupled by ε just below the
// breakdown tolerance across two segments, has λ₁ = −1 − ε and was bounded by lo = −1
// (TestTolchargeWholeFaceSpill).
//
// A breakdown is charged, not taken as exact (facecert.go's rule). It makes K_p(z)
// invariant, so its Ritz values are eigenvalues, but "the random start met every
// eigenspace" holds only with probability 1 over a start independent of M′, while the
// start is a fixed function of Settings.Seed: H = cI − (c + a)wwᵀ with w ⟂ z breaks
// down at step 1 with θ = c far above λ₁ = −a and was certified as exact
// (TestLam1BoundBreakdownAdversary), and in floating point a start's component below
// rounding on λ₁'s eigenvector is lost the same way. The charge. A run that broke down at
// step p has K_k(z) = K_p(z) for every k ≥ p, so its Ritz values are those of K_kmax(z),
// and the Kuczyński–Woźniakowski bound at the fixed step kmax applies to them:
//
//	λ₁ ≥ θ_min − εS,  S = (θ_max − θ_min)/(1 − 2ε),  ε = kwStopEps(kmax, kmax, m, ξ/2),
//
// except with probability ξ = krylovFailProb (E_kmax is one of the events kwStopEps's
// union already counts, so a run that stops or breaks down anywhere fails with
// probability ≤ ξ in all). At kmax = 300, m = 10⁵ that is ε ≈ 0.002: a breakdown costs
// 0.2% of the spread of the Ritz values, not the bound. The restarts (lanczosRestarted:
// segments from fresh starts orthogonal to the run's space, T block diagonal) add Ritz
// values to lo and hi: those of a segment that broke down are eigenvalues of M′ (an
// invariant subspace), those of one that did not are Rayleigh quotients, ≥ λ₁; lo
// can only fall, never below λ₁, and L₁ = lo − εS′ with S′ = (hi − lo)/(1 − 2ε) ≥ S stays
// below the bound above. They unmask a start built to miss λ₁'s eigenvector from the
// seed's first draw (the fresh start, the generator's next draw, has a part on it: the
// certificate then sees −a, TestLam1BoundBreakdownAdversary); an f built against both
// draws defeats them too (TestReview4BreakdownAdversaryTwoDraws) and is reported with
// fail ξ, never as exact: the charge holds for an f chosen without knowledge of the
// seed, the threat model of every Confidence below 1 (types.go). Where kmax ≥ m
// they go on until the run spans the face, which is then exact: a linear model's face
// (M′ = 0, a breakdown at every step) costs m products and keeps its certificate
// (instance 259 of TestMatrixFreeSweepAgainstBruteForce, lost with one restart).
func lam1Bound(lr *lanczosRun, m, kmax int, lo, hi float64) (L1, fail float64) {
	lo, hi = lo-lr.spill, hi+lr.spill
	if lr.whole {
		return lo, 0
	}
	k := len(lr.alpha)
	if lr.invariant || lr.seg > 0 { // a breakdown at step p: K_kmax(z) = K_p(z)
		k = kmax
	}
	eps := kwStopEps(k, kmax, m, krylovFailProb/2)
	if eps >= 0.5 {
		return math.Inf(-1), krylovFailProb
	}
	S := (hi - lo) / (1 - 2*eps)
	return lo - eps*S, krylovFailProb
}

// krylovLower returns the bound of the face's trust-region subproblem
// min c0 + v′ᵀy + ½yᵀM′y over ‖y‖ ≤ rs from ‖v′‖ = nv and L₁ ≤ λ₁(M′): by weak duality,
// for every λ ≥ 0 with M′ + λI ⪰ 0 the minimum is at least
// c0 − ½v′ᵀ(M′ + λI)⁻¹v′ − ½λrs² ≥ c0 − ½nv²/(L₁ + λ) − ½λrs², whose best λ gives
//
//	c0 − nv·rs + ½L₁rs²   unless L₁ > 0 and nv < L₁rs, then c0 − ½nv²/L₁.
//
// Tight when v′ = 0 (λ₁ alone decides) and in the interior case; loose by about nv·rs
// otherwise.
func krylovLower(c0, nv, L1, rs float64) float64 {
	if L1 > 0 && nv < L1*rs {
		return c0 - 0.5*nv*nv/L1
	}
	return c0 - nv*rs + 0.5*L1*rs*rs
}

// krylovResult is what the Krylov backend found on one face.
type krylovResult struct {
	cands []subCandidate // y in the face's full coordinates
	lower float64        // the bound of krylovLower (−Inf when none)
	fail  float64        // the probability that lower is not a bound
	prods int            // products of M made
	ok    bool           // false: the dense solve of T failed, or ctx is done
	exact bool           // both spaces are invariant: the candidates and lower are the dense backend's
}

// findInsideKrylov is FindInside on the face op with gradient g (= Pg, in the face) and
// base value c0 over the ball of radius rs, by the Krylov backend: candidates below keep
// from the Rayleigh–Ritz problem on the union of the GLTR space and a random-start
// Lanczos space, and a bound that holds with probability 1 − fail. delta is δ: the λ₁
// bound is sought to krylovLamTol·δ/rs², the GLTR run stops when its minimum stalls
// to krylovStallTol·δ. Cost: at most krylovMaxSteps + krylovGradSteps products, O(K²d).
func findInsideKrylov(ctx context.Context, op faceOp, g []float64, c0, rs, keep, delta float64, rng *rand.Rand) krylovResult {
	res := krylovResult{lower: math.Inf(-1)}
	z := krylovStart(rng, len(g))
	kmax := min(op.m, krylovMaxSteps)
	ra := lanczosRestarted(op, z, kmax, rng, randomStartStop(ctx, op, c0, rs, delta, kmax))
	nv := norm(g)
	var rb *lanczosRun
	if nv > 0 {
		rb = lanczosRunFrom(op, g, min(op.m, krylovGradSteps), gltrStall(ctx, nv, rs, delta))
	}
	res.prods = len(ra.Q)
	if rb != nil {
		res.prods += len(rb.Q)
	}
	if op.err() != nil || ctx.Err() != nil || len(ra.Q) == 0 {
		return res
	}
	lo, hi, U, MU, ok := ra.ritzPairs(2)
	if !ok {
		return res
	}
	L1, fail := lam1Bound(ra, op.m, kmax, lo, hi)
	V, W := unionBasis(rb, U, MU, krylovDropTol)
	cands, lowerSub, ok := rayleighRitz(ctx, V, W, g, rs, c0, keep)
	if !ok {
		return res
	}
	res.cands = cands
	res.ok = true
	if ra.whole && (rb == nil || rb.invariant) {
		// The random start's space is the face (so U holds an eigenvector of λ₁), the
		// gradient's holds (M′ − μI)⁻¹v′ for every μ and M′⁺v′: every candidate of
		// findInside lies in V, so the Rayleigh–Ritz problem has the face's own.
		res.lower, res.exact = lowerSub, true
		return res
	}
	lower := krylovLower(c0, nv, L1, rs)
	if rb != nil {
		lower = math.Max(lower, dualLower(rb, g, c0, nv, L1, rs))
	}
	res.lower = math.Min(lowerSub, lower)
	res.fail = fail
	return res
}

// krylovStart returns the random start of findInsideKrylov's λ₁ run: N(0, I) in Rᵈ, whose
// projection on the face is uniform on its unit sphere after normalization.
func krylovStart(rng *rand.Rand, d int) []float64 {
	z := make([]float64, d)
	for j := range z {
		z[j] = rng.NormFloat64()
	}
	return z
}

// randomStartStop returns the stopping test of the random-start run of at most kmax steps:
// a move of δ is in hand (after krylovMinSteps), or lam1Bound's L₁ is within
// krylovLamTol·δ/rs² of θ_min.
func randomStartStop(ctx context.Context, op faceOp, c0, rs, delta float64, kmax int) func(*lanczosRun) bool {
	lamTol := krylovLamTol * delta / (rs * rs)
	return func(lr *lanczosRun) bool {
		k := len(lr.alpha)
		if k < 2 || ctx.Err() != nil {
			return ctx.Err() != nil
		}
		lo, hi := lr.ritzExtremes()
		if k >= krylovMinSteps && c0+0.5*lo*rs*rs < -delta {
			// ±rs·u₁ already lowers the model by δ: the face holds a move, so its bound
			// decides nothing (no prune below keep = −δ/3, no certificate) and needs no accuracy.
			return true
		}
		eps := kwStopEps(k, kmax, op.m, krylovFailProb/2) // lam1Bound's, at this step
		return eps < 0.5 && eps*(hi-lo)/(1-2*eps) <= lamTol
	}
}

// gltrStall returns the stopping test of the GLTR run: the minimum of the model over the
// Krylov space ∩ ball, checked every krylovCheckEvery steps, fell by less than
// krylovStallTol·δ since the last check.
func gltrStall(ctx context.Context, nv, rs, delta float64) func(*lanczosRun) bool {
	last := math.Inf(1)
	return func(lr *lanczosRun) bool {
		k := len(lr.alpha)
		if ctx.Err() != nil {
			return true
		}
		if k%krylovCheckEvery != 0 {
			return false
		}
		T := mat.NewSymDense(k, nil)
		for i := 0; i < k; i++ {
			T.SetSym(i, i, lr.alpha[i])
			if i+1 < k {
				T.SetSym(i, i+1, lr.beta[i])
			}
		}
		e1 := make([]float64, k)
		e1[0] = nv
		_, low, ok := findInsideDense(ctx, T, e1, rs, 0, math.Inf(-1))
		if !ok {
			return true
		}
		stalled := last-low < krylovStallTol*delta
		last = low
		return stalled
	}
}

// unionBasis returns an orthonormal basis of the GLTR run's space (nil: none) and the
// unit vectors U, and M′ applied to it: the run's own basis and products, then each of U
// orthogonalized against what precedes it (twice), its product MU carried along (M′ is
// linear), unless less than drop of it is left (krylovDropTol for the one-pass backend).
// The run's basis is orthonormal and U has few vectors, so the products' rounding is
// divided by at most drop.
func unionBasis(lr *lanczosRun, U, MU [][]float64, drop float64) (V, W [][]float64) {
	if lr != nil {
		V, W = append(V, lr.Q...), append(W, lr.W...)
	}
	for j, u := range U {
		v := append([]float64(nil), u...)
		w := append([]float64(nil), MU[j]...)
		for range 2 {
			for i := range V {
				c := dot(V[i], v)
				axpy(v, -c, V[i])
				axpy(w, -c, W[i])
			}
		}
		nv := norm(v)
		if !(nv > drop) {
			continue
		}
		scale(v, 1/nv)
		scale(w, 1/nv)
		V, W = append(V, v), append(W, w)
	}
	return V, W
}

// ritzPairs returns the run's extreme Ritz values and its n smallest Ritz vectors with
// their products (combinations of the run's products: no new product is made).
func (lr *lanczosRun) ritzPairs(n int) (lo, hi float64, U, MU [][]float64, ok bool) {
	k := len(lr.alpha)
	T := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		T.SetSym(i, i, lr.alpha[i])
		if i+1 < k {
			T.SetSym(i, i+1, lr.beta[i])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(T, true) {
		return 0, 0, nil, nil, false
	}
	lam := eig.Values(nil)
	var Y mat.Dense
	eig.VectorsTo(&Y)
	d := len(lr.Q[0])
	for c := 0; c < min(n, k); c++ {
		u, mu := make([]float64, d), make([]float64, d)
		for i := 0; i < k; i++ {
			axpy(u, Y.At(i, c), lr.Q[i])
			axpy(mu, Y.At(i, c), lr.W[i])
		}
		U, MU = append(U, u), append(MU, mu)
	}
	return lam[0], lam[k-1], U, MU, true
}

// dualLower returns a bound of the face's trust-region subproblem that is tight where
// krylovLower loses ‖v′‖r′: the Lagrangian dual c0 − ½v′ᵀ(M′ + λI)⁻¹v′ − ½λrs² at one
// λ > max(0, −L₁), with v′ᵀA⁻¹v′ (A = M′ + λI ⪰ (L₁ + λ)I) bounded above, for any x, by
//
//	v′ᵀA⁻¹v′ = 2v′ᵀx − xᵀAx + (x − A⁻¹v′)ᵀA(x − A⁻¹v′) ≤ 2v′ᵀx − xᵀAx + ‖v′ − Ax‖²/(L₁ + λ),
//
// x the Lanczos–CG iterate Q(T + λI)⁻¹e₁‖v′‖ of the GLTR run, Ax from its stored
// products (no new product). λ is picked on a grid by the same bound with the residual
// of the Lanczos relation, β_k|e_kᵀz|; only the picked λ's bound is computed in full.
// −Inf when no λ qualifies (L₁ = −Inf, or T + λI not positive definite).
func dualLower(lr *lanczosRun, g []float64, c0, nv, L1, rs float64) float64 {
	lam, z, ok := dualPick(lr, c0, nv, L1, rs)
	if !ok {
		return math.Inf(-1)
	}
	x, Mx := make([]float64, len(g)), make([]float64, len(g))
	for i, zi := range z {
		axpy(x, zi, lr.Q[i])
		axpy(Mx, zi, lr.W[i])
	}
	return dualEval(g, x, Mx, c0, L1, rs, lam)
}

// dualPick returns dualLower's λ, picked on the grid from the run's T alone, and the
// coordinates z = (T + λI)⁻¹e₁‖v′‖ of its iterate; ok is false when no λ qualifies.
func dualPick(lr *lanczosRun, c0, nv, L1, rs float64) (lam float64, z []float64, ok bool) {
	if math.IsInf(L1, -1) || len(lr.alpha) == 0 {
		return 0, nil, false
	}
	lam0 := math.Max(0, -L1)
	s := 0.0
	for _, a := range lr.alpha {
		s = math.Max(s, math.Abs(a))
	}
	s = math.Max(s, math.Abs(L1)) + 1e-300
	best, bestLam := math.Inf(-1), math.NaN()
	for j := -48; j <= 8; j++ {
		lam := lam0 + s*math.Pow(10, float64(j)/4)
		z, ok := tridiagSolve(lr.alpha, lr.beta, lam, nv)
		if !ok || !(L1+lam > 0) {
			continue
		}
		res := lr.next * math.Abs(z[len(z)-1])
		est := c0 - 0.5*(nv*z[0]+res*res/(L1+lam)) - 0.5*lam*rs*rs
		if est > best {
			best, bestLam = est, lam
		}
	}
	if math.IsNaN(bestLam) {
		return 0, nil, false
	}
	z, _ = tridiagSolve(lr.alpha, lr.beta, bestLam, nv)
	return bestLam, z, true
}

// dualEval returns dualLower's bound at λ from any x in the face and Mx = M′x (no
// orthogonality of anything is needed: the inequality holds for every x).
func dualEval(g, x, Mx []float64, c0, L1, rs, lam float64) float64 {
	Ax := append([]float64(nil), Mx...)
	axpy(Ax, lam, x)
	r := append([]float64(nil), g...)
	axpy(r, -1, Ax)
	nr := norm(r)
	U := 2*dot(g, x) - dot(x, Ax) + nr*nr/(L1+lam)
	return c0 - 0.5*U - 0.5*lam*rs*rs
}

// tridiagSolve solves (T + λI)z = c·e₁ for the symmetric tridiagonal T (diagonal alpha,
// off-diagonal beta) by LDLᵀ; ok is false unless every pivot is positive and finite
// (T + λI positive definite).
func tridiagSolve(alpha, beta []float64, lam, c float64) (z []float64, ok bool) {
	k := len(alpha)
	dd := make([]float64, k) // pivots
	l := make([]float64, k)  // multipliers
	for i := 0; i < k; i++ {
		dd[i] = alpha[i] + lam
		if i > 0 {
			l[i] = beta[i-1] / dd[i-1]
			dd[i] -= l[i] * beta[i-1]
		}
		if !(dd[i] > 0) || math.IsInf(dd[i], 0) {
			return nil, false
		}
	}
	z = make([]float64, k)
	z[0] = c
	for i := 1; i < k; i++ { // L y = c·e₁
		z[i] = -l[i] * z[i-1]
	}
	for i := 0; i < k; i++ {
		z[i] /= dd[i]
	}
	for i := k - 2; i >= 0; i-- { // Lᵀ z = D⁻¹y
		z[i] -= l[i+1] * z[i+1]
	}
	return z, true
}

// rayleighRitz solves the face's problem on span V (orthonormal, W[i] = P·M·V[i]) by the
// dense backend: T = ½(VᵀW + WᵀV) (symmetrized against rounding), Vᵀg, and every candidate
// of findInsideDense mapped back to the face as y = Σ zᵢVᵢ, its value the model's on the
// subspace; lowerSub is that subspace's bound, ok false where the dense backend declined.
func rayleighRitz(ctx context.Context, V, W [][]float64, g []float64, rs, c0, keep float64) (cands []subCandidate, lowerSub float64, ok bool) {
	K := len(V)
	T := mat.NewSymDense(K, nil)
	gt := make([]float64, K)
	for i := 0; i < K; i++ {
		gt[i] = dot(V[i], g)
		for j := i; j < K; j++ {
			T.SetSym(i, j, 0.5*(dot(V[i], W[j])+dot(V[j], W[i])))
		}
	}
	dc, lowerSub, ok := findInsideDense(ctx, T, gt, rs, c0, keep)
	if !ok {
		return nil, lowerSub, false
	}
	for _, c := range dc {
		y := make([]float64, len(g))
		for i, zi := range c.y {
			axpy(y, zi, V[i])
		}
		cands = append(cands, subCandidate{y: y, q: c.q, kase: c.kase})
	}
	return cands, lowerSub, true
}
