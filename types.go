package houdini

import (
	"fmt"
	"time"

	"gonum.org/v1/gonum/mat"
)

// This file holds the types the user meets: the problem, the method and status enums,
// and the results. See settings.go for Settings and errors.go for the errors.

// Problem is the objective. Only Grad is required.
type Problem struct {
	// Func evaluates f(x). It must not modify x. Optional: when nil, f(y) − f(x) is
	// measured by integrating Grad along the segment from x to y (Gauss–Legendre), so a
	// gradient oracle alone suffices, as in the paper; Result.F is then NaN and
	// Result.Decrease holds f(x0) − f(X).
	Func func(x []float64) float64

	// Grad writes ∇f(x) into grad. It must not modify x. Required. Grad is evaluated at
	// points within the search radius of feasible points, which may lie outside S.
	Grad func(grad, x []float64)

	// Hess writes ∇²f(x) into hess. It must not modify x. Optional: when nil the Hessian
	// is built from d gradient differences, as in alg:escaping_general_full ("Compute H").
	Hess func(hess *mat.SymDense, x []float64)

	// HessVec writes the Hessian-vector product ∇²f(x)·v into hv. It must modify neither
	// x nor v. Optional, and used only when Hess is nil: below MatrixFreeDim the model's
	// d×d Hessian is then built from d products (exact, where gradient differences are
	// not), and from MatrixFreeDim on no d×d matrix is formed at all (MethodFull runs
	// matrix-free, see MatrixFreeDim). Without it, products come from gradient
	// differences, (∇f(x + θv) − ∇f(x))/θ: one Grad call each. Calls count in HessEvals.
	HessVec func(hv, x, v []float64)

	// Sampled, when not nil, gives f as an average over samples the library can name, so
	// that it can ask for the same samples at two points. The run is then stochastic
	// (Settings.Stochastic.Grad is implied) and Func, Grad and Hess above are not called
	// (Grad may be nil). See Sampled.
	Sampled *Sampled
}

// Sampled is a stochastic objective whose samples the library can name:
//
//	f(x) = E_s f_s(x),   a finite sum (1/N)·Σ_{s<N} f_s(x) when N > 0,
//
// with oracles that average over a batch of sample ids. Naming the samples lets the
// library use common random numbers (the same mini-batch at x and x + θeᵢ: a gradient
// difference or a decrease measured on one batch cancels most of its noise), choose
// every batch's size (growing batches in the descent phase, the paper's accuracy only
// where a certificate needs it), take a full pass — the exact gradient — instead of any
// estimate that would cost more, and count the data it uses (Stats.SampleGrads,
// Stats.Passes). The ids of a run are drawn from a generator seeded by Settings.Seed, so
// a run is repeatable. The oracles must be deterministic (the same ids at the same x give
// the same value) and must not modify x, v or ids; ids may repeat (a sample drawn twice
// counts twice).
//
// With Sampled, Minimize's descent phase grows its batches by a norm test and checks its
// steps on the batch's own objective; an escape builds its model in rounds of 4× more
// samples and certifies x as soon as the model, shifted by its own error bounds, proves
// that no point of S ∩ B(x, r) is lower than f(x) − δ (Result.Confidence 1 − FailProb, or
// 1 when the model came from full passes). Those bounds rest on variances estimated from
// the samples (upper confidence bounds for Gaussian-like noise): like an estimated σ,
// not a guarantee for heavy-tailed samples. Runs cost Stats.SampleGrads sample gradients.
type Sampled struct {
	// N is the size of a finite data set: ids are in [0, N), drawn uniformly with
	// replacement. 0 means a stream (an expectation): ids are fresh integers 0, 1, 2, …
	// each naming a new sample, and the oracle must map an id to the same sample every
	// time (seed a generator with it). Must be nonnegative.
	N int

	// Grad writes the mean of ∇f_s(x) over s ∈ ids into grad. Required.
	Grad func(grad, x []float64, ids []int)

	// Func returns the mean of f_s(x) over s ∈ ids. Optional: with it, decreases are
	// measured on losses of common samples; without, by integrating Grad along the move
	// on common samples (three gradients a sample), and Result.F is NaN.
	Func func(x []float64, ids []int) float64

	// HessVec writes the mean of ∇²f_s(x)·v over s ∈ ids into hv. Optional: with it, the
	// model's Hessian columns are Hessian-vector products instead of gradient differences
	// on common samples (no finite-difference step).
	HessVec func(hv, x, v []float64, ids []int)
}

