package houdini

// Adversarial review of cone.go (reviewer's file, not the owners'): the cone bound at the
// walk's root against the exhaustive minimum, with x nudged off its rows by 1e-12…1e-3·R
// (tiny positive and negative offsets), gradients scaled ×1…×65536 (large multipliers:
// the coupling shares), translated (±1e8) and rescaled (2^±30) copies, every
// internal/bruteforce family and model, d ≤ 6.

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/mat"
)

func reviewConeWalk(in *bruteforce.Instance) *walk {
	c, err := forcedTestSet(in)
	if err != nil || c == nil {
		return nil
	}
	M := mat.NewSymDense(in.Dim(), nil)
	exactHess(in)(M, nil)
	mod := &quadModel{v: append([]float64(nil), in.G...), M: M}
	s, err := Settings{Delta: 1, Radius: in.R}.validated()
	if err != nil {
		return nil
	}
	return newWalk(context.Background(), c, in.X, in.R, mod, &s, false)
}

func TestConeBoundAdversarial(t *testing.T) {
	t.Parallel() // a long cross-check: run beside the other long ones (CI's 2 cores)
	n := 2500
	var answered, falseB, below int
	for i := range n {
		rng := rand.New(rand.NewPCG(99, uint64(i)))
		spec := bruteforce.Spec{Family: bruteforce.Family(i % int(bruteforce.NumFamilies)),
			Model: bruteforce.Model(rng.IntN(int(bruteforce.NumModels)))}
		if rng.IntN(3) == 0 {
			spec.Model = bruteforce.KKT
		}
		in := bruteforce.Generate(rng, spec)
		if amt := []float64{0, 1e-12, 1e-9, 1e-6, 1e-3}[i/6%5]; amt > 0 {
			nudgeBy(rng, in, amt)
		}
		g := []float64{1, 64, 4096, 65536}[i/30%4]
		for j := range in.G {
			in.G[j] *= g
		}
		truth := bruteforce.Min(in.Problem())
		if !truth.Feasible {
			continue
		}
		scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3
		tol := 1e-9 * scale
		copies := [][3]float64{{0, 1, 1}, {1e8, 1, 0x1p30}, {-1e8, 1, 0x1p-30}, {0, 1, 0x1p-30}}
		for _, tr := range copies {
			cp := in
			if tr[0] != 0 || tr[2] != 1 {
				cp = in.Transform(tr[0], tr[1], tr[2])
			}
			ref := truth.Value * tr[2]
			if cp != in {
				tc := bruteforce.Min(cp.Problem())
				if !tc.Feasible {
					continue
				}
				ref = tc.Value
			}
			w := reviewConeWalk(cp)
			if w == nil || w.stopped {
				continue
			}
			for _, f := range []float64{-1, -0.1, -0.01, -1e-3, -1e-6, 1e-9, 1e-3} {
				bar := (truth.Value + f*scale) * tr[2]
				w.pool.keep, w.pool.qmin = bar, math.Inf(1)
				L := w.coneBound()
				if math.IsInf(L, -1) {
					continue
				}
				answered++
				if f < 0 {
					below++
				}
				eta := modelRounding(cp.Dim(), norm(w.mod.v), w.mod.normF(), cp.R) + w.eqErr
				if L > ref+tol*tr[2]+eta {
					falseB++
					t.Errorf("instance %d (%s, g×%g, copy %v): bar %.6g: cone bound %.17g, exhaustive minimum %.17g (scaled), excess %.3g, eta %.3g (eqErr %.3g)",
						i, in.Name, g, tr, bar, L, ref, L-ref, eta, w.eqErr)
				}
			}
		}
	}
	t.Logf("%d instances: %d answers (%d with bar below the minimum), %d above the minimum", n, answered, below, falseB)
}

// TestConeEscapesAdversarial: escapes with the cone bound at every root (countConePrunes)
// against the full walk and the exhaustive minimum of the stored copy, on copies
// translated by ±1e8 and rescaled by 2^±30, x nudged by 1e-12…1e-6·R.
func TestConeEscapesAdversarial(t *testing.T) {
	n := 1200
	var tried, byCone, certified, falseC, disagree int
	for i := range n {
		rng := rand.New(rand.NewPCG(4242, uint64(i)))
		model := bruteforce.Model(rng.IntN(int(bruteforce.NumModels)))
		if i%3 == 0 {
			model = bruteforce.KKT
		}
		base := bruteforce.Generate(rng, bruteforce.Spec{Family: bruteforce.Family(i % int(bruteforce.NumFamilies)), Model: model})
		if amt := []float64{0, 1e-12, 1e-9, 1e-6}[i/6%4]; amt > 0 {
			nudgeBy(rng, base, amt)
		}
		g := []float64{1, 256, 65536}[i/24%3]
		for j := range base.G {
			base.G[j] *= g
		}
		for _, tr := range [][3]float64{{1e8, 1, 0x1p30}, {-1e8, 1, 0x1p-30}, {0, 1, 0x1p-30}} {
			in := base.Transform(tr[0], tr[1], tr[2])
			c, err := forcedTestSet(in)
			if err != nil || c == nil {
				continue
			}
			truth := bruteforce.Min(in.Problem())
			if !truth.Feasible {
				continue
			}
			scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3*tr[2]
			for _, k := range []float64{0.3, 0.55, 1.1, 3} {
				delta := math.Max(-truth.Value, 1e-3*scale) / k
				s := Settings{Delta: delta, Radius: in.R, MaxSubsets: 1 << 20}
				p := Problem{Func: in.Func, Grad: in.Grad, Hess: exactHess(in)}
				ep, ef, err := escapePrunedFull(p, c, s, in.X, func(o *Optimizer) { o.countConePrunes(&byCone) })
				if err != nil {
					continue
				}
				tried++
				if ep.Certified {
					certified++
				}
				if ep.Certified && truth.Value < -delta/2-1e-7*scale {
					falseC++
					t.Errorf("instance %d (%s, g×%g, copy %v): certified at δ %g, exhaustive minimum %.17g", i, in.Name, g, tr, delta, truth.Value)
				}
				if ep.Certified && !ef.Certified {
					disagree++
					t.Errorf("instance %d (%s, g×%g, copy %v): pruned certifies, full does not (δ %g, min %.17g, full found %v)", i, in.Name, g, tr, delta, truth.Value, ef.Found)
				}
			}
		}
	}
	t.Logf("%d escapes, %d certified, %d cone prunes, %d false, %d pruned-only certificates", tried, certified, byCone, falseC, disagree)
}
