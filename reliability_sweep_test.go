package houdini_test

// Issue 12, acceptance: "no new panics on any input". TestNoPanicSweep runs the public
// entry points — NewBox, NewConstraints, NewPolyhedron, New, Minimize and Escape — over the
// cross product of awkward sets, objectives, starts and settings (NaN, ±Inf, huge and tiny
// values, zero rows, empty sets, d = 1, a start on many rows at once; the full, corner and
// auto methods, EscapesOnly, Purify, Search, stochastic oracles) and checks that nothing
// panics, every error wraps a sentinel, and every returned point is finite and feasible.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// sweepSet is one feasible set of the sweep, or the constructor call that must refuse it.
type sweepSet struct {
	name  string
	make  func() (*houdini.Constraints, error)
	d     int
	x0    []float64 // a start; nil: the origin
	empty bool      // the constructor must fail (with a sentinel)
	anyOK bool      // the constructor may fail (with a sentinel) or succeed
}

// sweepObjective builds a Problem in dimension d.
type sweepObjective struct {
	name string
	make func(d int) houdini.Problem
}

// sweepSaddle is f(x) = s·(Σᵢ cᵢ(xᵢ − o)² + gᵀx) with alternating curvature signs: a saddle
// of scale s around o, with exact oracles (Func and Hess as asked).
func sweepSaddle(d int, s, o float64, withFunc, withHess bool) houdini.Problem {
	c := func(i int) float64 {
		if i%2 == 1 {
			return -1
		}
		return 0.5 + float64(i)
	}
	g := func(i int) float64 { return 0.1 * float64(i+1) }
	p := houdini.Problem{Grad: func(gr, x []float64) {
		for i := range x {
			gr[i] = s * (2*c(i)*(x[i]-o) + g(i))
		}
	}}
	if withFunc {
		p.Func = func(x []float64) float64 {
			v := 0.0
			for i := range x {
				v += c(i)*(x[i]-o)*(x[i]-o) + g(i)*x[i]
			}
			return s * v
		}
	}
	if withHess {
		p.Hess = func(h *mat.SymDense, x []float64) {
			for i := range x {
				for j := i; j < len(x); j++ {
					h.SetSym(i, j, 0)
				}
				h.SetSym(i, i, 2*s*c(i))
			}
		}
	}
	return p
}