// MatrixFreeDim is the dimension from which MethodFull builds no d×d model when
// Problem.Hess is nil: the model's Hessian is an operator (Problem.HessVec, or gradient
// differences), each subset's trust-region subproblem is solved in a Krylov subspace
// (krylov.go) and the smallest curvature is bounded by Lanczos with the error bound of
// Kuczyński & Woźniakowski, so that a certificate holds with a probability below 1
// (EscapeResult.Confidence). Below it the d×d model costs at most d products or gradient
// calls and one eigendecomposition of order d (≈ 1.5 s at d = 1000, about 8× that at 2000),
// and is exact; the Krylov backend costs about a hundred products per face, so for walks
// over many faces of general rows the d×d model is the cheaper one up to here: on the
// 8-row face saddle at d = 1000 (BenchmarkFullEscape_d1000_k8, gradient differences)
// the matrix-free escape took 4.6 s and 14 037 gradient calls for its 163 subsets, the
// d×d one 1.5 s and 1 004 calls.
const MatrixFreeDim = 2000

// Method selects how Escape searches for a move. See Settings.Method.
type Method int

// The escape methods. MethodAuto resolves to one of the other two at every escape, and
// EscapeResult.Method says which.
const (
	// MethodAuto uses MethodCorner when Problem.Hess and Problem.HessVec are nil and
	// d ≥ AutoCornerDim, and MethodFull otherwise.
	MethodAuto Method = iota
	// MethodFull is HoudiniEscape (alg:escaping_general_full): a quadratic model,
	// FindInside in every subset; it can certify a δ-SOSP of the model. Below
	// MatrixFreeDim (or with Problem.Hess) the model is d×d, from Problem.Hess, d
	// HessVec products or d+1 gradient calls: exact and deterministic, O(d²) memory,
	// O(d³) per subset. From MatrixFreeDim on without Problem.Hess (and from d = 1500 with
	// it) the model is an operator and each subset's subproblem is solved by Lanczos
	// (krylov.go): O(d·k) memory, a certificate with Confidence 1 − (a sum of 10⁻⁶ per
	// Krylov subset).
	MethodFull
	// MethodCorner is HoudiniCorner (alg:matrix_copositivity): gradients only, a projected
	// power iteration (FindInsideCorner, alg:eigenvector) in every subset. O(d·k) memory,
	// O(d·|I|) per step plus one gradient call. Randomized: it certifies only with
	// probability 1 − Corner.FailProb, under thm:copositive_case's checked conditions.
	MethodCorner
	numMethods
)

// AutoCornerDim is the dimension from which MethodAuto takes the corner path when no
// Hessian oracle is given. The full path costs d+1 gradient calls, one O(d³)
// eigendecomposition and about 60·d² bytes, and can certify; the corner path costs about
// T ≈ (L r²/δ)·ln(√d/ξ)·2 gradient calls per subset and O(d·k) memory, and never
// certifies. On the 8-row face saddle of the tests (BenchmarkFullEscape_d1000_k8,
// BenchmarkCornerEscape_d1000_k8; cheap O(d) oracle, two shared cores) the full path
// takes 1.5 s, 1004 gradient calls and 59 MB at d = 1000, the corner path 3.3 s, 212 129
// calls and 4.4 MB: the full path is the better one until its d² memory and d³
// eigendecomposition (≈ 35 s at d = 3000 in pure Go) dominate.
const AutoCornerDim = 3000

var methodNames = [...]string{"auto", "full", "corner"}

// String names the method.
func (m Method) String() string {
	return enumName(m, methodNames[:], "Method")
}

// Case says which candidate of FindInside produced a move.
type Case int

// The cases of alg:eigenvector_general_full, plus the exact hard case and the vertex.
const (
	CaseNone          Case = iota // no move
	CaseLargeGradient             // Case 1: the linear term's minimizer on the ball
	CaseInterior                  // Case 2: the stationary point inside the ball
	CaseBoundary                  // Case 3: a KKT point on the sphere, μ a secular root
	CaseHard                      // Case 3, hard case: μ an eigenvalue whose ṽ part vanishes
	CaseVertex                    // the affine set is a point, or the projection p itself
	CaseCorner                    // FindInsideCorner (alg:eigenvector): ±r′·x̂ from the power iteration
	numCases
)

