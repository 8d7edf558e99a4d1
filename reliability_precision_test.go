package houdini_test

// Issue 12, defect 1: the precision outcome (EscapeResult.NumericalFailure) is reported
// where rounding decides, and only there.

import (
	"context"
	"fmt"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// TestPrecisionOutcomeOnlyWhereUndecidable: f(y) = −s·Σyᵢ + ½c·‖y − x‖² on ℝ³ at
// x = t·(1, 1, 1).
//   - s = 1, c = 0, δ = 1e-2, r = 1: wherever the floats near x are finer than r
//     (t ≤ 1e14, spacing ≤ 0.016) the move x + r(1, 1, 1)/√3, √3·r lower, is representable
//     and must be found; at t = 1e17 (spacing 16) no point within r but x exists, and the
//     escape must report the precision outcome, neither a move nor a certificate.
//   - s = 1e20, c = 0, δ = 1: the model's values carry a rounding η far above δ, but the
//     move lowers f by 1e20·√3: it must be found.
//   - s = 0, c = 1e20, δ = 1: x is the minimum, but the model's values round by η ≈ 1e6·δ,
//     so no certificate is possible: the precision outcome.
func TestPrecisionOutcomeOnlyWhereUndecidable(t *testing.T) {
	type tc struct {
		t, s, c, delta float64
		want           string
	}
	cases := []tc{
		{1e3, 1, 0, 1e-2, "move"}, {1e7, 1, 0, 1e-2, "move"}, {1e9, 1, 0, 1e-2, "move"},
		{1e12, 1, 0, 1e-2, "move"}, {1e14, 1, 0, 1e-2, "move"}, {1e17, 1, 0, 1e-2, "precision"},
		{0, 1e20, 0, 1, "move"}, {1e8, 1e20, 0, 1, "move"},
		{0, 0, 1e20, 1, "precision"}, {1e8, 0, 1e20, 1, "precision"},
	}
	for _, c := range cases {
		for _, withHess := range []bool{true, false} {
			x := []float64{c.t, c.t, c.t}
			p := houdini.Problem{
				Func: func(y []float64) float64 {
					v := 0.0
					for i := range y {
						h := y[i] - x[i]
						v += -c.s*y[i] + 0.5*c.c*h*h
					}
					return v
				},
				Grad: func(g, y []float64) {
					for i := range g {
						g[i] = -c.s + c.c*(y[i]-x[i])
					}
				},
			}
			if withHess {
				p.Hess = func(h *mat.SymDense, _ []float64) {
					for i := 0; i < 3; i++ {
						h.SetSym(i, i, c.c)
					}
				}
			}
			tag := fmt.Sprintf("t = %g, s = %g, c = %g, δ = %g, Hess %v", c.t, c.s, c.c, c.delta, withHess)
			o, err := houdini.New(p, nil, houdini.Settings{Delta: c.delta, Radius: 1})
			if err != nil {
				t.Fatal(err)
			}
			e, err := o.Escape(context.Background(), x)
			if v := relVerdict(e, err); v != c.want {
				t.Errorf("%s: the escape ended %s (err %v), want %s", tag, v, err, c.want)
			} else if v == "move" {
				if h := relDiff(e.X, x); relNorm(h) > 1 || h[0]+h[1]+h[2] < 1 {
					t.Errorf("%s: the move to %v is not within r or not √3·r·(1 − o(1)) lower", tag, e.X)
				}
			}
		}
	}
}