func sweepSets() []sweepSet {
	inf := math.Inf(1)
	nan := math.NaN()
	dense := func(k, d int, v ...float64) *mat.Dense { return mat.NewDense(k, d, v) }
	// Many rows through the origin in ℝ³: 40 random half-spaces aᵢ·x ≤ 0 (0 is feasible
	// and on all of them), and a vertex of 12 rows in ℝ².
	rng := rand.New(rand.NewPCG(12, 1))
	many := mat.NewDense(40, 3, nil)
	for i := 0; i < 40; i++ {
		for j := 0; j < 3; j++ {
			many.Set(i, j, rng.NormFloat64())
		}
	}
	fan := mat.NewDense(12, 2, nil)
	for i := 0; i < 12; i++ {
		t := math.Pi * (0.25 + 0.5*float64(i)/11) // normals in a half-plane: a pointed cone
		fan.Set(i, 0, math.Cos(t))
		fan.Set(i, 1, math.Sin(t))
	}
	sets := []sweepSet{
		{name: "nil", make: func() (*houdini.Constraints, error) { return nil, nil }, d: 2},
		{name: "zero Constraints{}", make: func() (*houdini.Constraints, error) { return &houdini.Constraints{}, nil }, d: 3},
		{name: "d=1 interval", make: func() (*houdini.Constraints, error) { return houdini.NewBox([]float64{-1}, []float64{1}) }, d: 1},
		{name: "d=1 ray", make: func() (*houdini.Constraints, error) { return houdini.NewBox([]float64{-inf}, []float64{1}) }, d: 1, x0: []float64{1}},
		{name: "d=1 point", make: func() (*houdini.Constraints, error) { return houdini.NewBox([]float64{0.5}, []float64{0.5}) }, d: 1, x0: []float64{0.5}},
		{name: "d=1 rows", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(dense(3, 1, 1, -1, 2), []float64{1, 1, 2})
		}, d: 1, x0: []float64{1}},
		{name: "box of infinite bounds", make: func() (*houdini.Constraints, error) {
			return houdini.NewBox([]float64{-inf, -inf}, []float64{inf, inf})
		}, d: 2},
		{name: "huge box, start at its corner", make: func() (*houdini.Constraints, error) {
			return houdini.NewBox([]float64{-1e300, -1e300}, []float64{1e300, 1e300})
		}, d: 2, x0: []float64{1e300, -1e300}},
		{name: "tiny box", make: func() (*houdini.Constraints, error) {
			return houdini.NewBox([]float64{0, 0}, []float64{1e-300, 5e-324})
		}, d: 2},
		{name: "box far from the origin", make: func() (*houdini.Constraints, error) {
			return houdini.NewBox([]float64{1e15, -1e15 - 1}, []float64{1e15 + 1, -1e15})
		}, d: 2, x0: []float64{1e15, -1e15}},
		{name: "fixed coordinate and a free one", make: func() (*houdini.Constraints, error) {
			return houdini.NewBox([]float64{0, -inf}, []float64{0, inf})
		}, d: 2},
		{name: "40 rows through x0 in ℝ³", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(many, make([]float64, 40))
		}, d: 3},
		{name: "vertex of 12 rows in ℝ²", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(fan, make([]float64, 12))
		}, d: 2},
		{name: "one row repeated and negated (a slab of width 0)", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(dense(4, 2, 1, 1, 1, 1, -1, -1, 2, 2), []float64{0, 0, 0, 0})
		}, d: 2},
		{name: "huge and tiny coefficients", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(dense(3, 2, 1e150, 0, 0, 1e-150, -1e-300, -1e-300), []float64{1e150, 1e-150, 0})
		}, d: 2},
		{name: "+Inf right-hand sides and a far row", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(dense(3, 2, 1, 0, 0, 1, 1, 1), []float64{inf, inf, 1e300})
		}, d: 2},
		{name: "polyhedron: bounds, rows, equality", make: func() (*houdini.Constraints, error) {
			return houdini.NewPolyhedron(houdini.Polyhedron{
				Lower: []float64{-1, -1, -1}, Upper: []float64{1, 1, 1},
				A: dense(1, 3, 1, -1, 0), B: []float64{0},
				Aeq: dense(2, 3, 1, 1, 1, 2, 2, 2), Beq: []float64{0, 0},
			})
		}, d: 3},
		{name: "polyhedron: equalities only, a point", make: func() (*houdini.Constraints, error) {
			return houdini.NewPolyhedron(houdini.Polyhedron{Aeq: dense(2, 2, 1, 0, 0, 1), Beq: []float64{0, 0}})
		}, d: 2},
		{name: "polyhedron: equality with tiny coefficients", make: func() (*houdini.Constraints, error) {
			return houdini.NewPolyhedron(houdini.Polyhedron{Aeq: dense(1, 2, 1e-300, 1e-300), Beq: []float64{0}})
		}, d: 2},

		// Sets every constructor must refuse with a sentinel.
		{name: "NaN in A", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(dense(1, 2, nan, 1), []float64{0})
		}, empty: true},
		{name: "+Inf in A", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(dense(1, 2, inf, 1), []float64{0})
		}, empty: true},
		{name: "NaN in b", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(dense(1, 2, 1, 1), []float64{nan})
		}, empty: true},
		{name: "−Inf in b", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(dense(1, 2, 1, 1), []float64{-inf})
		}, empty: true},
		{name: "zero row", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(dense(2, 2, 1, 0, 0, 0), []float64{1, 1})
		}, empty: true},
		{name: "empty by two rows", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(dense(2, 2, 1, 1, -1, -1), []float64{-1e-3, 0})
		}, empty: true},
		{name: "empty far away", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(dense(2, 1, 1, -1), []float64{-1e300, -1e300})
		}, empty: true},
		{name: "box lower > upper", make: func() (*houdini.Constraints, error) {
			return houdini.NewBox([]float64{1}, []float64{0})
		}, empty: true},
		{name: "box +Inf lower", make: func() (*houdini.Constraints, error) {
			return houdini.NewBox([]float64{inf}, []float64{inf})
		}, d: 1, anyOK: true},
		{name: "box NaN", make: func() (*houdini.Constraints, error) {
			return houdini.NewBox([]float64{nan, 0}, []float64{1, 1})
		}, empty: true},
		{name: "box of d = 0", make: func() (*houdini.Constraints, error) { return houdini.NewBox(nil, nil) }, empty: true},
		{name: "NewConstraints of a 0×0 matrix", make: func() (*houdini.Constraints, error) {
			return houdini.NewConstraints(&mat.Dense{}, nil)
		}, empty: true},
		{name: "polyhedron: inconsistent equalities", make: func() (*houdini.Constraints, error) {
			return houdini.NewPolyhedron(houdini.Polyhedron{Aeq: dense(2, 2, 1, 1, 2, 2), Beq: []float64{0, 1}})
		}, empty: true},
		{name: "polyhedron: NaN in Beq", make: func() (*houdini.Constraints, error) {
			return houdini.NewPolyhedron(houdini.Polyhedron{Aeq: dense(1, 2, 1, 1), Beq: []float64{nan}})
		}, empty: true},
		{name: "polyhedron: parts of different d", make: func() (*houdini.Constraints, error) {
			return houdini.NewPolyhedron(houdini.Polyhedron{Lower: []float64{0}, A: dense(1, 2, 1, 1), B: []float64{0}})
		}, empty: true},
		{name: "polyhedron: equality outside the box", make: func() (*houdini.Constraints, error) {
			return houdini.NewPolyhedron(houdini.Polyhedron{Lower: []float64{0, 0}, Upper: []float64{1, 1},
				Aeq: dense(1, 2, 1, 1), Beq: []float64{3}})
		}, empty: true},
		{name: "polyhedron: zero", make: func() (*houdini.Constraints, error) {
			return houdini.NewPolyhedron(houdini.Polyhedron{})
		}, d: 1, anyOK: true},
	}
	return sets
}

