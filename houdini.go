// Package houdini minimizes a smooth, possibly nonconvex function over a polyhedron
// S = {x : Ax ≤ b} and certifies second-order stationarity, following HOUDINI of
// Avdiukhin and Yaroslavtsev, "HOUDINI: Escaping from Moderately Constrained Saddles".
//
// A point x ∈ S is a δ-SOSP (def:sosp) when no point of S within r of x is lower than
// f(x) − δ, with r = (δ/ρ)^(1/3) for a ρ-Lipschitz Hessian. Optimizer.Escape is one
// HoudiniEscape (alg:escaping_general_full): it builds the quadratic model
//
//	f(x + h) ≈ f(x) + vᵀh + ½ hᵀMh
//
// at x, walks every subset of the constraints that can be active within r of x, and in each
// affine subspace runs FindInside (alg:eigenvector_general_full) to list the model's
// minimizer candidates: the interior stationary point, every KKT point on the ball's
// boundary (roots of a secular equation) and the hard case of the trust-region subproblem.
// It returns a feasible point that lowers f by more than δ/3, or certifies x as a δ-SOSP of
// the model. Minimize repeats Escape until a certificate or a budget; between escapes
// it runs a first-order descent phase (gradient projection on the active rows) unless
// Settings.EscapesOnly asks for the paper's pure escape loop.
//
// Each escape costs about one eigendecomposition of M: the subsets are examined in M's
// eigenbasis through small bordered systems (eigenbasis.go, Golub 1973), only two
// multipliers per subset can matter (Martínez 1994), and provable pruning rules skip
// most subsets (escape.go).
//
// The exhaustive search over constraint subsets is exponential in the number of rows
// within r of x (deciding copositivity is NP-hard, rem:copositivity); Settings.MaxSubsets
// bounds it, and a search cut short never certifies.
//
// For large d, Settings.Method = MethodCorner (chosen by MethodAuto when there is no
// Hessian oracle and d ≥ AutoCornerDim) runs HoudiniCorner (alg:matrix_copositivity)
// instead: the same subset walk, but in each affine set a projected power iteration on
// gradient differences (FindInsideCorner, alg:eigenvector) replaces the model, so no d×d
// matrix is formed. It is randomized: it certifies only with probability
// 1 − Settings.CornerFailProb, and only at a corner with zero gradient and a user-given
// Settings.L (thm:copositive_case); otherwise a search that finds nothing ends with
// StatusCornerNoMove.
//
// Randomness (the paper's perturbations ζ and γ, the corner path's Gaussian starts and
// its estimate of L) comes from math/rand/v2, seeded by Settings.Seed afresh for every
// Minimize and every Escape call, so the same Settings and point give bit-identical
// results. An Optimizer is not safe for concurrent use; the oracles are called from one
// goroutine at a time.
package houdini

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"
)

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
}

