package houdini_test

// FuzzNewPolyhedron (issue 12, "fuzz targets for every constructor"): NewPolyhedron with
// bounds, rows and first-class equalities, and an Escape from a point built feasible, which
// holds the equalities at their computed offsets (issue 12, defects 1, 3, 7).
//
//	go test -run '^$' -fuzz '^FuzzNewPolyhedron$' -fuzztime 60s .

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/houdini-opt/houdini"
)

// relPolyInput is a decoded input of FuzzNewPolyhedron and what is known about it.
type relPolyInput struct {
	d          int
	P          houdini.Polyhedron
	rows, eqs  [][]float64
	p          []float64 // the point S is built around
	feasible   bool      // p satisfies every constraint exactly (valid, finite data)
	invalid    bool      // NaN or ±Inf in A or Aeq, NaN in B, Beq or a bound, a zero row of A
	mismatch   bool      // the parts disagree in d
	fixedEqs   bool      // every equality is 2ˢ·xⱼ = 2ˢ·pⱼ (so −Σ over the free coordinates is exact)
	escape     bool
	corner     bool // escape by MethodCorner (no L given: it never certifies)
	delta, rad float64
}

// relDecodePolyhedron: d (1 + b%4), k (b%5), q (b%4), flags (1: bounds; 2: Upper nil; 4:
// equalities fix coordinates; 8: arbitrary B; 16: arbitrary Beq; 32: Lower one longer; 64:
// escape; 128: by MethodCorner), δ/r = 10^(−3 + 3b/255), r (0.05 + b/50), p[d] (val); per coordinate two bound
// bytes (< 200: p ∓ b/50; 200: ∓Inf; 201: p; 202: NaN; else ∓(b − 202)·1e6 beyond p); per
// row d entries (ent) and a slack byte (< 128: through p; else (b − 128)/32; with flag 8 an
// ent() instead); per equality either a coordinate byte and a scale byte (flag 4: 2^(b%9−4)·
// e_j) or d entries (ent) with Beq = a·p (flag 16: an ent() instead).
func relDecodePolyhedron(data []byte) *relPolyInput {
	r := &relBytes{b: data}
	in := &relPolyInput{d: 1 + int(r.byte()%4)}
	d := in.d
	k, q := int(r.byte()%5), int(r.byte()%4)
	flags := r.byte()
	in.escape = flags&64 != 0
	in.corner = flags&128 != 0
	in.fixedEqs = flags&4 != 0
	in.rad = 0.05 + float64(r.byte())/50
	in.delta = in.rad * math.Pow(10, -3+3*float64(r.byte())/255)
	in.p = make([]float64, d)
	for j := range in.p {
		in.p[j] = r.val()
	}
	in.feasible = flags&(8|16) == 0
	if flags&1 != 0 {
		in.P.Lower, in.P.Upper = make([]float64, d), make([]float64, d)
		for j := 0; j < d; j++ {
			for s, dst := range [][]float64{in.P.Lower, in.P.Upper} {
				sign := float64(2*s - 1)
				v := r.byte()
				switch {
				case v < 200:
					dst[j] = in.p[j] + sign*float64(v)/50
				case v == 200:
					dst[j] = math.Inf(int(sign))
				case v == 201:
					dst[j] = in.p[j]
				case v == 202:
					dst[j] = math.NaN()
					in.invalid = true
				default:
					dst[j] = in.p[j] + sign*float64(v-202)*1e6
				}
			}
		}
		if flags&2 != 0 {
			in.P.Upper = nil
		}
		if flags&32 != 0 {
			in.P.Lower = append(in.P.Lower, 0)
			in.mismatch = in.P.Upper != nil || k+q > 0 // else Lower alone sets d
			in.invalid = true
		}
	}
	for i := 0; i < k; i++ {
		a := make([]float64, d)
		zero := true
		for j := range a {
			a[j] = r.ent()
			in.invalid = in.invalid || math.IsNaN(a[j]) || math.IsInf(a[j], 0)
			zero = zero && a[j] == 0
		}
		in.invalid = in.invalid || zero
		var b float64
		if flags&8 != 0 {
			b = r.ent()
			in.invalid = in.invalid || math.IsNaN(b)
		} else if sb := r.byte(); sb < 128 {
			b = relRowRHS(a, in.p, 0)
		} else {
			b = relRowRHS(a, in.p, float64(sb-128)/32)
		}
		in.rows = append(in.rows, a)
		in.P.B = append(in.P.B, b)
	}
	for i := 0; i < q; i++ {
		a := make([]float64, d)
		var b float64
		if in.fixedEqs {
			j := int(r.byte()) % d
			s := math.Ldexp(1, int(r.byte()%9)-4)
			a[j], b = s, s*in.p[j]
		} else {
			zero := true
			for j := range a {
				a[j] = r.ent()
				in.invalid = in.invalid || math.IsNaN(a[j]) || math.IsInf(a[j], 0)
				zero = zero && a[j] == 0
			}
			in.invalid = in.invalid || zero // a zero equality: refused or dropped, either is fine
			b = relDot(a, in.p)
			in.feasible = in.feasible && !in.invalid && relScaledViolation(a, b, in.p, 0) == 0 // exact
		}
		if flags&16 != 0 {
			b = r.ent()
			in.invalid = in.invalid || math.IsNaN(b)
		}
		in.eqs = append(in.eqs, a)
		in.P.Beq = append(in.P.Beq, b)
	}
	if k > 0 {
		in.P.A = relDense(in.rows)
	}
	if q > 0 {
		in.P.Aeq = relDense(in.eqs)
	}
	in.feasible = in.feasible && !in.invalid && !in.mismatch
	return in
}