func sweepObjectives() []sweepObjective {
	nan := math.NaN()
	return []sweepObjective{
		{"saddle, Func and Hess", func(d int) houdini.Problem { return sweepSaddle(d, 1, 0, true, true) }},
		{"saddle, Grad only", func(d int) houdini.Problem { return sweepSaddle(d, 1, 0, false, false) }},
		{"saddle ×1e200", func(d int) houdini.Problem { return sweepSaddle(d, 1e200, 0, true, false) }},
		{"saddle ×1e-300", func(d int) houdini.Problem { return sweepSaddle(d, 1e-300, 0, true, true) }},
		{"saddle around 1e300", func(d int) houdini.Problem { return sweepSaddle(d, 1, 1e300, true, false) }},
		{"zero gradient", func(d int) houdini.Problem {
			return houdini.Problem{Func: func([]float64) float64 { return 0 }, Grad: func(g, _ []float64) { clear(g) }}
		}},
		{"linear, unbounded", func(d int) houdini.Problem {
			return houdini.Problem{Func: func(x []float64) float64 { return -x[0] },
				Grad: func(g, _ []float64) { clear(g); g[0] = -1 }}
		}},
		{"NaN gradient away from the start", func(d int) houdini.Problem {
			p := sweepSaddle(d, 1, 0, true, false)
			grad := p.Grad
			calls := 0
			p.Grad = func(g, x []float64) {
				grad(g, x)
				if calls++; calls > 3 {
					g[0] = nan
				}
			}
			return p
		}},
		{"+Inf Func, NaN Hess", func(d int) houdini.Problem {
			p := sweepSaddle(d, 1, 0, false, false)
			p.Func = func([]float64) float64 { return math.Inf(1) }
			p.Hess = func(h *mat.SymDense, _ []float64) { h.SetSym(0, 0, nan) }
			return p
		}},
		{"panicking Grad", func(d int) houdini.Problem {
			p := sweepSaddle(d, 1, 0, true, true)
			grad := p.Grad
			calls := 0
			p.Grad = func(g, x []float64) {
				if calls++; calls > 5 {
					panic("sweep: Grad exploded")
				}
				grad(g, x)
			}
			return p
		}},
		{"nil Grad", func(int) houdini.Problem { return houdini.Problem{Func: func([]float64) float64 { return 0 }} }},
	}
}