// Settings configures an Optimizer. Zero means the documented default for every field.
type Settings struct {
	// Delta is δ of def:sosp: the decrease a point must not admit within radius r to be
	// certified. Escape returns only moves that lower f by more than δ/3.
	// Required; New returns ErrBadSettings when Delta ≤ 0.
	Delta float64

	// Rho is ρ, the Lipschitz constant of ∇²f (ass:lipschitz). It sets the radius
	// r = (δ/ρ)^(1/3) when Radius is 0. One of Rho and Radius is required.
	Rho float64

	// Radius is r of def:sosp: moves and certificates concern the ball B(x, r). When 0,
	// r = (δ/ρ)^(1/3). For a quadratic f (ρ = 0) any r is valid whose r² and δ/r² are
	// finite and nonzero (ErrBadSettings otherwise).
	Radius float64

	// Noise is ξ of alg:escaping_general_full: v gets Gaussian noise of standard
	// deviation ξδ/(r√d) per coordinate and M gets γI with γ uniform on [−ξδ/r², ξδ/r²]
	// (the paper's γ ~ U[−ξ, ξ], scaled to Hessian units). Default 0: the paper's
	// experiments use 0, and FindInside handles the exact hard case without noise.
	Noise float64

	// FeasTol is the feasibility tolerance: row i holds at x when
	//	âᵢ·x − b̂ᵢ ≤ FeasTol·max(1, |b̂ᵢ|)
	// for the row scaled to unit norm (âᵢ = aᵢ/‖aᵢ‖, b̂ᵢ = bᵢ/‖aᵢ‖). x0 must satisfy it
	// (else ErrInfeasible) and every returned point does; moves and certificates concern S
	// relaxed by this tolerance. Default 1e-9.
	FeasTol float64

	// HessStep is θ of alg:escaping_general_full, the finite-difference step of the
	// Hessian columns (∇f(x + θeᵢ) − ∇f(x))/θ when Problem.Hess is nil. Default
	// min(r/√d, √ε·max(1, ‖x‖∞)): within the paper's Θ(r/√d), and the step that balances
	// truncation against rounding for exact gradients. With Stochastic the default is
	// r/(2√d): the VRSG errors are divided by θ, so θ stays at the paper's scale.
	HessStep float64

	// Stochastic says that Problem.Grad is a stochastic oracle g(x) with E[g(x)] = ∇f(x)
	// and E‖g(x) − ∇f(x)‖² ≤ σ² (ass:sgd), such as a mini-batch gradient. Escape then
	// builds the model from VRSG estimates (alg:vrsg) as alg:escaping_general_full does:
	// Hessian columns (g_i − g⁽⁰⁾)/θ with θ = r/(2√d) and accuracy σ̃_H (HessAccuracy),
	// v to accuracy σ̃_v (GradAccuracy); without Func it tests decreases on
	// median-of-means integrals of the gradient, accepting a move only when the decrease
	// exceeds δ/3 by the test's accuracy δ/6 (rejections in Stats.Rejected). A run is
	// deterministic when the oracle draws from its own seeded generator: the oracle is
	// called in a fixed order. Minimize then skips the descent phase (as if EscapesOnly
	// were set): its line search needs exact oracles; for the same reason MethodAuto
	// means MethodFull and MethodCorner is refused (ErrBadSettings). Default false: Grad
	// is exact.
	Stochastic bool

	// Sigma is σ of ass:sgd, the root-mean-square error ‖g(x) − ∇f(x)‖ of the
	// stochastic Grad. When 0 and Stochastic is set, σ is estimated from the empirical
	// variance of the oracle: 32 calls at the first point, then pooled over every VRSG
	// call of the run (Result.Sigma reports the estimate). An estimate carries no
	// guarantee; set Sigma when a bound is known. Default 0.
	Sigma float64

	// NoisyFunc says that Problem.Func returns an unbiased estimate of f (a mini-batch
	// loss). Decreases are then measured by a median of means of paired differences
	// f̂(x) − f̂(y), sized from a 32-pair pilot estimate of their variance, and
	// Result.F is a mean of 64 calls. Default false: Func is exact.
	NoisyFunc bool

	// FailProb is ε of alg:vrsg: the probability that one VRSG estimate or one
	// stochastic decrease test misses its accuracy (given the true σ). Used when
	// Stochastic or NoisyFunc is set; must be in (0, 1). Default 1e-3.
	FailProb float64

	// GradAccuracy sets the accuracy σ̃_v = GradAccuracy·δ/r of the VRSG estimate of v
	// (line:linear_term, σ̃ = Θ(δ/r)), so the model's linear term is off by at most
	// GradAccuracy·δ on B(x, r) (the proof of lem:stochastic-approximation budgets δ/6).
	// Larger values need quadratically fewer calls. Default 1/6.
	GradAccuracy float64

	// HessAccuracy sets the accuracy σ̃_H = HessAccuracy·δ·θ/(√d·r²) of the VRSG
	// estimates g⁽⁰⁾, g_i of the Hessian columns; with the default θ = r/(2√d) this is
	// σ̃_H = HessAccuracy·δ/(2rd), the paper's Θ(ρr²/d). The model's quadratic term is
	// then off by at most HessAccuracy·δ on B(x, r) in the worst case (budget δ/6 in
	// lem:stochastic-approximation). The escape's oracle calls grow as
	// (d+1)·9σ²/σ̃_H²·ln(d/ε), so this is the constant to raise when calls are too many.
	// Default 1/6.
	HessAccuracy float64

	// EscapesOnly makes Minimize the paper's loop of escapes alone. By default Minimize
	// runs a first-order descent phase (gradient projection on the active rows) before
	// each escape and calls Escape only where that phase stalls; the certificate comes
	// from an escape either way.
	EscapesOnly bool

	// Purify, after a certificate, moves X within the face of its active rows to a wall
	// along a direction where f does not rise (a purification step: eigenvectors of the
	// Hessian on the face, tried on f), then escapes again, until a certified point admits
	// no such move. f rises by at most 1e-6·δ per move (rounding along exactly flat
	// directions), and every move makes another row active. Where f is multilinear, as in
	// max-cut relaxations, this ends at a vertex: integral ±1 coordinates. When the run
	// would end undecided right after a move (the new face has more weakly active rows
	// than MaxSubsets allows, a budget runs out, an oracle fails there), Minimize returns
	// to the point certified before it (StatusCertified, Stats.PurificationsUndone);
	// cancellation and the callback are reported as they are. A move costs a Hessian on
	// the face (m gradient differences and a d×m basis, m the face's dimension, d at an
	// interior point: leave Purify off where MethodCorner is chosen to save memory) and
	// one escape. Ignored for a stochastic oracle.
	Purify bool

	// MaxSubsets bounds the constraint subsets one Escape examines. An escape that hits
	// it without finding a move is not certified, and Minimize stops with
	// StatusSubsetLimit. Default 4096.
	MaxSubsets int

	// MaxEscapes bounds the escapes of Minimize (StatusEscapeLimit). Default 10000.
	MaxEscapes int

	// MaxGradEvals bounds the gradient evaluations of Minimize: a call that would exceed
	// it is not made, and Minimize returns the last accepted point with StatusEvalLimit,
	// even from inside an escape or a VRSG estimate (whose work is then lost). A budget
	// that runs out while Purify tries to move a certified point leaves the certificate
	// (StatusCertified). Default 0: no bound.
	MaxGradEvals int

	// Method selects the escape: MethodFull (HoudiniEscape, a d×d model, can certify),
	// MethodCorner (HoudiniCorner, alg:matrix_copositivity: gradients only, O(d·k)
	// memory; it certifies only with probability 1 − CornerFailProb and only under the
	// checked conditions of thm:copositive_case, see cornerEscape; otherwise Minimize
	// ends with StatusCornerNoMove instead of StatusCertified), or MethodAuto, which
	// takes the corner path when Problem.Hess is nil and d ≥ AutoCornerDim. Default
	// MethodAuto.
	Method Method

	// L is the Lipschitz constant of ∇f (an upper bound on λmax(∇²f) near x), the L of
	// alg:eigenvector whose step is η = 1/L. Used by MethodCorner only. When 0 it is
	// estimated at every corner escape by lipIters power steps on gradient differences,
	// times 1.5 (EscapeResult.L and Stats.L report it). Must be nonnegative and finite.
	L float64

	// CornerIters overrides T of alg:eigenvector, the power steps per subset of
	// MethodCorner; a corner escape with it set does not certify. Default 0:
	// T = ⌈(L r′²/(2εδ))·ln(√m/ξ)⌉ with ε = 1/4, ξ = CornerFailProb, m the face's dimension
	// and r′ its radius (lem:approx_eigenvector).
	CornerIters int

	// CornerFailProb is ξ of thm:copositive_case: the probability that MethodCorner misses
	// the escape of a (δ, r)-QCSP, and so the probability that its certificate is wrong
	// (EscapeResult.Confidence = 1 − ξ). Must be in [0, 1). Default 1e-3.
	CornerFailProb float64

	// Seed seeds the PCG generator of the perturbations ζ, γ. Any value, 0 included.
	Seed uint64

	// Callback, when not nil, is called by Minimize after every escape with the escape
	// number (from 1) and its result; returning true stops Minimize (StatusCallback).
	Callback func(iter int, e *EscapeResult) (stop bool)
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
	if c < 0 || c >= numCases {
		return "Case(?)"
	}
	return caseNames[c]
}

