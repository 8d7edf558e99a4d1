//go:build lapacke && cgo

package houdini

// This file binds one LAPACK routine, dsyevd (divide and conquer), through LAPACKE, for
// builds with -tags lapacke on a machine with LAPACKE and a BLAS (Debian: liblapacke-dev
// libopenblas-dev). gonum's cgo backend, gonum.org/v1/netlib, would be the well-kept way,
// but the only version the Go module proxy serves (2019) does not implement gonum
// v0.17's lapack.Float64 interface and does not compile against it; the eigensolver is
// the one routine whose speed matters here (3–7× over gonum's pure Go at d = 300–1000),
// so we bind it alone.

/*
#cgo LDFLAGS: -llapacke -lopenblas
#include <lapacke.h>
*/
import "C"

import (
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// symEigen factorizes the symmetric a = QΛQᵀ with LAPACK's dsyevd. It returns Λ in
// ascending order and writes Q's columns into vecs; ok is false when dsyevd reports
// failure or a NaN or Inf.
func symEigen(a *mat.SymDense, vecs *mat.Dense) (vals []float64, ok bool) {
	n := a.SymmetricDim()
	data := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := a.At(i, j)
			data[i*n+j], data[j*n+i] = v, v
		}
	}
	vals = make([]float64, n)
	if n == 0 {
		vecs.ReuseAs(0, 0)
		return vals, true
	}
	info := C.LAPACKE_dsyevd(C.LAPACK_ROW_MAJOR, 'V', 'U', C.lapack_int(n),
		(*C.double)(unsafe.Pointer(&data[0])), C.lapack_int(n), (*C.double)(unsafe.Pointer(&vals[0])))
	if info != 0 || allFinite(vals) >= 0 {
		return nil, false
	}
	// Row-major output: the eigenvectors are the columns of data.
	if vecs.IsEmpty() {
		vecs.ReuseAs(n, n)
	}
	vecs.Copy(mat.NewDense(n, n, data))
	return vals, true
}
