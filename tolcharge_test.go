package houdini

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTolchargeWholeFaceSpill: lam1Bound on restarted runs that span the whole face after a
// breakdown whose residual is just below lanczosBreakdown·max|α|, against the exact λ₁ of
// the dense matrix. M = Q·diag-blocks·Qᵀ (Q a random rotation): a block A holding the start
// z, a block B, both with the eigenvalue −1 (eigenvectors u ∈ A, w ∈ B, or distinct
// eigenvalues in every fourth draw), coupled by ε(uwᵀ + wuᵀ) with ε ∈ (0.05, 0.95)·10⁻¹⁰: the
// run from z exhausts A, breaks down on the residual ≈ ε that the coupling leaves, and
// restarts into B, so T drops the coupling. λ₁(M) = −1 − ε where the eigenvalue is shared;
// L₁ = lo (no spill charge) overstates it by about ε.
func TestTolchargeWholeFaceSpill(t *testing.T) {
	var runs, wholes, shared int
	for trial := range 1500 {
		rng := rand.New(rand.NewPCG(7711, uint64(trial)))
		a := 2 + rng.IntN(4)
		b := 1 + rng.IntN(4)
		d := a + b
		M0 := mat.NewSymDense(d, nil)
		for i := range d {
			M0.SetSym(i, i, 0.5+2.5*rng.Float64()) // in (−1, 3]: −1 the smallest
		}
		same := trial%4 != 3
		M0.SetSym(0, 0, -1) // u = e₀ ∈ A
		if same {
			M0.SetSym(a, a, -1) // w = e_a ∈ B
			shared++
		} else {
			M0.SetSym(a, a, -0.5)
		}
		eps := (0.05 + 0.9*rng.Float64()) * 1e-10
		M0.SetSym(0, a, eps)
		Q := randOrth(rng, d)
		var M mat.Dense
		M.Product(Q, M0, Q.T())
		Ms := mat.NewSymDense(d, nil)
		for i := range d {
			for j := i; j < d; j++ {
				Ms.SetSym(i, j, 0.5*(M.At(i, j)+M.At(j, i)))
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(Ms, false) {
			t.Fatal("EigenSym failed")
		}
		lam1 := eig.Values(nil)[0]
		z := make([]float64, d) // in A: Q·(z₀, 0)
		for k := range a {
			c := rng.NormFloat64()
			for i := range d {
				z[i] += c * Q.At(i, k)
			}
		}
		op := faceOp{mul: func(dst, y []float64) {
			for i := range d {
				s := 0.0
				for j := range d {
					s += Ms.At(i, j) * y[j]
				}
				dst[i] = s
			}
		}, proj: func([]float64) {}, m: d, err: func() error { return nil }}
		lr := lanczosRestarted(op, z, d, rand.New(rand.NewPCG(1, uint64(trial))), func(*lanczosRun) bool { return false })
		runs++
		if !lr.whole || lr.seg == 0 {
			continue
		}
		wholes++
		lo, hi := lr.ritzExtremes()
		L1, fail := lam1Bound(lr, d, d, lo, hi)
		if fail != 0 {
			t.Errorf("trial %d: a whole face reported fail %g", trial, fail)
		}
		if L1 > lam1+1e-14 {
			t.Errorf("trial %d (d %d, shared %v, ε %.3g): L₁ = %.17g above λ₁ = %.17g (lo %.17g, spill %.3g)",
				trial, d, same, eps, L1, lam1, lo, lr.spill)
		}
	}
	if wholes < runs/5 {
		t.Errorf("only %d of %d runs spanned the face after a restart", wholes, runs)
	}
	t.Logf("%d runs, %d whole after a restart (%d draws with a shared eigenvalue)", runs, wholes, shared)
}

// exactForm returns tᵀCt in exact rational arithmetic for float64 C and t.
func exactForm(C [][]float64, t []float64) *big.Rat {
	sum := new(big.Rat)
	for i := range C {
		for j := range C {
			if t[i] == 0 || t[j] == 0 || C[i][j] == 0 {
				continue
			}
			p := new(big.Rat).SetFloat64(C[i][j])
			p.Mul(p, new(big.Rat).SetFloat64(t[i]))
			p.Mul(p, new(big.Rat).SetFloat64(t[j]))
			sum.Add(sum, p)
		}
	}
	return sum
}

// TestTolchargeCopositiveExact: copositive never proves a matrix that an exact rational
// certificate shows not copositive (a t ≥ 0 with tᵀCt < 0 in big.Rat on the stored
// entries), at a few ulps from the cone's boundary, where a Cholesky factorization of the
// computed matrix passes within its backward error:
//   - 2×2 [[a, b], [b, c]] with b = −√(ac)·(1 + j·2⁻⁵²), j ∈ [−6, 6]: copositive iff
//     b² ≤ ac, decided exactly (t = (|b|, a) certifies b² > ac);
//   - rank-one PSD C = fl(vvᵀ), v of mixed signs, with t ≥ 0 a rational vector with
//     vᵀt ≈ 0 (splitsPSDNonnegative's Cholesky of C at the edge), a diagonal lowered by
//     0–3 ulps;
//   - the Horn matrix scaled by a random s, its entries rounded and some nudged by an ulp,
//     certified by its zeros eᵢ + eᵢ₊₁ and eᵢ + eᵢ₊₁ + … (the partition's cones, check).
//
// It also counts the exact copositive matrices of the 2×2 family proven, to show the
// charge costs little.
func TestTolchargeCopositiveExact(t *testing.T) {
	var notCop, falseProofs, cop, copProven int
	zero := new(big.Rat)
	report := func(kind string, trial int, C [][]float64) {
		falseProofs++
		if falseProofs <= 5 {
			t.Errorf("%s trial %d: proven copositive, but tᵀCt < 0 exactly: C = %v", kind, trial, C)
		}
	}
	for trial := range 4000 {
		rng := rand.New(rand.NewPCG(9137, uint64(trial)))
		switch trial % 3 {
		case 0: // 2×2
			a := math.Ldexp(0.5+rng.Float64(), rng.IntN(9)-4)
			c := math.Ldexp(0.5+rng.Float64(), rng.IntN(9)-4)
			j := float64(rng.IntN(13) - 6)
			b := -math.Sqrt(a*c) * (1 + j*0x1p-52)
			C := [][]float64{{a, b}, {b, c}}
			ab := new(big.Rat).SetFloat64(b)
			ab.Mul(ab, ab)
			ac := new(big.Rat).Mul(new(big.Rat).SetFloat64(a), new(big.Rat).SetFloat64(c))
			ok, _ := copositive(C, coneMaxSimplices)
			if ab.Cmp(ac) > 0 {
				notCop++
				if ok {
					report("2×2", trial, C)
				}
			} else {
				cop++
				if ok {
					copProven++
				}
			}
		case 1: // rank one, vᵀt ≈ 0 with t ≥ 0
			m := 2 + rng.IntN(5)
			tv := make([]float64, m)
			v := make([]float64, m)
			for i := range m {
				tv[i] = float64(1 + rng.IntN(4))
				v[i] = rng.NormFloat64()
			}
			s, n := 0.0, 0.0 // v ← v − (vᵀt/tᵀt)t
			for i := range m {
				s += v[i] * tv[i]
				n += tv[i] * tv[i]
			}
			for i := range m {
				v[i] -= s / n * tv[i]
			}
			C := make([][]float64, m)
			for i := range m {
				C[i] = make([]float64, m)
				for j := range m {
					C[i][j] = v[i] * v[j]
				}
			}
			i := rng.IntN(m)
			for range rng.IntN(4) {
				C[i][i] = math.Nextafter(C[i][i], 0)
			}
			if exactForm(C, tv).Cmp(zero) < 0 {
				notCop++
				if ok, _ := copositive(C, coneMaxSimplices); ok {
					report("rank-one", trial, C)
				}
			}
		case 2: // Horn, scaled and nudged
			const m = 5
			s := 0.3 + rng.Float64()
			C := make([][]float64, m)
			for i := range m {
				C[i] = make([]float64, m)
			}
			for i := range m {
				for j := i; j < m; j++ {
					h := 1.0
					if d := (j - i) % m; d == 1 || d == m-1 {
						h = -1
					}
					v := s * h
					if i != j && rng.IntN(3) == 0 {
						v = math.Nextafter(v, math.Inf(-1))
					}
					C[i][j], C[j][i] = v, v
				}
			}
			var certified bool
			for i := range m { // Horn's zeros: eᵢ + eᵢ₊₁, and eᵢ + eᵢ₊₁ + … with weights
				for _, w := range [][]float64{{1, 1, 0}, {1, 2, 1}, {2, 1, 0}, {1, 1, 1}} {
					tv := make([]float64, m)
					for k, x := range w {
						tv[(i+k)%m] = x
					}
					if exactForm(C, tv).Cmp(zero) < 0 {
						certified = true
					}
				}
			}
			if certified {
				notCop++
				if ok, _ := copositive(C, coneMaxSimplices); ok {
					report("Horn", trial, C)
				}
			}
		}
	}
	t.Logf("%d matrices certified not copositive exactly: %d proven; 2×2 copositive: %d of %d proven",
		notCop, falseProofs, copProven, cop)
	if notCop < 1000 {
		t.Errorf("only %d exact non-copositive certificates", notCop)
	}
}

// TestTolchargeBisectError: the running bound E of copositive's partition against the
// exact Gram matrices VᵀCV (big.Float, exact: V's entries are dyadic of at most 49 bits)
// along random bisection paths to coneMaxDepth (checked at every sixth depth), for random C of order 2–7 with entries of
// mixed scales: |Ĝ − G| ≤ E entrywise, and the exact V is the one the cone stores.
func TestTolchargeBisectError(t *testing.T) {
	// exactPrec holds every sum exactly: terms vₐCv_b have at most 49 + 53 + 49 bits with
	// exponents in [−48 − 48 − 60 − 53, 8] for |Cᵢⱼ| ∈ [2⁻⁶⁰, 2⁶], plus log₂(k²) carries.
	const exactPrec = 320
	var worst float64 // max |Ĝ − G|/E over entries with E > 0
	for trial := range 300 {
		rng := rand.New(rand.NewPCG(5113, uint64(trial)))
		k := 2 + rng.IntN(6)
		C := make([]float64, k*k)
		for a := range k {
			for b := a; b < k; b++ {
				v := math.Ldexp(rng.NormFloat64(), rng.IntN(7)-3)
				C[a*k+b], C[b*k+a] = v, v
			}
		}
		sc := simplexCone{G: slices.Clone(C), V: make([]float64, k*k), E: make([]float64, k*k)}
		for a := range k {
			sc.V[a*k+a] = 1
		}
		for range coneMaxDepth {
			i := rng.IntN(k)
			j := (i + 1 + rng.IntN(k-1)) % k
			r := i
			if rng.IntN(2) == 0 {
				r = j
			}
			sc = sc.bisect(k, i, j, r)
			if sc.depth%6 != 1 && sc.depth != coneMaxDepth {
				continue // exact products at depths 1, 7, …, 43 and 48
			}
			for a := range k {
				for b := range k {
					g := new(big.Float).SetPrec(exactPrec)
					for p := range k {
						for q := range k {
							x := new(big.Float).SetPrec(exactPrec).SetFloat64(sc.V[p*k+a])
							x.Mul(x, new(big.Float).SetPrec(exactPrec).SetFloat64(C[p*k+q]))
							x.Mul(x, new(big.Float).SetPrec(exactPrec).SetFloat64(sc.V[q*k+b]))
							g.Add(g, x)
						}
					}
					diff := new(big.Float).SetPrec(exactPrec).SetFloat64(sc.G[a*k+b])
					diff.Sub(diff, g)
					d, _ := diff.Float64()
					d = math.Abs(d)
					e := sc.E[a*k+b]
					if d > e {
						t.Fatalf("trial %d, depth %d, entry (%d, %d): |Ĝ − G| = %.3g above the bound %.3g", trial, sc.depth, a, b, d, e)
					}
					if e > 0 {
						worst = math.Max(worst, d/e)
					}
				}
			}
		}
	}
	t.Logf("largest |Ĝ − G|/E: %.3g", worst)
}

// TestTolchargeForcedAcute: forcedTolCharge's radius against the inequalities that
// forcedCosts's bounds rest on, for rows of E that condition (a) passes within orthoTol.
// E is e ≤ 6 unit rows of ℝᵈ, an orthonormal set tilted pairwise by cₖ ∈ {0, ±10⁻¹³,
// ±5·10⁻¹³, ±9·10⁻¹³} (G⁻¹'s off-diagonal entries ≈ −cₖ: acute pairs at the tolerance's
// edge, obtuse ones, exactly orthogonal ones); in the frame at x (s = 0, t = w) points
// z = −U_E·X·w of norm 1 with w ≥ 0 random, sparse, and on the pairs (eᵢ + eₖ) where the
// excess is largest. For every row i passing (a):
//
//	‖z + tᵢdᵢ‖² + tᵢ²‖dᵢ‖² ≤ ρ̃²,   Σₖ tₖ²‖dₖ‖² ≤ (lift·ρ)²   (ρ = 1),
//
// the first bound's Cauchy–Schwarz pair and β's diagonal form. Without the charge
// (ρ̃ = ρ, lift = 1) both exceed by ≈ 2|gᵢₖ|tᵢtₖ ≈ 10⁻¹², far above the arithmetic's 10⁻¹⁵.
func TestTolchargeForcedAcute(t *testing.T) {
	var checked, tilted int
	tilts := []float64{0, 1e-13, -1e-13, 5e-13, -5e-13, 9e-13, -9e-13}
	for trial := range 1500 {
		rng := rand.New(rand.NewPCG(6007, uint64(trial)))
		d := 2 + rng.IntN(5)
		e := 2 + rng.IntN(d-1)
		Q := randOrth(rng, d)
		A := mat.NewDense(e, d, nil)
		for k := range e {
			c := tilts[rng.IntN(len(tilts))]
			n := (k + 1) % e
			for j := range d {
				A.Set(k, j, Q.At(j, k)+c*Q.At(j, n))
			}
		}
		cons, err := NewConstraints(A, make([]float64, e))
		if err != nil || cons.rowCount() != e {
			continue
		}
		held := make([]int, e)
		U := make([][]float64, 0, e)
		for k := range e {
			held[k] = k
			u, ok := unitOrthogonal(cons.row(k), U)
			if !ok {
				t.Fatalf("trial %d: dependent rows", trial)
			}
			U = append(U, u)
		}
		X := lowerInverse(cons, held, U)
		fail, _ := inverseSigns(X, orthoTol)
		nonneg, gneg := inverseNonnegative(X)
		if gneg > 0 {
			tilted++
		}
		rhoT, lift := forcedTolCharge(1, e, gneg)
		D := make([][]float64, e)
		for i := range e {
			D[i] = make([]float64, d)
			for k := i; k < e; k++ {
				axpy(D[i], X[k][i], U[k])
			}
		}
		for s := range 40 {
			w := make([]float64, e)
			switch {
			case s < e*(e-1)/2: // the pairs
				p := 0
				for i := range e {
					for k := i + 1; k < e; k++ {
						if p == s {
							w[i], w[k] = 1, 1
						}
						p++
					}
				}
			default:
				for k := range w {
					if rng.IntN(3) > 0 {
						w[k] = rng.Float64()
					}
				}
			}
			z := make([]float64, d) // z = −U·X·w
			for j := range e {
				xw := 0.0
				for k := 0; k <= j; k++ {
					xw += X[j][k] * w[k]
				}
				axpy(z, -xw, U[j])
			}
			nz := norm(z)
			if nz == 0 {
				continue
			}
			scale(z, 1/nz)
			for k := range w {
				w[k] /= nz
			}
			diag := 0.0
			for k := range e {
				diag += w[k] * w[k] * dot(D[k], D[k])
			}
			if nonneg && diag > lift*lift*(1+2e-15) {
				t.Errorf("trial %d: Σ tₖ²‖dₖ‖² = %.17g above lift² = %.17g", trial, diag, lift*lift)
			}
			for i := range e {
				if fail[i] || w[i] == 0 {
					continue
				}
				zp := slices.Clone(z)
				axpy(zp, w[i], D[i])
				pair := dot(zp, zp) + w[i]*w[i]*dot(D[i], D[i])
				checked++
				if pair > rhoT*rhoT*(1+2e-15) {
					t.Errorf("trial %d, row %d: ‖z′‖² + tᵢ²‖dᵢ‖² = %.17g above ρ̃² = %.17g", trial, i, pair, rhoT*rhoT)
				}
			}
		}
	}
	t.Logf("%d steps checked, %d draws with G⁻¹ entries in [−orthoTol, 0)", checked, tilted)
	if tilted < 300 {
		t.Errorf("only %d draws at the tolerance's edge", tilted)
	}
}

// TestTolchargeTiltCharge: tiltCharge's κ_b against the two facts forcedTolCharge's proof
// draws from it, on rows of E through x (frame at x, offsets 0) and a near row l with
// products πᵢ = âₗ·dᵢ in (0, orthoTol·‖dᵢ‖] and offset σ ∈ [0.01r, 0.11r]: every z ∈ S_w ∩ D
// (sampled, with row l active and t large) scaled by λ = 1 − κ_b/ρ satisfies the tightened
// row âₗ·λz + Σᵢπᵢtᵢ(λz) ≤ σ, and the step z + tᵢdᵢ keeps it. With κ_b 1e3× smaller the
// scaled points violate it.
func TestTolchargeTiltCharge(t *testing.T) {
	var checked int
	for trial := range 400 {
		rng := rand.New(rand.NewPCG(3301, uint64(trial)))
		d := 3 + rng.IntN(4)
		e := 1 + rng.IntN(d-2)
		Q := randOrth(rng, d)
		A := mat.NewDense(e+1, d, nil)
		for k := range e {
			for j := range d {
				A.Set(k, j, Q.At(j, k))
			}
		}
		for j := range d { // l = n + Σ πₖ âₖ, n ⟂ E
			v := Q.At(j, e)
			for k := range e {
				v += 0.9 * orthoTol * rng.Float64() * Q.At(j, k)
			}
			A.Set(e, j, v)
		}
		cons, err := NewConstraints(A, make([]float64, e+1))
		if err != nil || cons.rowCount() != e+1 {
			continue
		}
		r := 0.5
		sigma := r * (0.01 + 0.1*rng.Float64())
		w := &walk{c: cons, r: r, s: append(make([]float64, e), sigma)}
		held := make([]int, e)
		U := make([][]float64, 0, e)
		for k := range e {
			held[k] = k
			u, _ := unitOrthogonal(cons.row(k), U)
			U = append(U, u)
		}
		X := lowerInverse(cons, held, U)
		D := make([][]float64, e)
		pi := make([]float64, e)
		sum := 0.0
		for i := range e {
			D[i] = make([]float64, d)
			for k := i; k < e; k++ {
				axpy(D[i], X[k][i], U[k])
			}
			pi[i] = math.Max(0, cons.dotRow(e, D[i]))
			if pi[i] > orthoTol*norm(D[i]) {
				t.Fatalf("trial %d: π = %g above the tolerance", trial, pi[i])
			}
			sum += pi[i]
		}
		fr := forcedFrame{v: make([]float64, d), rho: r}
		kb, ok := w.tiltCharge(e, sum, fr, true)
		if !ok {
			continue
		}
		lam := 1 - kb/r
		tight := func(z []float64, tt []float64) float64 { // âₗ·z + Σπᵢtᵢ − σ
			v := cons.dotRow(e, z) - sigma
			for i := range e {
				v += pi[i] * tt[i]
			}
			return v
		}
		for range 50 {
			z := make([]float64, d) // t ≥ 0 large, row l active, ‖z‖ = r
			for k := range e {
				axpy(z, -rng.Float64(), cons.row(k))
			}
			n := cons.row(e)
			axpy(z, -dot(n, z), n) // on l's hyperplane through x, then lifted to σ
			axpy(z, sigma, n)
			nz := norm(z)
			if nz > r {
				scale(z, r/nz)
			}
			tt := make([]float64, e)
			in := true
			for k := range e {
				tt[k] = -cons.dotRow(k, z)
				in = in && tt[k] >= 0
			}
			if !in || cons.dotRow(e, z) > sigma*(1+1e-12) {
				continue
			}
			zs := slices.Clone(z)
			scale(zs, lam)
			ts := slices.Clone(tt)
			scale(ts, lam)
			checked++
			if v := tight(zs, ts); v > 1e-15*r {
				t.Errorf("trial %d: λz violates the tightened row by %.3g (κ_b %.3g)", trial, v, kb)
			}
			for i := range e { // the step keeps S̃
				zp := slices.Clone(zs)
				axpy(zp, ts[i], D[i])
				tp := slices.Clone(ts)
				tp[i] = 0
				if v := tight(zp, tp); v > tight(zs, ts)+1e-15*r && v > 1e-15*r {
					t.Errorf("trial %d: the step along d%d leaves the tightened row by %.3g", trial, i, v)
				}
			}
		}
	}
	t.Logf("%d scaled points checked", checked)
	if checked < 1000 {
		t.Errorf("only %d points", checked)
	}
}

// simplexArgMin returns a minimizer over the standard simplex of tᵀCt (simplexMinExact's
// enumeration of supports), as float64.
func simplexArgMin(C [][]float64) []float64 {
	m := len(C)
	best, arg := math.Inf(1), []float64(nil)
	try := func(t []float64) {
		if v := quadForm(C, t); v < best {
			best, arg = v, t
		}
	}
	for i := range m {
		t := make([]float64, m)
		t[i] = 1
		try(t)
	}
	for mask := 1; mask < 1<<m; mask++ {
		var S []int
		for i := range m {
			if mask>>i&1 == 1 {
				S = append(S, i)
			}
		}
		k := len(S)
		if k < 2 {
			continue
		}
		A := mat.NewDense(k, k, nil)
		for a, i := range S {
			for b, j := range S {
				A.Set(a, b, C[i][j])
			}
		}
		ones := mat.NewVecDense(k, nil)
		for a := range k {
			ones.SetVec(a, 1)
		}
		var y mat.VecDense
		if err := y.SolveVec(A, ones); err != nil {
			continue
		}
		s := 0.0
		for a := range k {
			s += y.AtVec(a)
		}
		if s == 0 {
			continue
		}
		t := make([]float64, m)
		ok := true
		for a, i := range S {
			t[i] = y.AtVec(a) / s
			ok = ok && t[i] >= 0
		}
		if ok {
			try(t)
		}
	}
	return arg
}

// TestTolchargeCopositiveBoundary: TestReviewCopositiveBoundary's matrices C′ = C − (μ + η)11ᵀ
// (random, flat rows, ±1 patterns, repeated rows; m = 2 to 6; μ the simplex minimum) taken
// to the boundary's rounding, η = 10⁻¹², 10⁻¹⁴ and 4·2⁻⁵² of max|Cᵢⱼ| on both sides: where
// the simplex minimizer t of C′ gives tᵀC′t < 0 in exact rational arithmetic (big.Rat on
// the stored entries), copositive must not prove C′ at all, however close.
func TestTolchargeCopositiveBoundary(t *testing.T) {
	var certified, falseProofs, posProven, pos int
	zero := new(big.Rat)
	for trial := range 3000 {
		rng := rand.New(rand.NewPCG(8823, uint64(trial)))
		m := 2 + rng.IntN(5)
		kind := trial % 4
		C := boundaryTestMatrix(rng, m, kind)
		big := maxAbs(C)
		if big == 0 {
			continue
		}
		mu := simplexMinExact(C)
		eta := []float64{1e-12, 1e-14, 4 * 0x1p-52, -1e-12, -1e-14, -4 * 0x1p-52}[trial/4%6] * big
		Cp := make([][]float64, m)
		for i := range m {
			Cp[i] = make([]float64, m)
			for j := range m {
				Cp[i][j] = C[i][j] - (mu + eta)
			}
		}
		ok, _ := copositive(Cp, coneMaxSimplices)
		if eta < 0 {
			pos++
			if ok {
				posProven++
			}
			continue
		}
		arg := simplexArgMin(Cp)
		if arg == nil || exactForm(Cp, arg).Cmp(zero) >= 0 {
			continue
		}
		certified++
		if ok {
			falseProofs++
			if falseProofs <= 5 {
				t.Errorf("trial %d (kind %d, m %d, η %.3g): proven copositive, but tᵀC′t < 0 exactly at t = %v", trial, kind, m, eta, arg)
			}
		}
	}
	t.Logf("%d matrices certified not copositive exactly: %d proven; %d of %d at −η inside proven",
		certified, falseProofs, posProven, pos)
	if certified < 500 {
		t.Errorf("only %d exact certificates", certified)
	}
}