// Status says why Minimize stopped.
type Status int

// Statuses of Minimize. Every status but StatusCertified is early: X is feasible and no
// worse than x0, but carries no certificate.
const (
	StatusCertified        Status = iota // X is a δ-SOSP: every subset was examined (see Result.Confidence)
	StatusSubsetLimit                    // an escape hit MaxSubsets without finding a move
	StatusEscapeLimit                    // MaxEscapes escapes were made
	StatusEvalLimit                      // MaxGradEvals gradient evaluations were spent
	StatusCanceled                       // the context was canceled
	StatusCallback                       // the callback asked to stop
	StatusModelMismatch                  // the model kept promising a decrease f did not deliver, down to r/1024
	StatusNumericalFailure               // an eigendecomposition failed, or rounding at X exceeds δ's resolution
	StatusCornerNoMove                   // MethodCorner found no move where it cannot certify
	numStatuses
)

var statusNames = [...]string{"certified δ-SOSP", "subset limit", "escape limit",
	"evaluation limit", "canceled", "stopped by callback", "model mismatch",
	"numerical failure", "corner path found no move"}

// String describes the status.
func (s Status) String() string {
	if s < 0 || s >= numStatuses {
		return "Status(?)"
	}
	return statusNames[s]
}

// Early reports whether Minimize stopped before earning a certificate.
func (s Status) Early() bool { return s != StatusCertified }

