package houdini_test

// Issue 12, defects 4 (slow cancellation) and 5 (quadratic row preprocessing): unit tests
// with generous bounds, and the benchmarks that carry the figures.
//
//	go test -run '^$' -bench 'CancelLatency|NewConstraints_k|NewBox_d' -benchtime 3x .
//
// The preprocessing benchmarks skip themselves while NewBox and NewConstraints still
// allocate quadratically (a probe of a few milliseconds decides): today they take minutes
// and gigabytes (NewBox at d = 1e5 would need 160 GB for its dense ±eᵢ rows). Set
// HOUDINI_SLOW_BENCH=1 to run them anyway.

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// relCancelProblem is a dense indefinite quadratic at d = 1000 with k rows through x = 0,
// with or without a Hessian oracle (without one, the model costs d + 1 gradient calls of
// O(d²) each, about a second).
func relCancelProblem(tb testing.TB, d, k int, withHess bool) (*houdini.Optimizer, []float64) {
	rng := rand.New(rand.NewPCG(12, 4))
	M := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			M.SetSym(i, j, rng.NormFloat64()/30)
		}
	}
	p := houdini.Problem{
		Grad: func(g, x []float64) { mat.NewVecDense(d, g).MulVec(M, mat.NewVecDense(d, x)) },
	}
	if withHess {
		p.Hess = func(h *mat.SymDense, _ []float64) { h.CopySym(M) }
	}
	A := mat.NewDense(k, d, nil)
	for i := 0; i < k; i++ {
		for j := 0; j < d; j++ {
			A.Set(i, j, rng.NormFloat64())
		}
	}
	c, err := houdini.NewConstraints(A, make([]float64, k))
	if err != nil {
		tb.Fatal(err)
	}
	o, err := houdini.New(p, c, houdini.Settings{Delta: 1e-3, Radius: 0.5, Method: houdini.MethodFull})
	if err != nil {
		tb.Fatal(err)
	}
	return o, make([]float64, d)
}

// relCanceledEscape runs one Escape whose context is canceled after `after`, and returns
// the time from the cancellation to Escape's return.
func relCanceledEscape(o *houdini.Optimizer, x []float64, after time.Duration) (*houdini.EscapeResult, time.Duration, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	canceledAt := make(chan time.Time, 1)
	timer := time.AfterFunc(after, func() { canceledAt <- time.Now(); cancel() })
	e, err := o.Escape(ctx, x)
	end := time.Now()
	if timer.Stop() { // returned before the cancellation
		return e, 0, err
	}
	return e, end.Sub(<-canceledAt), err
}

// TestEscapeCancelLatency_d1000 (issue 12, defect 4): an Escape at d = 1000 canceled 50 ms
// after it starts must return promptly — the issue asks for about 100 ms; this CI-robust
// test allows 300 ms and logs the figure (BenchmarkCancelLatency_d1000 measures it) — and
// report the cancellation as documented (EscapeResult.Canceled, no certificate, no error).
// On 58ff85a it returned about 2.5 s after the cancellation. Skipped under -short.
func TestEscapeCancelLatency_d1000(t *testing.T) {
	skipPending(t)
	if testing.Short() {
		t.Skip("d = 1000 escapes: seconds")
	}
	for _, withHess := range []bool{true, false} {
		o, x := relCancelProblem(t, 1000, 4, withHess)
		e, lat, err := relCanceledEscape(o, x, 50*time.Millisecond)
		t.Logf("Hess %v: returned %v after the cancellation", withHess, lat)
		if err != nil {
			t.Errorf("Hess %v: a canceled Escape returned an error (%v); cancellation is an outcome, not an error", withHess, err)
			continue
		}
		if lat > 300*time.Millisecond {
			t.Errorf("Hess %v: Escape returned %v after its context was canceled, want ≤ 300 ms (issue: ~100 ms)", withHess, lat)
		}
		if !e.Canceled || e.Certified {
			t.Errorf("Hess %v: canceled Escape reports Canceled %v, Certified %v; want Canceled and not Certified", withHess, e.Canceled, e.Certified)
		}
	}
}

// BenchmarkCancelLatency_d1000 reports the time from the cancellation of an Escape at
// d = 1000 (50 ms after it starts) to its return, in ms, with a Hessian oracle and without.
func BenchmarkCancelLatency_d1000(b *testing.B) {
	for _, tc := range []struct {
		name     string
		withHess bool
	}{{"hess", true}, {"grad", false}} {
		b.Run(tc.name, func(b *testing.B) {
			o, x := relCancelProblem(b, 1000, 4, tc.withHess)
			var total time.Duration
			n := 0
			for b.Loop() {
				_, lat, _ := relCanceledEscape(o, x, 50*time.Millisecond)
				total += lat
				n++
			}
			b.ReportMetric(float64(total.Microseconds())/1e3/float64(n), "ms-after-cancel/op")
		})
	}
}

// relAllocated returns the bytes f allocates (runtime.MemStats.TotalAlloc).
func relAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func relBoxBounds(d int) (lower, upper []float64) {
	lower, upper = make([]float64, d), make([]float64, d)
	for i := range lower {
		lower[i], upper[i] = -1, 1
	}
	return lower, upper
}

