package houdini

import (
	"math"
	"math/rand/v2"
)

// Settings configures an Optimizer. Zero means the documented default for every field;
// only Delta and one of Rho and Radius are required. The fields shared by every method come
// first; Full, Corner and Stochastic hold the knobs of one method each, and a method
// ignores the others' (see Method).
type Settings struct {
	// Delta is δ of def:sosp: the decrease a point must not admit within radius r to be
	// certified (StatusCertified). Escape returns only moves that lower f by more than δ/3.
	// Required; New returns ErrBadSettings when Delta ≤ 0.
	Delta float64

	// Rho is ρ, the Lipschitz constant of ∇²f (ass:lipschitz). It sets the radius
	// r = (δ/ρ)^(1/3) when Radius is 0. One of Rho and Radius is required.
	Rho float64

	// Radius is r of def:sosp: moves and certificates concern the ball B(x, r). When 0,
	// r = (δ/ρ)^(1/3). For a quadratic f (ρ = 0) any r is valid whose r² and δ/r² are
	// finite and nonzero (ErrBadSettings otherwise). Minimize halves it when the model
	// promises a decrease f does not deliver (StatusModelMismatch below r/1024).
	Radius float64

	// FeasTol is the feasibility tolerance: constraint i holds at x when
	//	âᵢ·x − b̂ᵢ ≤ FeasTol·max(1, |b̂ᵢ|) + 4ε·(|b̂ᵢ| + Σⱼ |âᵢⱼ xⱼ|)
	// (|âᵢ·x − b̂ᵢ| on the left for an equality), for the row scaled to unit norm
	// (âᵢ = aᵢ/‖aᵢ‖, b̂ᵢ = bᵢ/‖aᵢ‖; a bound is the row ±eⱼ with b̂ᵢ = uⱼ or −lⱼ),
	// ε = 2⁻⁵², the left side evaluated in twice the working precision (the exact value
	// for the stored data, rounded once). The second term is the rounding of the data —
	// the scaling of âᵢ and b̂ᵢ, the rounding of x's coordinates — so a point that
	// satisfies aᵢ·x ≤ bᵢ exactly holds, at any distance from the origin. Constraint i is
	// active at x when its slack b̂ᵢ − âᵢ·x is at most the same right side. x0 must
	// satisfy every constraint (else ErrInfeasible, naming the worst) and every returned
	// point does. It does not widen a certificate: a certificate at x concerns S itself,
	// every y with Ay ≤ b, Aeq y = beq and lower ≤ y ≤ upper exactly and ‖y − x‖ ≤ r,
	// whatever the rounding of x, of the rows' scaling and of the slacks (the escape
	// relaxes each inequality by a bound on that rounding, so that it decides on a superset
	// of S, and charges the equalities' rounding to the certificate's margin); points that
	// violate constraints by less than the tolerance are not covered, and in a sliver of
	// nearly parallel rows they can be far lower. Must be in [0, 1). Default 1e-9.
	FeasTol float64

	// Method selects the escape: MethodFull (HoudiniEscape, a d×d model or, from
	// MatrixFreeDim on, an operator; can certify;
	// knobs in Full), MethodCorner (HoudiniCorner, alg:matrix_copositivity: gradients
	// only, O(d·k) memory; knobs in Corner; it certifies only with probability
	// 1 − Corner.FailProb and only under the checked conditions of thm:copositive_case,
	// see cornerEscape; otherwise Minimize ends with StatusCornerNoMove instead of
	// StatusCertified), or MethodAuto, which takes the corner path when Problem.Hess and
	// Problem.HessVec are nil and d ≥ AutoCornerDim and means MethodFull for a stochastic
	// oracle. Default MethodAuto.
	Method Method

	// EscapesOnly makes Minimize the paper's loop of escapes alone. By default Minimize
	// runs a descent phase before each escape (L-BFGS-B on a box, a quasi-Newton
	// working-set method with general rows, negative-curvature steps at saddles; with a
	// stochastic oracle, gradient projection on batches that grow by a norm test; see
	// Stats.DescentSteps) and calls Escape only where the projected gradient is below
	// 10⁻²·δ/r (where the phase stalls, for a stochastic oracle); the certificate comes
	// from an escape either way. Default false.
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
	// one escape. Not made after a matrix-free escape (MatrixFreeDim: the move would form
	// the d×m basis and m×m face Hessian that path avoids), nor for a stochastic oracle.
	// Default false.
	Purify bool

	// NoFlatMoves turns off Minimize's flat moves. By default, where an escape ends
	// undecided at MaxSubsets with exact oracles, Minimize moves x within the face of its
	// active rows to a wall along a direction where f does not rise (Purify's move: f rises
	// by at most 1e-6·δ), which makes another row active — typically a near row whose small
	// slack is what the walk could not decide — and escapes again there, without the
	// descent phase in between. Each move lowers the face's dimension, so at most d
	// follow one another. When an escape after them moves, the run goes on from there;
	// when one certifies, the run is certified there; when none decides (MaxSubsets,
	// rounding, an oracle failing at the wall, the model's mismatch), Minimize returns to
	// the point the first of them left, with its own CertifiedRadius and
	// StatusSubsetLimit: there flat moves never make a run end at a worse point or with a
	// weaker report. A budget that runs out after them returns there too, with its status;
	// cancellation and the callback are reported where they stop (as for Purify), at most
	// d·1e-6·δ above that point. Stats.FlatMoves counts the moves.
	// Not made on the deeper search's restarts (SearchSettings), whose undecided ends are
	// abandoned; ignored for a stochastic oracle, on the corner path (MethodCorner) and
	// where the escape's model is matrix-free (MatrixFreeDim: the move's face Hessian
	// would be the d×d matrix such a run never forms).
	NoFlatMoves bool

	// Search asks for better points than the nearest δ-SOSP (see SearchSettings). Default:
	// none.
	Search SearchSettings

	// MaxSubsets bounds the constraint subsets one Escape examines. An escape that hits
	// it without finding a move is not certified, and Minimize stops with
	// StatusSubsetLimit; its walks for EscapeResult.CertifiedRadius then share
	// max(6, MaxSubsets/8) more. Default 4096.
	MaxSubsets int

	// MaxEscapes bounds the escapes of Minimize (StatusEscapeLimit). Default 10000.
	MaxEscapes int

	// MaxGradEvals bounds the gradient evaluations of one Minimize or Escape call: a call
	// that would exceed it is not made, and Minimize returns the last accepted point with
	// StatusEvalLimit, even from inside an escape or a VRSG estimate (whose work is then
	// lost); Escape returns with EscapeResult.EvalLimit, no move and no certificate. A
	// budget that runs out while Purify tries to move a certified point leaves the
	// certificate (StatusCertified). Default 0: no bound.
	MaxGradEvals int

	// Seed seeds the PCG generator of the run's randomness (the perturbations ζ, γ of
	// Full.Noise, the corner path's starts and its estimate of L), afresh for every
	// Minimize and Escape call. Any value, 0 included.
	Seed uint64

	// Callback, when not nil, is called by Minimize after every escape with the escape
	// number (from 1) and its result; returning true stops Minimize (StatusCallback). It
	// is called on Minimize's goroutine; Minimize calls running concurrently call it
	// concurrently. Default nil.
	Callback func(iter int, e *EscapeResult) (stop bool)

	// Progress, when not nil, is called by Minimize after every accepted descent step,
	// escape, purification and radius halving, with the point and the counts so far
	// (see Progress and NewPrinter). It observes only; it cannot stop the run (Callback and
	// the context can). Like Callback, it is called on Minimize's goroutine. Default nil.
	Progress func(Progress)

	// Full holds the knobs of the full path's quadratic model (MethodFull, and every
	// stochastic run, whose model is the full one).
	Full FullSettings

	// Corner holds the knobs of the corner path (MethodCorner).
	Corner CornerSettings

	// Stochastic says that the oracles are stochastic and holds the knobs of the
	// stochastic escape (alg:vrsg).
	Stochastic StochasticSettings
}