// EscapeResult is the outcome of one HoudiniEscape at a point x.
type EscapeResult struct {
	// Found reports a move: X ∈ S, ‖X − x‖ ≤ r and f(X) < f(x) − δ/3.
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
	// decrease of δ/2 over S ∩ B(x, r): x is a δ-SOSP of the model. For MethodCorner it
	// reports that thm:copositive_case's checked conditions hold and no subset yielded a
	// move, so x is a δ-SOSP of the quadratic f with probability Confidence.
	Certified bool
	// Confidence is the probability that a certificate holds: 1 for MethodFull,
	// 1 − CornerFailProb for MethodCorner; 0 when not Certified.
	Confidence float64
	// Case is the FindInside case that produced X.
	Case Case
	// Subset lists the rows of A held as equalities for X, in increasing order.
	Subset []int
	// Examined and Pruned count the subsets examined and the subtrees of the walk skipped
	// with proof (a dependent row, an affine set farther than r from x, or a relaxed
	// bound that cannot beat keep = −δ/3 or the best candidate so far).
	Examined, Pruned int
	// Complete reports that the subset walk ran to the end (neither MaxSubsets nor the
	// context cut it short).
	Complete bool
	// Canceled reports that the context cut the walk short.
	Canceled bool
	// NumericalFailure reports that an eigendecomposition failed, so a subset went
	// unexamined, or that rounding at x exceeds the resolution δ needs (precisionLost: the
	// iterates of an unbounded problem running off): the walk is not Complete and
	// certifies nothing.
	NumericalFailure bool
	// Radius is the r of this escape.
	Radius float64
	// Method is the escape that ran: MethodFull or MethodCorner (never MethodAuto).
	Method Method
	// L is the gradient Lipschitz constant the corner path used (Settings.L or its
	// estimate); 0 for MethodFull.
	L float64
	// Iters counts the corner path's power steps (line:power_method) over all subsets.
	Iters int
	// GradEvals, HessEvals and FuncEvals count this escape's oracle calls.
	GradEvals, HessEvals, FuncEvals int
	// Rejected counts this escape's candidates refused by the decrease test (Stats.Rejected).
	Rejected int
	// Fallbacks counts the subsets that the eigenbasis method (examineEigen) could not
	// resolve with certainty and handed to a per-subset eigendecomposition.
	Fallbacks int
}

