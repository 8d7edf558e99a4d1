package houdini

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomPairs returns n curvature pairs (s, y = As + noise) in ℝᵈ with sᵀy > 0.
func randomPairs(rng *rand.Rand, d, n int) (s, y [][]float64) {
	A := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		A.SetSym(i, i, 1+4*rng.Float64())
		for j := i + 1; j < d; j++ {
			A.SetSym(i, j, 0.3*rng.NormFloat64())
		}
	}
	for len(s) < n {
		si := make([]float64, d)
		for j := range si {
			si[j] = rng.NormFloat64()
		}
		yi := make([]float64, d)
		mat.NewVecDense(d, yi).MulVec(A, mat.NewVecDense(d, si))
		for j := range yi {
			yi[j] += 0.1 * rng.NormFloat64()
		}
		if dot(si, yi) > 0 {
			s, y = append(s, si), append(y, yi)
		}
	}
	return s, y
}

// denseBFGS returns B after the BFGS updates with the pairs from B₀ = θI, θ = yᵀy/sᵀy of
// the newest pair: the matrix the compact representation stands for (BNS 1994, Thm 2.3).
func denseBFGS(s, y [][]float64) *mat.Dense {
	d, n := len(s[0]), len(s)
	theta := dot(y[n-1], y[n-1]) / dot(s[n-1], y[n-1])
	B := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		B.Set(i, i, theta)
	}
	for k := range s {
		sv, yv := mat.NewVecDense(d, s[k]), mat.NewVecDense(d, y[k])
		var Bs mat.VecDense
		Bs.MulVec(B, sv)
		sBs := mat.Dot(sv, &Bs)
		var u, w mat.Dense
		u.Outer(1/sBs, &Bs, &Bs)
		w.Outer(1/mat.Dot(yv, sv), yv, yv)
		B.Sub(B, &u)
		B.Add(B, &w)
	}
	return B
}

// The compact representation gives the BFGS matrix of the kept pairs: Bv = θv − WMWᵀv
// agrees with the dense recursion, and reducedStep solves the reduced system on a face.
func TestLBFGSCompactAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		d := 3 + rng.IntN(12)
		n := 1 + rng.IntN(lbfgsMemory+4)
		s, y := randomPairs(rng, d, n)
		q := newLBFGS()
		for k := range s {
			if !q.update(s[k], y[k]) {
				t.Fatalf("trial %d: pair %d with sᵀy > 0 refused", trial, k)
			}
		}
		keep := min(n, lbfgsMemory)
		B := denseBFGS(s[n-keep:], y[n-keep:])
		v := make([]float64, d)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		got := append([]float64(nil), v...)
		scale(got, q.theta)
		axpy(got, -1, q.wMul(q.mMul(q.wt(v)), d))
		var want mat.VecDense
		want.MulVec(B, mat.NewVecDense(d, v))
		for j := range got {
			if math.Abs(got[j]-want.AtVec(j)) > 1e-8*(1+math.Abs(want.AtVec(j))) {
				t.Fatalf("trial %d: (Bv)[%d] = %v, dense BFGS %v", trial, j, got[j], want.AtVec(j))
			}
		}
		checkReducedStep(t, rng, q, B, d)
	}
}

// checkReducedStep compares reducedStep on a random coordinate face with the dense
// solution of (ZᵀBZ)u = −Zᵀr.
func checkReducedStep(t *testing.T, rng *rand.Rand, q *lbfgs, B *mat.Dense, d int) {
	t.Helper()
	var free []int
	isFree := make([]bool, d)
	keep := []int{1, 2, 3}[rng.IntN(3)] // a third, two thirds or all free: both of reducedStepBox's sums
	for j := 0; j < d; j++ {
		if rng.IntN(3) < keep {
			free, isFree[j] = append(free, j), true
		}
	}
	if len(free) == 0 {
		return
	}
	mask := func(v []float64) []float64 {
		u := make([]float64, len(v))
		for _, j := range free {
			u[j] = v[j]
		}
		return u
	}
	r := make([]float64, d)
	for _, j := range free {
		r[j] = rng.NormFloat64()
	}
	for _, got := range [][]float64{q.reducedStep(r, mask), q.reducedStepBox(r, isFree)} {
		checkReducedSolution(t, got, r, free, B)
	}
}