// SearchSettings configure the deeper search of Minimize, for better points than the
// nearest δ-SOSP: after a certificate, Minimize restarts from points farther and farther
// from the best certified point (a ladder of neighbourhoods) and keeps what is lower.
// Certificates are unchanged by it: Minimize returns the lowest certified point it met.
// By default it runs only where f is a nonconvex quadratic (see Rungs), where it costs
// about 2–6× the plain run's CPU time (its restarts' descent phases and one certificate
// more) and finds much better points (the README measures it); a convex f costs nothing more, a nonconvex non-quadratic one f at x* and at one
// restart point (two Func calls, or a few Grad calls without Func).
type SearchSettings struct {
	// Rungs is the number of rungs of the ladder. The restart points of rung k lie at
	// m = min(d, 2^k) coordinates from the best certified point x*: each is mirrored in
	// its bounds, lᵢ + uᵢ − xᵢ, or, lacking two bounds, moved by ±2^k·r/√m, so the
	// distance from x* about doubles from rung to rung; with general rows the move is
	// cut at the first row it meets. In a box the m coordinates are chosen as Kernighan
	// and Lin choose vertices to move, on the model of the escape that certified x*: the
	// first at random (Settings.Seed), each next the one whose mirroring, after the
	// others, raises the model least; otherwise all m at random. From there Minimize
	// runs its descent phase; a restart that ends no lower than x* by δ/3 is abandoned,
	// one that does becomes x* (not yet certified), and the ladder starts again at rung
	// 1. Only the last x* is certified, by an escape once the ladder is over; when that
	// escape moves, the run goes on from the move to a certificate, which, lower by more
	// than δ/3, reopens the ladder. The restarts stop after 8·Rungs·Tries in all. When a
	// budget, the Callback, the context or an undecided escape (MaxSubsets, rounding, an
	// oracle failing) ends the run, Minimize returns the lowest certified point it met
	// with its certificate (StatusCertified). Each restart costs one f value at the
	// restart point and a descent, and counts in Stats.Restarts (Stats.RestartsImproved
	// for those that lowered x*); the escapes count in Stats.Escapes and towards
	// MaxEscapes.
	//
	// Default 0: 6 rungs when f is a nonconvex quadratic — when a few Lanczos steps on the
	// model M of the escape that first certified find a curvature below −δ/r² (a
	// direction along which f falls by more than δ/2 within r but for the rows), and,
	// at every restart point, f agrees with that model to a relative 10⁻³ (f nonconvex
	// but not quadratic ends the search at its first restart point, having cost f there
	// and at x*) — and no search otherwise, nor with EscapesOnly. Negative: no search.
	// Must be at most 60. Ignored for a stochastic oracle.
	Rungs int

	// Tries is the number of restarts per rung; a rung whose restart points mirror every
	// coordinate of a box bounded on every coordinate has one point and gets one try, and
	// the ladder ends there. Must be nonnegative. Default 6.
	Tries int
}