// Stats counts the work of Minimize.
type Stats struct {
	// GradEvals, HessEvals and FuncEvals count the oracle calls, every one (model,
	// decrease checks, descent, VRSG).
	GradEvals, HessEvals, FuncEvals int
	// Escapes counts the escapes made, the last (certifying or failing) one included.
	Escapes int
	// DescentSteps counts the accepted steps of the descent phase (not EscapesOnly).
	DescentSteps int
	// Purifications counts the moves of Settings.Purify; PurificationsUndone those
	// taken back because the escape after them could not decide (MaxSubsets, or
	// rounding), X being then the point certified before the move.
	Purifications, PurificationsUndone int
	// RadiusHalvings counts the times Minimize halved r after the model promised a
	// decrease f did not deliver.
	RadiusHalvings int
	// SubsetsExamined and SubsetsPruned add up EscapeResult.Examined and .Pruned.
	SubsetsExamined, SubsetsPruned int
	// Cases[c] counts the escapes that moved by case c.
	Cases [numCases]int
	// Rejected counts candidate moves checked on f whose measured decrease was not above
	// δ/3 (with a stochastic oracle: not significantly, at confidence 1 − FailProb).
	Rejected int
	// GradEstimates counts VRSG estimates (alg:vrsg); 0 for an exact oracle. GradEvals
	// counts every raw oracle call, those made by VRSG and decrease tests included.
	GradEstimates int
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
	// MaxViolation is the largest scaled violation max(0, âᵢ·X − b̂ᵢ) over the rows.
	MaxViolation float64
	// Confidence is the certificate's: 1 for the full path, 1 − CornerFailProb for the
	// corner path, 0 without a certificate.
	Confidence float64
	// Sigma is the σ the run used for a stochastic oracle: Settings.Sigma, or the
	// estimate pooled over the run's oracle calls when that is 0. It is 0 for an exact
	// oracle.
	Sigma float64
	Stats Stats
}

// Optimizer runs HOUDINI on one problem. Create it with New.
type Optimizer struct {
	p   Problem
	c   *Constraints
	s   Settings // with defaults filled
	r   float64
	sto *stochastic // state of Escape's stochastic oracle; nil when exact

	// noPrune turns off the two pruning rules of the subset walk (holdForcedRows and the
	// relaxed bound in walk); the tests compare verdicts against it.
	noPrune bool
	// referenceEscape examines every subset by its own EigenSym (findInside) instead of
	// from M's eigenbasis (examineEigen); the tests compare the two.
	referenceEscape bool
}