// sweepSettings are the methods and modes of the sweep, each with small budgets.
func sweepSettings() []struct {
	name string
	s    houdini.Settings
} {
	base := houdini.Settings{Delta: 1e-2, Radius: 0.5, MaxEscapes: 8, MaxGradEvals: 3000, MaxSubsets: 256}
	with := func(f func(*houdini.Settings)) houdini.Settings { s := base; f(&s); return s }
	return []struct {
		name string
		s    houdini.Settings
	}{
		{"auto", base},
		{"full", with(func(s *houdini.Settings) { s.Method = houdini.MethodFull })},
		{"full, noise", with(func(s *houdini.Settings) { s.Method = houdini.MethodFull; s.Full.Noise = 0.5 })},
		{"corner", with(func(s *houdini.Settings) { s.Method = houdini.MethodCorner })},
		{"corner, L", with(func(s *houdini.Settings) { s.Method = houdini.MethodCorner; s.Corner.L = 10 })},
		{"EscapesOnly", with(func(s *houdini.Settings) { s.EscapesOnly = true })},
		{"Purify", with(func(s *houdini.Settings) { s.Purify = true })},
		{"Search", with(func(s *houdini.Settings) { s.Search = houdini.SearchSettings{Rungs: 2, Tries: 1} })},
		{"stochastic Grad", with(func(s *houdini.Settings) {
			s.Stochastic = houdini.StochasticSettings{Grad: true, Sigma: 1e-3, GradAccuracy: 10, HessAccuracy: 10}
		})},
		{"stochastic Grad, σ estimated, NoisyFunc", with(func(s *houdini.Settings) {
			s.Stochastic = houdini.StochasticSettings{Grad: true, NoisyFunc: true, GradAccuracy: 10, HessAccuracy: 10}
		})},
		{"Rho instead of Radius", with(func(s *houdini.Settings) { s.Radius = 0; s.Rho = 1 })},
		{"huge δ", with(func(s *houdini.Settings) { s.Delta = 1e300 })},
		{"tiny δ and r", with(func(s *houdini.Settings) { s.Delta = 1e-300; s.Radius = 1e-150 })},
		{"tiny r", with(func(s *houdini.Settings) { s.Radius = 1e-300 })},
		{"huge r", with(func(s *houdini.Settings) { s.Radius = 1e300 })},
		{"NaN δ", with(func(s *houdini.Settings) { s.Delta = math.NaN() })},
		{"+Inf r", with(func(s *houdini.Settings) { s.Radius = math.Inf(1) })},
		{"FeasTol 0.5", with(func(s *houdini.Settings) { s.FeasTol = 0.5 })},
	}
}

// sweepStarts derives the starts of a set: its own, and awkward ones.
func sweepStarts(set sweepSet) [][]float64 {
	x := set.x0
	if x == nil {
		x = make([]float64, set.d)
	}
	huge := make([]float64, set.d)
	withNaN := make([]float64, set.d)
	withInf := make([]float64, set.d)
	copy(withNaN, x)
	copy(withInf, x)
	for i := range huge {
		huge[i] = 1e308
	}
	withNaN[0] = math.NaN()
	withInf[set.d-1] = math.Inf(-1)
	return [][]float64{x, huge, withNaN, withInf, x[:set.d-1], append(append([]float64{}, x...), 0)}
}

func sweepErrOK(err error) bool {
	return err == nil || relIsSentinel(err) || errors.Is(err, houdini.ErrOraclePanic)
}

// sweepWork bounds the oracle calls (Func, Grad, Hess, HessVec together) of one
// Minimize+Escape pair of the sweep; the settings cap gradient calls at 3000 (MaxGradEvals)
// but not the Func, Hess and HessVec calls of line searches and Krylov products; the
// sweep's pairs make at most 61 933 calls in all (measured on edc2e99), so a pair past
// sweepWork, eight times that, is a runaway (a loop that keeps calling the oracle). The bound counts work, not wall-clock
// time, so a loaded machine cannot trip it; sweepHang, generous, catches a pair that spins
// without calling the oracle at all.
const (
	sweepWork = 500000
	sweepHang = time.Minute
)

// sweepMeter counts a pair's oracle calls and cancels its context past sweepWork.
type sweepMeter struct {
	calls  atomic.Int64
	cancel context.CancelFunc
}

// start arms the meter for a new pair.
func (m *sweepMeter) start(cancel context.CancelFunc) {
	m.calls.Store(0)
	m.cancel = cancel
}

func (m *sweepMeter) tick() {
	if m.calls.Add(1) > sweepWork {
		m.cancel()
	}
}