// FullSettings are the knobs of the quadratic model of alg:escaping_general_full, used by
// MethodFull (and by the stochastic escape, which builds the same model).
type FullSettings struct {
	// Noise is ξ of alg:escaping_general_full: v gets Gaussian noise of standard
	// deviation ξδ/(r√d) per coordinate and M gets γI with γ uniform on [−ξδ/r², ξδ/r²]
	// (the paper's γ ~ U[−ξ, ξ], scaled to Hessian units). Must be nonnegative and finite.
	// Default 0: the paper's experiments use 0, and FindInside handles the exact hard case
	// without noise.
	Noise float64

	// HessStep is θ of alg:escaping_general_full, the finite-difference step of the
	// Hessian columns (∇f(x + θeᵢ) − ∇f(x))/θ when Problem.Hess is nil (also the step of
	// the descent phase's curvature probe and of Purify's face Hessian). Must be
	// nonnegative and finite. Default min(r/√d, √ε·max(1, ‖x‖∞)): within the paper's
	// Θ(r/√d), and the step that balances truncation against rounding for exact gradients.
	// With a stochastic Grad the default is r/(2√d): the VRSG errors are divided by θ, so θ
	// stays at the paper's scale.
	HessStep float64
}

// CornerSettings are the knobs of HoudiniCorner (alg:matrix_copositivity), used by
// MethodCorner only.
type CornerSettings struct {
	// L is the Lipschitz constant of ∇f (an upper bound on λmax(∇²f) near x), the L of
	// alg:eigenvector whose step is η = 1/L. When 0 it is estimated at every corner escape
	// by lipIters power steps on gradient differences, times 1.5 (EscapeResult.L and
	// Stats.L report it), and the corner path then never certifies (StatusCornerNoMove).
	// Must be nonnegative and finite. Default 0.
	L float64

	// Iters overrides T of alg:eigenvector, the power steps per subset; a corner escape
	// with it set does not certify. Must be nonnegative. Default 0:
	// T = ⌈(L r′²/(2εδ))·ln(√m/ξ)⌉ with ε = 1/4, ξ = FailProb, m the face's dimension and
	// r′ its radius (lem:approx_eigenvector).
	Iters int

	// FailProb is ξ of thm:copositive_case: the probability that the corner path misses
	// the escape of a (δ, r)-QCSP, and so the probability that its certificate is wrong
	// (EscapeResult.Confidence = 1 − ξ). Must be in [0, 1). Default 1e-3.
	FailProb float64
}

