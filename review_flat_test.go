package houdini

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Adversarial review of Minimize's flat moves (minimize.go, flatMoveOrEnd): where an
// escape ends undecided at MaxSubsets, Purify's move to a wall where f does not rise, an
// escape there without descent, and the return to the undecided point when no later
// escape moves or certifies. The properties checked on every run (flatCheck):
//
//  1. X is feasible (checked on the instance's own rows); StatusCertified only where an
//     escape at X certified, at Result.Radius, with Result.Confidence; Result.Active and
//     CertifiedRadius are those of the last escape at X (none there: CertifiedRadius 0);
//     on a quadratic f every certificate is checked against internal/bruteforce's
//     exhaustive minimum over S ∩ B(X, Radius).
//  2. The run ends (no cycle: an escape count far below MaxEscapes), and at most d flat
//     moves follow one another without an escape that moves or certifies.
//  3. The same Settings give bit-identical Results (determinism).
//  4. f(X) with flat moves ≤ f(X) without (NoFlatMoves) + d·purifySlack·δ; where the run
//     with them ends undecided, not lower by δ/4, it ends at the same X with the same
//     CertifiedRadius as without, and, where that end was StatusSubsetLimit, with it.
//  5. Progress reports one EventFlatMove per Stats.FlatMoves; Stats.FlatMovesUndone is 0
//     or 1, 1 only when the run ended back at the point the last flat moves left; the
//     reported decrease goes back by at most purifySlack·δ a report (restarts aside).

// flatRun is one Minimize run of a review case with the Progress it reported.
type flatRun struct {
	res       *Result
	err       error
	events    [EventFlatMove + 1]int
	escapes   []flatEscape // the escapes that did not move, at the point they examined
	found     int          // the escapes that moved
	chainMax  int          // the most flat moves in a row
	chainOpen bool         // flat moves not followed by an escape that moved or certified
	chainFrom []float64    // the point the open chain's first flat move left
	flatAt    []Stats      // Stats at each EventFlatMove
	problems  []string
	s         Settings // the run's
}

// flatEscape is one escape that did not move, as Progress reported it.
type flatEscape struct {
	x                   []float64
	certified           bool
	radius, certR, conf float64
	active              []ActiveConstraint
}

// flatCase is a review instance: the planted structure, its set, f (in's quadratic, or
// it plus a quartic term), δ and the Settings of its run.
type flatCase struct {
	name  string
	in    *bruteforce.Instance
	c     *Constraints
	p     Problem
	quad  bool // f is in's quadratic: certificates are checked by brute force
	delta float64
	scale float64
	s     Settings
}

// reviewFlatCase builds case i of the sweep from seed: a Motzkin–Straus or StQP structure
// moved along a flat transfer (flatmove_test.go) or left at its vertex, its bounds and
// equality as given, as general rows, or as general rows with duplicated (and doubled)
// rows; f its quadratic or that plus c·Σ xₖ⁴ over the coordinates zero at x0 (flat along
// the transfer, a model that is wrong away from it: radius halvings); with Problem.Hess or
// without (gradient differences, which MaxGradEvals can cut short inside the flat move);
// MaxSubsets 1–4, Purify, EscapesOnly and the deeper search in turn.
func reviewFlatCase(seed uint64, i int) (*flatCase, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	var in *bruteforce.Instance
	switch i % 5 {
	case 4:
		in = stqpInstance(rng, i%2 == 1)
	default:
		in = msInstance(rng, msKind(i%int(numMsKinds)), (i/5)%2 == 1)
	}
	if i%7 != 6 {
		flatTransfer(rng, in)
	}
	form := (i / 3) % 3
	if form > 0 {
		in = flatAsRows(in, rng, form == 2)
	}
	c, err := forcedTestSet(in)
	if err != nil || c == nil {
		return nil, fmt.Errorf("no set: %v", err)
	}
	fc := &flatCase{in: in, c: c, quad: true}
	fc.scale = norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*maxAbs(in.Q)
	fc.delta = []float64{1e-4, 1e-3, 1e-2}[i%3] * fc.scale
	fc.p = Problem{Func: in.Func, Grad: in.Grad, Hess: exactHess(in)}
	if (i/2)%3 == 1 {
		var zero []int
		for k, v := range in.X {
			if v == 0 {
				zero = append(zero, k)
			}
		}
		if len(zero) > 0 {
			cq := []float64{0.3, 3, 30}[rng.IntN(3)] * fc.delta / math.Pow(in.R, 4)
			fc.p, fc.quad = quarticOn(in, zero, cq), false
		}
	}
	if (i/6)%4 == 3 {
		fc.p.Hess = nil // the models and purify's face Hessian by gradient differences
	}
	fc.s = Settings{Delta: fc.delta, Radius: in.R, MaxSubsets: 1 + i%4, Seed: uint64(i), MaxEscapes: 400}
	switch (i / 4) % 5 {
	case 1:
		fc.s.Purify = true
	case 2:
		fc.s.EscapesOnly = true
	case 3:
		fc.s.Search = SearchSettings{Rungs: 2, Tries: 2}
	case 4:
		fc.s.Search = SearchSettings{Rungs: -1}
	}
	// Without the descent phase x stays on the flat segments: flat moves five times as often.
	fc.s.EscapesOnly = fc.s.EscapesOnly || (i/20)%2 == 1
	fc.name = fmt.Sprintf("seed %d case %d (%s, rows as given/general/duplicated: %d, quadratic %v, Hess %v, δ %.3g, MaxSubsets %d, Purify %v, EscapesOnly %v, Search %+v)",
		seed, i, in.Name, form, fc.quad, fc.p.Hess != nil, fc.delta, fc.s.MaxSubsets, fc.s.Purify, fc.s.EscapesOnly, fc.s.Search)
	return fc, nil
}