// wrap returns p with every oracle counted by m.
func (m *sweepMeter) wrap(p houdini.Problem) houdini.Problem {
	if f := p.Func; f != nil {
		p.Func = func(x []float64) float64 { m.tick(); return f(x) }
	}
	if g := p.Grad; g != nil {
		p.Grad = func(gr, x []float64) { m.tick(); g(gr, x) }
	}
	if h := p.Hess; h != nil {
		p.Hess = func(hs *mat.SymDense, x []float64) { m.tick(); h(hs, x) }
	}
	if hv := p.HessVec; hv != nil {
		p.HessVec = func(out, x, v []float64) { m.tick(); hv(out, x, v) }
	}
	return p
}

func TestNoPanicSweep(t *testing.T) {
	sets, objs, sets2 := sweepSets(), sweepObjectives(), sweepSettings()
	short := testing.Short()
	calls, failures := 0, 0
	var meter sweepMeter
	var most int64 // the most oracle calls of a pair
	outcomes := map[string]int{}
	rng := rand.New(rand.NewPCG(7, 7))
	fail := func(format string, args ...any) {
		failures++
		if failures <= 40 {
			t.Errorf(format, args...)
		}
	}
	for _, set := range sets {
		var c *houdini.Constraints
		var err error
		if v := relCall(func() { c, err = set.make() }); v != nil {
			fail("%s: the constructor panics: %v", set.name, v)
			continue
		}
		if set.empty {
			if err == nil || !relIsSentinel(err) {
				fail("%s: the constructor returned (%v, %v), want an error wrapping a sentinel", set.name, c, err)
			}
			continue
		}
		if err != nil {
			if !set.anyOK || !relIsSentinel(err) {
				fail("%s: the constructor: %v", set.name, err)
			}
			continue
		}
		if c != nil {
			if k, d := c.Dims(); d != set.d && !(k == 0 && d == 0) {
				fail("%s: Dims = (%d, %d), want d = %d", set.name, k, d, set.d)
			}
		}
		starts := sweepStarts(set)
		for oi, obj := range objs {
			for si, st := range sets2 {
				if short && (oi+si)%3 != 0 {
					continue
				}
				name := fmt.Sprintf("%s / %s / %s", set.name, obj.name, st.name)
				var o *houdini.Optimizer
				if v := relCall(func() { o, err = houdini.New(meter.wrap(obj.make(set.d)), c, st.s) }); v != nil {
					fail("%s: New panics: %v", name, v)
					continue
				}
				if err != nil {
					if !relIsSentinel(err) {
						fail("%s: New: %v wraps no sentinel", name, err)
					}
					continue
				}
				for xi, x0 := range starts {
					if short && xi > 0 && xi != 2 && xi != 4 {
						continue
					}
					calls++
					ctx, cancel := context.WithTimeout(context.Background(), sweepHang)
					meter.start(cancel)
					var res *houdini.Result
					var e *houdini.EscapeResult
					var merr, eerr error
					x := append([]float64(nil), x0...)
					if v := relCall(func() { res, merr = o.Minimize(ctx, x) }); v != nil {
						fail("%s, x0 = %v: Minimize panics: %v", name, x0, v)
					}
					if v := relCall(func() { e, eerr = o.Escape(ctx, x) }); v != nil {
						fail("%s, x0 = %v: Escape panics: %v", name, x0, v)
					}
					cancel()
					work := meter.calls.Load()
					most = max(most, work)
					if work > sweepWork {
						fail("%s, x0 = %v: a runaway: more than %d oracle calls", name, x0, sweepWork)
					}
					if !sweepErrOK(merr) || !sweepErrOK(eerr) {
						fail("%s, x0 = %v: errors %v / %v wrap no sentinel", name, x0, merr, eerr)
					}
					for i := range x {
						if !(x[i] == x0[i] || math.IsNaN(x0[i])) {
							fail("%s: the start was modified: %v, was %v", name, x, x0)
							break
						}
					}
					inside := len(x0) == set.d && xi == 0
					d := set.d
					if k, cd := dims(c); k == 0 && cd == 0 {
						d = len(x0) // ℝᵈ takes d from the start
					}
					if res != nil {
						outcomes[res.Status.String()]++
						if res.Status == houdini.StatusCanceled {
							fail("%s, x0 = %v: Minimize canceled (%d gradient calls, %d oracle calls): past %d oracle calls or %v", name, x0, res.Stats.GradEvals, work, sweepWork, sweepHang)
						}
						if res.Status == houdini.StatusCertified && !st.s.Stochastic.Grad && !st.s.Stochastic.NoisyFunc {
							if y, drop := sweepProbe(obj.make(d), c, res.X, res.Radius, rng); drop > res.Delta {
								fail("%s, x0 = %v: certified X = %v (δ = %g, r = %g), but y = %v in S within r is %g lower",
									name, x0, res.X, res.Delta, res.Radius, y, drop)
							}
						}
						sweepCheckPoint(fail, name+": Minimize", c, d, res.X, res.MaxViolation, st.s)
					} else if merr == nil {
						fail("%s: Minimize returned (nil, nil)", name)
					} else {
						outcomes["Minimize error: "+sweepSentinel(merr)]++
					}
					if res == nil && merr != nil && inside && !errors.Is(merr, houdini.ErrBadProblem) &&
						!errors.Is(merr, houdini.ErrBadSettings) && !errors.Is(merr, houdini.ErrNonFinite) &&
						!errors.Is(merr, houdini.ErrOraclePanic) {
						fail("%s: Minimize refused the set's own feasible start: %v", name, merr)
					}
					if e != nil {
						if e.Canceled {
							fail("%s, x0 = %v: Escape canceled (%d oracle calls): past %d oracle calls or %v", name, x0, work, sweepWork, sweepHang)
						}
						if e.Found && e.Certified {
							fail("%s: Escape both Found and Certified", name)
						}
						if e.Found {
							h := 0.0
							for i := range x {
								h = math.Hypot(h, e.X[i]-x[i])
							}
							if !(h <= e.Radius*(1+1e-9)) {
								fail("%s: Escape moved by %g > r = %g", name, h, e.Radius)
							}
							_, v := violation(c, e.X)
							sweepCheckPoint(fail, name+": Escape", c, d, e.X, v, st.s)
						}
					} else if eerr == nil {
						fail("%s: Escape returned (nil, nil)", name)
					}
				}
			}
		}
	}
	t.Logf("%d Minimize+Escape pairs over %d sets, %d objectives, %d settings; %d failures; at most %d oracle calls in a pair",
		calls, len(sets), len(objs), len(sets2), failures, most)
	t.Logf("Minimize outcomes: %v", outcomes)
}