// StochasticSettings describe stochastic oracles and the knobs of the stochastic escape
// (alg:escaping_general_full with VRSG, alg:vrsg). With Grad or NoisyFunc set (or
// Problem.Sampled), Minimize's descent phase averages gradients over batches that grow
// by the norm test of Byrd, Chin, Nocedal & Wu (2012) and tests the phase's decrease once,
// at confidence 1 − FailProb; MethodAuto means MethodFull and MethodCorner is refused
// (ErrBadSettings), and Purify is ignored.
//
// With Problem.Sampled the escape builds its model on common samples in rounds of growing
// size and certifies as soon as the model's own error bounds prove the certificate (see
// Sampled); GradAccuracy and HessAccuracy then say where the rounds stop: at the paper's
// accuracy, where a model that can neither move nor certify makes Minimize halve r.
type StochasticSettings struct {
	// Grad says that Problem.Grad is a stochastic oracle g(x) with E[g(x)] = ∇f(x) and
	// E‖g(x) − ∇f(x)‖² ≤ σ² (ass:sgd), such as a mini-batch gradient. Escape then
	// builds the model from VRSG estimates (alg:vrsg) as alg:escaping_general_full does:
	// Hessian columns (g_i − g⁽⁰⁾)/θ with θ = r/(2√d) and accuracy σ̃_H (HessAccuracy),
	// v to accuracy σ̃_v (GradAccuracy); without Func it tests decreases on
	// median-of-means integrals of the gradient, accepting a move only when the decrease
	// exceeds δ/3 by the test's accuracy δ/6 (rejections in Stats.Rejected). A run is
	// deterministic when the oracle draws from its own seeded generator: the oracle is
	// called in a fixed order. Default false: Grad is exact.
	Grad bool

	// NoisyFunc says that Problem.Func returns an unbiased estimate of f (a mini-batch
	// loss). Decreases are then measured by a median of means of paired differences
	// f̂(x) − f̂(y), sized from a 32-pair pilot estimate of their variance, and
	// Result.F is a mean of 64 calls. Default false: Func is exact.
	NoisyFunc bool

	// Sigma is σ of ass:sgd, the root-mean-square error ‖g(x) − ∇f(x)‖ of the
	// stochastic Grad (of one sample's gradient with Problem.Sampled). When 0 and Grad is
	// set, σ is estimated from the empirical variance of the oracle: 32 calls at the first
	// point, then pooled over every VRSG call (every model's groups with Problem.Sampled)
	// of the call to Minimize or Escape (Result.Sigma reports the estimate). An estimate
	// carries no guarantee; set Sigma when a bound is known. With Problem.Sampled the
	// Hessian's variance is always estimated, and sized from an upper confidence bound (see
	// Sampled). Must be nonnegative and finite. Default 0.
	Sigma float64

	// FailProb is the probability that a stochastic certificate is wrong (given the true
	// σ): Result.Confidence is 1 − FailProb. It is split over the estimates a certificate
	// rests on by a union bound: ε of alg:vrsg is FailProb/(d+2) for each VRSG estimate of
	// the model, FailProb/2ᵏ⁺¹ for round k of a model on Problem.Sampled. It is also the
	// probability that one stochastic decrease test accepts a move that does not lower f
	// enough. Used when Grad or NoisyFunc is set; must be in (0, 1). Default 1e-3.
	FailProb float64

	// GradAccuracy sets the accuracy σ̃_v = GradAccuracy·δ/r of the VRSG estimate of v
	// (line:linear_term, σ̃ = Θ(δ/r)), so the model's linear term is off by at most
	// GradAccuracy·δ on B(x, r) (the proof of lem:stochastic-approximation budgets δ/6).
	// Larger values need quadratically fewer calls. Must be nonnegative and finite.
	// Default 1/6.
	GradAccuracy float64

	// HessAccuracy sets the accuracy σ̃_H = HessAccuracy·δ·θ/(√d·r²) of the VRSG
	// estimates g⁽⁰⁾, g_i of the Hessian columns; with the default θ = r/(2√d) this is
	// σ̃_H = HessAccuracy·δ/(2rd), the paper's Θ(ρr²/d). The model's quadratic term is
	// then off by at most HessAccuracy·δ on B(x, r) in the worst case (budget δ/6 in
	// lem:stochastic-approximation). The escape's oracle calls grow as
	// (d+1)·9σ²/σ̃_H²·ln(d/ε), so this is the constant to raise when calls are too many.
	// Must be nonnegative and finite. Default 1/6.
	HessAccuracy float64
}

