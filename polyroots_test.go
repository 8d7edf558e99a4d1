package houdini

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The tests of secularRoots check it against two methods written here and sharing nothing
// with polyroots.go: the eigenvalues of the companion matrix of the paper's degree-2n
// polynomial (small n), and a sign-change scan of ψ − r² on a fine grid with bisection
// (large n, clustered poles, extreme weights).

// secularPoly returns the coefficients, lowest degree first, of the monic polynomial
//
//	p(μ)/r² = Πᵢ(μ − λᵢ)² − Σᵢ (wᵢ/r²) Π_{j≠i}(μ − λⱼ)²
//
// whose real roots are the roots of Σᵢ wᵢ/(μ − λᵢ)² = r² (line:solution_norm).
func secularPoly(lambda, w []float64, r float64) []float64 {
	n := len(lambda)
	mul := func(p []float64, l float64) []float64 { // p·(μ − l)²
		q := make([]float64, len(p)+2)
		for k, c := range p {
			q[k] += l * l * c
			q[k+1] -= 2 * l * c
			q[k+2] += c
		}
		return q
	}
	full := []float64{1}
	for _, l := range lambda {
		full = mul(full, l)
	}
	for i := range n {
		part := []float64{w[i] / (r * r)}
		for j, l := range lambda {
			if j != i {
				part = mul(part, l)
			}
		}
		for k, c := range part {
			full[k] -= c
		}
	}
	return full
}

// companionRoots returns the eigenvalues of the companion matrix of the monic polynomial
// with coefficients c (lowest first, leading 1).
func companionRoots(t *testing.T, c []float64) []complex128 {
	N := len(c) - 1
	C := mat.NewDense(N, N, nil)
	for j := range N {
		C.Set(0, j, -c[N-1-j])
	}
	for i := 1; i < N; i++ {
		C.Set(i, i-1, 1)
	}
	var e mat.Eigen
	if !e.Factorize(C, mat.EigenNone) {
		t.Fatal("companion eigendecomposition failed")
	}
	return e.Values(nil)
}

// polyCond returns Σ|cₖ||z|ᵏ / |p′(z)|: a simple root z of p moves by about ε times this
// under relative perturbations of size ε of the coefficients. Evaluated at the computed,
// possibly complex, eigenvalue: a complex pair near a pole is well separated from the real
// axis there even though p′ is small at its real part.
func polyCond(c []float64, z complex128) float64 {
	s := 0.0
	var d complex128
	for k := len(c) - 1; k >= 0; k-- {
		s = s*cmplx.Abs(z) + math.Abs(c[k])
	}
	for k := len(c) - 1; k >= 1; k-- {
		d = d*z + complex(float64(k)*c[k], 0)
	}
	return s / cmplx.Abs(d)
}

// psiOffset returns ψ(μ) and ψ′(μ) at μ = λₐ + τ, with μ − λᵢ formed as τ + (λₐ − λᵢ).
func psiOffset(lambda, w []float64, a int, tau float64) (psi, dpsi float64) {
	for i := range lambda {
		d := tau + (lambda[a] - lambda[i])
		t := w[i] / (d * d)
		psi += t
		dpsi -= 2 * t / d
	}
	return psi, dpsi
}

// rootMu returns μ of a secular root.
func rootMu(lambda []float64, rt secularRoot) float64 { return lambda[rt.Pole] + rt.Tau }

// randPoles returns n sorted distinct poles uniform in [lo, hi], weights e^U(−wr, wr) and
// the radius e^U(−1, 1).
func randPoles(rng *rand.Rand, n int, lo, hi, wr float64) (lambda, w []float64, r float64) {
	for {
		lambda = make([]float64, n)
		for i := range lambda {
			lambda[i] = lo + (hi-lo)*rng.Float64()
		}
		sort.Float64s(lambda)
		ok := true
		for i := 1; i < n; i++ {
			if lambda[i] <= lambda[i-1] {
				ok = false
			}
		}
		if ok {
			break
		}
	}
	w = make([]float64, n)
	for i := range w {
		w[i] = math.Exp(wr * (2*rng.Float64() - 1))
	}
	return lambda, w, math.Exp(2*rng.Float64() - 1)
}

