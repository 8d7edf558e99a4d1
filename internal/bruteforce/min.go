package bruteforce

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// rankTol: a stack of unit rows whose smallest singular value is below rankTol is
// dependent. Its affine set is then that of an independent sub-stack, up to a distance
// of about rankTol·R on the ball, a hundred times inside DefaultTol, so the candidates
// of the sub-stack satisfy the dropped rows within the tolerance.
const rankTol = 1e-12

// refineSteps is the number of iterative-refinement steps, with compensated residuals,
// applied to each affine set: each step multiplies the error of the point and of the
// null space by about ε·cond ≤ ε/rankTol ≈ 1e-4, so four steps make a set exact to
// rounding instead of off by ε/σ_min in the direction the rows barely fix.
const refineSteps = 4

// Result is the lowest feasible point found by Min (the global minimum) or by Sample
// (an upper bound on it).
type Result struct {
	// Feasible reports that S ∩ B holds a point feasible within τ. When false, Value is
	// +Inf and H is nil.
	Feasible bool
	Value    float64   // q(H)
	H        []float64 // the minimizer, an offset from x
	// Held lists the inequality rows (indices into A) held as equalities in the affine
	// set whose candidate was H (Min only; nil for Sample).
	Held []int
	// Active lists the inequality rows with (aᵢ·H − bᵢ)/‖aᵢ‖ ≥ −τ.
	Active []int
	// Subsets is the number of affine sets Min solved (0 for Sample).
	Subsets int
	// Points is the number of feasible candidate points valued.
	Points int
}

// row is one constraint row: original and normalized.
type row struct {
	idx  int       // index in A or Aeq
	a    []float64 // as given
	b    float64
	u    []float64 // a/‖a‖
	c    float64   // b/‖a‖
	norm float64
}

func newRow(idx int, a []float64, b float64) row {
	n := norm(a)
	return row{idx: idx, a: a, b: b, u: scaled(a, 1/n), c: b / n, norm: n}
}

// excess returns (a·h − b)/‖a‖, compensated.
func (r *row) excess(h []float64) float64 { return dot2(r.a, h, -r.b) / r.norm }

// enumerator is the state of one Min call.
type enumerator struct {
	p      *Problem
	d      int
	tau    float64
	Q      *mat.SymDense // symmetric part of p.Q
	eq     []row         // independent equality rows, held in every subset
	allEq  []row         // every nonzero equality row, for the feasibility check
	ineq   []row         // inequality rows that can be active in the ball
	allIn  []row         // every nonzero finite inequality row
	best   Result
	held   []int
	points int
}

// Min returns the global minimum of q over {h : A h ≤ B, Aeq h = Beq, ‖h‖ ≤ R} within
// the tolerance τ = Tol·R (see the package doc for exactly what is guaranteed), by
// exhaustive enumeration. For every subset I of the inequality rows that can be active
// in the ball, with the equalities, that is linearly independent and whose affine set
// meets the ball, it solves the trust-region subproblem on that affine set (see
// trsPoints) and keeps the lowest feasible candidate. Subsets that are dependent, or
// whose affine set misses the ball, are skipped with all their supersets.
//
// Every global minimizer with a largest set of active rows is a KKT point of the
// trust-region subproblem on the affine set of those rows, and so one of the candidates.
// Cost: up to Σ_{j≤d} C(k, j) subsets of the k rows that reach the ball, each an SVD of
// a j×d matrix and an m×m eigendecomposition (m = d − j). Min panics if p.Validate
// fails.
func Min(p Problem) Result {
	if err := p.Validate(); err != nil {
		panic(err)
	}
	e := &enumerator{p: &p, d: p.Dim(), tau: p.tol()}
	e.best = Result{Value: math.Inf(1)}
	e.Q = mat.NewSymDense(e.d, nil)
	for i := 0; i < e.d; i++ {
		for j := i; j < e.d; j++ {
			e.Q.SetSym(i, j, 0.5*(p.Q[i][j]+p.Q[j][i]))
		}
	}
	if !e.setRows() {
		return e.best
	}
	e.search(0, nil)
	e.best.Points = e.points
	if e.best.Feasible {
		for i := range e.allIn {
			if e.allIn[i].excess(e.best.H) >= -e.tau {
				e.best.Active = append(e.best.Active, e.allIn[i].idx)
			}
		}
	}
	return e.best
}

// setRows classifies the rows; it returns false when a row alone empties S ∩ B.
func (e *enumerator) setRows() bool {
	p, R := e.p, e.p.R
	for i, a := range p.Aeq {
		r := newRow(i, a, p.Beq[i])
		if r.norm == 0 {
			if p.Beq[i] != 0 {
				return false
			}
			continue
		}
		if math.Abs(r.c) > R+e.tau {
			return false
		}
		e.allEq = append(e.allEq, r)
		if e.independent(append(append([]row(nil), e.eq...), r)) {
			e.eq = append(e.eq, r)
		}
	}
	rows, ok := p.ineqRows()
	if !ok {
		return false
	}
	for _, r := range rows {
		if r.c < -(R + e.tau) {
			return false
		}
		e.allIn = append(e.allIn, r)
		if r.c <= R+e.tau {
			e.ineq = append(e.ineq, r)
		}
	}
	return true
}

// independent reports whether the unit rows of rs are linearly independent (smallest
// singular value at least rankTol).
func (e *enumerator) independent(rs []row) bool {
	M := mat.NewDense(len(rs), e.d, nil)
	for j := range rs {
		M.SetRow(j, rs[j].u)
	}
	var svd mat.SVD
	if !svd.Factorize(M, mat.SVDNone) {
		return false
	}
	sv := svd.Values(nil)
	return len(rs) <= e.d && sv[len(sv)-1] >= rankTol
}

// search solves the affine set of the equalities and the rows held, then extends held by
// every later row.
func (e *enumerator) search(next int, held []row) {
	stack := append(append([]row(nil), e.eq...), held...)
	h0, N, ok := e.affine(stack)
	if !ok || norm(h0) > e.p.R+e.tau {
		return
	}
	e.best.Subsets++
	e.held = e.held[:0]
	for _, r := range held {
		e.held = append(e.held, r.idx)
	}
	e.solve(h0, N)
	if len(stack) == e.d {
		return
	}
	for j := next; j < len(e.ineq); j++ {
		e.search(j+1, append(held, e.ineq[j]))
	}
}
