package houdini_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini"
)

// TestMinimizeCertificatesBruteForce runs Minimize — descent phase, escapes, pruning,
// eigenbasis — to its end on the brute-force test's adversarial instances (the quadratic
// f(y) = q(y − x) over their polyhedra, from x) and checks every certificate it returns
// against the independent references of bruteforce_test.go, recentred at the end point X:
// no point of S ∩ B(X, r) is lower than f(X) − δ. Also X is feasible and F = f(X).
// Every instance runs three times: with the default settings (whose deeper search runs
// on the nonconvex instances and returns the lowest certified point it met), and with
// Settings.Purify, with and without the search, whose final certificate is checked the
// same way and whose f(X) must not exceed f(x). Certificates
// far out on unbounded instances (‖X‖ ≈ 1e9 where ∇f is small) are legitimate and pass
// the same check; with the precision guard of escape.go disabled, this check fails.
func TestMinimizeCertificatesBruteForce(t *testing.T) {
	n := 240
	if testing.Short() {
		n = 80
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var certified, purifications int
	statuses := map[houdini.Status]int{}
	for i := 0; i < n; i++ {
		p, _, _ := genInstance(i, rng)
		hn := 0.0
		for a := range p.H {
			for b := range p.H[a] {
				hn = math.Max(hn, math.Abs(p.H[a][b]))
			}
		}
		scale := vnorm(p.g)*p.r + float64(p.d)*hn*p.r*p.r + 1e-300
		delta := scale * math.Pow(10, -1-rng.Float64())
		f0 := rng.NormFloat64()
		// The checks draw from their own generator, so that the instances do not depend on
		// the runs' outcomes.
		crng := rand.New(rand.NewPCG(uint64(i), 9))
		for v, purify := range []bool{false, true, true} {
			rungs := 0
			if v == 2 {
				rungs = -1
			}
			tag := fmt.Sprintf("instance %d (d=%d k=%d δ=%.3g, Purify %v, Search.Rungs %d)", i, p.d, len(p.A), delta, purify, rungs)
			prob := problemOf(p, f0, true, true)
			res, err := houdini.Minimize(context.Background(), prob, constraintsOf(t, p), p.x,
				houdini.Settings{Delta: delta, Radius: p.r, MaxEscapes: 200, Purify: purify,
					Search: houdini.SearchSettings{Rungs: rungs}})
			if err != nil {
				t.Fatalf("%s: %v", tag, err)
			}
			// Feasibility at the package's tolerance, 1e-9·max(1, |b̂ᵢ|), plus the rounding of
			// the slacks at ‖X‖ (unbounded instances can run off before an escape notices the
			// lost precision).
			if v := p.scaledViolation(res.X, 1e-9); v > 64*0x1p-52*vnorm(res.X) {
				t.Errorf("%s: X violates a row by %g (‖X‖ %.3g, status %v, %d escapes, %d descent steps, package's MaxViolation %g)",
					tag, v, vnorm(res.X), res.Status, res.Stats.Escapes, res.Stats.DescentSteps, res.MaxViolation)
			}
			if fx := prob.Func(res.X); math.Abs(fx-res.F) > 1e-12*(1+math.Abs(fx)) {
				t.Errorf("%s: F = %v but f(X) = %v", tag, res.F, fx)
			}
			if res.F > f0+1e-9*(1+math.Abs(f0)) {
				t.Errorf("%s: f rose from %v to %v", tag, f0, res.F)
			}
			statuses[res.Status]++
			purifications += res.Stats.Purifications
			if res.Status != houdini.StatusCertified {
				continue
			}
			certified++
			// Recentre at X: the model there is q(X − x + h) − q(X − x).
			hX := vsub(res.X, p.x)
			gX := make([]float64, p.d)
			p.gradQ(gX, hX)
			at := &quadProblem{d: p.d, A: p.A, b: p.b, x: res.X, g: gX, H: p.H, r: res.Radius}
			m := math.Min(refEnumerate(at, crng).q, refSample(at, crng, 400).q)
			if m < -res.Delta*(1+1e-6)-1e-9*scale {
				t.Errorf("%s: certified, but a point of S ∩ B(X, r) is lower by %g > δ (‖X‖ %.3g, %d escapes, %d descent steps)",
					tag, -m, vnorm(res.X), res.Stats.Escapes, res.Stats.DescentSteps)
			}
		}
	}
	t.Logf("%d runs: %v (the instances' polyhedra are often unbounded); %d purifications", 3*n, statuses, purifications)
	if purifications == 0 {
		t.Error("no run purified: the Purify half checks nothing")
	}
	if certified < n/2 {
		t.Fatalf("too few certificates to check (%d of %d)", certified, n)
	}
}