// TestSecularRootsCompanion matches secularRoots against the real eigenvalues of the
// companion matrix of the degree-2n polynomial for n = 1..6 on random instances, with a
// tolerance scaled by each root's condition number. Instances with a near-double root
// (a real/complex classification that depends on rounding) are counted and skipped here;
// TestSecularRootsTangent covers them on purpose.
func TestSecularRootsCompanion(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const perN = 200
	checked, skipped, roots := 0, 0, 0
	maxRatio, maxRel := 0.0, 0.0
	for n := 1; n <= 6; n++ {
		for range perN {
			lambda, w, r := randPoles(rng, n, -2, 2, 3)
			c := secularPoly(lambda, w, r)
			var reals []float64
			ambiguous := false
			for _, z := range companionRoots(t, c) {
				x, y := real(z), math.Abs(imag(z))
				tol := 1e3*eps*polyCond(c, z) + 1e-13*(1+cmplx.Abs(z))
				switch {
				case tol > 1e-6*(1+cmplx.Abs(z)):
					ambiguous = true // the polynomial cannot locate this root usefully
				case y <= tol:
					reals = append(reals, x)
				case y <= 1e-5*(1+cmplx.Abs(z)):
					ambiguous = true
				}
			}
			sort.Float64s(reals)
			for i := 1; i < len(reals); i++ {
				if reals[i]-reals[i-1] <= 1e-5*(1+math.Abs(reals[i])) {
					ambiguous = true
				}
			}
			if ambiguous {
				skipped++
				continue
			}
			got := secularRoots(lambda, w, r, math.Inf(1))
			if len(got) != len(reals) {
				t.Fatalf("n=%d λ=%v w=%v r=%v: %d roots, companion matrix has %d: %v",
					n, lambda, w, r, len(got), len(reals), reals)
			}
			for i, rt := range got {
				mu, z := rootMu(lambda, rt), reals[i]
				tol := 1e3*eps*polyCond(c, complex(z, 0)) + 1e-13*(1+math.Abs(z))
				err := math.Abs(mu - z)
				if err > tol {
					t.Errorf("n=%d λ=%v w=%v r=%v: root %d μ=%v, companion %v (|Δ|=%.3g > %.3g)",
						n, lambda, w, r, i, mu, z, err, tol)
				}
				maxRatio = math.Max(maxRatio, err/tol)
				maxRel = math.Max(maxRel, err/(1+math.Abs(z)))
				roots++
			}
			checked++
		}
	}
	t.Logf("%d instances checked (%d near-double or ill-conditioned skipped), %d roots; max |Δμ|/tol %.3g, max |Δμ|/(1+|μ|) %.3g",
		checked, skipped, roots, maxRatio, maxRel)
	if checked < 6*perN*9/10 {
		t.Errorf("only %d of %d instances checked", checked, 6*perN)
	}
}

// TestSecularRootsMuMax checks the muMax filter: secularRoots(…, muMax) must return exactly
// the companion roots ≤ muMax, for muMax drawn across and beyond the roots. Instances with
// an ill-conditioned root or a root within 1e-9 of muMax are skipped.
func TestSecularRootsMuMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for range 1000 {
		n := 1 + rng.IntN(6)
		lambda, w, r := randPoles(rng, n, -2, 2, 3)
		// The reference roots: the companion matrix's real eigenvalues, as above.
		c := secularPoly(lambda, w, r)
		var all []float64
		ambiguous := false
		for _, z := range companionRoots(t, c) {
			tol := 1e3*eps*polyCond(c, z) + 1e-13*(1+cmplx.Abs(z))
			switch y := math.Abs(imag(z)); {
			case tol > 1e-6*(1+cmplx.Abs(z)) || (y > tol && y <= 1e-5*(1+cmplx.Abs(z))):
				ambiguous = true
			case y <= tol:
				all = append(all, real(z))
			}
		}
		if ambiguous {
			continue
		}
		sort.Float64s(all)
		lo, hi := all[0]-1, all[len(all)-1]+1
		muMax := lo + (hi-lo)*rng.Float64()
		var want []float64
		for _, mu := range all {
			if math.Abs(mu-muMax) <= 1e-9*(1+math.Abs(mu)) {
				ambiguous = true // too close to call against the companion's accuracy
			}
			if mu <= muMax {
				want = append(want, mu)
			}
		}
		if ambiguous {
			continue
		}
		got := secularRoots(lambda, w, r, muMax)
		if len(got) != len(want) {
			t.Fatalf("λ=%v w=%v r=%v muMax=%v: %d roots, want the %d of %v below muMax",
				lambda, w, r, muMax, len(got), len(want), all)
		}
		for i, rt := range got {
			if mu := rootMu(lambda, rt); math.Abs(mu-want[i]) > 1e3*eps*polyCond(c, complex(want[i], 0))+1e-13*(1+math.Abs(mu)) {
				t.Errorf("λ=%v w=%v r=%v muMax=%v: root %d is %v, want %v", lambda, w, r, muMax, i, mu, want[i])
			}
		}
		checked++
	}
	t.Logf("%d muMax instances checked", checked)
}

