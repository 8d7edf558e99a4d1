package houdini

import (
	"gonum.org/v1/gonum/mat"
)

// The limited-memory BFGS model of the descent phase, in the compact representation of
// Byrd, Nocedal & Schnabel (1994), "Representations of quasi-Newton matrices and their use
// in limited memory methods", Math. Program. 63:129–156:
//
//	B = θI − W M Wᵀ,   W = [Y  θS],   M = K⁻¹,   K = [ −D   Lᵀ  ]
//	                                                [  L   θSᵀS ]
//
// with S, Y the last m steps sᵢ = xᵢ₊₁ − xᵢ and gradient changes yᵢ = gᵢ₊₁ − gᵢ (oldest
// first), D = diag(sᵢᵀyᵢ), L the strictly lower part of SᵀY and θ = yᵀy/sᵀy of the newest
// pair. gonum/optimize has an LBFGS, but only the two-loop recursion for H = B⁻¹ on ℝᵈ:
// the generalized Cauchy point and the reduced systems on a face need B itself and
// products with W, which the compact form gives in O(d·m) (Byrd, Lu, Nocedal & Zhu 1995,
// "A limited memory algorithm for bound constrained optimization", SIAM J. Sci. Comput.
// 16(5):1190–1208, §3), hence this file.

// Guards of the quasi-Newton model.
const (
	// lbfgsMemory is m, the number of pairs kept: L-BFGS-B's and SciPy's default.
	lbfgsMemory = 10
	// curvatureTol: a pair with sᵀy ≤ curvatureTol·yᵀy is skipped (L-BFGS-B's test with
	// ε), so B stays positive definite.
	curvatureTol = eps
)

// lbfgs is the limited-memory model B of one descent phase.
type lbfgs struct {
	s, y   [][]float64 // the pairs, oldest first
	theta  float64
	sy, ss [][]float64 // sᵢᵀyⱼ and sᵢᵀsⱼ
	yy     [][]float64 // yᵢᵀyⱼ (reducedStepBox's WᵀW)
	k      *mat.LU     // the factorized middle matrix K; nil without pairs
}

func newLBFGS() *lbfgs { return &lbfgs{theta: 1} }

// pairs returns the number of pairs held.
func (q *lbfgs) pairs() int { return len(q.s) }

// reset forgets every pair: B = I.
func (q *lbfgs) reset() {
	q.s, q.y, q.sy, q.ss, q.yy, q.k, q.theta = nil, nil, nil, nil, nil, nil, 1
}

// update adds the pair (s, y) unless its curvature sᵀy is not positive enough, dropping
// the oldest beyond lbfgsMemory, and reports whether it did.
func (q *lbfgs) update(s, y []float64) bool {
	sy, yy := dot(s, y), dot(y, y)
	if !(sy > curvatureTol*yy) || yy == 0 {
		return false
	}
	if len(q.s) == lbfgsMemory {
		q.s, q.y = q.s[1:], q.y[1:]
		q.sy, q.ss, q.yy = shrink(q.sy), shrink(q.ss), shrink(q.yy)
	}
	q.s = append(q.s, append([]float64(nil), s...))
	q.y = append(q.y, append([]float64(nil), y...))
	q.theta = yy / sy
	n := len(q.s)
	// Only the newest row and column of SᵀY, SᵀS and YᵀY are new: O(m·d).
	q.sy, q.ss, q.yy = append(q.sy, make([]float64, n)), append(q.ss, make([]float64, n)), append(q.yy, make([]float64, n))
	for i := 0; i < n; i++ {
		q.sy[i] = append(q.sy[i][:n-1], 0)
		q.ss[i] = append(q.ss[i][:n-1], 0)
		q.yy[i] = append(q.yy[i][:n-1], 0)
	}
	for i := 0; i < n; i++ {
		q.sy[n-1][i], q.sy[i][n-1] = dot(q.s[n-1], q.y[i]), dot(q.s[i], q.y[n-1])
		q.ss[n-1][i] = dot(q.s[n-1], q.s[i])
		q.ss[i][n-1] = q.ss[n-1][i]
		q.yy[n-1][i] = dot(q.y[n-1], q.y[i])
		q.yy[i][n-1] = q.yy[n-1][i]
	}
	K := mat.NewDense(2*n, 2*n, nil)
	for i := 0; i < n; i++ {
		K.Set(i, i, -q.sy[i][i])
		for j := 0; j < i; j++ {
			K.Set(n+i, j, q.sy[i][j]) // L
			K.Set(j, n+i, q.sy[i][j]) // Lᵀ
		}
		for j := 0; j < n; j++ {
			K.Set(n+i, n+j, q.theta*q.ss[i][j])
		}
	}
	q.k = new(mat.LU)
	q.k.Factorize(K)
	return true
}

