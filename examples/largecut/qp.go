package main

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// QP is a dense random box QP, f(x) = ½xᵀQx + cᵀx on [−1, 1]ᵈ, Q symmetric with
// independent standard normal entries on and above the diagonal and c standard normal:
// indefinite (Wigner spectrum on about [−2√d, 2√d]), so most coordinates end at a bound.
type QP struct {
	D int
	Q *mat.SymDense
	C []float64
}

// NewQP draws the instance of dimension d from a PCG seeded by (seed, d).
func NewQP(d int, seed uint64) *QP {
	rng := rand.New(rand.NewPCG(seed, uint64(d)))
	q := &QP{D: d, Q: mat.NewSymDense(d, nil), C: make([]float64, d)}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			q.Q.SetSym(i, j, rng.NormFloat64())
		}
		q.C[i] = rng.NormFloat64()
	}
	return q
}

// F returns ½xᵀQx + cᵀx.
func (q *QP) F(x []float64) float64 {
	xv := mat.NewVecDense(q.D, x)
	var qx mat.VecDense
	qx.MulVec(q.Q, xv)
	return 0.5*mat.Dot(xv, &qx) + mat.Dot(mat.NewVecDense(q.D, q.C), xv)
}

// Grad writes Qx + c into grad.
func (q *QP) Grad(grad, x []float64) {
	g := mat.NewVecDense(q.D, grad)
	g.MulVec(q.Q, mat.NewVecDense(q.D, x))
	for i := range grad {
		grad[i] += q.C[i]
	}
}