// Defaults of the settings whose zero value means something else.
const (
	defaultFeasTol        = 1e-9
	defaultCornerFailProb = 1e-3
	defaultMaxSubsets     = 4096
	defaultMaxEscapes     = 10000
	defaultSearchTries    = 6
	defaultSearchRungs    = 6
	defaultFailProb       = 1e-3
	defaultGradAccuracy   = 1.0 / 6
	defaultHessAccuracy   = 1.0 / 6
)

// stochastic reports whether an oracle is stochastic (Stochastic.Grad or .NoisyFunc).
func (s *Settings) isStochastic() bool { return s.Stochastic.Grad || s.Stochastic.NoisyFunc }

// settingCheck is one validation: ok false reports field with reason why.
type settingCheck struct {
	field string
	ok    bool
	why   string
}

// firstInvalid returns a *SettingsError for the first failed check, or nil.
func firstInvalid(checks ...settingCheck) error {
	for _, c := range checks {
		if !c.ok {
			return &SettingsError{Field: c.field, Reason: c.why}
		}
	}
	return nil
}

// Reasons of the common checks, and the predicates they go with.
const (
	whyNonneg   = "must be nonnegative and finite"
	whyPositive = "must be positive and finite"
	whyProb     = "must be in (0, 1)"
)

func nonnegFinite(v float64) bool { return v >= 0 && !math.IsInf(v, 1) } // false for NaN
func posFinite(v float64) bool    { return v > 0 && !math.IsInf(v, 1) }