// sweepProbe samples points y of S ∩ B(x, r) (uniform in the ball, rejected outside S, plus
// the ball's axis points) and returns the lowest one and f(x) − f(y), when p has a Func and
// both values are finite.
func sweepProbe(p houdini.Problem, c *houdini.Constraints, x []float64, r float64, rng *rand.Rand) ([]float64, float64) {
	if p.Func == nil || math.IsInf(r, 0) || r == 0 {
		return nil, 0
	}
	fx := p.Func(x)
	if math.IsNaN(fx) || math.IsInf(fx, 0) {
		return nil, 0
	}
	d := len(x)
	best, drop := []float64(nil), 0.0
	try := func(y []float64) {
		if _, v := violation(c, y); v > 0 {
			return
		}
		if fy := p.Func(y); fx-fy > drop && !math.IsInf(fy, 0) {
			best, drop = append([]float64(nil), y...), fx-fy
		}
	}
	y := make([]float64, d)
	for i := 0; i < 2*d; i++ {
		copy(y, x)
		y[i/2] += r * float64(1-2*(i%2))
		try(y)
	}
	for n := 0; n < 500; n++ {
		nrm := 0.0
		for i := range y {
			y[i] = rng.NormFloat64()
			nrm = math.Hypot(nrm, y[i])
		}
		scale := r * math.Pow(rng.Float64(), 1/float64(d)) / nrm
		for i := range y {
			y[i] = x[i] + scale*y[i]
		}
		try(y)
	}
	return best, drop
}

func dims(c *houdini.Constraints) (int, int) {
	if c == nil {
		return 0, 0
	}
	return c.Dims()
}