var caseNames = [...]string{"none", "large gradient", "interior", "ball boundary", "hard case", "vertex", "corner power iteration"}

// String names the case.
func (c Case) String() string {
	return enumName(c, caseNames[:], "Case")
}

// Status says why Minimize stopped.
type Status int

// Statuses of Minimize. The zero value, StatusNotRun, is what a Result no run filled in
// carries; every status but StatusCertified is early: X is feasible and no worse than x0,
// but carries no certificate.
const (
	StatusNotRun           Status = iota // the zero value: no run produced this Result
	StatusCertified                      // X is a δ-SOSP: every subset was examined (see Result.Confidence)
	StatusSubsetLimit                    // an escape hit MaxSubsets without finding a move
	StatusEscapeLimit                    // MaxEscapes escapes were made
	StatusEvalLimit                      // MaxGradEvals gradient evaluations were spent
	StatusCanceled                       // the context was canceled
	StatusCallback                       // the callback asked to stop
	StatusModelMismatch                  // the model kept promising a decrease f did not deliver, down to r/1024
	StatusNumericalFailure               // an eigendecomposition failed, or rounding decides the escape at X (EscapeResult.NumericalFailure)
	StatusCornerNoMove                   // MethodCorner found no move where it cannot certify
	StatusOracleFailure                  // an oracle returned NaN or Inf or panicked: Minimize's error says where
	StatusUnbounded                      // f fell at least linearly along a ray in S out to 1.1e13·r (see Optimizer.Minimize)
	numStatuses
)

var statusNames = [...]string{"not run", "certified δ-SOSP", "subset limit", "escape limit",
	"evaluation limit", "canceled", "stopped by callback", "model mismatch",
	"numerical failure", "corner path found no move", "oracle failure", "unbounded below"}

// String describes the status.
func (s Status) String() string {
	return enumName(s, statusNames[:], "Status")
}

// Early reports whether Minimize stopped before earning a certificate (StatusNotRun
// included).
func (s Status) Early() bool { return s != StatusCertified }