// TestSecularRootsMuMaxLeftRoot: the left root lies anywhere in [λ₁ − √W/r, λ₁ − √w₁/r]
// (fact 4), so a muMax between the two bounds must keep it. Here ψ = 1/μ² + 100/(μ−1)²
// = 1 has its left root near −9.9, below muMax = −2 < λ₁ − √w₁/r = −1.
func TestSecularRootsMuMaxLeftRoot(t *testing.T) {
	lambda, w, r := []float64{0, 1}, []float64{1, 100}, 1.0
	got := secularRoots(lambda, w, r, -2)
	if len(got) != 1 {
		t.Fatalf("got %d roots ≤ −2, want 1 (the left root): %v", len(got), got)
	}
	psi, _ := psiOffset(lambda, w, got[0].Pole, got[0].Tau)
	if mu := rootMu(lambda, got[0]); mu > -2 || math.Abs(psi-1) > 1e-13 {
		t.Errorf("root μ=%v ψ=%v, want μ ≤ −2 and ψ = 1", mu, psi)
	}
}

// TestSecularRootsTangent builds inner intervals where ψ touches r² at its minimizer μ*:
// secularRoots must report one or two roots within √(tolerance) of μ*, two when r² is
// raised by 1e-6 relative and none when it is lowered by 1e-6; the other roots must match
// the companion matrix's.
func TestSecularRootsTangent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked, illCond := 0, 0
	for checked < 300 {
		n := 2 + rng.IntN(5)
		lambda, w, _ := randPoles(rng, n, -2, 2, 2)
		k := rng.IntN(n - 1)
		ms := lambda[k] + (0.1+0.8*rng.Float64())*(lambda[k+1]-lambda[k])
		// Choose w[k+1] so that ψ′(μ*) = −2 Σ wᵢ/(μ* − λᵢ)³ = 0.
		s := 0.0
		for i := range n {
			if i != k+1 {
				d := ms - lambda[i]
				s += w[i] / (d * d * d)
			}
		}
		if s <= 0 {
			continue
		}
		d := ms - lambda[k+1]
		w[k+1] = -d * d * d * s
		psi := 0.0
		for i := range n {
			d := ms - lambda[i]
			psi += w[i] / (d * d)
		}
		// in counts the roots inside (λ_k, λ_{k+1}) and checks they are within tol of μ*;
		// out lists the others.
		lk, lk1 := lambda[k], lambda[k+1]
		near := func(roots []secularRoot, tol float64) (in int, out []float64) {
			for _, rt := range roots {
				mu := rootMu(lambda, rt)
				if mu <= lk || mu >= lk1 {
					out = append(out, mu)
					continue
				}
				in++
				if math.Abs(mu-ms) > tol {
					t.Errorf("λ=%v w=%v: root %v in (%v, %v) is %.3g from μ*=%v", lambda, w, mu, lk, lk1, math.Abs(mu-ms), ms)
				}
			}
			return in, out
		}
		gap := lk1 - lk
		r := math.Sqrt(psi)
		in, out := near(secularRoots(lambda, w, r, math.Inf(1)), 1e-4*gap)
		if in < 1 || in > 2 {
			t.Fatalf("λ=%v w=%v r=%v tangent at %v: %d roots near it, want 1 or 2", lambda, w, r, ms, in)
		}
		// The other roots: the companion matrix's real eigenvalues outside (λ_k, λ_{k+1}).
		c := secularPoly(lambda, w, r)
		var want []float64
		ambiguous := false
		for _, z := range companionRoots(t, c) {
			x, y := real(z), math.Abs(imag(z))
			if x > lk && x < lk1 {
				continue
			}
			tol := 1e3*eps*polyCond(c, z) + 1e-13*(1+cmplx.Abs(z))
			switch {
			case tol > 1e-6*(1+cmplx.Abs(z)):
				ambiguous = true // the polynomial cannot locate this root usefully
			case y <= tol:
				want = append(want, x)
			case y <= 1e-5*(1+cmplx.Abs(z)):
				ambiguous = true
			}
		}
		sort.Float64s(want)
		if ambiguous {
			illCond++
		} else {
			if len(out) != len(want) {
				t.Fatalf("λ=%v w=%v r=%v: %d roots away from the tangency %v, companion %d", lambda, w, r, len(out), ms, len(want))
			}
			for i := range out {
				if tol := 1e3*eps*polyCond(c, complex(want[i], 0)) + 1e-13*(1+math.Abs(want[i])); math.Abs(out[i]-want[i]) > tol {
					t.Errorf("λ=%v w=%v r=%v: root %v, companion %v", lambda, w, r, out[i], want[i])
				}
			}
		}
		// r² nudged by ±1e-6: two separated roots, or none. The pair spreads by about
		// √(2·1e-6·r²/ψ″(μ*)), well inside the interval.
		if in, _ := near(secularRoots(lambda, w, r*math.Sqrt(1+1e-6), math.Inf(1)), 0.1*gap); in != 2 {
			t.Errorf("λ=%v w=%v: r² = ψ(μ*)(1+1e-6) gives %d roots near μ*=%v, want 2", lambda, w, in, ms)
		}
		if in, _ := near(secularRoots(lambda, w, r*math.Sqrt(1-1e-6), math.Inf(1)), 0.1*gap); in != 0 {
			t.Errorf("λ=%v w=%v: r² = ψ(μ*)(1−1e-6) gives %d roots near μ*=%v, want 0", lambda, w, in, ms)
		}
		checked++
	}
	t.Logf("%d tangent instances checked (%d without the companion comparison: near-double or ill-conditioned roots)", checked, illCond)
}