// sweepSentinel names the sentinel err wraps.
func sweepSentinel(err error) string {
	for _, s := range append(relSentinels, houdini.ErrOraclePanic) {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return fmt.Sprint(err)
}

func violation(c *houdini.Constraints, x []float64) (int, float64) {
	if c == nil {
		return -1, 0
	}
	return c.Violation(x)
}

// sweepCheckPoint checks a returned point: d finite coordinates, feasible within FeasTol.
func sweepCheckPoint(fail func(string, ...any), name string, c *houdini.Constraints, d int, x []float64, reported float64, s houdini.Settings) {
	if len(x) != d {
		fail("%s: returned a point of length %d, want %d", name, len(x), d)
		return
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			fail("%s: returned a non-finite point %v", name, x)
			return
		}
	}
	row, v := violation(c, x)
	tol := s.FeasTol
	if tol == 0 {
		tol = 1e-9
	}
	// Violation is a distance; the feasibility rule allows FeasTol·max(1, |b̂ᵢ|) plus
	// rounding, so compare relative to the row's scale loosely.
	if row >= 0 && v > 0 {
		bound := tol * math.Max(1, maxAbs(x)) * 4
		if !(v <= bound) {
			fail("%s: returned X = %v violating constraint %d by %g (reported %g)", name, x, row, v, reported)
		}
	}
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// The fixed-point stop is checked by work, not by wall time (no timed assertions in unit
// tests): cornerCycleSteps bounds the power steps a run may make (Stats.CornerIters,
// EscapeResult.Iters; 4100 for the Minimize below, summed over its escapes, and 1 for each
// Escape at the minimum, on 3cc5051), far below the 2³¹ of T that a run without the stop
// spins through. cornerSpinGuard only ends such a spinning run (then Canceled, which fails
// the test): with the stop in corner.go's powerIteration removed, all three runs are
// canceled by it (30 s for the test).
const (
	cornerCycleSteps = 100000
	cornerSpinGuard  = 10 * time.Second
)

// TestCornerPowerIterationStopsAtFixedPoint (found by TestNoPanicSweep): the corner path's
// power iteration runs T = ⌈L r′²/(2εδ)·ln(√m/ξ)⌉ steps, capped at 2³¹; once its iterate is a
// fixed point, every step repeats the last exactly and the evaluator answers it from its
// cache, so MaxGradEvals does not bound it. With a small δ (here f = ½x² on [−1, 1], δ =
// 1e-12, T = 2³¹), an Escape spun for minutes without an oracle call; it must stop at the
// fixed point, with the same verdict, at once.
func TestCornerPowerIterationStopsAtFixedPoint(t *testing.T) {
	box, err := houdini.NewBox([]float64{-1}, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	p := houdini.Problem{Func: func(x []float64) float64 { return 0.5 * x[0] * x[0] },
		Grad: func(g, x []float64) { g[0] = x[0] }}
	// A 2-cycle of the iterate at rounding level, found by the sweep: rows of very
	// different scales, f ×1e200. Before, a corner Minimize spun for minutes here.
	rows, err := houdini.NewConstraints(mat.NewDense(3, 2, []float64{1e150, 0, 0, 1e-150, -1e-300, -1e-300}), []float64{1e150, 1e-150, 0})
	if err != nil {
		t.Fatal(err)
	}
	o, err := houdini.New(sweepSaddle(2, 1e200, 0, true, false), rows, houdini.Settings{Delta: 1e-2, Radius: 0.5, Method: houdini.MethodCorner})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cornerSpinGuard)
	res, err := o.Minimize(ctx, []float64{0, 0})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.CornerIters > cornerCycleSteps || res.Status == houdini.StatusCanceled {
		t.Errorf("rows of mixed scales, f × 1e200: corner Minimize made %d power steps (%v, %d gradient calls), want at most %d",
			res.Stats.CornerIters, res.Status, res.Stats.GradEvals, cornerCycleSteps)
	}
	for _, s := range []houdini.Settings{
		{Delta: 1e-12, Radius: 0.5, Method: houdini.MethodCorner},
		{Delta: 1e-12, Radius: 0.5, Method: houdini.MethodCorner, Corner: houdini.CornerSettings{L: 2}},
	} {
		o, err := houdini.New(p, box, s)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), cornerSpinGuard)
		e, err := o.Escape(ctx, []float64{0})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if e.Iters > cornerCycleSteps || e.Canceled || e.Found {
			t.Errorf("L = %g: Escape at the minimum made %d power steps (canceled %v, found %v), want no move within %d",
				s.Corner.L, e.Iters, e.Canceled, e.Found, cornerCycleSteps)
		}
		if s.Corner.L > 0 && !e.Certified {
			t.Errorf("L = %g: the minimum of ½x² on [−1, 1], with L given, is not certified", s.Corner.L)
		}
	}
}
