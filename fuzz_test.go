package houdini_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// fuzzBytes reads the fuzz input; past its end it reads zeros.
type fuzzBytes struct {
	b []byte
	i int
}

func (r *fuzzBytes) byte() byte {
	if r.i >= len(r.b) {
		return 0
	}
	v := r.b[r.i]
	r.i++
	return v
}

// val decodes a bounded float that is often degenerate: 0 for bytes below 16, ±1 for
// bytes 16–31, ±k·1e-9 for bytes 240–255, else (v − 136)/26 in about [−4, 4.5].
func (r *fuzzBytes) val() float64 {
	v := r.byte()
	switch {
	case v < 16:
		return 0
	case v < 32:
		return float64(int(v%2)*2 - 1)
	case v >= 240:
		return float64(int(v)-247) * 1e-9
	}
	return (float64(v) - 136) / 26
}

// fuzzInstance is a small quadratic escape problem decoded from bytes.
type fuzzInstance struct {
	p                          quadProblem
	withHess, withFunc         bool
	noise, delta               float64
	seed                       uint64
	infeasibleRow, zeroRowSeen bool
}

// decodeFuzz builds an instance: d ≤ 4, k ≤ 6, rows built around x at a decoded distance
// (0 puts x on the row; a negative one makes x infeasible), some rows copies, scaled copies
// or negations of the previous row, so duplicated rows and equality slabs are cheap to
// reach.
func decodeFuzz(data []byte) *fuzzInstance {
	r := &fuzzBytes{b: data}
	d := 1 + int(r.byte()%4)
	k := int(r.byte() % 7)
	flags := r.byte()
	in := &fuzzInstance{
		withHess: flags&1 != 0,
		withFunc: flags&2 != 0,
		seed:     uint64(flags >> 4),
	}
	if flags&4 != 0 {
		in.noise = 0.5
	}
	in.delta = math.Pow(10, -4+5*float64(r.byte())/255)
	p := &in.p
	p.d = d
	p.r = 0.1 + 2.9*float64(r.byte())/255
	p.x = make([]float64, d)
	for i := range p.x {
		p.x[i] = r.val()
	}
	p.g = make([]float64, d)
	for i := range p.g {
		p.g[i] = r.val()
	}
	p.H = make([][]float64, d)
	for i := range p.H {
		p.H[i] = make([]float64, d)
	}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := r.val()
			p.H[i][j], p.H[j][i] = v, v
		}
	}
	for j := 0; j < k; j++ {
		ctl := r.byte()
		var a []float64
		switch {
		case ctl%4 == 0 && j > 0: // a copy, scaled by 1, 10 or 1/10
			a = vscale(p.A[j-1], []float64{1, 10, 0.1, 1}[(ctl/4)%4])
		case ctl%4 == 1 && j > 0: // the previous row negated
			a = vscale(p.A[j-1], -1)
		default:
			a = make([]float64, d)
			for i := range a {
				a[i] = r.val()
			}
		}
		na := vnorm(a)
		if na == 0 {
			in.zeroRowSeen = true
		}
		var s float64
		switch sb := r.byte(); {
		case sb < 96:
			s = 0
		case sb == 255:
			s = -1
			in.infeasibleRow = true
		default:
			s = p.r * 3 * float64(sb-96) / 158
		}
		p.A = append(p.A, a)
		p.b = append(p.b, vdot(a, p.x)+s*na)
	}
	return in
}

var sentinels = []error{houdini.ErrBadProblem, houdini.ErrBadSettings, houdini.ErrDimension,
	houdini.ErrNonFinite, houdini.ErrZeroRow, houdini.ErrEmpty, houdini.ErrInfeasible}

