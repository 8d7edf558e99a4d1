package houdini

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// feasibleByEnumeration decides {x : Ax ≤ b + tol} ≠ ∅ independently of phaseOne: a
// nonempty polyhedron whose matrix has rank ρ has a minimal face cut out by ρ linearly
// independent rows held with equality, so it is nonempty iff for some such ρ rows the
// least-squares solution of A_I x = b_I satisfies every row.
func feasibleByEnumeration(A [][]float64, b []float64, tol float64) bool {
	k, d := len(A), len(A[0])
	full := mat.NewDense(k, d, nil)
	for i, r := range A {
		full.SetRow(i, r)
	}
	var svd mat.SVD
	svd.Factorize(full, mat.SVDNone)
	rho := svd.Rank(1e-10)
	if rho == 0 {
		for _, bi := range b {
			if bi < -tol {
				return false
			}
		}
		return true
	}
	idx := make([]int, rho)
	var rec func(start, depth int) bool
	rec = func(start, depth int) bool {
		if depth == rho {
			sub := mat.NewDense(rho, d, nil)
			rhs := mat.NewVecDense(rho, nil)
			for r, i := range idx {
				sub.SetRow(r, A[i])
				rhs.SetVec(r, b[i])
			}
			var s mat.SVD
			if !s.Factorize(sub, mat.SVDThin) || s.Rank(1e-10) < rho {
				return false
			}
			var x mat.Dense
			s.SolveTo(&x, rhs, rho)
			for i := range A {
				if mat.Dot(mat.NewVecDense(d, A[i]), x.ColView(0)) > b[i]+tol {
					return false
				}
			}
			return true
		}
		for i := start; i < k; i++ {
			idx[depth] = i
			if rec(i+1, depth+1) {
				return true
			}
		}
		return false
	}
	return rec(0, 0)
}

// TestPhaseOneAgainstEnumeration: on thousands of random small systems, phaseOne's
// verdict equals the enumeration's wherever the enumeration is not on the edge (the same
// verdict with tolerances 1e-12 and 1e-6), including degenerate ones (repeated and opposite
// rows, rank-deficient A, systems through one point).
func TestPhaseOneAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 4000
	if testing.Short() {
		n = 800
	}
	var empty, nonempty, skipped int
	for trial := 0; trial < n; trial++ {
		d := 1 + rng.IntN(3)
		k := 1 + rng.IntN(7)
		A := make([][]float64, k)
		b := make([]float64, k)
		rankDef := rng.IntN(4) == 0
		for i := range A {
			A[i] = make([]float64, d)
			for j := range A[i] {
				A[i][j] = rng.NormFloat64()
			}
			if rankDef && d > 1 {
				A[i][d-1] = A[i][0] // rank < d
			}
			switch rng.IntN(6) {
			case 0:
				if i > 0 { // repeat a row
					copy(A[i], A[rng.IntN(i)])
				}
			case 1:
				if i > 0 { // oppose a row
					j := rng.IntN(i)
					for c := range A[i] {
						A[i][c] = -A[j][c]
					}
				}
			}
			nrm := math.Sqrt(dot(A[i], A[i]))
			if nrm == 0 {
				A[i][0], nrm = 1, 1
			}
			for c := range A[i] {
				A[i][c] /= nrm
			}
			b[i] = rng.NormFloat64()
			if rng.IntN(3) == 0 {
				b[i] = 0 // through the origin: degenerate vertices
			}
		}
		exact := feasibleByEnumeration(A, b, 1e-12)
		if exact != feasibleByEnumeration(A, b, 1e-6) {
			skipped++
			continue
		}
		got := phaseOne(A, b)
		want := lpInfeasible
		if exact {
			want = lpFeasible
			nonempty++
		} else {
			empty++
		}
		if got != want {
			t.Fatalf("trial %d: phaseOne = %v, enumeration says feasible = %v; A = %v, b = %v", trial, got, exact, A, b)
		}
	}
	t.Logf("%d instances: %d empty, %d nonempty, %d on the edge skipped", n, empty, nonempty, skipped)
	if empty < n/10 || nonempty < n/10 {
		t.Fatalf("too few of one kind")
	}
}