// relNewBoxBytes returns the bytes NewBox allocates at dimension d.
func relNewBoxBytes(tb testing.TB, d int) uint64 {
	lo, hi := relBoxBounds(d)
	var err error
	n := relAllocated(func() { _, err = houdini.NewBox(lo, hi) })
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// relRows returns k random rows in ℝᵈ with b = Ap + s, s ∈ [0, 1), p Gaussian (so b has
// both signs and phase one has work to do); every tenth row is an earlier row scaled by 2
// (the same half-space, a twin).
func relRows(k, d int) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(12, 5))
	p := make([]float64, d)
	for j := range p {
		p[j] = rng.NormFloat64()
	}
	A := mat.NewDense(k, d, nil)
	b := make([]float64, k)
	row := make([]float64, d)
	for i := 0; i < k; i++ {
		if i%10 == 9 {
			src := rng.IntN(i)
			mat.Row(row, src, A)
			for j := range row {
				row[j] *= 2
			}
			A.SetRow(i, row)
			b[i] = 2 * b[src]
			continue
		}
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		A.SetRow(i, row)
		b[i] = relDot(row, p) + rng.Float64()
	}
	return A, b
}

// relNewConstraintsBytes returns the bytes NewConstraints allocates for relRows(k, d).
func relNewConstraintsBytes(tb testing.TB, k, d int) uint64 {
	A, b := relRows(k, d)
	var err error
	n := relAllocated(func() { _, err = houdini.NewConstraints(A, b) })
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestNewBoxMemoryLinear (issue 12, defect 5): a box needs O(d) memory (bounds as two
// vectors, no twin search), not 2d dense rows and an all-pairs comparison: NewBox may
// allocate at most 1 KiB per coordinate, and doubling d at most triples the bytes. (The
// issue's target, NewBox at d = 1e5 in milliseconds, is BenchmarkNewBox_d100000; d = 5000
// would take minutes on 58ff85a, so the test measures at d = 250 and 500: 0.1 s today.)
func TestNewBoxMemoryLinear(t *testing.T) {
	skipPending(t)
	small, large := relNewBoxBytes(t, 250), relNewBoxBytes(t, 500)
	t.Logf("NewBox allocates %d B at d = 250, %d B at d = 500 (%.0f B per coordinate)", small, large, float64(large)/500)
	if large > 1024*500 {
		t.Errorf("NewBox at d = 500 allocates %d B = %.0f B per coordinate, want O(d): ≤ 1024 B per coordinate", large, float64(large)/500)
	}
	if float64(large) > 3*float64(small) {
		t.Errorf("NewBox's allocation grows %.2f× from d = 250 to 500: quadratic, want ≤ 3× (linear)", float64(large)/float64(small))
	}
}

// TestNewConstraintsMemoryLinear (issue 12, defect 5): preprocessing k rows in ℝᵈ needs
// O(k·d) memory — the issue asks for hashing or sorting of normalised rows and a phase one
// that is not a dense k×(2d + 2k) tableau. k = 1000 rows in ℝ¹⁰ (1.3 s and 12.5 MB on
// 58ff85a) may allocate at most 256 B per entry of A (32 copies of A).
func TestNewConstraintsMemoryLinear(t *testing.T) {
	skipPending(t)
	const k, d = 1000, 10
	n := relNewConstraintsBytes(t, k, d)
	t.Logf("NewConstraints allocates %d B for k = %d, d = %d (%.0f B per entry of A)", n, k, d, float64(n)/(k*d))
	if n > 256*k*d {
		t.Errorf("NewConstraints allocates %d B = %.0f B per entry of A for k = %d, d = %d; want O(k·d): ≤ 256 B per entry",
			n, float64(n)/(k*d), k, d)
	}
}

// relSkipQuadratic skips a preprocessing benchmark while a cheap probe still shows
// quadratic memory (it would take minutes and gigabytes), unless HOUDINI_SLOW_BENCH=1.
func relSkipQuadratic(b *testing.B, box bool) {
	if os.Getenv("HOUDINI_SLOW_BENCH") == "1" {
		return
	}
	if box {
		if n := relNewBoxBytes(b, 250); n > 1024*250 {
			b.Skipf("NewBox is still quadratic (%d B at d = 250); set HOUDINI_SLOW_BENCH=1 to run anyway", n)
		}
		return
	}
	if n := relNewConstraintsBytes(b, 500, 10); n > 256*500*10 {
		b.Skipf("NewConstraints is still quadratic (%d B for 500 rows in ℝ¹⁰); set HOUDINI_SLOW_BENCH=1 to run anyway", n)
	}
}

func benchmarkNewConstraints(b *testing.B, k, d int) {
	relSkipQuadratic(b, false)
	A, rhs := relRows(k, d)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := houdini.NewConstraints(A, rhs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewConstraints_k10000_d100 is the figure: 10⁴ rows in ℝ¹⁰⁰ (81 s and
// 1.2 GB on 58ff85a; the target is under 1 s with O(k·d) memory).
func BenchmarkNewConstraints_k10000_d100(b *testing.B) { benchmarkNewConstraints(b, 10000, 100) }

// BenchmarkNewConstraints_k100000_d100: 10⁵ rows in ℝ¹⁰⁰.
func BenchmarkNewConstraints_k100000_d100(b *testing.B) { benchmarkNewConstraints(b, 100000, 100) }

// BenchmarkNewBox_d100000: the box [−1, 1]^100000 (the target is milliseconds).
func BenchmarkNewBox_d100000(b *testing.B) {
	relSkipQuadratic(b, true)
	lo, hi := relBoxBounds(100000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := houdini.NewBox(lo, hi); err != nil {
			b.Fatal(err)
		}
	}
}
