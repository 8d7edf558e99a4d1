package houdini_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini"
)

// TestMatrixFreeEscapeBruteForce cross-checks the matrix-free escape (the model an
// operator, every subset examined by the Krylov examiner: houdini.SetMatrixFree) against
// refEnumerate and refSample and against the dense escape, on the instances of
// TestEscapeBruteForce, with products from Problem.HessVec and from gradient differences,
// and with the Krylov backend on every face or only above the exact dimension:
//   - every move is feasible, within r and lowers the true f by more than δ/3;
//   - a certificate means m* ≥ −δ/2 (the Krylov bound on the first subset, or the exact
//     walk): never a false certificate;
//   - m* < −1.5δ ⇒ Found (the Krylov spaces span these small faces: the candidates are
//     the dense backend's);
//   - and the verdicts' agreement with the dense escape is logged; with the d×d model
//     built from d HessVec products (variant 3) the verdict must be the dense escape's.
func TestMatrixFreeEscapeBruteForce(t *testing.T) {
	t.Parallel() // a long cross-check: run beside the other long ones (CI's 2 cores)
	n := 640
	if testing.Short() {
		n = 72
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var agree, disagree, certs, founds, neither int
	for i := 0; i < n; i++ {
		p, _, _ := genInstance(i, rng)
		enum := refEnumerate(p, rng)
		samp := refSample(p, rng, 400)
		hn := 0.0
		for a := range p.H {
			for b := range p.H[a] {
				hn = math.Max(hn, math.Abs(p.H[a][b]))
			}
		}
		scale := vnorm(p.g)*p.r + float64(p.d)*hn*p.r*p.r + 1e-300
		tolAbs := 1e-7 * scale
		mstar := math.Min(enum.q, samp.q)
		var delta float64
		if mstar > -1e-6*scale {
			delta = scale * math.Pow(10, -1-2*rng.Float64())
		} else {
			delta = -mstar / []float64{3, 1.2, 0.75, 0.25}[i%4]
		}
		f0 := 10 * rng.NormFloat64()
		dense, err := houdini.New(problemOf(p, f0, true, true), constraintsOf(t, p), houdini.Settings{Delta: delta, Radius: p.r})
		if err != nil {
			t.Fatalf("instance %d: New: %v", i, err)
		}
		ed, err := dense.Escape(context.Background(), p.x)
		if err != nil {
			t.Fatalf("instance %d: dense Escape: %v", i, err)
		}
		for variant := 0; variant < 4; variant++ {
			prob := problemOf(p, f0, false, true)
			if variant != 1 {
				prob.HessVec = func(hv, _, v []float64) {
					for a := range hv {
						hv[a] = vdot(p.H[a], v)
					}
				}
			}
			exact := -1
			if variant == 2 {
				exact = 0
			}
			tag := fmt.Sprintf("instance %d (d=%d k=%d) variant %d δ=%.3g m*=%.6g", i, p.d, len(p.A), variant, delta, mstar)
			o, err := houdini.New(prob, constraintsOf(t, p), houdini.Settings{Delta: delta, Radius: p.r})
			if err != nil {
				t.Fatalf("%s: New: %v", tag, err)
			}
			houdini.SetMatrixFree(o, variant < 3, exact) // variant 3: the d×d model from d HessVec products
			e, err := o.Escape(context.Background(), p.x)
			if err != nil {
				t.Errorf("%s: Escape: %v", tag, err)
				continue
			}
			switch {
			case e.Found && e.Certified:
				t.Errorf("%s: both Found and Certified", tag)
			case e.Found:
				founds++
				checkMove(t, p, e.X, delta, tag)
			case e.Certified:
				certs++
				if mstar < -delta/2-tolAbs {
					t.Errorf("%s: certified (confidence %g), but the reference point has q = %g < −δ/2", tag, e.Confidence, mstar)
				}
				if !(e.Confidence > 0.99 && e.Confidence <= 1) {
					t.Errorf("%s: confidence %g", tag, e.Confidence)
				}
			default:
				neither++
			}
			if mstar < -1.5*delta && !e.Found {
				t.Errorf("%s: reference point with q = %g < −1.5δ, but no move (certified=%v complete=%v)", tag, mstar, e.Certified, e.Complete)
			}
			if e.Found == ed.Found && e.Certified == ed.Certified {
				agree++
			} else {
				disagree++
				if variant == 3 {
					t.Errorf("%s: with the model from HessVec products: found %v certified %v; with Hess: %v, %v", tag, e.Found, e.Certified, ed.Found, ed.Certified)
				}
			}
		}
	}
	t.Logf("matrix-free: found %d, certified %d, neither %d; verdict as the dense escape's %d, otherwise %d", founds, certs, neither, agree, disagree)
}