// shrink drops the first row and column of the square matrix a.
func shrink(a [][]float64) [][]float64 {
	a = a[1:]
	for i := range a {
		a[i] = a[i][1:]
	}
	return a
}

// wt returns Wᵀv = (Yᵀv, θSᵀv).
func (q *lbfgs) wt(v []float64) []float64 {
	n := len(q.s)
	p := make([]float64, 2*n)
	for i := 0; i < n; i++ {
		p[i] = dot(q.y[i], v)
		p[n+i] = q.theta * dot(q.s[i], v)
	}
	return p
}

// wMul returns Wc = Σᵢ cᵢyᵢ + θ Σᵢ cₘ₊ᵢsᵢ (the zero vector of length d for no pairs).
func (q *lbfgs) wMul(c []float64, d int) []float64 {
	v := make([]float64, d)
	n := len(q.s)
	for i := 0; i < n; i++ {
		axpy(v, c[i], q.y[i])
		axpy(v, q.theta*c[n+i], q.s[i])
	}
	return v
}

// wRow returns row j of W: (yᵢⱼ, θsᵢⱼ)ᵢ.
func (q *lbfgs) wRow(j int) []float64 {
	n := len(q.s)
	w := make([]float64, 2*n)
	for i := 0; i < n; i++ {
		w[i] = q.y[i][j]
		w[n+i] = q.theta * q.s[i][j]
	}
	return w
}

// mMul returns M p = K⁻¹p (nil K: no pairs, p is empty).
func (q *lbfgs) mMul(p []float64) []float64 {
	if q.k == nil || len(p) == 0 {
		return nil
	}
	var out mat.VecDense
	// K is nonsingular while every pair has sᵀy > 0 (BNS 1994, Thm 2.3); a Condition
	// error for a nearly singular K still leaves the solution, which only degrades the
	// step, and the line search checks every step on f.
	_ = q.k.SolveVecTo(&out, false, mat.NewVecDense(len(p), append([]float64(nil), p...)))
	return out.RawVector().Data
}

// reducedStep returns d = −(PBP)⁻¹r on the range of the orthogonal projector P (proj),
// for r in that range: the minimizer of rᵀd + ½dᵀBd over the face. By Sherman–Morrison–
// Woodbury with V = PW,
//
//	d = −r/θ − V (I − M VᵀV/θ)⁻¹ M Vᵀr / θ²,
//
// L-BFGS-B's direct primal subspace minimization (BLNZ 1995, §5.1), here for any face.
// Cost: 2m projections and O(d·m² + m³).
func (q *lbfgs) reducedStep(r []float64, proj func([]float64) []float64) []float64 {
	n := len(q.s)
	if n == 0 {
		return q.woodbury(r, nil, nil, nil)
	}
	V := make([][]float64, 2*n)
	for i := 0; i < n; i++ {
		V[i] = proj(q.y[i])
		s := proj(q.s[i])
		scale(s, q.theta)
		V[n+i] = s
	}
	vtv := mat.NewSymDense(2*n, nil)
	vtr := make([]float64, 2*n)
	for i := range V {
		vtr[i] = dot(V[i], r)
		for j := 0; j <= i; j++ {
			vtv.SetSym(j, i, dot(V[i], V[j]))
		}
	}
	return q.woodbury(r, vtv, vtr, func(d []float64, z []float64) {
		for i := range V {
			axpy(d, -z[i], V[i])
		}
	})
}