// flatAsRows returns in with its bounds as general rows ±eⱼ and, when dup, a few rows
// repeated, as they are or doubled (the same half-space twice).
func flatAsRows(in *bruteforce.Instance, rng *rand.Rand, dup bool) *bruteforce.Instance {
	out := *in
	d := in.Dim()
	out.A, out.B = slices.Clone(in.A), slices.Clone(in.B)
	for j := 0; j < d && in.Upper != nil; j++ {
		if !math.IsInf(in.Upper[j], 1) {
			e := make([]float64, d)
			e[j] = 1
			out.A, out.B = append(out.A, e), append(out.B, in.Upper[j])
		}
	}
	for j := 0; j < d && in.Lower != nil; j++ {
		if !math.IsInf(in.Lower[j], -1) {
			e := make([]float64, d)
			e[j] = -1
			out.A, out.B = append(out.A, e), append(out.B, -in.Lower[j])
		}
	}
	out.Lower, out.Upper = nil, nil
	if dup && len(out.A) > 0 {
		for range 1 + rng.IntN(3) {
			k := rng.IntN(len(out.A))
			m := float64(1 + rng.IntN(2))
			a := slices.Clone(out.A[k])
			for j := range a {
				a[j] *= m
			}
			out.A, out.B = append(out.A, a), append(out.B, m*out.B[k])
		}
	}
	return &out
}

// quarticOn returns in's quadratic plus c·Σₖ xₖ⁴ over the coordinates k of zero, with its
// gradient and Hessian.
func quarticOn(in *bruteforce.Instance, zero []int, c float64) Problem {
	hq := exactHess(in)
	return Problem{
		Func: func(x []float64) float64 {
			f := in.Func(x)
			for _, k := range zero {
				f += c * x[k] * x[k] * x[k] * x[k]
			}
			return f
		},
		Grad: func(g, x []float64) {
			in.Grad(g, x)
			for _, k := range zero {
				g[k] += 4 * c * x[k] * x[k] * x[k]
			}
		},
		Hess: func(h *mat.SymDense, x []float64) {
			hq(h, x)
			for _, k := range zero {
				h.SetSym(k, k, h.At(k, k)+12*c*x[k]*x[k])
			}
		},
	}
}

