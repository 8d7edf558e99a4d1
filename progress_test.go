package houdini_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// TestProgress checks Settings.Progress against the run's own counts: one report per
// accepted descent step, escape, purification and radius halving, with counts and the
// decrease that never go back; and NewPrinter writes a header and a line per report.
// (Restarts and flat moves, not made here, are counted too: review_flat_test.go makes
// them.)
func TestProgress(t *testing.T) {
	// ½xᵀAx on [−1, 1]ⁿ, A a random graph's adjacency: from x0 = 0 (a saddle) escapes,
	// descent steps and, with Purify, purification moves.
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
	p := houdini.Problem{
		Func: func(x []float64) float64 { v := mat.NewVecDense(n, x); return 0.5 * mat.Inner(v, A, v) },
		Grad: func(g, x []float64) { mat.NewVecDense(n, g).MulVec(A, mat.NewVecDense(n, x)) },
	}
	lo, hi := make([]float64, n), make([]float64, n)
	for i := range lo {
		lo[i], hi[i] = -1, 1
	}
	box, err := houdini.NewBox(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	var count [houdini.EventFlatMove + 1]int
	var last houdini.Progress
	var buf bytes.Buffer
	printer := houdini.NewPrinter(&buf)
	// Without the deeper search (on by default for this nonconvex quadratic), whose
	// restarts start higher than the best point: TestSearchProgress covers them.
	s := houdini.Settings{Delta: 1e-2, Radius: 0.1, Purify: true, Search: houdini.SearchSettings{Rungs: -1}, Progress: func(pr houdini.Progress) {
		count[pr.Event]++
		// A purification may raise f by up to 1e-6·δ (rounding along flat directions).
		if pr.Decrease < last.Decrease-1e-6*1e-2 || pr.Stats.GradEvals < last.Stats.GradEvals || pr.Stats.Escapes < last.Stats.Escapes {
			t.Errorf("report %v went back: decrease %v after %v, %d gradient calls after %d", pr.Event, pr.Decrease, last.Decrease, pr.Stats.GradEvals, last.Stats.GradEvals)
		}
		if (pr.Event == houdini.EventEscape) != (pr.Escape != nil) {
			t.Errorf("report %v with escape %v", pr.Event, pr.Escape)
		}
		last = pr
		printer(pr)
	}}
	res, err := houdini.Minimize(context.Background(), p, box, make([]float64, n), s)
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if count[houdini.EventDescentStep] != st.DescentSteps || count[houdini.EventEscape] != st.Escapes ||
		count[houdini.EventPurification] != st.Purifications || count[houdini.EventRadiusHalved] != st.RadiusHalvings ||
		count[houdini.EventRestart] != st.Restarts || count[houdini.EventFlatMove] != st.FlatMoves {
		t.Errorf("reports %v; stats: %d descent steps, %d escapes, %d purifications, %d halvings",
			count, st.DescentSteps, st.Escapes, st.Purifications, st.RadiusHalvings)
	}
	if st.DescentSteps == 0 || st.Escapes < 2 || st.Purifications == 0 {
		t.Errorf("the run does not exercise the events: %+v", st)
	}
	if st.PurificationsUndone == 0 && st.FlatMovesUndone == 0 && last.Decrease != res.Decrease {
		t.Errorf("last report's decrease %v, the result's %v", last.Decrease, res.Decrease)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	total := 0
	for _, c := range count {
		total += c
	}
	if len(lines) != total+1 || !strings.HasPrefix(lines[0], "event") {
		t.Errorf("printer wrote %d lines for %d reports:\n%s", len(lines), total, buf.String())
	}
	t.Logf("%v after %d descent steps, %d escapes, %d purifications; first lines:\n%s", res.Status,
		st.DescentSteps, st.Escapes, st.Purifications, strings.Join(lines[:min(4, len(lines))], "\n"))
}