// reducedStepBox is reducedStep on the coordinate face P = diag(free), r zero off it,
// without the projections: Vᵀr = Wᵀr, and VᵀV = WᵀW − Σ_{j fixed} wⱼwⱼᵀ (wⱼ row j of W,
// WᵀW from the kept YᵀY, SᵀY, SᵀS) or Σ_{j free} wⱼwⱼᵀ, whichever set is smaller, as
// L-BFGS-B's formk updates its middle matrix by the variables that enter and leave.
// Cost: O(d·m + min(free, fixed)·m²), where reducedStep's is O(d·m²) — the descent
// phase's largest cost per step at d = 1000 (issue 15).
func (q *lbfgs) reducedStepBox(r []float64, free []bool) []float64 {
	n := len(q.s)
	if n == 0 {
		return q.woodbury(r, nil, nil, nil)
	}
	nFree := 0
	for _, f := range free {
		if f {
			nFree++
		}
	}
	fromAll := 2*nFree > len(free) // WᵀW less the fixed rows
	var idx []int                  // the rows summed: fixed ones when fromAll, else free ones
	for j, f := range free {
		if f != fromAll {
			idx = append(idx, j)
		}
	}
	vtv := mat.NewSymDense(2*n, nil)
	if len(idx) > 0 {
		B := mat.NewDense(2*n, len(idx), nil) // column p is w_{idx[p]}: Σ wⱼwⱼᵀ = BBᵀ
		raw := B.RawMatrix()
		for i := 0; i < n; i++ {
			ry, rs := raw.Data[i*raw.Stride:], raw.Data[(n+i)*raw.Stride:]
			for p, j := range idx {
				ry[p], rs[p] = q.y[i][j], q.theta*q.s[i][j]
			}
		}
		vtv.SymOuterK(1, B)
	}
	if fromAll {
		th := q.theta
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				vtv.SetSym(i, j, q.yy[i][j]-vtv.At(i, j))
				vtv.SetSym(n+i, n+j, th*th*q.ss[i][j]-vtv.At(n+i, n+j))
			}
			for j := 0; j < n; j++ {
				vtv.SetSym(i, n+j, th*q.sy[j][i]-vtv.At(i, n+j)) // yᵢᵀ(θsⱼ)
			}
		}
	}
	return q.woodbury(r, vtv, q.wt(r), func(d []float64, z []float64) {
		for i := 0; i < n; i++ {
			zy, zs := z[i], z[n+i]*q.theta
			yi, si := q.y[i], q.s[i]
			for j, f := range free {
				if f {
					d[j] -= zy*yi[j] + zs*si[j]
				}
			}
		}
	})
}

// woodbury finishes reducedStep: d = −r/θ − V z/θ² with z = (I − M VᵀV/θ)⁻¹ M Vᵀr, given
// VᵀV, Vᵀr and sub(d, y), which subtracts V y from d; −r/θ without pairs (nil VᵀV), and
// when K or the middle system is singular (the steepest step on the face).
func (q *lbfgs) woodbury(r []float64, vtv *mat.SymDense, vtr []float64, sub func(d, y []float64)) []float64 {
	th := q.theta
	d := make([]float64, len(r))
	for j := range d {
		d[j] = -r[j] / th
	}
	if vtv == nil {
		return d
	}
	n2 := len(vtr)
	var MV, N mat.Dense
	if err := q.k.SolveTo(&MV, false, vtv); err != nil {
		return d // K near singular: the steepest step on the face
	}
	N.Scale(-1/th, &MV)
	for i := 0; i < n2; i++ {
		N.Set(i, i, N.At(i, i)+1)
	}
	var z mat.VecDense
	if err := z.SolveVec(&N, mat.NewVecDense(n2, q.mMul(vtr))); err != nil {
		return d
	}
	y := make([]float64, n2)
	for i := range y {
		y[i] = z.AtVec(i) / (th * th)
	}
	sub(d, y)
	return d
}