// flatMinimize runs Minimize on the case with s (its Progress and Callback replaced by
// the recorder's and, when set, stop's), recording what flatCheck needs. stop, when set,
// is asked after each escape with the run so far and may cancel the context or stop the
// callback.
func flatMinimize(fc *flatCase, s Settings, hook func(r *flatRun, pr Progress, cancel func())) *flatRun {
	r := &flatRun{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.s = s
	var last Progress
	chain := 0
	var before []float64
	s.Progress = func(pr Progress) {
		r.events[pr.Event]++
		if pr.Stats.Restarts == 0 && last.Event != 0 && pr.Decrease < last.Decrease-purifySlack*s.Delta-1e-12*fc.scale {
			r.problems = append(r.problems, fmt.Sprintf("report %v: decrease %.17g after %.17g", pr.Event, pr.Decrease, last.Decrease))
		}
		switch pr.Event {
		case EventEscape:
			e := pr.Escape
			if !e.Found {
				r.escapes = append(r.escapes, flatEscape{x: slices.Clone(pr.X), certified: e.Certified, radius: pr.Radius,
					certR: e.CertifiedRadius, conf: e.Confidence, active: e.Active})
			}
			if e.Found {
				r.found++
			}
			if e.Found || e.Certified {
				chain, r.chainOpen, r.chainFrom = 0, false, nil
			}
		case EventRestart:
			chain, r.chainOpen, r.chainFrom = 0, false, nil
		case EventFlatMove:
			if chain == 0 {
				r.chainFrom = before
			}
			chain++
			r.chainOpen = true
			r.chainMax = max(r.chainMax, chain)
			r.flatAt = append(r.flatAt, pr.Stats)
		}
		before = slices.Clone(pr.X)
		last = pr
		if hook != nil {
			hook(r, pr, cancel)
		}
	}
	r.res, r.err = Minimize(ctx, fc.p, fc.c, fc.in.X, s)
	return r
}

// flatCheck checks properties 1, 2 and 5 of the run r of case fc.
func flatCheck(t *testing.T, fc *flatCase, r *flatRun, what string) {
	t.Helper()
	for _, p := range r.problems {
		t.Errorf("%s: %s: %s", fc.name, what, p)
	}
	if r.err != nil {
		t.Errorf("%s: %s: error %v (status %v)", fc.name, what, r.err, r.res.Status)
		return
	}
	res, in, d := r.res, fc.in, fc.in.Dim()
	if v := flatViolation(in, res.X); v > 0 {
		t.Errorf("%s: %s: X violates a row by %g", fc.name, what, v)
	}
	if r.chainMax > d {
		t.Errorf("%s: %s: %d flat moves in a row at d = %d", fc.name, what, r.chainMax, d)
	}
	// No cycle: every escape that moved lowered f by δ/3, the flat moves raised it by at
	// most purifySlack·δ each (without restarts, which start higher, and a return to x*).
	if st := res.Stats; st.Restarts == 0 && res.Decrease < float64(r.found)*fc.delta/3-float64(st.FlatMoves+st.Purifications)*purifySlack*fc.delta-1e-12*fc.scale {
		t.Errorf("%s: %s: decrease %g after %d moving escapes (a cycle?), %d flat moves", fc.name, what, res.Decrease, r.found, st.FlatMoves)
	}
	if res.Status == StatusEscapeLimit && res.Stats.Escapes >= 400 && r.found < 200 {
		t.Errorf("%s: %s: %d escapes, %d of them moved (a cycle?), %d flat moves", fc.name, what, res.Stats.Escapes, r.found, res.Stats.FlatMoves)
	}
	// 1: the certificate and the report belong to the last escape at X.
	var at *flatEscape
	for k := range r.escapes {
		if slices.Equal(r.escapes[k].x, res.X) {
			at = &r.escapes[k]
		}
	}
	switch {
	case at == nil:
		if res.Status == StatusCertified || res.CertifiedRadius != 0 {
			t.Errorf("%s: %s: %v with CertifiedRadius %g at an X no escape examined", fc.name, what, res.Status, res.CertifiedRadius)
		}
	case res.Status == StatusCertified:
		if !at.certified || at.radius != res.Radius || at.conf != res.Confidence || res.CertifiedRadius != res.Radius {
			t.Errorf("%s: %s: certified at r %g (confidence %g, CertifiedRadius %g); the last escape at X: certified %v at r %g (confidence %g)",
				fc.name, what, res.Radius, res.Confidence, res.CertifiedRadius, at.certified, at.radius, at.conf)
		}
	default:
		if res.CertifiedRadius != at.certR || fmt.Sprint(res.Active) != fmt.Sprint(at.active) {
			t.Errorf("%s: %s: %v with CertifiedRadius %g, the last escape at X %g (or Active differs)", fc.name, what, res.Status, res.CertifiedRadius, at.certR)
		}
	}
	if res.Status == StatusCertified && fc.quad && res.Stats.FlatMoves > 0 { // the others are not this review's
		flatCheckCertificate(t, in, res, fc.delta, fc.scale, fc.name+": "+what)
	}
	// 5: the reports and Stats agree.
	st := res.Stats
	if r.events[EventFlatMove] != st.FlatMoves || r.events[EventEscape] != st.Escapes || r.events[EventPurification] != st.Purifications ||
		r.events[EventRadiusHalved] != st.RadiusHalvings || r.events[EventRestart] != st.Restarts {
		t.Errorf("%s: %s: reports %v, stats %+v", fc.name, what, r.events, st)
	}
	switch {
	case st.FlatMovesUndone > 1 || st.FlatMovesUndone > st.FlatMoves:
		t.Errorf("%s: %s: %d flat moves undone of %d", fc.name, what, st.FlatMovesUndone, st.FlatMoves)
	case st.FlatMovesUndone == 1 && (!r.chainOpen || !slices.Equal(res.X, r.chainFrom)):
		t.Errorf("%s: %s: a flat move undone, X not the point the open flat moves left (open %v)", fc.name, what, r.chainOpen)
	}
	if r.s.NoFlatMoves && st.FlatMoves != 0 {
		t.Errorf("%s: %s: %d flat moves with NoFlatMoves", fc.name, what, st.FlatMoves)
	}
}

// flatViolation returns the largest violation of in's rows at x beyond 1e-9 of the
// row's scale (0 when x is feasible), on the instance's own data.
func flatViolation(in *bruteforce.Instance, x []float64) float64 {
	v := 0.0
	check := func(a []float64, b float64, eq bool) {
		s, sc := -b, math.Abs(b)
		for j := range a {
			s += a[j] * x[j]
			sc += math.Abs(a[j] * x[j])
		}
		if eq {
			s = math.Abs(s)
		}
		v = math.Max(v, s-1e-9*(1+sc))
	}
	for i, a := range in.A {
		check(a, in.B[i], false)
	}
	for i, a := range in.Aeq {
		check(a, in.Beq[i], true)
	}
	for j := range x {
		if in.Lower != nil {
			v = math.Max(v, in.Lower[j]-x[j]-1e-9*(1+math.Abs(x[j])))
		}
		if in.Upper != nil {
			v = math.Max(v, x[j]-in.Upper[j]-1e-9*(1+math.Abs(x[j])))
		}
	}
	return v
}

// flatCompare checks property 4: the run on with flat moves against off, the same run
// without them.
func flatCompare(t *testing.T, fc *flatCase, on, off *flatRun, what string) {
	t.Helper()
	if on.err != nil || off.err != nil {
		return // flatCheck reports it
	}
	a, b := on.res, off.res
	allowance := float64(fc.in.Dim())*purifySlack*fc.delta + 1e-12*fc.scale
	if a.F > b.F+allowance {
		t.Errorf("%s: %s: flat moves ended higher: f %.17g > %.17g (%v vs %v, %d moves)", fc.name, what, a.F, b.F, a.Status, b.Status, a.Stats.FlatMoves)
	}
	if a.Status == StatusCertified || a.Status == StatusCanceled || a.Status == StatusCallback || a.F < b.F-fc.delta/4 {
		return
	}
	if !slices.Equal(a.X, b.X) || a.CertifiedRadius != b.CertifiedRadius || a.Radius != b.Radius {
		t.Errorf("%s: %s: undecided end (%v, f %.17g, CertifiedRadius %g, r %g) not the run's without flat moves (%v, f %.17g, %g, r %g); %d moves, %d undone",
			fc.name, what, a.Status, a.F, a.CertifiedRadius, a.Radius, b.Status, b.F, b.CertifiedRadius, b.Radius, a.Stats.FlatMoves, a.Stats.FlatMovesUndone)
		return
	}
	if b.Status == StatusSubsetLimit && a.Status.undecided() && a.Status != StatusSubsetLimit {
		t.Errorf("%s: %s: back at the point where the escape hit MaxSubsets, but %v (without flat moves: %v; %d moves, %d undone)",
			fc.name, what, a.Status, b.Status, a.Stats.FlatMoves, a.Stats.FlatMovesUndone)
	}
}

// flatSame reports whether two Results are identical but for the run time: every float
// printed in the shortest form that reads back to it (NaN, as KKTResidual and the
// multipliers are without a gradient, equal to NaN).
func flatSame(a, b *Result) bool {
	x, y := *a, *b
	x.Stats.Runtime, y.Stats.Runtime = 0, 0
	return fmt.Sprintf("%+v", x) == fmt.Sprintf("%+v", y)
}

// TestReviewFlatMoves: the sweep of reviewFlatCase, each case run with flat moves and
// without (properties 1, 2, 4, 5); where flat moves happened, once more with them
// (property 3) and the same case again with
// a budget or a stop placed at the first flat move and the escape after it —
// MaxGradEvals, MaxEscapes, the context canceled, the callback stopping — each with and
// without flat moves.
func TestReviewFlatMoves(t *testing.T) {
	n, seed := reviewSize(80, 40, 57)
	var runs, moved, moves, undone, halved, certified, budgeted int
	status := map[Status]int{}
	for i := range n {
		fc, err := reviewFlatCase(seed, i)
		if err != nil {
			continue
		}
		sOff := fc.s
		sOff.NoFlatMoves = true
		on := flatMinimize(fc, fc.s, nil)
		off := flatMinimize(fc, sOff, nil)
		runs++
		flatCheck(t, fc, on, "flat moves")
		flatCheck(t, fc, off, "no flat moves")
		flatCompare(t, fc, on, off, "default budgets")
		status[on.res.Status]++
		moves += on.res.Stats.FlatMoves
		undone += on.res.Stats.FlatMovesUndone
		if on.res.Stats.FlatMoves == 0 {
			continue
		}
		moved++
		if again := flatMinimize(fc, fc.s, nil); on.err == nil && again.err == nil && !flatSame(on.res, again.res) {
			t.Errorf("%s: two runs differ: %+v\n%+v", fc.name, on.res, again.res)
		}
		if on.res.Status == StatusCertified {
			certified++
		}
		if on.res.Stats.RadiusHalvings > 0 {
			halved++
		}
		first := on.flatAt[0]
		type variant struct {
			name string
			set  func(*Settings)
			hook func(r *flatRun, pr Progress, cancel func())
		}
		variants := []variant{
			{"MaxEscapes at the flat move", func(s *Settings) { s.MaxEscapes = first.Escapes }, nil},
			{"MaxEscapes one past it", func(s *Settings) { s.MaxEscapes = first.Escapes + 1 }, nil},
			{"cancel at the flat move", nil, func(r *flatRun, pr Progress, cancel func()) {
				if pr.Event == EventFlatMove {
					cancel()
				}
			}},
			{"cancel at the escape after it", nil, func(r *flatRun, pr Progress, cancel func()) {
				if pr.Event == EventEscape && len(r.flatAt) > 0 {
					cancel()
				}
			}},
			{"callback after it", func(s *Settings) {
				k := 0
				s.Callback = func(int, *EscapeResult) bool { k++; return k == first.Escapes+1 }
			}, nil},
		}
		for _, k := range []int{-2, 0, 1, 12} {
			variants = append(variants, variant{fmt.Sprintf("MaxGradEvals at the flat move %+d", k), func(s *Settings) {
				s.MaxGradEvals = max(1, first.GradEvals+k)
			}, nil})
		}
		for _, v := range variants {
			s, sOff := fc.s, fc.s
			sOff.NoFlatMoves = true
			if v.set != nil {
				v.set(&s)
				v.set(&sOff)
			}
			on := flatMinimize(fc, s, v.hook)
			off := flatMinimize(fc, sOff, v.hook)
			budgeted++
			flatCheck(t, fc, on, v.name)
			flatCheck(t, fc, off, v.name+", no flat moves")
			flatCompare(t, fc, on, off, v.name)
		}
	}
	t.Logf("%d cases: flat moves in %d (%d moves, %d runs undone, %d certified, %d with radius halvings); %d budget/stop runs; statuses %v",
		runs, moved, moves, undone, certified, halved, budgeted, status)
	if moved < runs/20 || undone == 0 || certified == 0 {
		t.Errorf("the sweep does not exercise flat moves: %d of %d cases, %d undone, %d certified", moved, runs, undone, certified)
	}
}

// TestReviewFlatOracleAtWall: the oracles misbehave only at the point the first flat
// move reaches (a gradient or Hessian with an infinite entry at a wall where f itself is
// finite, as x·log x has; a Hessian wrong there, the model mismatch of an inexact Hess).
// The escape there cannot decide, so the run must end as the one without flat moves
// ends: no error, the same X, CertifiedRadius, Radius and status (StatusSubsetLimit),
// unless an escape after the flat moves moved on (lower by δ/4).
func TestReviewFlatOracleAtWall(t *testing.T) {
	const want = 8
	tried, moved := map[string]int{}, map[string]int{}
	for i := 0; tried["nan grad"] < want && i < 400; i++ {
		fc, err := reviewFlatCase(57, i)
		if err != nil || !fc.quad || fc.s.Purify || fc.s.Search.Rungs > 0 {
			continue
		}
		base := fc.p
		for _, kind := range []string{"nan grad", "inf hess", "wrong hess"} {
			if kind != "nan grad" && base.Hess == nil {
				continue
			}
			var trap []float64
			at := func(x []float64) bool { return trap != nil && slices.Equal(x, trap) }
			fc.p = base
			switch kind {
			case "nan grad":
				fc.p.Grad = func(g, x []float64) {
					base.Grad(g, x)
					if at(x) {
						g[0] = math.NaN()
					}
				}
			case "inf hess", "wrong hess":
				fc.p.Hess = func(h *mat.SymDense, x []float64) {
					base.Hess(h, x)
					if !at(x) {
						return
					}
					for k := range len(x) {
						if kind == "inf hess" {
							h.SetSym(k, k, math.Inf(1))
						} else {
							h.SetSym(k, k, h.At(k, k)-1e9*fc.delta/(fc.in.R*fc.in.R))
						}
					}
				}
			}
			on := flatMinimize(fc, fc.s, func(r *flatRun, pr Progress, _ func()) {
				if pr.Event == EventFlatMove && trap == nil {
					trap = slices.Clone(pr.X)
				}
			})
			if trap == nil {
				break // no flat move in this case
			}
			tried[kind]++
			trap = nil
			sOff := fc.s
			sOff.NoFlatMoves = true
			off := flatMinimize(fc, sOff, nil)
			if off.err != nil {
				t.Fatalf("%s: %v", fc.name, off.err)
			}
			a, b := on.res, off.res
			if on.err == nil && a.F < b.F-fc.delta/4 {
				moved[kind]++ // an escape after the flat moves moved on (a wrong Hessian's candidate may hold on f)
				continue
			}
			if on.err != nil || !slices.Equal(a.X, b.X) || a.Status != b.Status || a.CertifiedRadius != b.CertifiedRadius || a.Radius != b.Radius {
				t.Errorf("%s, %s at the wall: error %v, %v at r %g (CertifiedRadius %g, %d flat moves, %d undone); without flat moves %v at r %g (%g), same X %v",
					fc.name, kind, on.err, a.Status, a.Radius, a.CertifiedRadius, a.Stats.FlatMoves, a.Stats.FlatMovesUndone, b.Status, b.Radius, b.CertifiedRadius, slices.Equal(a.X, b.X))
			}
		}
	}
	t.Logf("cases with a flat move, by oracle: %v; moved on from the wall: %v", tried, moved)
	if tried["nan grad"] < want {
		t.Errorf("only %d cases with a flat move", tried["nan grad"])
	}
}

// TestReviewFlatNonQuadratic: f = −a·(Σ_{k∈C} xₖ)⁴ + b·Σ_{k∉C} (xₖ − xₖ₊₁²)² on the
// simplex (bounds and an equality, or general rows with duplicates), from a point of the
// face of C (where f is flat: it depends on Σ_{C} xₖ = 1 alone) with some coordinates at
// a small slack, at MaxSubsets 1–4: a non-quadratic f with whole flat faces, where flat
// moves follow one another down to a vertex. Properties 1–5 but the brute-force
// certificate check (f is not a quadratic).
func TestReviewFlatNonQuadratic(t *testing.T) {
	n, seed := reviewSize(60, 30, 5)
	var moved, moves, undone, certified int
	for i := range n {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		d := 4 + rng.IntN(5)
		kc := 2 + rng.IntN(d-2)
		perm := rng.Perm(d)
		inC := make([]bool, d)
		for _, k := range perm[:kc] {
			inC[k] = true
		}
		x := make([]float64, d)
		for _, k := range perm[:kc] {
			x[k] = 0.2 + rng.Float64()
		}
		for _, k := range perm[:kc][:1+rng.IntN(min(2, kc))] {
			x[k] = []float64{1e-3, 1e-2, 3e-2}[rng.IntN(3)] // a small slack
		}
		sum := floats.Sum(x)
		for k := range x {
			x[k] /= sum
		}
		in := &bruteforce.Instance{Name: fmt.Sprintf("simplex d=%d |C|=%d", d, kc), X: x, R: []float64{0.05, 0.1, 0.3}[rng.IntN(3)],
			Lower: make([]float64, d), Upper: make([]float64, d), Aeq: [][]float64{make([]float64, d)}, Beq: []float64{1}}
		for k := range d {
			in.Upper[k], in.Aeq[0][k] = math.Inf(1), 1
		}
		if i%2 == 1 {
			in = flatAsRows(in, rng, true)
		}
		c, err := forcedTestSet(in)
		if err != nil {
			t.Fatal(err)
		}
		a, b := 1+rng.Float64(), 10*rng.Float64()
		p := Problem{
			Func: func(x []float64) float64 {
				s, r := 0.0, 0.0
				for k := range x {
					if inC[k] {
						s += x[k]
					} else if k+1 < len(x) {
						r += (x[k] - x[k+1]*x[k+1]) * (x[k] - x[k+1]*x[k+1])
					}
				}
				return -a*s*s*s*s + b*r
			},
			Grad: func(g, x []float64) {
				s := 0.0
				for k := range x {
					g[k] = 0
					if inC[k] {
						s += x[k]
					}
				}
				for k := range x {
					if inC[k] {
						g[k] += -4 * a * s * s * s
					} else if k+1 < len(x) {
						u := x[k] - x[k+1]*x[k+1]
						g[k] += 2 * b * u
						g[k+1] += -4 * b * u * x[k+1]
					}
				}
			},
			Hess: func(h *mat.SymDense, x []float64) {
				s := 0.0
				for k := range x {
					if inC[k] {
						s += x[k]
					}
					for l := k; l < len(x); l++ {
						h.SetSym(k, l, 0)
					}
				}
				for k := range x {
					for l := k; l < len(x); l++ {
						if inC[k] && inC[l] {
							h.SetSym(k, l, -12*a*s*s)
						}
					}
				}
				for k := range x {
					if !inC[k] && k+1 < len(x) {
						u := x[k] - x[k+1]*x[k+1]
						h.SetSym(k, k, h.At(k, k)+2*b)
						h.SetSym(k, k+1, h.At(k, k+1)-4*b*x[k+1])
						h.SetSym(k+1, k+1, h.At(k+1, k+1)+8*b*x[k+1]*x[k+1]-4*b*u)
					}
				}
			},
		}
		fc := &flatCase{in: in, c: c, p: p, delta: 1e-3 * a, scale: a}
		fc.s = Settings{Delta: fc.delta, Radius: in.R, MaxSubsets: 1 + i%4, Seed: uint64(i), MaxEscapes: 400, EscapesOnly: (i/4)%2 == 0,
			Purify: (i/8)%3 == 1, Search: SearchSettings{Rungs: []int{-1, 0, 2}[(i/8)%3]}}
		fc.name = fmt.Sprintf("seed %d case %d (%s, rows %v, r %g, MaxSubsets %d, EscapesOnly %v, Purify %v, Search %+v)",
			seed, i, in.Name, i%2 == 1, in.R, fc.s.MaxSubsets, fc.s.EscapesOnly, fc.s.Purify, fc.s.Search)
		sOff := fc.s
		sOff.NoFlatMoves = true
		on, again, off := flatMinimize(fc, fc.s, nil), flatMinimize(fc, fc.s, nil), flatMinimize(fc, sOff, nil)
		flatCheck(t, fc, on, "flat moves")
		flatCheck(t, fc, off, "no flat moves")
		flatCompare(t, fc, on, off, "default budgets")
		if on.err == nil && again.err == nil && !flatSame(on.res, again.res) {
			t.Errorf("%s: two runs differ: %+v\n%+v", fc.name, on.res, again.res)
		}
		if on.res.Stats.FlatMoves > 0 {
			moved++
			if on.res.Status == StatusCertified {
				certified++
			}
		}
		moves += on.res.Stats.FlatMoves
		undone += on.res.Stats.FlatMovesUndone
	}
	t.Logf("%d cases: flat moves in %d (%d moves, %d undone, %d certified)", n, moved, moves, undone, certified)
	if moved == 0 {
		t.Errorf("no flat move in %d cases", n)
	}
}

// TestReviewFlatMatrixFree: no flat move after an escape whose model was an operator
// (MatrixFreeDim; here at every d, setMatrixFree): purify forms a d×m basis and an m×m
// Hessian, which a matrix-free run must not (run.matrixFree), and the run ends as the one
// without flat moves. The cases are the sweep's with flat moves on the dense model.
func TestReviewFlatMatrixFree(t *testing.T) {
	noMoveMatrixFree(t, "flat moves", 200,
		func(fc *flatCase) bool { return fc.s.Search.Rungs <= 0 && !fc.s.Purify },
		func(s *Settings) { s.NoFlatMoves = true },
		func(r *Result) int { return r.Stats.FlatMoves })
}

// noMoveMatrixFree runs the first 6 of the sweep's cases (among limit) that prep keeps and
// whose dense run (Problem.Hess dropped) makes the moves counted by moves, matrix-free with
// the settings as they are and with off applied to them: the first must make no such move
// and end exactly as the second.
func noMoveMatrixFree(t *testing.T, what string, limit int, prep func(*flatCase) bool, off func(*Settings), moves func(*Result) int) {
	t.Helper()
	var tried int
	for i := 0; tried < 6 && i < limit; i++ {
		fc, err := reviewFlatCase(57, i)
		if err != nil || !prep(fc) {
			continue
		}
		fc.p.Hess = nil // matrix-free models need it absent
		if dense := flatMinimize(fc, fc.s, nil); dense.err != nil || moves(dense.res) == 0 {
			continue
		}
		tried++
		run := func(s Settings) *Result {
			o, err := New(fc.p, fc.c, s)
			if err != nil {
				t.Fatal(err)
			}
			o.setMatrixFree(true, 0)
			res, err := o.Minimize(context.Background(), fc.in.X)
			if err != nil {
				t.Fatalf("%s: %v", fc.name, err)
			}
			return res
		}
		sOff := fc.s
		off(&sOff)
		on, without := run(fc.s), run(sOff)
		if moves(on) != 0 || !flatSame(on, without) {
			t.Errorf("%s: matrix-free: %d %s (%v, f %.17g; without them %v, f %.17g)", fc.name, moves(on), what, on.Status, on.F, without.Status, without.F)
		}
	}
	if tried == 0 {
		t.Errorf("no case with %s on the dense model", what)
	}
}

// flatBlockProblem is the planted structure of reviewFlatCase's case i (a bounds-and-
// equality one) in its first coordinates and ½(yⱼ − ½)² on [0, 1] in extra more, with Grad
// only: from d = MatrixFreeDim a matrix-free run whose escape hits MaxSubsets at the flat
// segment of the planted block.
func flatBlockProblem(tb testing.TB, extra int) (Problem, *Constraints, []float64, Settings) {
	for i := range 480 {
		rng := rand.New(rand.NewPCG(31, uint64(i)))
		in := msInstance(rng, msKind(i%int(numMsKinds)), false)
		flatTransfer(rng, in)
		if in.Lower == nil || len(in.A) > 0 {
			continue
		}
		n := in.Dim()
		d := n + extra
		P := Polyhedron{Lower: make([]float64, d), Upper: make([]float64, d)}
		for j := range d {
			P.Lower[j], P.Upper[j] = 0, 1
			if j < n {
				P.Lower[j], P.Upper[j] = in.Lower[j], math.Inf(1)
				if in.Upper != nil {
					P.Upper[j] = in.Upper[j]
				}
			}
		}
		if len(in.Aeq) > 0 {
			A := mat.NewDense(len(in.Aeq), d, nil)
			for r, a := range in.Aeq {
				A.SetRow(r, append(slices.Clone(a), make([]float64, extra)...))
			}
			P.Aeq, P.Beq = A, in.Beq
		}
		c, err := NewPolyhedron(P)
		if err != nil {
			continue
		}
		x0 := append(slices.Clone(in.X), make([]float64, extra)...)
		for j := n; j < d; j++ {
			x0[j] = 0.5
		}
		p := Problem{
			Func: func(x []float64) float64 {
				f := in.Func(x[:n])
				for _, y := range x[n:] {
					f += 0.5 * (y - 0.5) * (y - 0.5)
				}
				return f
			},
			Grad: func(g, x []float64) {
				in.Grad(g[:n], x[:n])
				for j := n; j < len(x); j++ {
					g[j] = x[j] - 0.5
				}
			},
		}
		scale := norm(in.G)*in.R + float64(n)*in.R*in.R*maxAbs(in.Q)
		s := Settings{Delta: 1e-4 * scale, Radius: in.R, MaxSubsets: 1, EscapesOnly: true}
		return p, c, x0, s
	}
	tb.Fatal("no planted instance with bounds and an equality")
	return Problem{}, nil, nil, Settings{}
}

// BenchmarkFlatMovesMatrixFree: Minimize at d = 11 + 2500 (flatBlockProblem), with and
// without flat moves: the same cost since matrix-free escapes make none (before
// run.matrixFree, the flat move made took 147 s and 6 386 gradient calls against 1.2 s
// and 855).
func BenchmarkFlatMovesMatrixFree(b *testing.B) {
	p, c, x0, s := flatBlockProblem(b, 2500)
	for _, off := range []bool{false, true} {
		s.NoFlatMoves = off
		b.Run(fmt.Sprintf("NoFlatMoves=%v", off), func(b *testing.B) {
			for b.Loop() {
				res, err := Minimize(context.Background(), p, c, x0, s)
				if err != nil || res.Status != StatusSubsetLimit {
					b.Fatalf("%v, %v", res.Status, err)
				}
				b.ReportMetric(float64(res.Stats.GradEvals), "grads/op")
			}
		})
	}
}

// TestPurifyMatrixFree: Purify makes no move after a matrix-free escape (the move's d×m
// basis and m×m face Hessian are what that path avoids; TestReviewFlatMatrixFree's
// reason): on the sweep's cases whose dense run purifies, the matrix-free run with Purify
// makes none and ends exactly as without it.
func TestPurifyMatrixFree(t *testing.T) {
	noMoveMatrixFree(t, "purifications", 400,
		func(fc *flatCase) bool {
			fc.s.Purify = true
			return fc.s.Search.Rungs <= 0
		},
		func(s *Settings) { s.Purify = false },
		func(r *Result) int { return r.Stats.Purifications })
}
