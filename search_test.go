package houdini_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/houdini-opt/houdini"
)

// doubleWell is f(x) = Σ (xᵢ² − 1)² + 0.3xᵢ on [−2, 2]ᵈ: each coordinate has a local
// minimum near +1 and a lower one near −1, so from x₀ = 0.9·1 the nearest δ-SOSP is the
// worst of the 2ᵈ minima.
func doubleWell(d int) (houdini.Problem, *houdini.Constraints, []float64) {
	p := houdini.Problem{
		Func: func(x []float64) float64 {
			f := 0.0
			for _, v := range x {
				f += (v*v-1)*(v*v-1) + 0.3*v
			}
			return f
		},
		Grad: func(g, x []float64) {
			for i, v := range x {
				g[i] = 4*v*(v*v-1) + 0.3
			}
		},
	}
	lo, hi, x0 := make([]float64, d), make([]float64, d), make([]float64, d)
	for i := range lo {
		lo[i], hi[i], x0[i] = -2, 2, 0.9
	}
	box, _ := houdini.NewBox(lo, hi)
	return p, box, x0
}

// The ladder of restarts leaves the nearest minimum of the double well for lower ones,
// returns the lowest certified point the run met (each certificate heard by the
// Callback), a point an escape certifies, and repeats bit for bit.
func TestSearchFindsLowerMinimum(t *testing.T) {
	const d = 6
	p, box, x0 := doubleWell(d)
	ctx := context.Background()
	s := houdini.Settings{Delta: 1e-4, Radius: 0.05}
	plain, err := houdini.Minimize(ctx, p, box, x0, s)
	if err != nil {
		t.Fatal(err)
	}
	lowest := math.Inf(1)
	s.Search = houdini.SearchSettings{Rungs: 3, Tries: 4}
	s.Callback = func(_ int, e *houdini.EscapeResult) bool {
		if e.Certified {
			lowest = math.Min(lowest, p.Func(e.X))
		}
		return false
	}
	res, err := houdini.Minimize(ctx, p, box, x0, s)
	if err != nil {
		t.Fatal(err)
	}
	// Each coordinate moved from the well near +1 to the one near −1 lowers f by 0.6.
	if plain.Status != houdini.StatusCertified || res.Status != houdini.StatusCertified ||
		!(res.F < plain.F-1.1) || res.Stats.Restarts == 0 || res.Stats.RestartsImproved == 0 {
		t.Fatalf("plain %v f = %g; with the search %v f = %g after %d restarts (%d improved)",
			plain.Status, plain.F, res.Status, res.F, res.Stats.Restarts, res.Stats.RestartsImproved)
	}
	if res.F > lowest+s.Delta/3 {
		t.Fatalf("returned f = %g, but a certified point of f = %g was met", res.F, lowest)
	}
	o, err := houdini.New(p, box, houdini.Settings{Delta: 1e-4, Radius: res.Radius})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := o.Escape(ctx, res.X); err != nil || !e.Certified {
		t.Fatalf("the returned point is not certified by an escape: %+v, %v", e, err)
	}
	again, _ := houdini.Minimize(ctx, p, box, x0, s)
	again.Stats.Runtime, res.Stats.Runtime = 0, 0
	if !reflect.DeepEqual(again, res) {
		t.Fatal("two identical runs with the search differ")
	}
}

// A budget that runs out during the restarts ends the run at the best certified point,
// certified, however far the restart had gone.
func TestSearchBudgetReturnsBestCertified(t *testing.T) {
	p, box, x0 := doubleWell(6)
	ctx := context.Background()
	full, err := houdini.Minimize(ctx, p, box, x0, houdini.Settings{Delta: 1e-4, Radius: 0.05,
		Search: houdini.SearchSettings{Rungs: 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{full.Stats.GradEvals / 7, full.Stats.GradEvals / 3, full.Stats.GradEvals / 2} {
		s := houdini.Settings{Delta: 1e-4, Radius: 0.05, MaxGradEvals: budget, Search: houdini.SearchSettings{Rungs: 3}}
		res, err := houdini.Minimize(ctx, p, box, x0, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status == houdini.StatusEvalLimit && res.Stats.Restarts == 0 {
			continue // cut before the first certificate: nothing to return to
		}
		o, _ := houdini.New(p, box, houdini.Settings{Delta: 1e-4, Radius: res.Radius})
		e, err := o.Escape(ctx, res.X)
		if res.Status != houdini.StatusCertified || err != nil || !e.Certified || res.F < full.F-1e-9 {
			t.Fatalf("budget %d: %v at f = %g (full search %g), escape there certified %v",
				budget, res.Status, res.F, full.F, e != nil && e.Certified)
		}
	}
}

func TestSearchSettingsValidated(t *testing.T) {
	p, box, _ := doubleWell(2)
	if _, err := houdini.New(p, box, houdini.Settings{Delta: 1, Radius: 1, Search: houdini.SearchSettings{Rungs: -1}}); err != nil {
		t.Errorf("Rungs −1 (no search): %v", err)
	}
	for _, ss := range []houdini.SearchSettings{{Rungs: 61}, {Rungs: 2, Tries: -1}} {
		_, err := houdini.New(p, box, houdini.Settings{Delta: 1, Radius: 1, Search: ss})
		var se *houdini.SettingsError
		if !errors.Is(err, houdini.ErrBadSettings) || !errors.As(err, &se) {
			t.Errorf("Search %+v: err %v, want a *SettingsError", ss, err)
		}
	}
}
