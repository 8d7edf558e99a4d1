//go:build !lapacke

package houdini

import "gonum.org/v1/gonum/mat"

// symEigen factorizes the symmetric a = QΛQᵀ with gonum's pure-Go EigenSym (LAPACK's
// dsyev algorithm, QR iteration). It returns Λ in ascending order and writes Q's columns
// into vecs; ok is false when the iteration fails or yields a NaN or Inf. Build with
// -tags lapacke for the system LAPACK (eigen_lapacke.go). The drivers call it through
// symEigenCtx (eigen.go), which a canceled context need not wait for.
func symEigen(a *mat.SymDense, vecs *mat.Dense) (vals []float64, ok bool) {
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		return nil, false
	}
	vals = es.Values(nil)
	if allFinite(vals) >= 0 { // EigenSym reports success on a matrix holding NaN
		return nil, false
	}
	es.VectorsTo(vecs)
	return vals, true
}