// EscapeResult is the outcome of one HoudiniEscape at a point x.
type EscapeResult struct {
	// Found reports a move: X satisfies every row within FeasTol (Settings.FeasTol),
	// ‖X − x‖ ≤ r and f(X) < f(x) − δ/3.
	Found bool
	// X is the new point when Found, else a copy of x.
	X []float64
	// Decrease is f(x) − f(X) as measured (by Func, or by integrating Grad); 0 when
	// not Found.
	Decrease float64
	// ModelDecrease is the model's decrease at X when Found; otherwise the largest decrease
	// the model admits over S ∩ B(x, r) among the examined subsets (≤ δ/2 when Certified).
	ModelDecrease float64
	// Certified reports that every relevant subset was examined and the model admits no
	// decrease of δ/2 over S ∩ B(x, r), S exactly (the rows as given, not relaxed by
	// FeasTol; see Settings.FeasTol): x is a δ-SOSP of the model. For MethodCorner it
	// reports that thm:copositive_case's checked conditions hold and no subset yielded a
	// move, so x is a δ-SOSP of the quadratic f with probability Confidence.
	Certified bool
	// Confidence is the probability that the certificate at CertifiedRadius holds: 1 for
	// MethodFull with exact oracles and a d×d model; for a matrix-free one (MatrixFreeDim)
	// 1 − Σ ξ over the subsets whose bound rests on a Lanczos run from a random start
	// (ξ = 10⁻⁶ each, the Kuczyński–Woźniakowski bound on the smallest eigenvalue, taken
	// over every step the run could stop at; 1 when none did), less 10⁻⁶ once when the
	// model's bound on ‖M‖₂ is a Lanczos one; 1 − Stochastic.FailProb for a model built from
	// stochastic estimates (see Settings.Stochastic), 1 − Corner.FailProb for MethodCorner;
	// 1 − 10⁻⁶ where the Lanczos box certificate decided (a box, gradients only, d ≥ 640:
	// one Lanczos run on gradient differences instead of the d-column model, facecert.go;
	// 1 only when the run spans ℝᵈ). Every probability below 1 is over the random starts,
	// which are drawn from Settings.Seed: it holds for an f and S chosen without knowledge
	// of the seed, as for any randomized method; an f built against a known seed (an
	// eigenvector of negative curvature orthogonal to every Krylov space the start
	// generates) defeats it. For a CertifiedRadius below Radius the sum runs over the walks that certified at
	// every radius tried up to it (the radius reported is chosen from their verdicts). 0
	// when CertifiedRadius is 0.
	Confidence float64
	// Case is the FindInside case that produced X.
	Case Case
	// Subset lists the inequality constraints held as equalities for X (besides the
	// equalities, which every subset holds), in increasing order, numbered as Constraints
	// numbers them (Constraints.Constraint names each).
	Subset []int
	// Examined and Pruned count the subsets examined and the subtrees of the walk skipped
	// with proof (a dependent row, an affine set farther than r from x, or a relaxed
	// bound that cannot beat keep = −δ/3 or the best candidate so far).
	Examined, Pruned int
	// Forced counts the rows near x held in every subset because leaving them costs more
	// than the model can gain within r (by their KKT multipliers; 0 on the corner path),
	// and Walked the rows near x left for the subset walk to choose from: it examines at
	// most 2^Walked subsets.
	Forced, Walked int
	// CertifiedRadius is the radius r′ ≤ Radius at which this escape certified x: Radius
	// when Certified; else, when MaxSubsets cut the walk short at Radius, the largest
	// r′ = Radius/2ᵏ (k ≤ 6) at which a complete walk certified x (no decrease of δ/2 of
	// the model over S ∩ B(x, r′)), the walks going up from Radius/64 within a pool of
	// MaxSubsets/8 subsets (Settings.MaxSubsets); 0 when none. Vacuous reports that at r′ the model
	// cannot decrease by δ/2 anyway (‖v‖r′ + ½‖M‖_F·r′² ≤ δ/2), so the certificate says
	// nothing. The walks below Radius are counted in Examined and Pruned. On a
	// matrix-free model (MatrixFreeDim) a CertifiedRadius below Radius rests on Lanczos
	// bounds, as a certificate there does, and Confidence says with what probability it
	// holds.
	CertifiedRadius float64
	Vacuous         bool
	// Complete reports that the subset walk ran to the end (neither MaxSubsets nor the
	// context cut it short, nor the early stop after a move was found: the walk then
	// looks on for a better one within a bounded work, see walk.earlyStop).
	Complete bool
	// Canceled reports that the context cut the escape short: no move and no certificate,
	// whatever was examined.
	Canceled bool
	// EvalLimit reports that Settings.MaxGradEvals ran out: the escape stopped before the
	// gradient call that would exceed it, with no move and no certificate.
	EvalLimit bool
	// NumericalFailure reports that rounding, not the problem, decides this escape, which
	// then certifies nothing: an eigendecomposition failed, so a subset went unexamined
	// (Complete is false); or the rounding of the model's values on the ball, η of
	// modelRounding (about 16(d + 2)ε·(‖∇f‖ + ‖M‖_F·r)·r), is not below δ/6 and no move
	// was found; or the model
	// promised a decrease that no point x + h the floats near x can represent keeps — the
	// spacing of floats at x is not small against r (‖x‖/r ≳ 10¹⁵, e.g. the iterates of
	// an unbounded problem running off), or f cannot tell x + h from x.
	NumericalFailure bool
	// Radius is the r of this escape.
	Radius float64
	// Method is the escape that ran: MethodFull or MethodCorner (never MethodAuto).
	Method Method
	// L is the gradient Lipschitz constant the corner path used (Settings.Corner.L or its
	// estimate); 0 for MethodFull.
	L float64
	// Iters counts the corner path's power steps (line:power_method) over all subsets.
	Iters int
	// GradEvals, HessEvals and FuncEvals count this escape's oracle calls.
	GradEvals, HessEvals, FuncEvals int
	// Rejected counts this escape's candidates refused by the decrease test (Stats.Rejected).
	Rejected int
	// Fallbacks counts the subsets that the eigenbasis backend of FindInside (ebSubset)
	// could not resolve with certainty and handed to the dense backend (a per-subset
	// eigendecomposition).
	Fallbacks int
	// Active lists the constraints active at x with their least-squares KKT multipliers
	// for the model's gradient v (∇f(x), plus Full.Noise's perturbation; the corner path's
	// ∇f(x)), and KKTResidual what they leave (see Result.Active); nil and 0 when the
	// escape ended before building its model.
	Active      []ActiveConstraint
	KKTResidual float64
}

