package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// cutQuadratic is f = ½xᵀAx on [−1, 1]ⁿ, A the adjacency matrix of a random graph of edge
// probability 0.4: a max-cut relaxation, a nonconvex quadratic with its saddle at 0.
func cutQuadratic(n int, seed uint64) (Problem, *Constraints) {
	rng := rand.New(rand.NewPCG(seed, 6))
	A := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rng.Float64() < 0.4 {
				A.SetSym(i, j, 1)
			}
		}
	}
	p := Problem{
		Func: func(x []float64) float64 { v := mat.NewVecDense(n, x); return 0.5 * mat.Inner(v, A, v) },
		Grad: func(g, x []float64) { mat.NewVecDense(n, g).MulVec(A, mat.NewVecDense(n, x)) },
	}
	return p, unitBox(n)
}

// By default a nonconvex quadratic gets the deeper search: restarts run, each reported to
// Progress; the point returned is no higher than the run without the search (which ends
// at the search's first certified point), an escape certifies it, and the run repeats
// bit for bit.
func TestSearchDefaultOnNonconvexQuadratic(t *testing.T) {
	ctx := context.Background()
	lower := 0
	for seed := uint64(1); seed <= 6; seed++ {
		p, box := cutQuadratic(16, seed)
		x0 := make([]float64, 16)
		plain, err := Minimize(ctx, p, box, x0, Settings{Delta: 1e-2, Radius: 0.1, Search: SearchSettings{Rungs: -1}})
		if err != nil {
			t.Fatal(err)
		}
		restarts := 0
		s := Settings{Delta: 1e-2, Radius: 0.1, Progress: func(pr Progress) {
			if pr.Event == EventRestart {
				restarts++
			}
		}}
		res, err := Minimize(ctx, p, box, x0, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != StatusCertified || res.Stats.Restarts == 0 || restarts != res.Stats.Restarts || !(res.F <= plain.F) {
			t.Fatalf("seed %d: %v f = %g after %d restarts (%d reported); without the search f = %g",
				seed, res.Status, res.F, res.Stats.Restarts, restarts, plain.F)
		}
		if res.F < plain.F-s.Delta/3 {
			lower++
		}
		o, _ := New(p, box, Settings{Delta: 1e-2, Radius: res.Radius})
		if e, err := o.Escape(ctx, res.X); err != nil || !e.Certified {
			t.Fatalf("seed %d: the returned point is not certified: %v", seed, err)
		}
		s.Progress = nil
		again, _ := Minimize(ctx, p, box, x0, s)
		again.Stats.Runtime, res.Stats.Runtime = 0, 0
		if !reflect.DeepEqual(again, res) {
			t.Fatalf("seed %d: two identical runs differ", seed)
		}
	}
	if lower == 0 {
		t.Error("the default search never found a lower point")
	}
}

// With Purify the search runs first and Purify moves its best point afterwards: the run
// ends certified (at a point an escape certifies), no higher than with Purify alone.
func TestSearchDefaultThenPurify(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 6; seed++ {
		p, box := cutQuadratic(16, seed)
		x0 := make([]float64, 16)
		s := Settings{Delta: 1e-2, Radius: 0.1, Purify: true, Search: SearchSettings{Rungs: -1}}
		plain, err := Minimize(ctx, p, box, x0, s)
		if err != nil {
			t.Fatal(err)
		}
		s.Search.Rungs = 0
		res, err := Minimize(ctx, p, box, x0, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != StatusCertified || res.Stats.Restarts == 0 || res.F > plain.F+1e-6*s.Delta {
			t.Fatalf("seed %d: %v f = %g after %d restarts, %d purifications; Purify alone f = %g",
				seed, res.Status, res.F, res.Stats.Restarts, res.Stats.Purifications, plain.F)
		}
		o, _ := New(p, box, Settings{Delta: 1e-2, Radius: res.Radius})
		if e, err := o.Escape(ctx, res.X); err != nil || !e.Certified {
			t.Fatalf("seed %d: the returned point is not certified: %v", seed, err)
		}
	}
}

// By default no search runs where f is convex at its certified point, and where f is
// nonconvex but not quadratic it ends at its first restart point: the run makes the
// same gradient calls, ends at the same point, and makes at most two more Func calls
// (f at x* and at the restart point) than with the search turned off.
func TestSearchDefaultOffConvexOrNotQuadratic(t *testing.T) {
	ctx := context.Background()
	d := 10
	lo, hi, x0 := make([]float64, d), make([]float64, d), make([]float64, d)
	for i := range lo {
		lo[i], hi[i], x0[i] = -2, 0.5, 0.5
		if i%2 == 0 {
			x0[i] = -1.2
		}
	}
	box, _ := NewBox(lo, hi)
	rng := rand.New(rand.NewPCG(7, 8))
	B := mat.NewDense(d, d, nil)
	for i := range d {
		for j := range d {
			B.Set(i, j, rng.NormFloat64())
		}
	}
	H := mat.NewSymDense(d, nil)
	H.SymOuterK(1, B)
	c := make([]float64, d)
	for i := range c {
		c[i] = 10 * rng.NormFloat64() // the minimum lies outside the box
	}
	convex := Problem{
		Func: func(x []float64) float64 { v := mat.NewVecDense(d, x); return 0.5*mat.Inner(v, H, v) + dot(c, x) },
		Grad: func(g, x []float64) {
			mat.NewVecDense(d, g).MulVec(H, mat.NewVecDense(d, x))
			axpy(g, 1, c)
		},
	}
	for name, p := range map[string]Problem{"convex quadratic": convex, "chained Rosenbrock": rosenChain()} {
		s := Settings{Delta: 1e-6, Radius: 0.01}
		def, err := Minimize(ctx, p, box, x0, s)
		if err != nil {
			t.Fatal(err)
		}
		s.Search.Rungs = -1
		off, err := Minimize(ctx, p, box, x0, s)
		if err != nil {
			t.Fatal(err)
		}
		if def.Status != StatusCertified || def.Stats.Restarts != 0 || def.Stats.GradEvals != off.Stats.GradEvals ||
			def.Stats.FuncEvals > off.Stats.FuncEvals+2 || !reflect.DeepEqual(def.X, off.X) {
			t.Errorf("%s: by default %v, %d restarts, %d/%d gradient/Func calls; without the search %d/%d",
				name, def.Status, def.Stats.Restarts, def.Stats.GradEvals, def.Stats.FuncEvals,
				off.Stats.GradEvals, off.Stats.FuncEvals)
		}
	}
}

// A restart whose descent ends no lower than x* by δ/3 is abandoned before its escape:
// on a strictly convex quadratic every restart descends back to x*, so a search of 3
// rungs of 4 tries in [−1, 1]⁸ makes its 4 + 4 + 1 restarts (rung 3 mirrors all 8
// coordinates: one point, one try) and not one escape more than the plain run.
func TestSearchAbandonsRestartsThatEndNoLower(t *testing.T) {
	ctx := context.Background()
	d := 8
	p := Problem{
		Func: func(x []float64) float64 { return 0.5 * dot(x, x) },
		Grad: func(g, x []float64) { copy(g, x) },
	}
	box := unitBox(d)
	x0 := make([]float64, d)
	for i := range x0 {
		x0[i] = 0.7
	}
	s := Settings{Delta: 1e-6, Radius: 0.01, Search: SearchSettings{Rungs: -1}}
	plain, err := Minimize(ctx, p, box, x0, s)
	if err != nil {
		t.Fatal(err)
	}
	s.Search = SearchSettings{Rungs: 3, Tries: 4}
	res, err := Minimize(ctx, p, box, x0, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusCertified || res.Stats.Restarts != 9 || res.Stats.RestartsImproved != 0 ||
		res.Stats.Escapes != plain.Stats.Escapes || !reflect.DeepEqual(res.X, plain.X) {
		t.Fatalf("%v after %d restarts (%d improved), %d escapes (plain run %d)",
			res.Status, res.Stats.Restarts, res.Stats.RestartsImproved, res.Stats.Escapes, plain.Stats.Escapes)
	}
}

// modelMirrors chooses as Kernighan–Lin do: each coordinate after the first changes the
// model least among those left, given those chosen before it (checked by recomputing
// the model at every mirrored point), all distinct, only coordinates with two bounds.
func TestModelMirrorsGreedy(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := 0; trial < 200; trial++ {
		d := 2 + rng.IntN(12)
		M := mat.NewSymDense(d, nil)
		v, x, lo, hi := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		for i := range d {
			for j := i; j < d; j++ {
				M.SetSym(i, j, rng.NormFloat64())
			}
			v[i] = rng.NormFloat64()
			lo[i], hi[i] = -rng.Float64(), rng.Float64()
			if rng.IntN(5) == 0 {
				hi[i] = math.Inf(1)
			}
			x[i] = lo[i] + rng.Float64()*(math.Min(hi[i], 2)-lo[i])
		}
		mod := &quadModel{v: v, M: M}
		m := 1 + rng.IntN(d)
		set := modelMirrors(x, lo, hi, mod, m, rng)
		if len(set) > m {
			t.Fatalf("trial %d: %d coordinates, asked %d", trial, len(set), m)
		}
		h := make([]float64, d)
		chosen := make([]bool, d)
		for n, j := range set {
			if chosen[j] || math.IsInf(lo[j], -1) || math.IsInf(hi[j], 1) {
				t.Fatalf("trial %d: coordinate %d chosen twice or without two bounds", trial, j)
			}
			if n > 0 {
				base := mod.value(h)
				q := func(k int) float64 {
					h[k] = lo[k] + hi[k] - 2*x[k]
					qk := mod.value(h) - base
					h[k] = 0
					return qk
				}
				qj := q(j)
				for k := range d {
					if !chosen[k] && k != j && !math.IsInf(hi[k], 1) && q(k) < qj-1e-9*(1+math.Abs(qj)) {
						t.Fatalf("trial %d: step %d took %d (model change %g), %d changes it by %g", trial, n, j, qj, k, q(k))
					}
				}
			}
			chosen[j] = true
			h[j] = lo[j] + hi[j] - 2*x[j]
		}
	}
}

// The search certifies only its last x*: a restart whose descent ends lower than x* by
// δ/3 becomes x* without an escape, so on max-cut relaxations of 40 vertices where the
// restarts improve x* up to 3 times the search adds one escape to the plain run's (before,
// one or more per improvement: 3 more on seed 1), and an escape certifies the point
// returned.
func TestSearchDefaultCertifiesOnce(t *testing.T) {
	ctx := context.Background()
	improved := 0
	for seed := uint64(1); seed <= 8; seed++ {
		n := 40
		p, box := cutQuadratic(n, seed)
		x0 := make([]float64, n)
		plain, err := Minimize(ctx, p, box, x0, Settings{Delta: 1e-2, Radius: 0.1, Search: SearchSettings{Rungs: -1}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Minimize(ctx, p, box, x0, Settings{Delta: 1e-2, Radius: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		improved += res.Stats.RestartsImproved
		if res.Status != StatusCertified || !(res.F <= plain.F) || res.Stats.Escapes > plain.Stats.Escapes+1 {
			t.Errorf("seed %d: %v f = %g with %d escapes (%d restarts improved); without the search f = %g with %d",
				seed, res.Status, res.F, res.Stats.Escapes, res.Stats.RestartsImproved, plain.F, plain.Stats.Escapes)
		}
		o, _ := New(p, box, Settings{Delta: 1e-2, Radius: res.Radius})
		if e, err := o.Escape(ctx, res.X); err != nil || !e.Certified {
			t.Errorf("seed %d: the returned point is not certified: %v", seed, err)
		}
	}
	if improved < 3 {
		t.Errorf("the restarts improved x* only %d times: the test checks nothing", improved)
	}
}
