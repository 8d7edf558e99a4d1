package houdini

import (
	"errors"
	"math"
)

// The test for an objective unbounded below, run by the descent phase (Optimizer.Minimize
// states the rule).

// Constants of the ray test.
const (
	// rayStart·r is the first distance tried along a ray, the descent phase's own first
	// trial step there; each further point doubles it.
	rayStart = 10
	// rayDoublings: the last point is at rayStart·2^rayDoublings·r ≈ 1.1e13·r, far beyond
	// any radius a bounded problem's iterates travel, and still far inside the range
	// where a move of length r from x0 = 0 is representable (r/ε ≈ 4.5e15·r).
	rayDoublings = 40
	// rayRate: at every point f must have fallen by at least rayRate times the initial
	// rate |∇f(x)·u| times the distance: at least linearly, with slack for rounding and
	// for a rate that slows down but never stops.
	rayRate = 0.5
)

// unboundedRay is the error by which descend reports that f fell at least linearly along
// a ray out to rayStart·2^rayDoublings·r: x is the farthest point checked, feasible, and
// dec = f(start) − f(x). Minimize turns it into StatusUnbounded; it never reaches the
// caller.
type unboundedRay struct {
	x   []float64
	dec float64
}

func (e *unboundedRay) Error() string { return "houdini: f is unbounded below along a ray" }

// probeRay runs the ray test from the descent iterate x (base: f(x) or x itself) along
// dir, a direction no row outside ws blocks and with non-positive measured curvature, of
// slope = ∇f(x)·dir < 0. The points x + t·u, u = dir/‖dir‖, t = rayStart·r·2ᵏ for
// k = 0 … rayDoublings, are snapped onto S (ws's rows and any violated by rounding) and
// must be feasible with f(x) − f(point) ≥ rayRate·t·|∇f(x)·u|. When all pass, probeRay
// returns an *unboundedRay at the last one; at the first that fails (f falls slower, a
// row is violated, f overflows there) it returns nil, and only an oracle's error or the
// context's otherwise. It costs one decrease check per point tried (1 Func or 3 Grad
// calls).
func (rn *run) probeRay(x, dir []float64, slope float64, base decreaseBase, ws *workingSet) error {
	dn := norm(dir)
	rate := -slope / dn
	if !(rate > 0) || math.IsInf(rate, 0) {
		return nil
	}
	t := rayStart * rn.r
	var ray *unboundedRay
	for k := 0; k <= rayDoublings; k, t = k+1, 2*t {
		y := make([]float64, len(x))
		for j := range y {
			y[j] = x[j] + t/dn*dir[j]
		}
		if y = rn.c.snap(y, rn.s.FeasTol, ws.in); y == nil {
			return nil
		}
		dec, err := rn.ev.decrease(base, y)
		var nf *NonFiniteError
		switch {
		case errors.As(err, &nf):
			return nil // f overflows out there: no verdict
		case err != nil:
			return err
		case !(dec >= rayRate*t*rate):
			return nil
		}
		ray = &unboundedRay{x: y, dec: dec}
	}
	return ray
}
