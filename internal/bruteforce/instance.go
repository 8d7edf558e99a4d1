package bruteforce

import (
	"fmt"
	"math"
)

// Instance is an escape subproblem in absolute coordinates, as a user of houdini would
// state it: the quadratic
//
//	f(y) = F0 + Gᵀ(y − X) + ½(y − X)ᵀQ(y − X)
//
// over {y : A y ≤ B, Aeq y = Beq, Lower ≤ y ≤ Upper}, examined at the point X with
// radius R. X is feasible up to the rounding of the stored data. Bounds are kept apart
// from the general rows so that a caller can pass them as bounds or as rows. Generate
// builds instances; to convert absolute data of one's own to a Problem in offsets,
// fill an Instance by hand and call Problem.
type Instance struct {
	Name         string      // family, variant, model and parameters, for messages
	X            []float64   // the point examined
	F0           float64     // f(X)
	G            []float64   // ∇f(X)
	Q            [][]float64 // ∇²f, symmetric
	A            [][]float64 // general inequality rows
	B            []float64
	Aeq          [][]float64 // equality rows
	Beq          []float64
	Lower, Upper []float64 // nil, or length d with −Inf/+Inf where a bound is absent
	R            float64
}

// Dim returns d.
func (in *Instance) Dim() int { return len(in.X) }

// Problem returns the instance in offsets h = y − X, with q(h) = f(X + h) − F0 (so
// C = 0). Its inequality rows are, in this order: the rows of A; then, for each
// coordinate j in increasing order with a finite Upper[j], the row e_j with offset
// Upper[j] − X[j]; then, likewise, −e_j with offset X[j] − Lower[j]. Offsets are the
// exact values of b − a·X for the stored floats, rounded once, so Min of the result is
// the truth about the instance as stored, whatever the size of X.
func (in *Instance) Problem() Problem {
	d := in.Dim()
	p := Problem{G: clone(in.G), Q: cloneRows(in.Q), R: in.R}
	for i, a := range in.A {
		p.A = append(p.A, clone(a))
		p.B = append(p.B, exactAffine(in.B[i], -1, a, in.X))
	}
	for j := 0; j < d && in.Upper != nil; j++ {
		if !math.IsInf(in.Upper[j], 1) {
			p.A = append(p.A, unit(d, j, 1))
			p.B = append(p.B, in.Upper[j]-in.X[j])
		}
	}
	for j := 0; j < d && in.Lower != nil; j++ {
		if !math.IsInf(in.Lower[j], -1) {
			p.A = append(p.A, unit(d, j, -1))
			p.B = append(p.B, in.X[j]-in.Lower[j])
		}
	}
	for i, a := range in.Aeq {
		p.Aeq = append(p.Aeq, clone(a))
		p.Beq = append(p.Beq, exactAffine(in.Beq[i], -1, a, in.X))
	}
	return p
}

// Func returns f(y).
func (in *Instance) Func(y []float64) float64 { return in.F0 + quadValue(in.G, in.Q, in.offset(y)) }

// Grad writes ∇f(y) = G + Q(y − X) into dst (Q read through its symmetric part).
func (in *Instance) Grad(dst, y []float64) { quadGrad(dst, in.G, in.Q, in.offset(y)) }

func (in *Instance) offset(y []float64) []float64 { return axpy(-1, in.X, y) }

// Transform returns the instance translated by t·1, with every general and equality row
// (and its right-hand side) multiplied by rowScale > 0 and the objective (F0, G, Q)
// multiplied by objScale > 0; R is unchanged, so a verdict at δ on the instance is the
// verdict at objScale·δ on the result. It is the data of issue 12's property test:
// the same problem far from the origin and at other scales. X′ = fl(X + t); each
// right-hand side is computed exactly from X′ and the base instance's offset and
// rounded once,
//
//	B′ᵢ = fl(a′ᵢ·X′ + fl(rowScale·(Bᵢ − aᵢ·X))),  a′ᵢ = fl(rowScale·aᵢ),
//
// and bounds likewise, Lower′ⱼ = fl(X′ⱼ + fl(Lowerⱼ − Xⱼ)). The geometry around X′ is
// then the base's up to half an ulp of each right-hand side: about (|a′ᵢ|·|X′|)·1.1e-16
// in distance, negligible while |t|·1e-16 ≪ Tol·R (|t| ≲ 1e3 at the default Tol and
// R ≈ 1), and beyond that the honest perturbation a user's data carries: at t = 1e8 a
// zero-width slab (an equality as two rows) may open or become empty by 1e-8. Problem()
// of the result reports the stored data exactly; compare with Min of the base instance
// for the intended geometry. Transform panics unless rowScale and objScale are positive
// and finite.
func (in *Instance) Transform(t, rowScale, objScale float64) *Instance {
	if !(rowScale > 0 && objScale > 0) || math.IsInf(rowScale, 1) || math.IsInf(objScale, 1) {
		panic(fmt.Sprintf("bruteforce: Transform scales %g, %g", rowScale, objScale))
	}
	d := in.Dim()
	out := &Instance{
		Name: fmt.Sprintf("%s +%g·1 rows×%g f×%g", in.Name, t, rowScale, objScale),
		X:    make([]float64, d),
		F0:   objScale * in.F0,
		G:    scaled(in.G, objScale),
		R:    in.R,
	}
	for i := range out.X {
		out.X[i] = in.X[i] + t
	}
	for _, row := range in.Q {
		out.Q = append(out.Q, scaled(row, objScale))
	}
	move := func(A [][]float64, B []float64) ([][]float64, []float64) {
		var A2 [][]float64
		var B2 []float64
		for i, a := range A {
			off := rowScale * exactAffine(B[i], -1, a, in.X)
			a2 := scaled(a, rowScale)
			A2 = append(A2, a2)
			B2 = append(B2, exactAffine(off, +1, a2, out.X))
		}
		return A2, B2
	}
	out.A, out.B = move(in.A, in.B)
	out.Aeq, out.Beq = move(in.Aeq, in.Beq)
	bound := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		w := make([]float64, d)
		for j := range v {
			w[j] = v[j]
			if !math.IsInf(v[j], 0) {
				w[j] = out.X[j] + (v[j] - in.X[j])
			}
		}
		return w
	}
	out.Lower, out.Upper = bound(in.Lower), bound(in.Upper)
	return out
}

func clone(x []float64) []float64 { return append([]float64(nil), x...) }

func cloneRows(A [][]float64) [][]float64 {
	out := make([][]float64, len(A))
	for i, a := range A {
		out[i] = clone(a)
	}
	return out
}

// unit returns s·e_j in ℝᵈ.
func unit(d, j int, s float64) []float64 {
	e := make([]float64, d)
	e[j] = s
	return e
}
