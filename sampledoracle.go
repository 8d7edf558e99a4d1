package houdini

import (
	"math"
	"slices"
)

// The evaluator's calls of a Sampled oracle (Problem.Sampled) on named samples, and what
// the oracle layer measures on common samples: the value for Result.F and the decrease
// test of a move. The model built on common samples is in stochmodel.go.

// valueSamples fresh samples of a stream are averaged for Result.F.
const valueSamples = 1024

// gradIDs writes into g the mean gradient of the samples ids at x (one Sampled.Grad call).
func (ev *evaluator) gradIDs(g, x []float64, ids []int) error {
	return ev.gradCall(g, x, len(ids), func() { ev.smp.sp.Grad(g, x, ids) }, false)
}

// funcIDs returns the mean loss of the samples ids at x (one Sampled.Func call), unless
// the context is done.
func (ev *evaluator) funcIDs(x []float64, ids []int) (float64, error) {
	if err := ev.canceled(); err != nil {
		return 0, err
	}
	return ev.funcIDsAlways(x, ids)
}

// funcIDsAlways is funcIDs without the context's check, for Result.F.
func (ev *evaluator) funcIDsAlways(x []float64, ids []int) (f float64, err error) {
	ev.stats.FuncEvals++
	ev.stats.SampleFuncs += len(ids)
	if err := call("Func", x, func() { f = ev.smp.sp.Func(x, ids) }); err != nil {
		return 0, err
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, &NonFiniteError{What: "Func", Index: -1, X: slices.Clone(x)}
	}
	return f, nil
}

// hessVecIDs writes into hv the mean of ∇²f_s(x)·v over the samples ids (one
// Sampled.HessVec call, counted in HessEvals).
func (ev *evaluator) hessVecIDs(hv, x, v []float64, ids []int) error {
	if err := ev.canceled(); err != nil {
		return err
	}
	ev.stats.HessEvals++
	ev.stats.SampleHessVecs += len(ids)
	if err := call("HessVec", x, func() { ev.smp.sp.HessVec(hv, x, v, ids) }); err != nil {
		return err
	}
	if i := allFinite(hv); i >= 0 {
		return &NonFiniteError{What: "HessVec", Index: i, X: slices.Clone(x)}
	}
	return nil
}

// sampledValue returns f(x) for Result.F from Sampled.Func: exact from a full pass over a
// finite data set, the mean of valueSamples fresh samples of a stream; NaN without Func.
func (ev *evaluator) sampledValue(x []float64) (float64, error) {
	sm := ev.smp
	if sm.sp.Func == nil {
		return math.NaN(), nil
	}
	if sm.sp.N > 0 {
		return ev.funcIDsAlways(x, sm.allIDs())
	}
	return ev.funcIDsAlways(x, sm.draw(valueSamples))
}

// commonDecrease returns f_S(x) − f_S(x + h), the decrease of the mean over the common
// samples S = ids: by Sampled.Func at both points, else as −Σₖ wₖ ∇f_S(x + sₖh)·h
// (3-point Gauss–Legendre, as decrease does). z and g are scratch of length len(x).
func (ev *evaluator) commonDecrease(x, h []float64, ids []int, z, g []float64) (float64, error) {
	if ev.smp.sp.Func == nil {
		integral, err := ev.glIntegral(x, h, z, g, func(g, z []float64) error { return ev.gradIDs(g, z, ids) })
		return -integral, err
	}
	for j := range z {
		z[j] = x[j] + h[j]
	}
	fx, err := ev.funcIDs(x, ids)
	if err != nil {
		return 0, err
	}
	fy, err := ev.funcIDs(z, ids)
	return fx - fy, err
}

// sampledVerify measures the decrease D = f(x) − f(y) on common samples and reports
// whether D > need with confidence 1 − Stochastic.FailProb, counting a refusal in
// Stats.Rejected; predicted is the decrease the caller expects (the model's), 0 if none.
//
// One sample is the decrease f_s(x) − f_s(y) of one sample s at both points (common
// random numbers: the noise that s adds to f at x and at y cancels in the difference, so
// the variance V of a sample is that of f_s(y) − f_s(x), O(‖y − x‖²), not twice f_s's).
// V is estimated from sigmaPilot single samples (an upper confidence bound, see
// scatter.upper). Accuracy by purpose: the first round tests at the accuracy
// e = max(τ, (predicted − need)/2), τ = decreaseAccuracy·δ, enough when D is near the
// prediction; only when that is not significant does a second round test at τ, the
// accuracy of the escape's decrease test. Each round is a median of means
// (fact:median_trick, d = 1) with failure probability FailProb/2, so a move is
// accepted with D ≤ need with probability at most FailProb. A round whose median of
// means would cost a full pass over a finite data set takes the full pass instead: D
// exact (up to the quadrature without Func), and ok is D > need.
func (ev *evaluator) sampledVerify(x, y []float64, need, predicted float64) (dec float64, ok bool, err error) {
	h := sub(y, x)
	z, g := make([]float64, len(x)), make([]float64, len(x))
	pair := func(ids []int) (float64, error) { return ev.commonDecrease(x, h, ids, z, g) }
	var pilot scatter
	out := []float64{0}
	err = medianOfMeans(out, sigmaPilot, 1, func(dst []float64) (err error) {
		dst[0], err = pair(ev.smp.draw(1))
		return err
	}, &pilot)
	if err != nil {
		return 0, false, err
	}
	tau := decreaseAccuracy * ev.sto.delta
	e := math.Max(tau, (predicted-need)/2)
	for {
		dec, ok, err = ev.decreaseRound(pair, math.Sqrt(pilot.upper()), e, need)
		if err != nil {
			return 0, false, err
		}
		if ok || e <= tau {
			break
		}
		e = tau
	}
	if !ok {
		ev.stats.Rejected++
	}
	return dec, ok, nil
}

// decreaseRound is one round of sampledVerify: the median of means of pair over fresh
// groups, sized for accuracy e from the per-sample deviation sd, and its verdict
// D̂ − e > need; or, when that costs a full pass, the exact D and D > need.
func (ev *evaluator) decreaseRound(pair func(ids []int) (float64, error), sd, e, need float64) (float64, bool, error) {
	K, M := vrsgSizes(sd, e, 1, ev.sto.failProb/2)
	if ev.smp.full(K * M) {
		dec, err := pair(ev.smp.allIDs())
		return dec, dec > need, err
	}
	means := make([]float64, M)
	for i := range means {
		v, err := pair(ev.smp.draw(K))
		if err != nil {
			return 0, false, err
		}
		means[i] = v
	}
	out := []float64{0}
	coordMedian(out, means, M)
	return out[0], out[0]-e > need, nil
}
