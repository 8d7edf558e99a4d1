package houdini

import (
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// twoPassOnly puts an optimizer on the matrix-free path with every face examined by the
// two-pass Krylov backend (twopass.go): no face exactly (krylovExact −1), the two-pass
// runs whatever twoPassBytes says.
func twoPassOnly(o *Optimizer) {
	o.setMatrixFree(true, -1)
	o.test.twoPass = true
}

// TestTwoPassZeroRateTransfer is TestMatrixFreeZeroRateTransfer on the two-pass backend:
// the simplex vertex of instance 684 (stream 1914), whose face {x₂ = x₄ = 0} ∩ {Σx = ½}
// has gradient 0 in exact arithmetic and rounding after projection, where the one-pass
// backend certified falsely before faceStart. The two-pass backend starts its runs by the
// same faceStart (lanczosStepper.start); here it must find the transfer's move, pruned
// and unpruned, both copies.
func TestTwoPassZeroRateTransfer(t *testing.T) { zeroRateTransferMoves(t, twoPassOnly) }

// TestTwoPassSweepAgainstBruteForce is TestMatrixFreeSweepAgainstBruteForce with every
// face on the two-pass backend (twoPassOnly): the same instances (stream 7: every family,
// KKT models — zero projected gradient on the faces of their active rows — half of the
// time, nudged x, translated and rescaled copies), no certificate where the exhaustive
// minimum is below −δ/2, a move wherever it is. 600 instances, 300 under -short.
func TestTwoPassSweepAgainstBruteForce(t *testing.T) {
	t.Parallel()
	n := 600
	if testing.Short() {
		n = 300
	}
	var tried, certified, kkt, falseCert, missed int
	for i := range n {
		ins, ss, scales := mfInstances(7, i)
		for k, in := range ins {
			s := ss[k]
			res := mfEscape(in, s, twoPassOnly)
			if res == nil {
				continue
			}
			tried++
			truth := bruteforce.Min(in.Problem()).Value
			below := truth < -s.Delta/2-1e-7*scales[k]
			if res.Certified {
				certified++
				if i%2 == 0 {
					kkt++
				}
			}
			if res.Certified && below {
				falseCert++
				t.Errorf("instance %d copy %d (%s): certified (confidence %g) where the exhaustive minimum is %.6g = %.3gδ",
					i, k, in.Name, res.Confidence, truth, truth/s.Delta)
			}
			if below && !res.Found && !res.NumericalFailure {
				missed++
				t.Errorf("instance %d copy %d (%s): no move where the exhaustive minimum is %.6g = %.3gδ",
					i, k, in.Name, truth, truth/s.Delta)
			}
		}
	}
	t.Logf("two-pass: %d escapes: %d certified (%d of KKT models), %d false certificates, %d missed moves", tried, certified, kkt, falseCert, missed)
}
