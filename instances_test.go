package houdini

import (
	"context"
	"math"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// The cross-checks shared by the bounds of the walk's root (cone.go, cap.go, eqrelax.go):
// a bound asked for bars around the exhaustive minimum, and escapes with a bound's pruning
// against the full walk.

// barCounts tallies barSweep: the bars asked below the exhaustive minimum (total), the
// bars the bound answered (answered), and those of them below the minimum (below).
type barCounts struct{ answered, below, total int }

// barFractions are the bars of barSweep, as fractions of the model's scale above the
// exhaustive minimum: from far below it to above it.
var barFractions = []float64{-1, -0.3, -0.1, -0.03, -0.01, -0.001, 1e-9, 1e-3, 0.1}

// barSweep asks bound, a lower bound on the model over the set of w's root, for the bars
// min + f·scale (f in barFractions), min the exhaustive minimum: whenever it answers (not
// −Inf), its value must be at least the bar and at most min + tol. what names the bound
// and the instance in errors.
func barSweep(t *testing.T, w *walk, bound func() float64, min, scale, tol float64, n *barCounts, what string) {
	t.Helper()
	for _, f := range barFractions {
		bar := min + f*scale
		w.pool.keep, w.pool.qmin = bar, math.Inf(1)
		L := bound()
		if f < 0 {
			n.total++
		}
		if math.IsInf(L, -1) {
			continue
		}
		n.answered++
		if f < 0 {
			n.below++
		}
		if L < bar || L > min+tol {
			t.Errorf("%s: bar %.6g: bound %.17g, exhaustive minimum %.17g", what, bar, L, min)
		}
	}
}

// prunedAgainstFull escapes in.X with a bound's pruning (prep sets the test switches) and
// with the full walk (no forcing, no pruning), at δ = deltaRel times the model's scale
// ‖g‖R + 3·curv·dR² (curv: the Hessian's scaling of the instance's copy): the pruned walk
// must reach the full walk's best model decrease, certify only where the full walk does,
// and only where the exhaustive minimum is above −δ/2. tried is false where the set or x
// is refused (x nudged off its rows beyond the tolerance: both walks refuse it); what
// names the instance in errors.
func prunedAgainstFull(t *testing.T, in *bruteforce.Instance, curv, deltaRel float64, prep func(*Optimizer), what string) (tried, certified bool) {
	t.Helper()
	c, err := forcedTestSet(in)
	if err != nil {
		return false, false
	}
	scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3*curv
	s := Settings{Delta: deltaRel * scale, Radius: in.R, MaxSubsets: 1 << 20}
	p := Problem{Func: in.Func, Grad: in.Grad, Hess: exactHess(in)}
	ep, ef, err := escapePrunedFull(p, c, s, in.X, prep)
	if err != nil {
		return false, false
	}
	truth := bruteforce.Min(in.Problem()).Value
	tol := 1e-9*math.Abs(ef.ModelDecrease) + 1e-12*scale
	if ep.ModelDecrease < ef.ModelDecrease-tol || (ep.Certified && !ef.Certified) || (ep.Complete && ef.Found && !ep.Found) ||
		(ep.Certified && truth < -s.Delta/2-1e-7*scale) {
		t.Errorf("%s: pruned (found %v, certified %v, model decrease %.17g) vs full (found %v, certified %v, %.17g), exhaustive minimum %.17g, δ %g",
			what, ep.Found, ep.Certified, ep.ModelDecrease, ef.Found, ef.Certified, ef.ModelDecrease, truth, s.Delta)
	}
	return true, ep.Certified
}

// escapePrunedFull escapes x with the default walk, its test switches set by prep, and
// with the full walk (no forcing, no pruning).
func escapePrunedFull(p Problem, c *Constraints, s Settings, x []float64, prep func(*Optimizer)) (ep, ef *EscapeResult, err error) {
	pruned, err := New(p, c, s)
	if err != nil {
		return nil, nil, err
	}
	prep(pruned)
	full, _ := New(p, c, s)
	full.setNoPrune(true)
	if ep, err = pruned.Escape(context.Background(), x); err != nil {
		return nil, nil, err
	}
	ef, err = full.Escape(context.Background(), x)
	return ep, ef, err
}
