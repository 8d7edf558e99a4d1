package houdini

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMaxGradEvalsStrict: MaxGradEvals is a hard bound, even where one escape alone
// (a stochastic model, many VRSG estimates) costs far more. For budgets from 1 call to
// past the run's full cost: GradEvals ≤ MaxGradEvals; the status is StatusEvalLimit
// unless the run finished first or, with Purify, the budget ran out while purifying or
// right after a purification (Minimize then returns to the certified point); X is
// feasible and no higher than x0; a StatusCertified X is a point where an escape
// reported a certificate (seen through the callback).
func TestMaxGradEvalsStrict(t *testing.T) {
	ctx := context.Background()
	// Exact oracle: a zero-diagonal quadratic on the box from its saddle, fast mode and
	// escapes only, with and without Purify.
	n := 12
	rng := rand.New(rand.NewPCG(5, 6))
	A := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rng.Float64() < 0.4 {
				A.SetSym(i, j, 1)
			}
		}
	}
	exact := Problem{
		Func: func(x []float64) float64 { v := mat.NewVecDense(n, x); return 0.5 * mat.Inner(v, A, v) },
		Grad: func(g, x []float64) { mat.NewVecDense(n, g).MulVec(A, mat.NewVecDense(n, x)) },
	}
	type run struct {
		name string
		p    Problem
		f    func([]float64) float64
		c    *Constraints
		x0   []float64
		s    Settings
		// reset re-seeds a stochastic oracle before each run.
		reset func()
	}
	var runs []run
	for _, escapesOnly := range []bool{false, true} {
		for _, purify := range []bool{false, true} {
			runs = append(runs, run{
				name: fmt.Sprintf("exact/EscapesOnly=%v/Purify=%v", escapesOnly, purify),
				p:    exact, f: exact.Func, c: unitBox(n), x0: make([]float64, n),
				// Without the deeper search, which this nonconvex quadratic would start by
				// default: its budgets are TestSearchBudgetReturnsBestCertified's.
				s: Settings{Delta: 1e-2, Radius: 0.1, EscapesOnly: escapesOnly, Purify: purify,
					Search: SearchSettings{Rungs: -1}},
			})
		}
	}
	q, x, _ := saddleInstance(rand.New(rand.NewPCG(3, 4)), 2, 1, 0.4)
	q.sigma = 0.3
	runs = append(runs, run{
		name: "stochastic", p: q.problem(false), f: q.f, c: unitBox(2), x0: x,
		s:     Settings{Delta: 0.2, Radius: 1, Stochastic: StochasticSettings{Grad: true}, Seed: 7},
		reset: func() { q.reset(42) },
	})
	for _, rc := range runs {
		t.Run(rc.name, func(t *testing.T) {
			if rc.reset != nil {
				rc.reset()
			}
			full, err := Minimize(ctx, rc.p, rc.c, rc.x0, rc.s)
			if err != nil {
				t.Fatal(err)
			}
			total := full.Stats.GradEvals
			perEscape := total / max(1, full.Stats.Escapes)
			if perEscape < 2 {
				t.Fatalf("%d calls in %d escapes: budgets would not cut an escape", total, full.Stats.Escapes)
			}
			f0 := rc.f(rc.x0)
			var cut, undone int
			budgets := []int{1, 2, perEscape / 2, perEscape + 1, total / 2, total - 1, total, total + 10}
			if rc.reset == nil {
				// Exact runs are cheap: every budget, so that some run out right after a
				// purification, where Minimize must return to the certified point.
				budgets = budgets[:0]
				for b := 1; b <= total+1; b++ {
					budgets = append(budgets, b)
				}
			}
			for _, budget := range budgets {
				if budget < 1 {
					continue
				}
				if rc.reset != nil {
					rc.reset()
				}
				var certifiedAt [][]float64
				s := rc.s
				s.MaxGradEvals = budget
				s.Callback = func(_ int, e *EscapeResult) bool {
					if e.Certified {
						certifiedAt = append(certifiedAt, append([]float64(nil), e.X...))
					}
					return false
				}
				res, err := Minimize(ctx, rc.p, rc.c, rc.x0, s)
				if err != nil {
					t.Fatalf("budget %d: %v", budget, err)
				}
				tag := fmt.Sprintf("budget %d of %d", budget, total)
				if res.Stats.GradEvals > budget {
					t.Errorf("%s: %d gradient calls", tag, res.Stats.GradEvals)
				}
				if _, v := rc.c.Violation(res.X); v > 1e-9 {
					t.Errorf("%s: X violates a row by %g", tag, v)
				}
				if fx := rc.f(res.X); fx > f0+1e-9 {
					t.Errorf("%s: f rose from %v to %v", tag, f0, fx)
				}
				if res.Stats.PurificationsUndone > 0 {
					undone++
				}
				switch res.Status {
				case StatusEvalLimit:
					cut++
				case StatusCertified:
					earned := false
					for _, y := range certifiedAt {
						earned = earned || slices.Equal(y, res.X)
					}
					if !earned {
						t.Errorf("%s: certified at a point no escape certified", tag)
					}
				default:
					t.Errorf("%s: status %v", tag, res.Status)
				}
				// Below the full cost only a budget spent inside Purify, or right after its
				// move, ends certified (at the certified point, checked above).
				if budget < total && res.Status != StatusEvalLimit && !rc.s.Purify {
					t.Errorf("%s: status %v below the full run's cost", tag, res.Status)
				}
			}
			if cut == 0 {
				t.Error("no budget cut the run")
			}
			if rc.s.Purify && undone == 0 {
				t.Error("no budget ran out right after a purification")
			}
			t.Logf("%d calls, %d escapes, full status %v", total, full.Stats.Escapes, full.Status)
		})
	}
}