// Stats counts the work of Minimize.
type Stats struct {
	// GradEvals, HessEvals and FuncEvals count the oracle calls, every one (model,
	// decrease checks, descent, VRSG); HessEvals counts Hess and HessVec calls.
	GradEvals, HessEvals, FuncEvals int
	// Escapes counts the escapes made, the last (certifying or failing) one included.
	Escapes int
	// DescentSteps counts the accepted steps of the descent phase (not EscapesOnly).
	DescentSteps int
	// Purifications counts the moves of Settings.Purify; PurificationsUndone those
	// taken back because the escape after them could not decide (MaxSubsets, or
	// rounding), X being then the point certified before the move.
	Purifications, PurificationsUndone int
	// FlatMoves counts the moves made where an escape could not decide (see
	// Settings.NoFlatMoves); FlatMovesUndone is 1 when the run went back to the undecided
	// point because no escape after them decided either (or a budget ran out), else 0.
	FlatMoves, FlatMovesUndone int
	// Restarts counts the restarts of Settings.Search, and RestartsImproved those that led
	// to a lower x* (certified once the search is over).
	Restarts, RestartsImproved int
	// RadiusHalvings counts the times Minimize halved r after the model promised a
	// decrease f did not deliver.
	RadiusHalvings int
	// SubsetsExamined and SubsetsPruned add up EscapeResult.Examined and .Pruned.
	SubsetsExamined, SubsetsPruned int
	// Cases[c] counts the escapes that moved by case c.
	Cases [numCases]int
	// Rejected counts candidate moves checked on f whose measured decrease was not above
	// δ/3 (with a stochastic oracle: not significantly, at confidence 1 − Stochastic.FailProb).
	Rejected int
	// GradEstimates counts VRSG estimates (alg:vrsg); 0 for an exact oracle. GradEvals
	// counts every raw oracle call, those made by VRSG and decrease tests included.
	GradEstimates int
	// SampleGrads, SampleFuncs and SampleHessVecs count the data the run used: with
	// Problem.Sampled the ids passed to its Grad, Func and HessVec (a batch of n ids is n
	// samples); otherwise one per call of Grad and Func (a mini-batch call of a plain
	// stochastic Grad is one sample of ass:sgd), and SampleHessVecs is 0.
	SampleGrads, SampleFuncs, SampleHessVecs int
	// Passes is SampleGrads/N, the passes over a finite data set (Sampled.N > 0); 0 for
	// a stream or without Problem.Sampled.
	Passes float64
	// DescentBatch is the last batch size of the stochastic descent phase (samples per
	// gradient estimate; growing by the norm test); 0 for exact oracles.
	DescentBatch int
	// FullEscapes and CornerEscapes count the escapes by the method that ran.
	FullEscapes, CornerEscapes int
	// CornerIters counts the corner path's power steps; L is the last corner escape's L.
	CornerIters int
	L           float64
	// Runtime is the wall time of Minimize.
	Runtime time.Duration
}

