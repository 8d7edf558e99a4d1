package bruteforce

import (
	"errors"
	"fmt"
	"math"
)

// DefaultTol is the feasibility tolerance used when Problem.Tol is zero. houdini's
// default FeasTol (1e-9) lets each unit row be violated by at least 1e-9, so for
// R ≤ 10 a point feasible here (within 1e-10·R) is feasible there too.
const DefaultTol = 1e-10

// Problem is the escape subproblem at a point x, written in offsets h = y − x:
//
//	minimize   q(h) = C + gᵀh + ½hᵀQh
//	subject to A h ≤ B,  Aeq h = Beq,  ‖h‖ ≤ R.
//
// A constraint a·y ≤ b of the original problem becomes the row a with offset
// B = b − a·x (its slack at x); Instance.Problem computes these offsets exactly from the
// absolute data. h = 0 need not be feasible. Rows need not be normalized; rows equal to
// zero are allowed (a zero inequality row with B < 0, or a zero equality row with
// Beq ≠ 0, makes the set empty). B may hold +Inf (no constraint). Q is read through its
// symmetric part (Q + Qᵀ)/2.
type Problem struct {
	C   float64     // q(0)
	G   []float64   // gradient g, length d
	Q   [][]float64 // d×d Hessian
	A   [][]float64 // inequality rows, each of length d
	B   []float64   // inequality offsets, len(A)
	Aeq [][]float64 // equality rows, each of length d
	Beq []float64   // equality offsets, len(Aeq)
	R   float64     // ball radius, > 0
	// Tol is the feasibility tolerance relative to R (see the package doc). Zero means
	// DefaultTol.
	Tol float64
}

// Dim returns d, the length of G.
func (p *Problem) Dim() int { return len(p.G) }

// tol returns τ = Tol·R, the absolute feasibility tolerance.
func (p *Problem) tol() float64 {
	t := p.Tol
	if t == 0 {
		t = DefaultTol
	}
	return t * p.R
}

// errBad is the error every Validate failure wraps.
var errBad = errors.New("bruteforce: bad problem")

// Validate reports the first inconsistency of p: lengths that do not match d, a
// non-finite entry (B may be +Inf), R not positive and finite, Tol negative.
func (p *Problem) Validate() error {
	d := len(p.G)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", errBad, fmt.Sprintf(format, args...))
	}
	if d == 0 {
		return bad("d = 0")
	}
	if !(p.R > 0) || math.IsInf(p.R, 1) {
		return bad("R = %g", p.R)
	}
	if !(p.Tol >= 0) || math.IsInf(p.Tol, 1) {
		return bad("Tol = %g", p.Tol)
	}
	if !finite(p.C) || !allFinite(p.G) {
		return bad("C or G not finite")
	}
	if len(p.Q) != d {
		return bad("Q has %d rows, want %d", len(p.Q), d)
	}
	for i, row := range p.Q {
		if len(row) != d || !allFinite(row) {
			return bad("Q row %d: length %d or not finite", i, len(row))
		}
	}
	if err := validRows(p.A, p.B, d, "A"); err != nil {
		return bad("%v", err)
	}
	if err := validRows(p.Aeq, p.Beq, d, "Aeq"); err != nil {
		return bad("%v", err)
	}
	for i, b := range p.Beq {
		if math.IsInf(b, 0) {
			return bad("Beq[%d] = %g", i, b)
		}
	}
	return nil
}

func validRows(A [][]float64, B []float64, d int, name string) error {
	if len(A) != len(B) {
		return fmt.Errorf("%s has %d rows but %d offsets", name, len(A), len(B))
	}
	for i, a := range A {
		if len(a) != d || !allFinite(a) {
			return fmt.Errorf("%s row %d: length %d or not finite", name, i, len(a))
		}
		if math.IsNaN(B[i]) || math.IsInf(B[i], -1) {
			return fmt.Errorf("%s offset %d = %g", name, i, B[i])
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func allFinite(x []float64) bool {
	for _, v := range x {
		if !finite(v) {
			return false
		}
	}
	return true
}

// Value returns q(h) = C + gᵀh + ½hᵀQh by plain loops.
func (p *Problem) Value(h []float64) float64 { return p.C + quadValue(p.G, p.Q, h) }

// Grad writes ∇q(h) = g + ½(Q + Qᵀ)h into dst.
func (p *Problem) Grad(dst, h []float64) { quadGrad(dst, p.G, p.Q, h) }

// Violation returns the largest violation of h, in distance units: the maximum over
// inequality rows of (aᵢ·h − bᵢ)/‖aᵢ‖, over equality rows of |aᵢ·h − bᵢ|/‖aᵢ‖, and of
// ‖h‖ − R. It is ≤ 0 exactly when h is feasible without tolerance (up to the rounding
// of a compensated dot product). A zero row contributes +Inf when it is violated
// (inequality: bᵢ < 0; equality: bᵢ ≠ 0) and at most 0 otherwise.
func (p *Problem) Violation(h []float64) float64 {
	worst := norm(h) - p.R
	for i, a := range p.A {
		worst = math.Max(worst, rowExcess(a, p.B[i], h))
	}
	for i, a := range p.Aeq {
		worst = math.Max(worst, math.Abs(rowExcess(a, p.Beq[i], h)))
	}
	return worst
}

// rowExcess returns (a·h − b)/‖a‖ with the dot product compensated. For a zero row it
// returns −Inf when b > 0, +Inf when b < 0 and 0 when b = 0, so that its absolute value
// flags a violated zero equality row too.
func rowExcess(a []float64, b float64, h []float64) float64 {
	n := norm(a)
	if n == 0 {
		switch {
		case b > 0:
			return math.Inf(-1)
		case b < 0:
			return math.Inf(1)
		}
		return 0
	}
	if math.IsInf(b, 1) {
		return math.Inf(-1)
	}
	return dot2(a, h, -b) / n
}

// ineqRows returns the inequality rows that constrain anything: nonzero, with a finite
// offset. ok is false when a zero row with a negative offset makes the set empty.
func (p *Problem) ineqRows() (rows []row, ok bool) {
	for i, a := range p.A {
		r := newRow(i, a, p.B[i])
		switch {
		case r.norm == 0:
			if p.B[i] < 0 {
				return nil, false
			}
		case !math.IsInf(r.c, 1):
			rows = append(rows, r)
		}
	}
	return rows, true
}

// Feasible reports whether h is feasible within the tolerance τ = Tol·R.
func (p *Problem) Feasible(h []float64) bool {
	return p.Violation(h) <= p.tol()
}

// Hold returns a copy of p in which the inequality rows listed (distinct indices into A)
// are equalities, appended to Aeq in the order given; the remaining rows of A keep their
// order. The minimum of the copy equals that of p exactly when some global minimizer of
// p has those rows active, which is what a forced-row rule claims. Hold only rows that
// are exactly active: a row active only within τ (Result.Active) may not be active at
// any exact minimizer, and in a near-parallel sliver holding it changes the minimum.
func (p *Problem) Hold(rows ...int) Problem {
	q := *p
	held := make(map[int]bool, len(rows))
	q.Aeq = append([][]float64(nil), p.Aeq...)
	q.Beq = append([]float64(nil), p.Beq...)
	for _, i := range rows {
		held[i] = true
		q.Aeq = append(q.Aeq, p.A[i])
		q.Beq = append(q.Beq, p.B[i])
	}
	q.A, q.B = nil, nil
	for i, a := range p.A {
		if !held[i] {
			q.A = append(q.A, a)
			q.B = append(q.B, p.B[i])
		}
	}
	return q
}
