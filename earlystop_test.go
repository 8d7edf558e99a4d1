package houdini

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// TestEarlyStopAgainstBruteForce: the walk's early stop (walk.earlyStop) never makes a
// certificate nor loses one, and its moves are real. On seeded instances of every
// internal/bruteforce family (KKT models half of the time, gradients scaled by 1 to
// 4096, x nudged off its rows every third time, a translated and rescaled copy of each,
// δ from 10⁻³ to 1 of the model's scale, the matrix-free path every fifth), an escape
// whose walk stops one subset after the first candidate at or below −δ/2 (work budget 1,
// the most the rule can cut) is compared with the complete pruned walk (no early stop)
// and the exhaustive minimum:
//   - it certifies exactly where the complete walk does, and never where the exhaustive
//     minimum is below −δ/2 (no false certificate);
//   - where the complete walk moves, it moves, and where f is the model and
//     the exhaustive minimum is below −δ/2, it moves (no missed escape);
//   - its move X is feasible (checked on the instance's own rows), within r of x, and
//     lowers f by more than δ/3, f evaluated here;
//   - it is deterministic: a second optimizer with the same settings returns the same X
//     and the same counts (every third instance).
//
// Every other instance checks moves on a dishonest f, the model plus
// c·δ·‖X − x‖²/r² (c ∈ [0.5, 4]), which rejects some of the walk's candidates, so that an
// early stop whose candidates all fail (fullEscape then walks again without it) is
// reached too. The early stop must cut a share of the walks, and the walk again must run.
// 1200 instances, 300 under -short.
func TestEarlyStopAgainstBruteForce(t *testing.T) {
	t.Parallel() // a long cross-check: run beside the other long ones (CI's 2 cores)
	n := 1200
	if testing.Short() {
		n = 300
	}
	var tried, cut, again, certified, moved, charged int
	for i := range n {
		rng := rand.New(rand.NewPCG(1914, uint64(i)))
		base := pruneBase(allFamilies, 2, 3, 2)(i, rng)
		g := []float64{1, 16, 256, 4096}[i/2%4]
		for j := range base.G {
			base.G[j] *= g
		}
		lie := 0.0
		if i%2 == 1 {
			lie = 0.5 + 3.5*rng.Float64()
		}
		for _, tr := range [2][3]float64{{0, 1, 1}, {[]float64{10, 1e3}[i%2], []float64{1e-3, 1e3}[i/2%2], []float64{1e-2, 1e2}[i/4%2]}} {
			in := base.Transform(tr[0], tr[1], tr[2])
			c, err := forcedTestSet(in)
			if err != nil {
				continue // nudged off the rows by more than the tolerance
			}
			scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3*tr[2]
			s := Settings{Delta: []float64{1e-3, 1e-2, 0.1, 1}[i%4] * scale, Radius: in.R, MaxSubsets: 1 << 20}
			f := func(y []float64) float64 {
				h2 := 0.0
				for j := range y {
					h2 += (y[j] - in.X[j]) * (y[j] - in.X[j])
				}
				return in.Func(y) + lie*s.Delta*h2/(in.R*in.R)
			}
			p := Problem{Func: f, Grad: in.Grad, Hess: exactHess(in)}
			escape := func(prep func(*Optimizer)) (*EscapeResult, error) {
				o, err := New(p, c, s)
				if err != nil {
					return nil, err
				}
				if i%5 == 4 {
					o.setMatrixFree(true, 0)
				}
				prep(o)
				return o.Escape(context.Background(), in.X)
			}
			early := func(o *Optimizer) { o.setEarlyBudget(1) }
			ee, err := escape(early)
			if err != nil {
				continue // x infeasible after the nudge: every walk refuses it
			}
			ef, err := escape(func(o *Optimizer) { o.setNoEarlyStop(true) })
			if err != nil {
				t.Fatalf("instance %d: the complete walk fails where the early one does not: %v", i, err)
			}
			tried++
			truth := bruteforce.Min(in.Problem()).Value
			tag := func() string {
				return fmt.Sprintf("%s, copy %v, lie %g, δ %g", in.Name, tr, lie, s.Delta)
			}
			if ee.Certified {
				certified++
				if ee.Confidence < 1 {
					charged++
				}
			}
			if ee.Certified != ef.Certified || (ee.Certified && truth < -s.Delta/2-1e-7*scale) {
				t.Errorf("instance %d (%s): certified %v with the early stop, %v without; exhaustive minimum %.17g",
					i, tag(), ee.Certified, ef.Certified, truth)
			}
			if ef.Found && !ee.Found || (lie == 0 && truth < -s.Delta/2-1e-7*scale && !ee.Found && !ee.NumericalFailure) {
				t.Errorf("instance %d (%s): no move with the early stop (complete walk: found %v, model decrease %.17g); exhaustive minimum %.17g",
					i, tag(), ef.Found, ef.ModelDecrease, truth)
			}
			if ee.Found {
				moved++
				if msg := moveFault(in, f, ee.X, s.Delta); msg != "" {
					t.Errorf("instance %d (%s): the early stop's move: %s", i, tag(), msg)
				}
				if !ee.Complete && ef.Complete {
					cut++
				}
			}
			if ee.Examined > ef.Examined {
				again++ // walked twice: the early walk, then the complete one
			}
			if i%3 == 0 {
				ee2, _ := escape(early)
				if !slices.Equal(ee.X, ee2.X) || ee.Examined != ee2.Examined || ee.Found != ee2.Found || ee.Certified != ee2.Certified {
					t.Errorf("instance %d (%s): two identical escapes differ: X %v / %v, examined %d / %d", i, tag(), ee.X, ee2.X, ee.Examined, ee2.Examined)
				}
			}
		}
	}
	t.Logf("%d escapes: %d certified (%d at Confidence < 1), %d moved, %d of them cut short by the early stop, %d walked again after f rejected the early walk's candidates",
		tried, certified, charged, moved, cut, again)
	if cut < tried/20 || again == 0 {
		t.Errorf("the early stop cut %d walks and walked again %d times in %d escapes: the test does not reach it", cut, again, tried)
	}
}

