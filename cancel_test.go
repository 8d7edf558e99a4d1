package houdini_test

// Cancellation and concurrency of the drivers (issue 12, defects 4 and 9). The tests whose
// names contain "Concurrent" also run under the race detector in CI (.ci/run).

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/houdini-opt/houdini"
)

// TestConcurrentCancelableContextSameResult: under a context that can be canceled, the
// eigendecompositions of order ≥ 128 run on goroutines of their own; the results must be
// those of context.Background(), bit for bit, from concurrent calls too.
func TestConcurrentCancelableContextSameResult(t *testing.T) {
	if testing.Short() {
		t.Skip("d = 200 escapes")
	}
	o, x := relCancelProblem(t, 200, 4, true)
	want, err := o.Escape(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	got := make([]*houdini.EscapeResult, 3)
	errs := make([]error, len(got))
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[g], errs[g] = o.Escape(ctx, x)
		}()
	}
	wg.Wait()
	for g := range got {
		if errs[g] != nil {
			t.Fatalf("goroutine %d: %v", g, errs[g])
		}
		if !reflect.DeepEqual(got[g], want) {
			t.Errorf("goroutine %d, cancelable context: %s", g, relFirstDiff(*got[g], *want))
		}
	}
}

// TestConcurrentCancelDuringFactorization: Escapes canceled while their eigendecomposition
// runs return at once, canceled and uncertified, and the factorizations they leave
// behind touch nothing the callers see (run it with -race).
func TestConcurrentCancelDuringFactorization(t *testing.T) {
	if testing.Short() {
		t.Skip("d = 300 escapes")
	}
	o, x := relCancelProblem(t, 300, 4, true)
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, lat, err := relCanceledEscape(o, x, 5*time.Millisecond)
			switch {
			case err != nil:
				t.Errorf("goroutine %d: canceled Escape returned %v", g, err)
			case lat == 0:
				t.Logf("goroutine %d: the escape ended before its cancellation", g)
			case !e.Canceled || e.Certified || e.Found:
				t.Errorf("goroutine %d: canceled Escape: Canceled %v, Certified %v, Found %v", g, e.Canceled, e.Certified, e.Found)
			case lat > 300*time.Millisecond:
				t.Errorf("goroutine %d: returned %v after the cancellation", g, lat)
			}
		}()
	}
	wg.Wait()
}

// TestMinimizeCanceledInOracle: a context canceled inside an oracle call (here by the
// gradient itself, at its 5th call, inside the first model's gradient differences) stops
// Minimize before the next call, with StatusCanceled, x0, no certificate and no error.
func TestMinimizeCanceledInOracle(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	p := houdini.Problem{Grad: func(g, x []float64) {
		if calls++; calls == 5 {
			cancel()
		}
		for i := range g {
			g[i] = -x[i]
		}
	}}
	x0 := make([]float64, 20)
	res, err := houdini.Minimize(ctx, p, nil, x0, houdini.Settings{Delta: 1e-3, Radius: 0.5, EscapesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != houdini.StatusCanceled || res.Stats.GradEvals != 5 || !reflect.DeepEqual(res.X, x0) {
		t.Errorf("got %v after %d gradient calls at %v, want canceled after 5 at x0", res.Status, res.Stats.GradEvals, res.X)
	}
}

// TestEscapeHonoursMaxGradEvals: Escape stops before the gradient call that would exceed
// MaxGradEvals and says so (EvalLimit), with no move, no certificate and no error; with
// budget to spare it moves as without one.
func TestEscapeHonoursMaxGradEvals(t *testing.T) {
	calls := 0
	p := houdini.Problem{Grad: func(g, x []float64) {
		calls++
		g[0], g[1] = x[0], -x[1]
	}}
	for _, budget := range []int{2, 100} {
		calls = 0
		o, err := houdini.New(p, nil, houdini.Settings{Delta: 1e-3, Radius: 0.5, MaxGradEvals: budget})
		if err != nil {
			t.Fatal(err)
		}
		e, err := o.Escape(context.Background(), []float64{0, 0})
		if err != nil {
			t.Fatal(err)
		}
		if calls > budget || e.GradEvals != calls {
			t.Errorf("budget %d: %d gradient calls (EscapeResult says %d)", budget, calls, e.GradEvals)
		}
		if budget == 2 && (!e.EvalLimit || e.Found || e.Certified || e.Canceled) {
			t.Errorf("budget 2 (the model needs 3): EvalLimit %v, Found %v, Certified %v, Canceled %v; want EvalLimit alone",
				e.EvalLimit, e.Found, e.Certified, e.Canceled)
		}
		if budget == 100 && (e.EvalLimit || !e.Found) {
			t.Errorf("budget 100: EvalLimit %v, Found %v; want a move", e.EvalLimit, e.Found)
		}
	}
}

// TestOraclePanicKeepsPartialResult: a Grad that panics after the first move gives the
// partial Result beside the *PanicError, which wraps ErrOraclePanic and the panic's
// value when that is an error.
func TestOraclePanicKeepsPartialResult(t *testing.T) {
	boom := errors.New("batch loader failed")
	poisoned := false
	p := houdini.Problem{
		Func: func(x []float64) float64 { return -x[0]*x[0] + x[1]*x[1] },
		Grad: func(g, x []float64) {
			if poisoned {
				panic(boom)
			}
			g[0], g[1] = -2*x[0], 2*x[1]
		},
	}
	box, err := houdini.NewBox([]float64{-1, -1}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	s := houdini.Settings{Delta: 1e-3, Radius: 0.5, EscapesOnly: true,
		Callback: func(_ int, e *houdini.EscapeResult) bool { poisoned = poisoned || e.Found; return false }}
	res, err := houdini.Minimize(context.Background(), p, box, []float64{0, 0.5}, s)
	var pe *houdini.PanicError
	if !errors.As(err, &pe) || !errors.Is(err, houdini.ErrOraclePanic) || !errors.Is(err, boom) || pe.What != "Grad" || len(pe.Stack) == 0 {
		t.Fatalf("err = %v (%T), want a *PanicError from Grad wrapping ErrOraclePanic and the panic's error, with a stack", err, err)
	}
	if res == nil || res.Status != houdini.StatusOracleFailure || res.Stats.Escapes < 1 || !(p.Func(res.X) < p.Func([]float64{0, 0.5})) {
		t.Fatalf("partial result %+v: want StatusOracleFailure below f(x0) after an escape", res)
	}
	if res.F != p.Func(res.X) {
		t.Errorf("F = %g, want f(X) = %g (Func still works)", res.F, p.Func(res.X))
	}
}