// scanRoot is a root found by the scan, in offsets from pole a, in interval iv: iv = 0 is
// (−∞, λ₁), iv = k is (λ_k, λ_{k+1}) (1-based), iv = n is (λₙ, ∞).
type scanRoot struct {
	iv, a int
	tau   float64
}

// scanSecular finds the roots of ψ = r² by sign changes of f = ψ/r² − 1 on a grid of
// offsets from each pole (geometric from 1e-40 of the gap up to half the gap, plus uniform
// points), refined by bisection. On an inner interval ψ is convex; if the grid shows no
// sign change but its lowest point is negative, both roots sit in cells next to it and are
// bisected there. It also returns each interval's smallest f found (−Inf when the
// interval is outer) so the caller can recognise near-tangencies.
func scanSecular(lambda, w []float64, r float64) ([]scanRoot, []float64) {
	n := len(lambda)
	r2 := r * r
	f := func(a int, tau float64) float64 {
		psi, _ := psiOffset(lambda, w, a, tau)
		return psi/r2 - 1
	}
	type pt struct {
		a   int
		tau float64
	}
	geo := func(span float64, lo float64, perDecade int) []float64 { // increasing in (0, span]
		var ts []float64
		dec := math.Log10(span) - math.Log10(lo)
		m := int(dec*float64(perDecade)) + 1
		for j := m; j >= 0; j-- {
			ts = append(ts, span*math.Pow(10, -float64(j)/float64(perDecade)))
		}
		return ts
	}
	bisect := func(a int, lo, hi float64) float64 { // f(lo), f(hi) of opposite signs
		flo := f(a, lo)
		for range 2000 {
			mid := 0.5 * (lo + hi)
			if mid == lo || mid == hi {
				break
			}
			if fm := f(a, mid); (fm < 0) == (flo < 0) {
				lo, flo = mid, fm
			} else {
				hi = mid
			}
		}
		return 0.5 * (lo + hi)
	}
	var roots []scanRoot
	minF := make([]float64, n+1)
	// Outer intervals: offsets of magnitude 1e-300 … 1e300 from λ₁ and λₙ.
	ts := geo(1e300, 1e-300, 20)
	for side, a := range []int{0, n - 1} {
		sgn := -1.0
		if side == 1 {
			sgn = 1
		}
		prev, fprev := 0.0, 1.0 // ψ = +∞ at the pole
		for _, t := range ts {
			ft := f(a, sgn*t)
			if (ft < 0) != (fprev < 0) {
				roots = append(roots, scanRoot{iv: side * n, a: a, tau: bisect(a, sgn*prev, sgn*t)})
			}
			prev, fprev = t, ft
		}
		minF[side*n] = math.Inf(-1)
	}
	// Inner intervals.
	for k := 0; k+1 < n; k++ {
		gap := lambda[k+1] - lambda[k]
		var pts []pt
		half := geo(gap/2, gap*1e-40, 30)
		for j := 1; j < 400; j++ {
			half = append(half, gap/2*float64(j)/400)
		}
		sort.Float64s(half)
		for _, t := range half {
			pts = append(pts, pt{k, t})
		}
		for i := len(half) - 1; i >= 0; i-- {
			pts = append(pts, pt{k + 1, -half[i]})
		}
		fs := make([]float64, len(pts))
		best := 0
		for i, p := range pts {
			fs[i] = f(p.a, p.tau)
			if fs[i] < fs[best] {
				best = i
			}
		}
		minF[k+1] = fs[best]
		found := 0
		for i := 1; i < len(pts); i++ {
			if (fs[i] < 0) == (fs[i-1] < 0) || pts[i].a != pts[i-1].a {
				continue
			}
			roots = append(roots, scanRoot{iv: k + 1, a: pts[i].a, tau: bisect(pts[i].a, pts[i-1].tau, pts[i].tau)})
			found++
		}
		if found == 0 && fs[best] < 0 {
			// Both roots lie in the two cells around the lowest grid point.
			p := pts[best]
			if best > 0 && pts[best-1].a == p.a {
				roots = append(roots, scanRoot{iv: k + 1, a: p.a, tau: bisect(p.a, pts[best-1].tau, p.tau)})
			}
			if best+1 < len(pts) && pts[best+1].a == p.a {
				roots = append(roots, scanRoot{iv: k + 1, a: p.a, tau: bisect(p.a, p.tau, pts[best+1].tau)})
			}
		}
	}
	return roots, minF
}

