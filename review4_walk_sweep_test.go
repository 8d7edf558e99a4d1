package houdini

import (
	"fmt"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// TestReview4MatrixFreeConfigsAgainstBruteForce: TestMatrixFreeSweepAgainstBruteForce's
// check (no certificate where the exhaustive minimum is below −δ/2) on a stream of its
// own (31), under configurations that sweep does not take: every face by Lanczos (no
// exactly examined dimension: krylovExact −1, so small faces go through
// lanczosRestarted's restarts until spanned and the whole-face exactness), the two-pass
// backend forced (its second run), and a subset limit (MaxSubsets 3: the walk stops
// before the face of the minimizer over S_w ∩ B may have been examined), pruned and not.
func TestReview4MatrixFreeConfigsAgainstBruteForce(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 300
	}
	type config struct {
		exact      int
		twoPass    bool
		maxSubsets int
		noPrune    bool
	}
	configs := []config{{-1, false, 0, false}, {-1, true, 0, false}, {0, true, 0, true}, {-1, false, 3, false}, {0, false, 2, true}, {-1, true, 5, true}}
	for _, cf := range configs {
		var tried, certified, falseCert, shrunk int
		for i := range n {
			ins, ss, scales := mfInstances(31, i)
			for k, in := range ins {
				s := ss[k]
				if cf.maxSubsets > 0 {
					s.MaxSubsets = cf.maxSubsets
				}
				res := mfEscape(in, s, func(o *Optimizer) {
					o.setMatrixFree(true, cf.exact)
					o.test.twoPass = cf.twoPass
					o.setNoPrune(cf.noPrune)
				})
				if res == nil {
					continue
				}
				tried++
				if !res.Certified {
					continue
				}
				certified++
				p := in.Problem()
				if res.CertifiedRadius > 0 && res.CertifiedRadius < p.R { // shrinkRadius: the claim is at r′
					p.R = res.CertifiedRadius
					shrunk++
				}
				truth := bruteforce.Min(p).Value
				if truth < -s.Delta/2-1e-7*scales[k] {
					falseCert++
					t.Errorf("%+v: instance %d copy %d (%s): certified (confidence %g) where the exhaustive minimum is %.6g = %.3gδ",
						cf, i, k, in.Name, res.Confidence, truth, truth/s.Delta)
				}
			}
		}
		t.Log(fmt.Sprintf("%+v: %d escapes, %d certified (%d at a shrunk radius), %d false", cf, tried, certified, shrunk, falseCert))
	}
}
