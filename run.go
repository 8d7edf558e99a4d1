package houdini

import (
	"math/rand/v2"
	"time"
)

// run is the state of one Escape or Minimize call: everything the call changes. The
// Optimizer that made it lends its problem and validated settings, read-only, so that no
// call sees another's state and the same call repeats bit for bit.
type run struct {
	p    Problem
	c    *Constraints
	s    *Settings // the Optimizer's, never modified
	r    float64   // the radius of the next escape: Settings.Radius, halved by Minimize on a model mismatch
	ev   *evaluator
	rng  *rand.Rand
	test testOptions

	// Minimize's loop (minimize.go).
	start      time.Time
	x          []float64       // the current point
	dec        float64         // f(x0) − f(x)
	confidence float64         // the certificate's, once one ends the run
	undo       *certifiedPoint // the certified point Purify moved away from, until an escape moves
	flatFrom   *certifiedPoint // the undecided point the flat moves left, until an escape moves or certifies
	kkt        *kktPoint       // the active set and multipliers the last escape found at its point
	search     *searchState    // Settings.Search's state, once a certificate started it
	batch      int             // the stochastic descent's batch size, kept across its phases
	model      *quadModel      // the last full escape's model
	// modelAbove reports that the box certificate proved λ₁(model.M) > −δ/r² (boxcert.go)
	modelAbove bool
	// modelBand ≥ 0 is model.M's band when the box certificate found it, else −1
	modelBand int
}

// kktPoint is the active set at x with the least-squares KKT multipliers of an escape's
// model gradient there (EscapeResult.Active), which Result reports when X is x.
type kktPoint struct {
	x        []float64
	active   []ActiveConstraint
	residual float64
	// certR, vacuous and conf are the escape's CertifiedRadius, Vacuous and Confidence.
	certR, conf float64
	vacuous     bool
}

// testOptions are switches that only the tests set (export_test.go), to compare the
// escape against simpler references.
type testOptions struct {
	// noPrune turns off the two pruning rules of the subset walk (holdForcedRows and the
	// relaxed bound in walk.enumerate).
	noPrune bool
	// referenceEscape examines every subset with the dense FindInside backend instead of
	// from M's eigenbasis.
	referenceEscape bool
	// eigenAlways sends every subset below the base to the eigenbasis backend, even where
	// eigenbasisCheaper expects the dense one to be faster (small d), so that tests reach
	// it on instances small enough for brute force.
	eigenAlways bool
	// matrixFree builds the model as an operator without Problem.Hess and examines every
	// subset by the Krylov examiner, at every d (MatrixFreeDim and krylovDenseDim on);
	// krylovExact is then its exactly examined face dimension instead of krylovExactDim.
	matrixFree  bool
	krylovExact int
	// twoPass sends every face the Krylov examiner runs by Lanczos to the two-pass backend
	// (twopass.go), whatever twoPassBytes says.
	twoPass bool
	// wrapExaminer, when set, wraps the walk's examiner (a lying examiner, whose
	// candidates leave their face: walk.considerFace).
	wrapExaminer func(examiner) examiner
	// lagrangePruned, when set, turns the Lagrangian bound on (lagrange.go) and counts the
	// subtrees only it pruned.
	lagrangePruned *int
	// noBoxCert turns the box certificate off (boxcert.go): every escape walks.
	noBoxCert bool
	// noBandModel keeps every finite-difference model dense (fdhessian.go).
	noBandModel bool
	// noFaceCert turns the Lanczos box certificate off (facecert.go).
	noFaceCert bool
	// walkOrder walks each subset's children in walk.walkOrder's order instead of
	// near's.
	walkOrder bool
	// noCone turns the cone bound (cone.go) off, coneMinRows (when > 0) replaces its
	// threshold coneMinRows, and conePruned, when set, counts the subtrees only it pruned.
	noCone      bool
	coneMinRows int
	conePruned  *int
	// noBlock turns the block bound (blockbound.go) off.
	noBlock bool
	// noCap turns the cap bound (cap.go) off, and capPruned, when set, counts the
	// subtrees only it pruned.
	noCap     bool
	capPruned *int
	// noEqRelax turns the relaxed-equality cone bound (eqrelax.go) off, and
	// eqRelaxPruned, when set, counts the subtrees only it pruned.
	noEqRelax     bool
	eqRelaxPruned *int
	// noCoupling turns the directed cone bound (coupling.go) off, couplingMinRows (when
	// > 0) replaces its threshold couplingMinRows, and couplingPruned, when set, counts
	// the subtrees only it pruned.
	noCoupling      bool
	couplingMinRows int
	couplingPruned  *int
	// noEarlyStop walks the full path's subsets to the end after a move is found
	// (walk.earlyStop), and earlyBudget, when > 0, replaces its work budget
	// earlyStopWork (1 stops a walk one subset after a candidate arms it).
	noEarlyStop bool
	earlyBudget float64
}

// report sends a Progress report to Settings.Progress, if set.
func (rn *run) report(e Event, x []float64, dec float64, esc *EscapeResult) {
	if rn.s.Progress == nil {
		return
	}
	st := *rn.ev.stats
	st.Runtime = time.Since(rn.start)
	rn.s.Progress(Progress{Event: e, X: x, Decrease: dec, Radius: rn.r, Escape: esc, Stats: st})
}

// certifiedPoint is an iterate Minimize may return to, with the run's decrease and the
// certificate's confidence and radius there: a certified one Purify moved away from, or
// the undecided one the flat moves left (confidence 0). Minimize restores it when the
// run ends, undecided, before moving on from the point it moved to.
type certifiedPoint struct {
	x                            []float64
	decrease, confidence, radius float64
	kkt                          *kktPoint
}

// searchState is the deeper search of one Minimize call (Settings.Search): the lowest
// point so far, the lowest certified one, and the next restart of the ladder.
type searchState struct {
	best      *certifiedPoint // x*: the lowest point so far, certified when best == cert
	cert      *certifiedPoint // the lowest certified point so far
	model     *quadModel      // the model at x* (M of the last escape's, ∇f(x*)), or nil
	rungs     int             // the ladder's rungs (Settings.Search.Rungs, or its default)
	auto      bool            // the default search: it ends where f departs from its model
	done      bool            // the ladder is exhausted and the run back at x*
	rung, try int             // the next restart: its rung (from 1) and how many it follows
	rng       *rand.Rand
}
