package houdini

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// TestReview4CouplingDirectStreams: TestCouplingDirectBelowMinimum's bar sweep of the
// closed-form directed cone bound (couplingDirect, directedBound(1, false)) on streams of
// its own (3031, 3032), d up to 8 and x nudged by 1e-4, 1e-9 of R or not: the bound, when
// it answers, at least the bar and at most the exhaustive minimum.
func TestReview4CouplingDirectStreams(t *testing.T) {
	n := 1200
	if testing.Short() {
		n = 300
	}
	var direct barCounts
	beyond := 0
	for _, stream := range []uint64{3031, 3032} {
		for i := range n {
			rng := rand.New(rand.NewPCG(stream, uint64(i)))
			spec := bruteforce.Spec{Family: bruteforce.Family(i % int(bruteforce.NumFamilies)),
				Model: bruteforce.Model(i / int(bruteforce.NumFamilies) % int(bruteforce.NumModels))}
			if i%3 == 2 {
				spec.Dim = 7 + i%2
			}
			in := bruteforce.Generate(rng, spec)
			switch i % 3 {
			case 1:
				nudgeBy(rng, in, 1e-4)
			case 2:
				nudgeBy(rng, in, 1e-9)
			}
			w, p := coneWalk(t, in)
			if w.stopped {
				continue
			}
			truth := bruteforce.Min(p)
			if !truth.Feasible {
				continue
			}
			scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3
			what := fmt.Sprintf("stream %d instance %d (%s): closed-form directed cone bound", stream, i, in.Name)
			barSweep(t, w, func() float64 { return w.directedBound(1, false) }, truth.Value, scale, 1e-9*scale, &direct, what)
			for _, f := range barFractions {
				if f >= 0 {
					continue
				}
				w.pool.keep, w.pool.qmin = truth.Value+f*scale, math.Inf(1)
				if math.IsInf(w.coneBound(), -1) && !math.IsInf(w.directedBound(1, false), -1) {
					beyond++
				}
			}
		}
	}
	t.Logf("closed form %d of %d bars below the minimum, %d beyond cone.go", direct.below, direct.total, beyond)
}