// relFuzzPolySeeds: the square [−1, 1]² with a row and an equality through p, escaped; two
// coordinates fixed by equalities 2ˢxⱼ = 2ˢpⱼ in a box with a fixed bound and infinite ones;
// a simplex-like corner in ℝ⁴ with an equality and a far bound; arbitrary B and Beq; Lower
// longer than d; a NaN bound; rows of entries ≈ 5e-9 through p with an equality; the
// corner in ℝ⁴ and the fixed coordinates again by MethodCorner.
var relFuzzPolySeeds = [][]byte{
	{1, 1, 1, 1 | 64, 20, 128, 136, 136 /*p*/, 50, 50, 50, 50 /*bounds*/, 17, 17, 0 /*row*/, 17, 16 /*eq*/},
	{2, 0, 2, 1 | 4 | 64, 30, 200, 136, 150, 120 /*p*/, 10, 10, 201, 201, 200, 200 /*bounds*/, 0, 4, 1, 5 /*eqs*/},
	{3, 4, 1, 1 | 64, 60, 128, 136, 136, 136, 136 /*p*/, 200, 200, 201, 201, 10, 10, 203, 203,
		17, 0, 0, 0, 0, 0, 17, 0, 0, 0, 0, 0, 17, 0, 0, 16, 16, 16, 16, 0 /*rows*/, 17, 17, 0, 0 /*eq*/},
	{1, 2, 1, 8 | 16 | 64, 40, 100, 140, 130 /*p*/, 17, 16, 17, 30, 17, 0, 17, 17, 16},
	{1, 0, 0, 1 | 32, 10, 10, 136, 136, 10, 10, 10, 10},
	{0, 0, 0, 1 | 64, 10, 10, 136, 202, 10},
	{1, 2, 1, 64, 50, 150, 136, 136 /*p*/, 33, 17, 0, 38, 16, 0 /*rows*/, 17, 34 /*eq*/},
	{3, 4, 1, 1 | 64 | 128, 60, 128, 136, 136, 136, 136 /*p*/, 200, 200, 201, 201, 10, 10, 203, 203,
		17, 0, 0, 0, 0, 0, 17, 0, 0, 0, 0, 0, 17, 0, 0, 16, 16, 16, 16, 0 /*rows*/, 17, 17, 0, 0 /*eq*/},
	{2, 0, 2, 1 | 4 | 64 | 128, 30, 200, 136, 150, 120 /*p*/, 10, 10, 201, 201, 200, 200 /*bounds*/, 0, 4, 1, 5 /*eqs*/},
}

func FuzzNewPolyhedron(f *testing.F) {
	for _, s := range relFuzzPolySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if msg := relCheckPolyInput(relDecodePolyhedron(data)); msg != "" {
			t.Fatal(msg)
		}
	})
}