// checkReducedSolution checks got against the dense solution u of (ZᵀBZ)u = −Zᵀr and
// that it is 0 off the face.
func checkReducedSolution(t *testing.T, got, r []float64, free []int, B *mat.Dense) {
	t.Helper()
	m := len(free)
	Bz := mat.NewDense(m, m, nil)
	rz := mat.NewVecDense(m, nil)
	for a, i := range free {
		rz.SetVec(a, -r[i])
		for b, j := range free {
			Bz.Set(a, b, B.At(i, j))
		}
	}
	var u mat.VecDense
	if err := u.SolveVec(Bz, rz); err != nil {
		t.Fatal(err)
	}
	for a, i := range free {
		if math.Abs(got[i]-u.AtVec(a)) > 1e-7*(1+math.Abs(u.AtVec(a))) {
			t.Fatalf("reduced step[%d] = %v, dense %v", i, got[i], u.AtVec(a))
		}
	}
	for j := range got {
		if !contains(free, j) && got[j] != 0 {
			t.Fatalf("reduced step moves the fixed coordinate %d", j)
		}
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// cauchyReference returns the first local minimizer of the model along the projected
// path x(t) = P(x − tg), found segment by segment with the dense B: on each segment
// between breakpoints the model is a quadratic in t, minimized in closed form.
func cauchyReference(B *mat.Dense, x, g, lo, hi []float64) []float64 {
	d := len(x)
	tb, fixed := boxBreaks(x, g, lo, hi)
	ts := []float64{0}
	for _, t := range tb {
		if t > 0 && !math.IsInf(t, 1) {
			ts = append(ts, t)
		}
	}
	ts = append(ts, math.Inf(1))
	sortFloats(ts)
	path := func(t float64) []float64 {
		p := make([]float64, d)
		for i := range p {
			p[i] = math.Max(lo[i], math.Min(hi[i], x[i]-t*g[i]))
			if fixed[i] {
				p[i] = x[i]
			}
		}
		return p
	}
	for k := 0; k+1 < len(ts); k++ {
		t0 := ts[k]
		z := path(t0)
		dir := make([]float64, d) // the path's direction on this segment
		for i := range dir {
			if !fixed[i] && tb[i] > t0 {
				dir[i] = -g[i]
			}
		}
		h := sub(z, x)
		var Bh, Bd mat.VecDense
		Bh.MulVec(B, mat.NewVecDense(d, h))
		Bd.MulVec(B, mat.NewVecDense(d, dir))
		fp := dot(g, dir) + mat.Dot(&Bh, mat.NewVecDense(d, dir))
		fpp := mat.Dot(&Bd, mat.NewVecDense(d, dir))
		if fp >= 0 {
			return z
		}
		if dt := -fp / fpp; fpp > 0 && t0+dt < ts[k+1] {
			return path(t0 + dt)
		}
	}
	return path(ts[len(ts)-2])
}

func sortFloats(v []float64) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// The generalized Cauchy point of the compact model equals the first local minimizer of
// the dense model along the projected path.
func TestCauchyPointAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		d := 2 + rng.IntN(10)
		q := newLBFGS()
		var B *mat.Dense
		if n := rng.IntN(6); n > 0 {
			s, y := randomPairs(rng, d, n)
			for k := range s {
				q.update(s[k], y[k])
			}
			B = denseBFGS(s, y)
		} else {
			B = mat.NewDense(d, d, nil)
			for i := 0; i < d; i++ {
				B.Set(i, i, 1)
			}
		}
		x, g, lo, hi := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		for i := range x {
			lo[i], hi[i] = -1-rng.Float64(), 1+rng.Float64()
			x[i] = lo[i] + (hi[i]-lo[i])*rng.Float64()
			switch rng.IntN(5) {
			case 0:
				x[i] = lo[i]
			case 1:
				x[i] = hi[i]
			case 2:
				hi[i] = math.Inf(1)
			}
			g[i] = 3 * rng.NormFloat64()
		}
		got, _, _ := cauchyPoint(q, x, g, lo, hi)
		want := cauchyReference(B, x, g, lo, hi)
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-7*(1+math.Abs(want[i])) {
				t.Fatalf("trial %d: GCP[%d] = %v, dense reference %v\n got  %v\n want %v", trial, i, got[i], want[i], got, want)
			}
		}
	}
}

// Lanczos with as many steps as the face's dimension finds the smallest eigenvalue of the
// projected matrix, and its vector, in the face.
func TestLanczosMinAgainstEigenSym(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 100; trial++ {
		d := 2 + rng.IntN(12)
		M := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				M.SetSym(i, j, rng.NormFloat64())
			}
		}
		var free []int
		for j := 0; j < d; j++ {
			if rng.IntN(4) > 0 {
				free = append(free, j)
			}
		}
		if len(free) == 0 {
			continue
		}
		proj := func(v []float64) []float64 {
			u := make([]float64, len(v))
			for _, j := range free {
				u[j] = v[j]
			}
			return u
		}
		hv := func(dst, v []float64) error {
			mat.NewVecDense(d, dst).MulVec(M, mat.NewVecDense(d, v))
			return nil
		}
		z := make([]float64, d)
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		theta, u, err := lanczosMin(hv, proj, z, len(free), nil)
		if err != nil || u == nil {
			t.Fatalf("trial %d: %v, u %v", trial, err, u)
		}
		Mz := mat.NewSymDense(len(free), nil)
		for a, i := range free {
			for b, j := range free {
				Mz.SetSym(a, b, M.At(i, j))
			}
		}
		var eig mat.EigenSym
		eig.Factorize(Mz, false)
		if want := eig.Values(nil)[0]; math.Abs(theta-want) > 1e-8*(1+math.Abs(want)) {
			t.Fatalf("trial %d: θ = %v, λmin on the face %v", trial, theta, want)
		}
		Mu := make([]float64, d)
		_ = hv(Mu, u)
		Mu = proj(Mu)
		axpy(Mu, -theta, u)
		if norm(Mu) > 1e-7*(1+math.Abs(theta)) || math.Abs(norm(u)-1) > 1e-12 || norm(sub(u, proj(u))) != 0 {
			t.Fatalf("trial %d: u is not a unit eigenvector in the face: residual %g", trial, norm(Mu))
		}
	}
}