// Result is the outcome of Minimize.
type Result struct {
	// X is the last point: feasible (MaxViolation), and no worse than x0 (up to Purify's
	// rounding allowance of 1e-6·δ per move).
	X []float64
	// F is f(X) when Problem.Func is set, else NaN.
	F float64
	// Decrease is f(x0) − f(X), measured by Func or by integrating Grad.
	Decrease float64
	// Status says why Minimize stopped; only StatusCertified carries a certificate.
	Status Status
	// Delta and Radius are the δ and r of the certificate (or of the last escape).
	Delta, Radius float64
	// CertifiedRadius and Vacuous are the last escape's at X (EscapeResult.CertifiedRadius):
	// Radius when Certified; with StatusSubsetLimit, the largest r′ = Radius/2ᵏ at which
	// X is certified (with probability Confidence), or 0.
	CertifiedRadius float64
	Vacuous         bool
	// MaxViolation is the largest scaled violation of a constraint at X (Constraints.Violation,
	// 0 when X is inside every inequality): max(0, âᵢ·X − b̂ᵢ) over rows and bounds,
	// |âᵢ·X − b̂ᵢ| over equalities, for rows scaled to unit norm.
	MaxViolation float64
	// Active lists the constraints active at X (within FeasTol; every equality), with
	// their least-squares KKT multipliers (see ActiveConstraint), as SciPy's and IPOPT's
	// results report them, in increasing order of Constraints' numbering. The multipliers
	// are those of the last escape at X (EscapeResult.Active: for the model's gradient,
	// ∇f(X) unless Full.Noise perturbs it or the oracle is stochastic), so they cost no
	// oracle call; NaN when no escape ran at X (a run cut short after a move).
	Active []ActiveConstraint
	// KKTResidual is ‖∇f(X) + Σ μᵢaᵢ‖ for the multipliers of Active: the part of the
	// gradient no active constraint balances (0 at a KKT point with independent active
	// constraints; with μ ≥ 0 for the inequalities, X is then first-order stationary). NaN
	// when the multipliers are.
	KKTResidual float64
	// Confidence is the certificate's: 1 for the full path with exact oracles and a d×d
	// model (and for a certificate whose model came from full passes over a finite Sampled
	// data set), below 1 where a matrix-free escape's bound rests on Lanczos
	// (EscapeResult.Confidence; the Lanczos box certificate's, facecert.go, 1 − 10⁻⁶),
	// 1 − Stochastic.FailProb for one built from stochastic
	// estimates, 1 − Corner.FailProb for the corner path, 0 without a certificate. With
	// StatusSubsetLimit and a CertifiedRadius above 0 it is that certificate's
	// (EscapeResult.Confidence).
	Confidence float64
	// Sigma is the σ the run used for a stochastic oracle: Settings.Stochastic.Sigma, or the
	// estimate pooled over the run's oracle calls when that is 0 — per call of a plain
	// stochastic Grad, per sample with Problem.Sampled. It is 0 for an exact oracle.
	Sigma float64
	// Stats counts the run's work.
	Stats Stats
}

// ConstraintKind says which part of a polyhedron a constraint belongs to (see Polyhedron).
// The zero value names no constraint.
type ConstraintKind int

// The kinds of constraints.
const (
	Inequality ConstraintKind = iota + 1 // a row of A: aᵢ·x ≤ bᵢ
	Equality                             // a row of Aeq: aᵢ·x = bᵢ
	LowerBound                           // a lower bound: xⱼ ≥ Lowerⱼ
	UpperBound                           // an upper bound: xⱼ ≤ Upperⱼ
)

var kindNames = [...]string{"no constraint", "inequality", "equality", "lower bound", "upper bound"}

// String names the kind.
func (k ConstraintKind) String() string { return enumName(k, kindNames[:], "ConstraintKind") }

// Constraint names one constraint of a polyhedron.
type Constraint struct {
	Kind ConstraintKind
	// Index is the row of A (Inequality) or of Aeq (Equality), or the coordinate of a
	// bound (LowerBound, UpperBound).
	Index int
}

// String reads "row 3 of A", "row 0 of Aeq", "lower bound of x[2]".
func (c Constraint) String() string {
	switch c.Kind {
	case Inequality:
		return fmt.Sprintf("row %d of A", c.Index)
	case Equality:
		return fmt.Sprintf("row %d of Aeq", c.Index)
	case LowerBound, UpperBound:
		return fmt.Sprintf("%v of x[%d]", c.Kind, c.Index)
	}
	return c.Kind.String()
}

// ActiveConstraint is a constraint active at a point, with its KKT multiplier μ: at X,
//
//	∇f(X) + Σ μᵢ aᵢ (rows of A and Aeq, as given) + Σ μⱼ eⱼ (upper bounds) − Σ μⱼ eⱼ (lower bounds) ≈ 0,
//
// the multipliers being the least-squares solution over the active set (Result.KKTResidual
// is what remains). At a KKT point μ ≥ 0 for inequalities and bounds; an equality's μ has
// either sign. Dependent active constraints get 0 where another carries the multiplier.
type ActiveConstraint struct {
	Constraint
	Multiplier float64
}

// enumName returns names[v], or kind(?) for a value out of range.
func enumName[T ~int](v T, names []string, kind string) string {
	if v < 0 || int(v) >= len(names) {
		return kind + "(?)"
	}
	return names[v]
}