// relCheckPolyInput calls NewPolyhedron and, when asked, Escape on f = Σx from p, and
// returns what contradicts their docs: a panic; an error wrapping no sentinel; ErrDimension
// missing for parts of different d; an error where p satisfies every constraint exactly;
// Dims or Violation(p) wrong; a move that leaves S (beyond FeasTol), the ball, or does not
// lower f by δ/3; a certificate where p − t·u (u the normalised −1 on the free coordinates,
// for equalities that fix coordinates) lies in S exactly and is lower by more than δ.
func relCheckPolyInput(in *relPolyInput) string {
	var (
		c   *houdini.Constraints
		err error
	)
	desc := fmt.Sprintf("Lower %v, Upper %v, A %v, B %v, Aeq %v, Beq %v", in.P.Lower, in.P.Upper, in.rows, in.P.B, in.eqs, in.P.Beq)
	if p := relCall(func() { c, err = houdini.NewPolyhedron(in.P) }); p != nil {
		return fmt.Sprintf("NewPolyhedron panics on %s: %v", desc, p)
	}
	if err != nil && !relIsSentinel(err) {
		return fmt.Sprintf("NewPolyhedron(%s): error %v wraps no sentinel", desc, err)
	}
	if in.mismatch {
		if !errors.Is(err, houdini.ErrDimension) {
			return fmt.Sprintf("NewPolyhedron(%s): %v, want ErrDimension (Lower is longer)", desc, err)
		}
		return ""
	}
	if !in.feasible || c == nil {
		if in.feasible && err == nil && (in.P.Lower != nil || len(in.rows)+len(in.eqs) > 0) {
			return fmt.Sprintf("NewPolyhedron(%s) returned (nil, nil)", desc)
		}
		if in.feasible && err != nil && (in.P.Lower != nil || len(in.rows)+len(in.eqs) > 0) {
			return fmt.Sprintf("NewPolyhedron(%s): %v, but p = %v satisfies every constraint exactly", desc, err, in.p)
		}
		return ""
	}
	if _, d := c.Dims(); d != in.d {
		return fmt.Sprintf("NewPolyhedron(%s): Dims gives d = %d, want %d", desc, d, in.d)
	}
	maxB := 0.0
	for i, a := range in.rows {
		maxB = math.Max(maxB, math.Abs(in.P.B[i]/relNorm(a)))
	}
	for i, a := range in.eqs {
		maxB = math.Max(maxB, math.Abs(in.P.Beq[i]/relNorm(a)))
	}
	for _, bs := range [][]float64{in.P.Lower, in.P.Upper} {
		for _, v := range bs {
			if !math.IsInf(v, 0) {
				maxB = math.Max(maxB, math.Abs(v))
			}
		}
	}
	tol := func(x []float64) float64 { return 1e-9*math.Max(1, maxB) + 8*relEps*(relNorm(x)+maxB) }
	_, v := c.Violation(in.p)
	if v > tol(in.p) {
		return fmt.Sprintf("NewPolyhedron(%s): Violation(p) = %g, but p = %v satisfies every constraint", desc, v, in.p)
	}
	if !in.escape {
		return ""
	}
	prob := houdini.Problem{
		Func: func(x []float64) float64 {
			s := 0.0
			for _, v := range x {
				s += v
			}
			return s
		},
		Grad: func(g, _ []float64) {
			for j := range g {
				g[j] = 1
			}
		},
	}
	s := houdini.Settings{Delta: in.delta, Radius: in.rad, MaxSubsets: 1024, MaxGradEvals: 5000}
	if in.corner {
		s.Method = houdini.MethodCorner
	}
	o, err := houdini.New(prob, c, s)
	if err != nil {
		return fmt.Sprintf("New: %v", err)
	}
	var e *houdini.EscapeResult
	if p := relCall(func() { e, err = o.Escape(context.Background(), in.p) }); p != nil {
		return fmt.Sprintf("Escape panics on %s at p = %v: %v", desc, in.p, p)
	}
	if err != nil {
		return fmt.Sprintf("Escape(%s) at p = %v, a point of S: %v", desc, in.p, err)
	}
	if e.Found {
		if _, v := c.Violation(e.X); v > tol(e.X) {
			return fmt.Sprintf("%s: the move to %v violates a constraint by %g", desc, e.X, v)
		}
		if n := relNorm(relDiff(e.X, in.p)); !(n <= in.rad*(1+1e-12)) {
			return fmt.Sprintf("%s: the move has length %.17g > r = %g", desc, n, in.rad)
		}
		if dec := prob.Func(in.p) - prob.Func(e.X); !(dec > in.delta/3*(1-1e-9)) {
			return fmt.Sprintf("%s: the move to %v lowers f by %g ≤ δ/3 = %g", desc, e.X, dec, in.delta/3)
		}
	}
	if !e.Certified || (len(in.eqs) > 0 && !in.fixedEqs) {
		return ""
	}
	// Probe the certificate along −1 on the free coordinates, exactly checked.
	free := make([]bool, in.d)
	for j := range free {
		free[j] = true
	}
	for _, a := range in.eqs {
		for j, v := range a {
			if v != 0 {
				free[j] = false
			}
		}
	}
	m := 0
	for _, f := range free {
		if f {
			m++
		}
	}
	if m == 0 {
		return ""
	}
	for _, t := range []float64{1, 0.5, 0.25, 0.1, 0.01} {
		step := t * in.rad / math.Sqrt(float64(m)) * (1 - 1e-12)
		y := append([]float64(nil), in.p...)
		for j := range y {
			if free[j] {
				y[j] -= step
			}
		}
		if !relPolyExactlyIn(in, y) {
			continue
		}
		if dec := prob.Func(in.p) - prob.Func(y); dec > in.delta*(1+1e-9) {
			return fmt.Sprintf("%s: certified p = %v (δ = %g, r = %g), but y = %v in S within r is %g lower", desc, in.p, in.delta, in.rad, y, dec)
		}
	}
	return ""
}

// relPolyExactlyIn reports whether y satisfies every constraint of in exactly.
func relPolyExactlyIn(in *relPolyInput, y []float64) bool {
	for j := range y {
		if in.P.Lower != nil && y[j] < in.P.Lower[j] || in.P.Upper != nil && y[j] > in.P.Upper[j] {
			return false
		}
	}
	for i, a := range in.rows {
		if relScaledViolation(a, in.P.B[i], y, 0) > 0 {
			return false
		}
	}
	for i, a := range in.eqs {
		if relScaledViolation(a, in.P.Beq[i], y, 0) != 0 {
			return false
		}
	}
	return true
}