func isSentinel(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// FuzzEscape decodes small quadratic problems and runs one Escape: it must not panic,
// every error must wrap one of the package's sentinels, and every move must be feasible,
// within the ball and lower the true f by more than δ/3.
func FuzzEscape(f *testing.F) {
	// Layout: d, k, flags (1 Hess, 2 Func, 4 noise, seed in the high nibble), δ, r, x[d],
	// g[d], H's upper triangle, then per row a control byte, d values unless a copy, and
	// the distance byte (< 96: row through x; 255: x infeasible).
	// Bytes 0–15 decode to 0, 60 to −2.9, 136 to 0, 200 to 2.5, 246–250 to ±k·1e-9.
	f.Add([]byte{1, 2, 3, 128, 128 /*x*/, 136, 60 /*g*/, 200, 2 /*H*/, 100, 0, 1 /*row: zero*/, 2, 0, 0, 0})
	f.Add([]byte{1, 0, 3, 200, 200 /*x*/, 0, 0 /*g = 0*/, 0, 0 /*H*/, 200, 0, 60})
	f.Add([]byte{2, 3, 1, 100, 255 /*x*/, 136, 136, 136 /*g = 0*/, 0, 0, 0 /*H*/, 60, 200, 60, 200, 60, 200,
		/*vertex*/ 2, 200, 0, 0, 0, 2, 0, 200, 0, 0, 2, 0, 0, 200, 0})
	f.Add([]byte{1, 4, 3, 150, 128 /*x*/, 136, 136 /*g*/, 0, 0 /*H*/, 60, 0, 60,
		2, 200, 0, 0 /*duplicate*/, 0, 0 /*×10*/, 4, 0 /*negation*/, 1, 0}) // an equality slab, repeated
	f.Add([]byte{1, 2, 3, 150, 128 /*x*/, 136, 136 /*g*/, 0, 0 /*H*/, 60, 0, 60,
		2, 200, 0, 0, 1, 120}) // a slab of positive width
	f.Add([]byte{3, 6, 7, 120, 180 /*x*/, 136, 140, 130, 150 /*g = 0*/, 0, 0, 0, 0,
		/*H*/ 20, 30, 40, 100, 110, 120, 130, 140, 150, 160,
		2, 200, 0, 0, 0, 0, 2, 0, 200, 0, 0, 0, 2, 0, 0, 200, 0, 0, 2, 0, 0, 0, 200, 0,
		2, 200, 200, 200, 200, 0, 6, 60, 60, 60, 60, 0}) // 6 rows through x in ℝ⁴
	f.Add([]byte{0, 1, 3, 100, 100 /*x*/, 136 /*g*/, 60 /*H*/, 200, 2, 200 /*infeasible*/, 255})
	f.Add([]byte{1, 1, 19, 250, 255 /*x*/, 250, 245 /*g*/, 245, 250 /*H*/, 248, 246, 250,
		2, 245, 250, 0}) // tiny values, noise, seed 1
	f.Add([]byte{2, 5, 2, 60, 80 /*x*/, 136, 136, 136 /*g*/, 100, 170, 136 /*H*/, 20, 0, 0, 200, 0, 250,
		2, 200, 100, 60, 0, 0, 0, 1, 120, 2, 0, 0, 200, 97, 0, 40}) // finite-difference Hessian, far rows
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := decodeFuzz(data)
		p := &in.p
		var c *houdini.Constraints
		if len(p.A) > 0 {
			A := mat.NewDense(len(p.A), p.d, nil)
			for j, a := range p.A {
				A.SetRow(j, a)
			}
			var err error
			c, err = houdini.NewConstraints(A, p.b)
			if err != nil {
				if !isSentinel(err) {
					t.Fatalf("NewConstraints: error %v wraps no sentinel", err)
				}
				if errors.Is(err, houdini.ErrZeroRow) != in.zeroRowSeen {
					t.Fatalf("NewConstraints: %v, but zero row present = %v", err, in.zeroRowSeen)
				}
				if errors.Is(err, houdini.ErrEmpty) && !in.infeasibleRow {
					t.Fatalf("NewConstraints: %v, but x = %v satisfies every row", err, p.x)
				}
				return
			}
			if in.zeroRowSeen {
				t.Fatalf("NewConstraints accepted a zero row")
			}
		}
		o, err := houdini.New(problemOf(p, 0, in.withHess, in.withFunc), c,
			houdini.Settings{Delta: in.delta, Radius: p.r, Full: houdini.FullSettings{Noise: in.noise}, Seed: in.seed})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		e, err := o.Escape(context.Background(), p.x)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("Escape: error %v wraps no sentinel", err)
			}
			if errors.Is(err, houdini.ErrInfeasible) && !in.infeasibleRow {
				t.Fatalf("Escape: %v at a point built feasible", err)
			}
			return
		}
		if in.infeasibleRow {
			t.Fatalf("Escape accepted x = %v, which violates a row by 1", p.x)
		}
		if e.Found && e.Certified {
			t.Fatalf("both Found and Certified")
		}
		if !e.Found {
			return
		}
		h := vsub(e.X, p.x)
		if n := vnorm(h); !(n <= p.r*(1+1e-10)) {
			t.Fatalf("‖X − x‖ = %.17g > r = %g", n, p.r)
		}
		if len(p.A) > 0 {
			if v := p.scaledViolation(e.X, 1e-9); v > 0 {
				t.Fatalf("X = %v violates a row by %g beyond the tolerance", e.X, v)
			}
		}
		// With Func the package measures f(x) − f(X) = 0 − q(X − x) by the same
		// arithmetic as q here; without it, by quadrature of Grad, exact up to rounding
		// of the size of the terms of q.
		slack := 0.0
		if !in.withFunc {
			slack = 1e-12 * (vnorm(p.g)*p.r + hMax(p.H)*float64(p.d)*p.r*p.r)
		}
		if qx := p.q(h); !(qx < -in.delta/3+slack) {
			t.Fatalf("f(X) − f(x) = %g, not below −δ/3 = %g", qx, -in.delta/3)
		}
	})
}

func hMax(H [][]float64) float64 {
	m := 0.0
	for _, row := range H {
		for _, v := range row {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m
}