// New returns an Optimizer for p over c (nil c means unconstrained) with settings s.
// It returns ErrBadProblem when p.Grad is nil and ErrBadSettings (as a *SettingsError)
// for an invalid setting.
func New(p Problem, c *Constraints, s Settings) (*Optimizer, error) {
	if p.Grad == nil {
		return nil, ErrBadProblem
	}
	s, r, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	o := &Optimizer{p: p, c: c, s: s, r: r}
	o.sto = o.newStochastic()
	return o, nil
}

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// withDefaults validates s, fills its defaults and returns the radius r.
func (s Settings) withDefaults() (Settings, float64, error) {
	bad := func(field, why string) (Settings, float64, error) {
		return s, 0, &SettingsError{Field: field, Reason: why}
	}
	switch {
	case !(s.Delta > 0) || math.IsInf(s.Delta, 1):
		return bad("Delta", "must be positive and finite")
	case s.Rho < 0 || math.IsNaN(s.Rho) || math.IsInf(s.Rho, 1):
		return bad("Rho", "must be nonnegative and finite")
	case s.Radius < 0 || math.IsNaN(s.Radius) || math.IsInf(s.Radius, 1):
		return bad("Radius", "must be nonnegative and finite")
	case s.Radius == 0 && s.Rho == 0:
		return bad("Radius", "neither Rho nor Radius is set")
	case s.Noise < 0 || math.IsNaN(s.Noise) || math.IsInf(s.Noise, 1):
		return bad("Noise", "must be nonnegative and finite")
	case s.FeasTol < 0 || math.IsNaN(s.FeasTol) || s.FeasTol >= 1:
		return bad("FeasTol", "must be in [0, 1)")
	case s.HessStep < 0 || math.IsNaN(s.HessStep) || math.IsInf(s.HessStep, 1):
		return bad("HessStep", "must be nonnegative and finite")
	case s.Sigma < 0 || math.IsNaN(s.Sigma) || math.IsInf(s.Sigma, 1):
		return bad("Sigma", "must be nonnegative and finite")
	case s.FailProb < 0 || !(s.FailProb < 1):
		return bad("FailProb", "must be in (0, 1)")
	case s.GradAccuracy < 0 || math.IsNaN(s.GradAccuracy) || math.IsInf(s.GradAccuracy, 1):
		return bad("GradAccuracy", "must be nonnegative and finite")
	case s.HessAccuracy < 0 || math.IsNaN(s.HessAccuracy) || math.IsInf(s.HessAccuracy, 1):
		return bad("HessAccuracy", "must be nonnegative and finite")
	case s.Method == MethodCorner && (s.Stochastic || s.NoisyFunc):
		return bad("Method", "MethodCorner needs exact oracles (Stochastic and NoisyFunc unset)")
	case s.MaxSubsets < 0:
		return bad("MaxSubsets", "must be nonnegative")
	case s.MaxEscapes < 0:
		return bad("MaxEscapes", "must be nonnegative")
	case s.MaxGradEvals < 0:
		return bad("MaxGradEvals", "must be nonnegative")
	case s.Method < 0 || s.Method >= numMethods:
		return bad("Method", "is not a Method constant")
	case s.L < 0 || math.IsNaN(s.L) || math.IsInf(s.L, 1):
		return bad("L", "must be nonnegative and finite")
	case s.CornerIters < 0:
		return bad("CornerIters", "must be nonnegative")
	case s.CornerFailProb < 0 || !(s.CornerFailProb < 1):
		return bad("CornerFailProb", "must be in [0, 1)")
	}
	r := s.Radius
	if r == 0 {
		r = math.Cbrt(s.Delta / s.Rho)
		if !(r > 0) || math.IsInf(r, 1) {
			return bad("Rho", "(Delta/Rho)^(1/3) is not a positive finite radius")
		}
	}
	// r² and δ/r² scale the trust region and the noise: both must be finite and nonzero,
	// or every candidate is NaN and nothing could be found (nor honestly certified).
	if r2 := r * r; !(r2 > 0) || math.IsInf(r2, 1) || math.IsInf(s.Delta/r2, 1) || !(s.Delta/r2 > 0) {
		return bad("Radius", "must keep r² and δ/r² finite and nonzero (about 1e-150 < r < 1e150)")
	}
	if s.CornerFailProb == 0 {
		s.CornerFailProb = defaultCornerFailProb
	}
	if s.FeasTol == 0 {
		s.FeasTol = defaultFeasTol
	}
	if s.MaxSubsets == 0 {
		s.MaxSubsets = defaultMaxSubsets
	}
	s.stochasticDefaults()
	if s.MaxEscapes == 0 {
		s.MaxEscapes = defaultMaxEscapes
	}
	return s, r, nil
}

const (
	defaultFeasTol        = 1e-9
	defaultCornerFailProb = 1e-3
	defaultMaxSubsets     = 4096
	defaultMaxEscapes     = 10000
)

// Radius returns the r of the optimizer's escapes and certificates.
func (o *Optimizer) Radius() float64 { return o.r }

// Minimize runs HOUDINI on p over c from x0; see Optimizer.Minimize.
func Minimize(ctx context.Context, p Problem, c *Constraints, x0 []float64, s Settings) (*Result, error) {
	o, err := New(p, c, s)
	if err != nil {
		return nil, err
	}
	return o.Minimize(ctx, x0)
}

// errors.Is-able sentinels. Typed errors below wrap them and say where.
var (
	// ErrBadProblem: the Problem lacks Grad.
	ErrBadProblem = errors.New("houdini: Problem.Grad is nil")
	// ErrBadSettings: a setting is out of range (see *SettingsError).
	ErrBadSettings = errors.New("houdini: invalid settings")
	// ErrDimension: lengths of A, b, bounds, x or an oracle's output disagree (*DimensionError).
	ErrDimension = errors.New("houdini: dimension mismatch")
	// ErrNonFinite: NaN or ±Inf in input data or from an oracle (*NonFiniteError).
	ErrNonFinite = errors.New("houdini: non-finite value")
	// ErrZeroRow: a row of A is zero (*RowError).
	ErrZeroRow = errors.New("houdini: zero constraint row")
	// ErrEmpty: S = {x : Ax ≤ b} is empty.
	ErrEmpty = errors.New("houdini: feasible set is empty")
	// ErrInfeasible: the start point is outside S (*InfeasibleError).
	ErrInfeasible = errors.New("houdini: point is infeasible")
)
