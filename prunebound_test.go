package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/mat"
)

// TestPruningBoundNearHardCase: the bound walk.enumerate prunes on is a lower bound on the
// model over the subset's affine set ∩ ball even near a hard case, where the least
// candidate value of FindInside is not (a root just left of λ₁ resolved to
// ‖y‖ = r′(1 − 10⁻⁶) exceeded the minimum by ~10⁻⁶ of it: seed 91417, instances 917 and
// 9425). On seeded hard and near-hard instances of internal/bruteforce's families
// (gradients scaled by 1 to 4096, some translated and rescaled), the pruned walk (forced rows
// and pruning) reaches the full walk's best model decrease within 10⁻⁹ of it and certifies
// only where the full walk does. The first two instances are the ones seen; 1200 more,
// 200 under -short.
func TestPruningBoundNearHardCase(t *testing.T) {
	n := 1200
	if testing.Short() {
		n = 200
	}
	fams := []bruteforce.Family{bruteforce.Simplex, bruteforce.Budget, bruteforce.BalancedBox, bruteforce.GeneralRows}
	ctx := context.Background()
	idx := []int{917, 9425}
	for k := 0; k < n; k++ {
		idx = append(idx, 20000+k)
	}
	var compared, byLagrange int
	for _, i := range idx {
		rng := rand.New(rand.NewPCG(91417, uint64(i)))
		model := bruteforce.KKT
		if i%3 == 2 {
			model = bruteforce.Model(rng.IntN(int(bruteforce.NumModels)))
		}
		if i >= 20000 {
			model = []bruteforce.Model{bruteforce.HardCase, bruteforce.NearHard}[i%2]
		}
		in := bruteforce.Generate(rng, bruteforce.Spec{Family: fams[i%len(fams)], Model: model})
		g := []float64{1, 16, 256, 4096}[i/len(fams)%4]
		for j := range in.G {
			in.G[j] *= g
		}
		if i >= 20000 && i%5 == 0 {
			in = in.Transform([]float64{0.37, 1e3}[i/5%2], []float64{1, 8}[i/10%2], []float64{1, 1.0 / 16}[i/20%2])
		}
		c, err := forcedTestSet(in)
		if err != nil {
			t.Fatalf("instance %d (%s): %v", i, in.Name, err)
		}
		scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3
		s := Settings{Delta: []float64{1e-3, 1e-2, 0.1, 1}[i%4] * scale, Radius: in.R, MaxSubsets: 1 << 20}
		p := Problem{Func: in.Func, Grad: in.Grad, Hess: func(h *mat.SymDense, _ []float64) {
			for a := range in.Q {
				for b := a; b < len(in.Q); b++ {
					h.SetSym(a, b, 0.5*(in.Q[a][b]+in.Q[b][a]))
				}
			}
		}}
		pruned, _ := New(p, c, s)
		pruned.countLagrangePrunes(&byLagrange)
		full, _ := New(p, c, s)
		full.setNoPrune(true)
		ep, err1 := pruned.Escape(ctx, in.X)
		ef, err2 := full.Escape(ctx, in.X)
		if err1 != nil || err2 != nil {
			continue // a translated start outside S after rounding: not this test's concern
		}
		compared++
		tol := 1e-9*math.Abs(ef.ModelDecrease) + 1e-12*scale
		if ep.ModelDecrease < ef.ModelDecrease-tol || (ep.Certified && !ef.Certified) || (ep.Complete && ef.Found && !ep.Found) {
			t.Errorf("instance %d (%s, gradient ×%g): pruned (found %v, certified %v, model decrease %.17g) vs full (found %v, certified %v, %.17g)",
				i, in.Name, g, ep.Found, ep.Certified, ep.ModelDecrease, ef.Found, ef.Certified, ef.ModelDecrease)
		}
	}
	t.Logf("%d instances compared; %d subtrees pruned by the Lagrangian bound alone", compared, byLagrange)
	if compared < len(idx)*9/10 {
		t.Errorf("only %d of %d instances compared", compared, len(idx))
	}
}