// moveFault returns what is wrong with the move X of an escape of the instance at δ, on
// the instance's own data: X outside a row, a bound or an equality by more than
// 10⁻⁸ of the row's scale, farther than R from the instance's point, or not lower than
// f there by more than δ/3; "" when nothing is.
func moveFault(in *bruteforce.Instance, f func([]float64) float64, X []float64, delta float64) string {
	row := func(a []float64, b float64) (excess, tol float64) {
		s, mag := -b, math.Abs(b)
		for j := range a {
			s += a[j] * X[j]
			mag += math.Abs(a[j] * X[j])
		}
		return s, 1e-8 * (1 + mag)
	}
	for i, a := range in.A {
		if v, tol := row(a, in.B[i]); v > tol {
			return fmt.Sprintf("outside row %d by %g", i, v)
		}
	}
	for i, a := range in.Aeq {
		if v, tol := row(a, in.Beq[i]); math.Abs(v) > tol {
			return fmt.Sprintf("off equality %d by %g", i, v)
		}
	}
	for j := range X {
		if (in.Lower != nil && X[j] < in.Lower[j]-1e-8*(1+math.Abs(in.Lower[j]))) ||
			(in.Upper != nil && X[j] > in.Upper[j]+1e-8*(1+math.Abs(in.Upper[j]))) {
			return fmt.Sprintf("outside the bounds of coordinate %d: %g", j, X[j])
		}
	}
	h2 := 0.0
	for j := range X {
		h2 += (X[j] - in.X[j]) * (X[j] - in.X[j])
	}
	if math.Sqrt(h2) > in.R*(1+1e-12) {
		return fmt.Sprintf("outside the ball: ‖X − x‖ = %g > r = %g", math.Sqrt(h2), in.R)
	}
	if dec := f(in.X) - f(X); !(dec > delta/3) {
		return fmt.Sprintf("decrease %g ≤ δ/3 = %g", dec, delta/3)
	}
	return ""
}