// validated returns s checked, with its defaults filled and Radius set to the r of the
// certificates; a *SettingsError names the first invalid field.
func (s Settings) validated() (Settings, error) {
	st := &s.Stochastic
	if err := firstInvalid(
		settingCheck{"Delta", posFinite(s.Delta), whyPositive},
		settingCheck{"Rho", nonnegFinite(s.Rho), whyNonneg},
		settingCheck{"Radius", nonnegFinite(s.Radius), whyNonneg},
		settingCheck{"Radius", s.Radius != 0 || s.Rho != 0, "neither Rho nor Radius is set"},
		settingCheck{"Full.Noise", nonnegFinite(s.Full.Noise), whyNonneg},
		settingCheck{"FeasTol", s.FeasTol >= 0 && s.FeasTol < 1, "must be in [0, 1)"},
		settingCheck{"Full.HessStep", nonnegFinite(s.Full.HessStep), whyNonneg},
		settingCheck{"Stochastic.Sigma", nonnegFinite(st.Sigma), whyNonneg},
		settingCheck{"Stochastic.FailProb", st.FailProb >= 0 && st.FailProb < 1, whyProb},
		settingCheck{"Stochastic.GradAccuracy", nonnegFinite(st.GradAccuracy), whyNonneg},
		settingCheck{"Stochastic.HessAccuracy", nonnegFinite(st.HessAccuracy), whyNonneg},
		settingCheck{"Method", s.Method != MethodCorner || !s.isStochastic(),
			"MethodCorner needs exact oracles (Stochastic.Grad and .NoisyFunc unset)"},
		settingCheck{"MaxSubsets", s.MaxSubsets >= 0, "must be nonnegative"},
		settingCheck{"Search.Rungs", s.Search.Rungs <= 60, "must be at most 60"},
		settingCheck{"Search.Tries", s.Search.Tries >= 0, "must be nonnegative"},
		settingCheck{"MaxEscapes", s.MaxEscapes >= 0, "must be nonnegative"},
		settingCheck{"MaxGradEvals", s.MaxGradEvals >= 0, "must be nonnegative"},
		settingCheck{"Method", s.Method >= 0 && s.Method < numMethods, "is not a Method constant"},
		settingCheck{"Corner.L", nonnegFinite(s.Corner.L), whyNonneg},
		settingCheck{"Corner.Iters", s.Corner.Iters >= 0, "must be nonnegative"},
		settingCheck{"Corner.FailProb", s.Corner.FailProb >= 0 && s.Corner.FailProb < 1, "must be in [0, 1)"},
	); err != nil {
		return s, err
	}
	r := s.Radius
	if r == 0 {
		r = math.Cbrt(s.Delta / s.Rho)
		if !posFinite(r) {
			return s, &SettingsError{Field: "Rho", Reason: "(Delta/Rho)^(1/3) is not a positive finite radius"}
		}
	}
	// r² and δ/r² scale the trust region and the noise: both must be finite and nonzero,
	// or every candidate is NaN and nothing could be found (nor honestly certified).
	if r2 := r * r; !posFinite(r2) || !posFinite(s.Delta/r2) {
		return s, &SettingsError{Field: "Radius", Reason: "must keep r² and δ/r² finite and nonzero (about 1e-150 < r < 1e150)"}
	}
	s.Radius = r
	s.fillDefaults()
	return s, nil
}

// fillDefaults replaces the zero values by their defaults. With a stochastic oracle
// MethodAuto means MethodFull: the corner path's power steps and decrease checks assume
// exact oracles.
func (s *Settings) fillDefaults() {
	setDefault(&s.FeasTol, defaultFeasTol)
	setDefault(&s.Corner.FailProb, defaultCornerFailProb)
	setDefault(&s.Stochastic.FailProb, defaultFailProb)
	setDefault(&s.Stochastic.GradAccuracy, defaultGradAccuracy)
	setDefault(&s.Stochastic.HessAccuracy, defaultHessAccuracy)
	if s.MaxSubsets == 0 {
		s.MaxSubsets = defaultMaxSubsets
	}
	if s.MaxEscapes == 0 {
		s.MaxEscapes = defaultMaxEscapes
	}
	if s.Search.Tries == 0 {
		s.Search.Tries = defaultSearchTries
	}
	if s.isStochastic() && s.Method == MethodAuto {
		s.Method = MethodFull
	}
}

func setDefault(v *float64, def float64) {
	if *v == 0 {
		*v = def
	}
}

// methodFor resolves MethodAuto for a point of dimension d, given whether the problem has
// a Hessian oracle.
func (s *Settings) methodFor(hasHess bool, d int) Method {
	switch s.Method {
	case MethodFull, MethodCorner:
		return s.Method
	}
	if !hasHess && d >= AutoCornerDim {
		return MethodCorner
	}
	return MethodFull
}

// newRand returns the generator of one run, seeded by Settings.Seed.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}
