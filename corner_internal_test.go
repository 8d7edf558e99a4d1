package houdini

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMethodAuto checks MethodAuto's rule without paying for a d = AutoCornerDim escape:
// the corner path only without a Hessian oracle and from AutoCornerDim on; an explicit
// Method wins.
func TestMethodAuto(t *testing.T) {
	grad := func(g, x []float64) { copy(g, x) }
	hess := func(h *mat.SymDense, x []float64) {}
	for _, c := range []struct {
		hess   bool
		d      int
		method Method
		want   Method
	}{
		{false, AutoCornerDim, MethodAuto, MethodCorner},
		{false, AutoCornerDim - 1, MethodAuto, MethodFull},
		{true, AutoCornerDim, MethodAuto, MethodFull},
		{true, 10, MethodCorner, MethodCorner},
		{false, AutoCornerDim, MethodFull, MethodFull},
	} {
		p := Problem{Grad: grad}
		if c.hess {
			p.Hess = hess
		}
		o, err := New(p, nil, Settings{Delta: 1, Radius: 1, Method: c.method})
		if err != nil {
			t.Fatal(err)
		}
		if got := o.method(c.d); got != c.want {
			t.Errorf("Hess %v, d = %d, Method %v: got %v, want %v", c.hess, c.d, c.method, got, c.want)
		}
	}
}
