package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/houdini-opt/houdini"
)

// bench is one benchmark: an objective given as samples, its exact form, constraints and
// a start.
type bench struct {
	name    string
	d, n    int // n = 0: a stream (an expectation over fresh samples)
	sampled houdini.Sampled
	// exact is the exact objective (the expectation, for a stream); for a finite data set
	// it is left zero and made of full passes of sampled.
	exact         houdini.Problem
	c             *houdini.Constraints
	project       func(w []float64) // the Euclidean projection onto S, for SGD and Adam
	x0            []float64
	delta, radius float64
}

// exactProblem returns the exact objective: full passes over a finite data set.
func (b *bench) exactProblem() houdini.Problem {
	if b.exact.Grad != nil {
		return b.exact
	}
	all := make([]int, b.n)
	for i := range all {
		all[i] = i
	}
	return houdini.Problem{
		Grad: func(g, x []float64) { b.sampled.Grad(g, x, all) },
		Func: func(x []float64) float64 { return b.sampled.Func(x, all) },
	}
}

// result is what the table shows of one benchmark.
type result struct {
	b                        *bench
	exact, sto               *houdini.Result
	fExact, fSto             float64 // the exact objective at each X
	exactSamples             float64 // sample gradients of the exact run (GradEvals·N); gradients for a stream
	exactLosses              float64 // sample losses of the exact run (FuncEvals·N); values for a stream
	floor                    float64
	sgd, adam                firstOrderResult
	exactTime, stoTime, fTim time.Duration
}

// momKL is kl(½‖1/9), the rate of the median of means with Chebyshev factor 3 (as in
// the library's vrsg.go).
var momKL = -0.5 * math.Log(4*(1.0/9)*(8.0/9))

// floor returns the information floor of a certificate at the σ̂ of the run: d + 1
// gradients (∇f(x) and the model's curvature there) to the accuracy the certificate
// needs of ∇f(x), tol = GradAccuracy·δ/r = δ/(6r), each by a median of means,
//
//	(d + 1)·c·σ̂²/tol²,   c = 9·M,   M = ⌈ln(d/ε)/kl(½‖1/9)⌉ odd, ε = 10⁻³,
//
// sample gradients: the cost of the paper's model (alg:escaping_general_full with VRSG)
// if its Hessian needed no more accuracy than its gradient.
func floor(d int, sigma, delta, radius float64) float64 {
	M := math.Ceil(math.Log(float64(d)/1e-3) / momKL)
	if math.Mod(M, 2) == 0 {
		M++
	}
	tol := delta / (6 * radius)
	return float64(d+1) * 9 * M * sigma * sigma / (tol * tol)
}

// runBench runs the exact mode, the stochastic mode on samples, and SGD and Adam to the
// exact mode's objective plus δ/10, within 2× the stochastic run's sample gradients (at
// least 10 passes).
func runBench(b *bench, seed uint64, progress io.Writer) (*result, error) {
	ctx := context.Background()
	s := houdini.Settings{Delta: b.delta, Radius: b.radius, Seed: seed}
	if progress != nil {
		s.Progress = houdini.NewPrinter(progress)
	}
	res := &result{b: b}
	exact := b.exactProblem()
	t0 := time.Now()
	var err error
	if res.exact, err = houdini.Minimize(ctx, exact, b.c, b.x0, s); err != nil {
		return nil, fmt.Errorf("%s d=%d exact: %w", b.name, b.d, err)
	}
	res.exactTime = time.Since(t0)
	sp := b.sampled
	t0 = time.Now()
	if res.sto, err = houdini.Minimize(ctx, houdini.Problem{Sampled: &sp}, b.c, b.x0, s); err != nil {
		return nil, fmt.Errorf("%s d=%d stochastic: %w", b.name, b.d, err)
	}
	res.stoTime = time.Since(t0)
	res.fExact, res.fSto = exact.Func(res.exact.X), exact.Func(res.sto.X)
	res.exactSamples = float64(res.exact.Stats.GradEvals)
	res.exactLosses = float64(res.exact.Stats.FuncEvals)
	if b.n > 0 {
		res.exactSamples *= float64(b.n)
		res.exactLosses *= float64(b.n)
	}
	res.floor = floor(b.d, res.sto.Sigma, b.delta, b.radius)
	t0 = time.Now()
	budget := 2 * max(int(res.stoSamples()), 5*b.n)
	target := res.fExact + b.delta/10
	res.sgd = bestFirstOrder(b, exact.Func, false, target, budget, seed)
	res.adam = bestFirstOrder(b, exact.Func, true, target, budget, seed)
	res.fTim = time.Since(t0)
	return res, nil
}

// stoSamples returns the stochastic run's sample gradients, a Hessian-vector product
// counted as one (it costs about as much: one more backward pass).
func (r *result) stoSamples() float64 {
	return float64(r.sto.Stats.SampleGrads + r.sto.Stats.SampleHessVecs)
}

// checks returns the acceptance checks of issue 17 that the result fails.
func (r *result) checks() []string {
	var fail []string
	if r.sto.Status != houdini.StatusCertified || r.exact.Status != houdini.StatusCertified {
		fail = append(fail, "not certified")
	}
	if r.stoSamples() > 5*r.floor {
		fail = append(fail, "> 5× floor")
	}
	if r.b.n > 0 && r.stoSamples() > 3*r.exactSamples {
		fail = append(fail, "> 3× exact")
	}
	if math.Abs(r.fSto-r.fExact) > r.b.delta {
		fail = append(fail, "|f − f_exact| > δ")
	}
	return fail
}