// rootInterval returns the interval index of scanSecular for a root of secularRoots.
func rootInterval(rt secularRoot) int {
	if rt.Tau < 0 {
		return rt.Pole
	}
	return rt.Pole + 1
}

// checkAgainstScan compares secularRoots with scanSecular on one instance and returns the
// number of roots matched, the largest residual |ψ/r² − 1| over its allowance and the
// largest location error over its allowance.
func checkAgainstScan(t *testing.T, name string, lambda, w []float64, r float64) (matched int, resRatio, locRatio float64) {
	t.Helper()
	n := len(lambda)
	got := secularRoots(lambda, w, r, math.Inf(1))
	scan, minF := scanSecular(lambda, w, r)
	// Allowances: ψ is summed with relative error ≲ nε; a root carries a few ulps of τ.
	fAllow := func(a int, tau float64) (float64, float64) {
		psi, d := psiOffset(lambda, w, a, tau)
		slope := math.Abs(d) / (r * r) // |f′|
		fa := 8*float64(n)*eps*psi/(r*r) + 4*slope*eps*math.Abs(tau)
		return fa, fa / slope
	}
	// Order and residuals.
	for i, rt := range got {
		if i > 0 {
			p := got[i-1]
			if x := p.Tau + (lambda[p.Pole] - lambda[rt.Pole]); !(x < rt.Tau) {
				t.Errorf("%s: roots %d and %d out of order: %+v, %+v", name, i-1, i, p, rt)
			}
		}
		if rt.Pole < 0 || rt.Pole >= n || rt.Tau == 0 ||
			(rt.Tau > 0 && rt.Pole+1 < n && rt.Tau >= lambda[rt.Pole+1]-lambda[rt.Pole]) ||
			(rt.Tau < 0 && rt.Pole > 0 && -rt.Tau >= lambda[rt.Pole]-lambda[rt.Pole-1]) {
			t.Errorf("%s: root %+v not between its pole and the next", name, rt)
			continue
		}
		psi, _ := psiOffset(lambda, w, rt.Pole, rt.Tau)
		fa, _ := fAllow(rt.Pole, rt.Tau)
		res := math.Abs(psi/(r*r) - 1)
		if res > fa {
			t.Errorf("%s: root %+v has |ψ/r² − 1| = %.3g > %.3g", name, rt, res, fa)
		}
		resRatio = math.Max(resRatio, res/fa)
	}
	// Per interval: the same number of roots at the same places, except near a tangency.
	byIv := map[int][]secularRoot{}
	for _, rt := range got {
		byIv[rootInterval(rt)] = append(byIv[rootInterval(rt)], rt)
	}
	scanIv := map[int][]scanRoot{}
	for _, s := range scan {
		scanIv[s.iv] = append(scanIv[s.iv], s)
	}
	for iv := 0; iv <= n; iv++ {
		g, s := byIv[iv], scanIv[iv]
		if math.Abs(minF[iv]) <= 1e-8 { // near-tangent: 0, 1 or 2 roots are all defensible
			if len(g) > 2 {
				t.Errorf("%s: interval %d has %d roots", name, iv, len(g))
			}
			continue
		}
		if len(g) != len(s) {
			t.Errorf("%s: interval %d: secularRoots has %d roots, scan %d (min f %.3g): %+v vs %+v",
				name, iv, len(g), len(s), minF[iv], g, s)
			continue
		}
		for j := range g {
			// Express the code's root in the scan root's anchor.
			tau := g[j].Tau + (lambda[g[j].Pole] - lambda[s[j].a])
			_, la := fAllow(s[j].a, s[j].tau)
			la += 4 * eps * math.Abs(lambda[g[j].Pole]-lambda[s[j].a]) // the anchor shift rounds
			err := math.Abs(tau - s[j].tau)
			if err > 2*la {
				t.Errorf("%s: interval %d root %d: τ=%v from pole %d, scan %v (|Δ|=%.3g > %.3g)",
					name, iv, j, tau, s[j].a, s[j].tau, err, 2*la)
			}
			locRatio = math.Max(locRatio, err/(2*la))
			matched++
		}
	}
	return matched, resRatio, locRatio
}

