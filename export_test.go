package houdini

import (
	"context"
	"errors"

	"gonum.org/v1/gonum/mat"
)

// Hooks for the package's own tests: switches and views that are not part of the API.

// method resolves MethodAuto for a point of dimension d, as Escape does.
func (o *Optimizer) method(d int) Method {
	return o.s.methodFor(o.p.Hess != nil || o.p.HessVec != nil, d)
}

// setNoPrune turns off the two pruning rules of the subset walk (forced rows and the
// relaxed bound), so that the tests can compare verdicts against the full walk.
func (o *Optimizer) setNoPrune(on bool) { o.test.noPrune = on }

// countLagrangePrunes turns the Lagrangian bound (lagrange.go, off by default) on in this
// optimizer's walks and adds to *n the subtrees only it prunes.
func (o *Optimizer) countLagrangePrunes(n *int) { o.test.lagrangePruned = n }

// UseLagrangeBound turns the Lagrangian bound (lagrange.go, off by default) on, for the
// brute-force tests of package houdini_test.
func (o *Optimizer) UseLagrangeBound() { o.countLagrangePrunes(new(int)) }

// setNoBoxCert turns the box certificate (boxcert.go) off, so that every escape walks.
func (o *Optimizer) setNoBoxCert(on bool) { o.test.noBoxCert = on }

// setNoBandModel keeps every finite-difference model dense (fdhessian.go).
func (o *Optimizer) setNoBandModel(on bool) { o.test.noBandModel = on }

// UseWalkOrder makes the walk take each subset's children in walkOrder's order (off by
// default) instead of near's, for the order tests of package houdini_test.
func (o *Optimizer) UseWalkOrder() { o.test.walkOrder = true }

// setNoCone turns the cone bound (cone.go) off, and countConePrunes tries it on walks of
// any size (not only from coneMinRows rows on) and adds to *n the subtrees only it prunes.
func (o *Optimizer) setNoCone(on bool) { o.test.noCone = on }

// setNoBlock turns the block bound (blockbound.go) off; countConePrunes counts its prunes
// with the cone bound's (they share the walk's slot).
func (o *Optimizer) setNoBlock(on bool) { o.test.noBlock = on }

func (o *Optimizer) countConePrunes(n *int) {
	o.test.conePruned, o.test.coneMinRows = n, 1
}

// UseConeEverywhere tries the cone bound (cone.go) on walks of any size, for the
// brute-force tests of package houdini_test.
func (o *Optimizer) UseConeEverywhere() { o.countConePrunes(new(int)) }

// setReferenceEscape makes the walk examine every subset by its own EigenSym (the dense
// FindInside backend) instead of from M's eigenbasis.
func (o *Optimizer) setReferenceEscape(on bool) { o.test.referenceEscape = on }

// setEigenAlways sends every subset below the base to the eigenbasis backend.
func (o *Optimizer) setEigenAlways(on bool) { o.test.eigenAlways = on }

// setMatrixFree makes the full path matrix-free at every d: the model an operator
// (without Problem.Hess) and every subset examined by the Krylov examiner, exactly up to
// face dimension exact (−1: never; 0: krylovExactDim).
func (o *Optimizer) setMatrixFree(on bool, exact int) {
	o.test.matrixFree, o.test.krylovExact = on, exact
}

// forcedRows returns the number of rows the walk at x holds as forced (holdForcedRows),
// for the exact model at x (Seed 0).
func (o *Optimizer) forcedRows(x []float64) int {
	n, _ := o.forcedRowsErr(x)
	return n
}

// forcedRowsErr is forcedRows with the walk's forcedErr.
func (o *Optimizer) forcedRowsErr(x []float64) (int, float64) {
	rn := o.newRun(context.Background(), 0)
	mod, _ := buildModel(x, rn.ev, newRand(0), &o.s, rn.r, MatrixFreeDim, -1)
	w := newWalk(context.Background(), o.c, x, rn.r, mod, &o.s, false)
	w.holdForcedRows()
	return w.forced, w.forcedErr
}

// ForcedByCircuits returns the number of rows the walk at x keeps as forced by the
// circuit rule (circuits.go), for the exact model at x (Seed 0): exported for the tests of
// package houdini_test.
func (o *Optimizer) ForcedByCircuits(x []float64) int {
	rn := o.newRun(context.Background(), 0)
	mod, _ := buildModel(x, rn.ev, newRand(0), &o.s, rn.r, MatrixFreeDim, -1)
	w := newWalk(context.Background(), o.c, x, rn.r, mod, &o.s, false)
	w.holdForcedRows()
	if w.forced == 0 {
		return 0
	}
	return w.byCircuits
}

// lpVerdict is the outcome of phaseOne below.
type lpVerdict int

const (
	lpFeasible   lpVerdict = iota // a point satisfies the rows
	lpInfeasible                  // no point does
)

// phaseOne decides whether {x : Ax ≤ b} is empty the way NewPolyhedron does (phase one
// on the rows relaxed by the default FeasTol, with its point checked and its Farkas
// certificate verified), for TestPhaseOneAgainstEnumeration.
func phaseOne(A [][]float64, b []float64) lpVerdict {
	M := mat.NewDense(len(A), len(A[0]), nil)
	for i, r := range A {
		M.SetRow(i, r)
	}
	if _, err := NewConstraints(M, b); errors.Is(err, ErrEmpty) {
		return lpInfeasible
	}
	return lpFeasible
}

// SetMatrixFree is setMatrixFree for the external tests (package houdini_test), which
// cross-check the Krylov examiner against the brute-force references there.
func SetMatrixFree(o *Optimizer, on bool, exact int) { o.setMatrixFree(on, exact) }

// setNoCap turns the cap bound (cap.go) off, and countCapPrunes tries it (with the cone
// bound) on walks of any size and adds to *n the subtrees only it prunes.
func (o *Optimizer) setNoCap(on bool) { o.test.noCap = on }

// setNoEqRelax turns the relaxed-equality cone bound (eqrelax.go) off, and
// countEqRelaxPrunes tries it (with the cone and cap bounds) on walks of any size and
// adds to *n the subtrees only it prunes.
func (o *Optimizer) setNoEqRelax(on bool) { o.test.noEqRelax = on }
func (o *Optimizer) countEqRelaxPrunes(n *int) {
	o.test.eqRelaxPruned, o.test.coneMinRows = n, 1
}
func (o *Optimizer) countCapPrunes(n *int) {
	o.test.capPruned, o.test.coneMinRows = n, 1
}

// setNoEarlyStop walks every escape's subsets to the end after a move is found
// (walk.earlyStop), and setEarlyBudget replaces the early stop's work budget.
func (o *Optimizer) setNoEarlyStop(on bool)      { o.test.noEarlyStop = on }
func (o *Optimizer) setEarlyBudget(work float64) { o.test.earlyBudget = work }
