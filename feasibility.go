package houdini

import "math"

// lpVerdict is the outcome of phaseOne.
type lpVerdict int

const (
	lpFeasible   lpVerdict = iota // a point satisfies the rows
	lpInfeasible                  // no point does
	lpUndecided                   // the iteration cap was reached
)

// Guards of phaseOne; rows are unit vectors, so the tableau's entries are O(1) at start.
const (
	// lpPivotTol: a pivot candidate below it is treated as zero.
	lpPivotTol = 1e-9
	// lpCostTol: a reduced cost above −lpCostTol counts as nonnegative.
	lpCostTol = 1e-11
	// lpInfeasTol: the least total artificial value above which, relative to
	// 1 + Σ|bᵢ|, the rows are declared inconsistent; a feasible system ends at rounding
	// level, far below.
	lpInfeasTol = 1e-10
)

// phaseOne decides whether {x : Ax ≤ b} is empty, for rows A (each of length d).
//
// It is phase one of the simplex method on the standard form A(x⁺ − x⁻) + s = b with
// x⁺, x⁻, s ≥ 0 (rows with bᵢ < 0 negated and given an artificial variable), minimizing
// the sum of the artificials, with Bland's rule: the entering column is the lowest-index
// one of negative reduced cost, the leaving row the lowest-index basic variable among the
// ratio-test ties. Bland's rule cannot cycle (Bland 1977), so phase one terminates;
// gonum's lp.Simplex, which NewConstraints used before, cycles forever on some degenerate
// inputs the fuzzer found (testdata/fuzz/FuzzEscape), hence this hand-written dense tableau, at
// O(k·(2d + 2k)) per pivot. A cap of 50·(k + d) + 1000 pivots guards against
// exponential-length paths; hitting it answers lpUndecided, which NewConstraints takes as
// "not shown empty".
func phaseOne(A [][]float64, b []float64) lpVerdict {
	k := len(A)
	if k == 0 {
		return lpFeasible
	}
	tb := newTableau(A, b)
	if tb.nArt == 0 {
		return lpFeasible // x = 0 satisfies every row
	}
	T, cost, basis, ncol := tb.T, tb.cost, tb.basis, tb.ncol
	maxPivots := 50*(k+len(A[0])) + 1000
	for it := 0; it < maxPivots; it++ {
		enter := -1
		for j := 0; j < ncol; j++ {
			if cost[j] < -lpCostTol {
				enter = j
				break
			}
		}
		if enter < 0 {
			// Optimal: the objective is −cost[rhs].
			if -cost[ncol] > lpInfeasTol*tb.scale {
				return lpInfeasible
			}
			return lpFeasible
		}
		leave := -1
		best := math.Inf(1)
		for i := 0; i < k; i++ {
			if T[i][enter] <= lpPivotTol {
				continue
			}
			ratio := T[i][ncol] / T[i][enter]
			if ratio < best || (ratio == best && basis[i] < basis[leave]) {
				best, leave = ratio, i
			}
		}
		if leave < 0 {
			// Unbounded direction in phase one cannot lower a sum bounded below by 0;
			// it arises only from rounding. Refuse to decide.
			return lpUndecided
		}
		pivot(T, cost, leave, enter)
		basis[leave] = enter
	}
	return lpUndecided
}

// tableau is phase one's dense simplex tableau: rows T (ncol columns and the right-hand
// side), the basic variable of each row, the reduced-cost row of the sum of artificials,
// the number of artificials and the scale 1 + Σ|bᵢ| of lpInfeasTol.
type tableau struct {
	T     [][]float64
	basis []int
	cost  []float64
	ncol  int
	nArt  int
	scale float64
}

// newTableau builds phase one's tableau for the rows A, b. Columns: x⁺ (d), x⁻ (d),
// slacks (k), artificials (one per negated row), rhs.
func newTableau(A [][]float64, b []float64) *tableau {
	k, d := len(A), len(A[0])
	nArt := 0
	for _, bi := range b {
		if bi < 0 {
			nArt++
		}
	}
	ncol := 2*d + k + nArt
	tb := &tableau{T: make([][]float64, k), basis: make([]int, k), ncol: ncol, nArt: nArt, scale: 1}
	art := 0
	for i := 0; i < k; i++ {
		row := make([]float64, ncol+1)
		sgn := 1.0
		if b[i] < 0 {
			sgn = -1
		}
		for j, a := range A[i] {
			row[j] = sgn * a
			row[d+j] = -sgn * a
		}
		row[2*d+i] = sgn
		row[ncol] = sgn * b[i]
		tb.scale += math.Abs(b[i])
		if sgn < 0 {
			row[2*d+k+art] = 1
			tb.basis[i] = 2*d + k + art
			art++
		} else {
			tb.basis[i] = 2*d + i
		}
		tb.T[i] = row
	}
	// Reduced costs of min Σ artificials: cost row = −Σ (rows with an artificial).
	tb.cost = make([]float64, ncol+1)
	for i := 0; i < k; i++ {
		if tb.basis[i] >= 2*d+k {
			for j := range tb.cost {
				tb.cost[j] -= tb.T[i][j]
			}
		}
	}
	for j := 2*d + k; j < ncol; j++ {
		tb.cost[j] = 0
	}
	return tb
}

// pivot makes column j basic in row r of the tableau T and updates the cost row.
func pivot(T [][]float64, cost []float64, r, j int) {
	pr := T[r]
	inv := 1 / pr[j]
	for c := range pr {
		pr[c] *= inv
	}
	pr[j] = 1
	for i, row := range T {
		if i == r || row[j] == 0 {
			continue
		}
		f := row[j]
		for c := range row {
			row[c] -= f * pr[c]
		}
		row[j] = 0
	}
	if f := cost[j]; f != 0 {
		for c := range cost {
			cost[c] -= f * pr[c]
		}
		cost[j] = 0
	}
}