// TestSecularRootsScan checks secularRoots against scanSecular for n = 20..200 with random,
// clustered (λᵢ = 1 + i·1e-9), tiny-weight and wide-range instances.
func TestSecularRootsScan(t *testing.T) {
	if testing.Short() {
		t.Skip("long scan")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	type inst struct {
		name      string
		lambda, w []float64
		r         float64
	}
	var insts []inst
	for _, n := range []int{20, 50, 100, 200} {
		for rep := range 3 {
			l, w, r := randPoles(rng, n, -1, 1, 4)
			// Radii that make many inner intervals hold roots, and a few none.
			r *= []float64{1, 30, 1000}[rep]
			insts = append(insts, inst{"random", l, w, r})
		}
	}
	for _, n := range []int{20, 100} {
		l := make([]float64, n)
		w := make([]float64, n)
		for i := range l {
			l[i] = 1 + float64(i)*1e-9
			w[i] = math.Exp(4*(2*rng.Float64()-1)) * 1e-20
		}
		for _, r := range []float64{1e-10, 1e-8, 1e-6, 1} {
			insts = append(insts, inst{"clustered", l, w, r})
		}
	}
	for _, n := range []int{20, 100} {
		l, w, _ := randPoles(rng, n, -1, 1, 2)
		for i := range w {
			if rng.IntN(2) == 0 {
				w[i] = 1e-30 * math.Exp(2*rng.Float64()-1)
			}
		}
		for _, r := range []float64{1e-14, 1e-3, 1, 1e3} {
			insts = append(insts, inst{"tiny weights", l, w, r})
		}
	}
	for _, n := range []int{20, 60} {
		// Poles ±10^U(−8, 8), weights 10^U(−20, 20).
		l := make([]float64, n)
		w := make([]float64, n)
		for i := range l {
			l[i] = math.Pow(10, 16*rng.Float64()-8)
			if rng.IntN(2) == 0 {
				l[i] = -l[i]
			}
			w[i] = math.Pow(10, 40*rng.Float64()-20)
		}
		sort.Float64s(l)
		for _, r := range []float64{1e-6, 1, 1e6} {
			insts = append(insts, inst{"wide range", l, w, r})
		}
	}
	total, maxRes, maxLoc := 0, 0.0, 0.0
	for i, in := range insts {
		name := in.name
		m, res, loc := checkAgainstScan(t, name, in.lambda, in.w, in.r)
		t.Logf("instance %2d %-12s n=%3d r=%-6.3g: %3d roots matched, residual/allow %.3g, |Δτ|/allow %.3g",
			i, name, len(in.lambda), in.r, m, res, loc)
		total += m
		maxRes, maxLoc = math.Max(maxRes, res), math.Max(maxLoc, loc)
	}
	t.Logf("%d instances, %d roots matched; max residual/allowance %.3g, max |Δτ|/allowance %.3g",
		len(insts), total, maxRes, maxLoc)
}

func benchSecular(b *testing.B, n int) {
	rng := rand.New(rand.NewPCG(1, 2))
	lambda, w, _ := randPoles(rng, n, -1, 1, 2)
	// Mean gap 2/n; r = 20n puts the exclusion radii √w/r well inside most gaps, so most
	// inner intervals hold two roots: close to the worst case.
	r := 20 * float64(n)
	b.ReportAllocs()
	nr := 0
	for b.Loop() {
		nr = len(secularRoots(lambda, w, r, math.Inf(1)))
	}
	b.ReportMetric(float64(nr), "roots")
}

func BenchmarkSecularRoots_d100(b *testing.B)  { benchSecular(b, 100) }
func BenchmarkSecularRoots_d1000(b *testing.B) { benchSecular(b, 1000) }

// TestSecularRootsTinyWeightPole: a pole with weight 1e-40 next to one of weight 1 has roots
// 1e-20/√99 on both sides of it, far below the resolution of μ itself (ulp(1) ≈ 2e-16).
// Both must be found, in offsets from that pole, with ψ = r² to rounding.
func TestSecularRootsTinyWeightPole(t *testing.T) {
	lambda, w, r := []float64{0, 1}, []float64{1, 1e-40}, 10.0
	got := secularRoots(lambda, w, r, math.Inf(1))
	want := []secularRoot{{0, -0.1}, {0, 0.1}, {1, -1e-20 / math.Sqrt(99)}, {1, 1e-20 / math.Sqrt(99)}}
	if len(got) != len(want) {
		t.Fatalf("got %d roots %v, want 4 near %v", len(got), got, want)
	}
	for i, rt := range got {
		psi, _ := psiOffset(lambda, w, rt.Pole, rt.Tau)
		if rt.Pole != want[i].Pole || math.Abs(rt.Tau-want[i].Tau) > 1e-2*math.Abs(want[i].Tau) || math.Abs(psi/(r*r)-1) > 1e-14 {
			t.Errorf("root %d = %+v with ψ/r² − 1 = %.3g, want near %+v with ψ = r²", i, rt, psi/(r*r)-1, want[i])
		}
	}
}
