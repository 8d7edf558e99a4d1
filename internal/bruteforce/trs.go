package bruteforce

import "math"

// Tolerances of the trust-region candidates. They only decide which points are tried;
// every point is then checked for feasibility and valued by q itself, so a loose
// choice costs time, never correctness, and a tight one can only miss a point when
// rounding has already blurred the distinction it draws.
const (
	// zeroEigTol: an eigenvalue below zeroEigTol·max|λ| is zero for the minimum-norm
	// stationary point, whose component along it is then dropped.
	zeroEigTol = 1e-12
	// clusterTol: eigenvalues closer than clusterTol·max|λ| form one cluster, whose
	// hard-case points are tried.
	clusterTol = 1e-9
	// maxBisect bounds a bisection; halving needs at most about 2100 steps to go from
	// one float to an adjacent one anywhere in the exponent range.
	maxBisect = 2200
)

// mutation switches parts of the enumeration off, for the test that shows the tests
// can fail (mutation_test.go). All false in normal use.
var mutation struct {
	noHardCase, noSecular, noInner, noInterior, noRefine bool
}

// trsPoints calls emit with candidate minimizers ζ of the trust-region subproblem
//
//	minimize wᵀz + ½zᵀPz  subject to ‖z‖ ≤ ρ,
//
// in P's eigenbasis: lam holds P's eigenvalues in ascending order and wt the
// coordinates of w in the same basis. Every local minimizer of the subproblem is among
// the points emitted (up to rounding): it is interior and stationary, or on the sphere
// with (P − μI)ζ = −wt, μ ≤ λ₁ or μ in a pole interval, which is a root of the secular
// equation
//
//	ψ(μ) = Σᵢ wtᵢ² / (λᵢ − μ)² = ρ²,
//
// or μ is an eigenvalue λ_c with wt zero on its eigenspace (the hard case), when the
// points are ζ_off ± t·uⱼ for every eigenvector uⱼ of the cluster. When P is singular
// and wt lies in its range, the stationary points form an affine set; its point nearest
// the origin is the interior candidate and its points on the sphere are the hard-case
// points of the cluster at 0, so a minimizer anywhere on it is matched in value (q is
// constant there). The emitted slice is reused; emit must copy what it keeps.
func trsPoints(lam, wt []float64, rho float64, emit func([]float64)) {
	m := len(lam)
	z := make([]float64, m)
	emit(z)
	scale := 0.0
	for _, l := range lam {
		scale = math.Max(scale, math.Abs(l))
	}
	if !mutation.noInterior {
		for i, l := range lam {
			z[i] = 0
			if math.Abs(l) > zeroEigTol*scale {
				z[i] = -wt[i] / l
			}
		}
		if norm(z) <= rho {
			emit(z)
		}
	}
	if rho == 0 {
		return
	}
	if !mutation.noSecular {
		sec := secular{lam: lam, wt: wt, rho2: rho * rho, rho: rho, z: z, emit: emit}
		sec.roots()
	}
	if !mutation.noHardCase {
		hardCase(lam, wt, rho, scale, z, emit)
	}
}

// hardCase emits, for every cluster c of eigenvalues (within clusterTol·scale), the
// points ζ_off ± t·e_j, j ∈ c, where ζ_off = −Σ_{i∉c} wtᵢ/(λᵢ − λ_c)·eᵢ and
// t = √(ρ² − ‖ζ_off‖²), when ‖ζ_off‖ ≤ ρ. These are the KKT points with multiplier
// −λ_c when wt vanishes on the cluster; when it nearly vanishes they are within
// O(|wt_c|) of the true points, which the secular roots next to a pole may miss.
// One eigenvector per sign suffices: if the whole family of minimizers ζ_off + t·u,
// u a unit vector of the eigenspace, is not feasible, moving along it from a minimizer
// reaches a row, and that minimizer, with one more active row, is found in the subset
// that holds the row too.
func hardCase(lam, wt []float64, rho, scale float64, z []float64, emit func([]float64)) {
	m := len(lam)
	for s := 0; s < m; {
		e := s + 1
		for e < m && lam[e]-lam[s] <= clusterTol*scale {
			e++
		}
		lc := 0.0
		for i := s; i < e; i++ {
			lc += lam[i]
		}
		lc /= float64(e - s)
		for i := range z {
			z[i] = 0
			if i < s || i >= e {
				z[i] = -wt[i] / (lam[i] - lc)
			}
		}
		no := norm(z)
		if no <= rho*(1+1e-12) {
			t := math.Sqrt(math.Max(0, rho*rho-no*no))
			for j := s; j < e; j++ {
				z[j] = t
				emit(z)
				if t > 0 {
					z[j] = -t
					emit(z)
				}
				z[j] = 0
			}
		}
		s = e
	}
}

// secular finds the roots of ψ(μ) = ρ² (see trsPoints). A position μ is held as a pole
// (the base) plus an offset t, so that λᵢ − μ = (λᵢ − base) − t keeps full relative
// accuracy next to the pole, where the roots of a nearly hard case lie.
type secular struct {
	lam, wt   []float64
	rho, rho2 float64
	z         []float64 // scratch for the emitted point
	emit      func([]float64)
}

func (s *secular) psi(base, t float64) float64 {
	v := 0.0
	for i, l := range s.lam {
		if s.wt[i] != 0 {
			r := s.wt[i] / ((l - base) - t)
			v += r * r
		}
	}
	return v
}

// dpsi returns ψ′/2 = Σ wtᵢ²/(λᵢ − μ)³ at base + t.
func (s *secular) dpsi(base, t float64) float64 {
	v := 0.0
	for i, l := range s.lam {
		if s.wt[i] != 0 {
			den := (l - base) - t
			v += s.wt[i] * s.wt[i] / (den * den * den)
		}
	}
	return v
}

// point emits ζ(μ) = −(P − μI)⁻¹wt at μ = base + t, rescaled onto the sphere ‖ζ‖ = ρ.
func (s *secular) point(base, t float64) {
	for i, l := range s.lam {
		s.z[i] = 0
		if s.wt[i] != 0 {
			s.z[i] = -s.wt[i] / ((l - base) - t)
		}
	}
	n := norm(s.z)
	if !(n > 0) || math.IsInf(n, 0) {
		return
	}
	for i := range s.z {
		s.z[i] *= s.rho / n
	}
	s.emit(s.z)
}

// bisect returns the point where right turns true in (lo, hi), given that it is false
// at lo and true at hi (neither endpoint is evaluated), to adjacent floats.
func bisect(lo, hi float64, right func(float64) bool) float64 {
	for range maxBisect {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if right(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo + (hi-lo)/2
}

// roots emits the sphere point of every root of ψ(μ) = ρ², and the point where ψ is least
// in every inner interval (a double root when ψ touches ρ² there). ψ is convex between
// consecutive poles and monotone outside them, so each outer interval has one root and
// each inner interval none, one or two, on either side of its minimum.
func (s *secular) roots() {
	var poles []float64 // distinct eigenvalues carrying weight, ascending
	w2 := 0.0
	for i, l := range s.lam {
		if s.wt[i] == 0 {
			continue
		}
		w2 += s.wt[i] * s.wt[i]
		if len(poles) == 0 || l > poles[len(poles)-1] {
			poles = append(poles, l)
		}
	}
	if len(poles) == 0 {
		return
	}
	// ψ ≤ w2/T² = ρ² at distance T from every pole.
	T := math.Sqrt(w2) / s.rho
	if math.IsInf(T, 0) {
		T = math.MaxFloat64
	}
	lo, hi := poles[0], poles[len(poles)-1]
	s.point(lo, bisect(-T, 0, func(t float64) bool { return s.psi(lo, t) >= s.rho2 }))
	s.point(hi, bisect(0, T, func(t float64) bool { return s.psi(hi, t) < s.rho2 }))
	for j := 0; j+1 < len(poles) && !mutation.noInner; j++ {
		s.inner(poles[j], poles[j+1])
	}
}

// inner handles the interval (a, b) between consecutive poles. The left half is measured
// from a, the right half from b, each half where its pole is near.
func (s *secular) inner(a, b float64) {
	half := (b - a) / 2
	if !(half > 0) {
		return
	}
	// The minimum of ψ, where ψ′ changes sign from − to +.
	var minBase, minT float64
	if s.dpsi(a, half) >= 0 {
		minBase, minT = a, bisect(0, half, func(t float64) bool { return s.dpsi(a, t) >= 0 })
	} else {
		minBase, minT = b, bisect(-half, 0, func(t float64) bool { return s.dpsi(b, t) >= 0 })
	}
	s.point(minBase, minT)
	if s.psi(minBase, minT) >= s.rho2 {
		return
	}
	below := func(base float64) func(float64) bool {
		return func(t float64) bool { return s.psi(base, t) < s.rho2 }
	}
	above := func(base float64) func(float64) bool {
		return func(t float64) bool { return s.psi(base, t) >= s.rho2 }
	}
	midBelow := s.psi(a, half) < s.rho2
	// Left root: ψ falls from +∞ at a to its minimum.
	switch {
	case minBase == a:
		s.point(a, bisect(0, minT, below(a)))
	case midBelow:
		s.point(a, bisect(0, half, below(a)))
	default:
		s.point(b, bisect(-half, minT, below(b)))
	}
	// Right root: ψ rises from its minimum to +∞ at b.
	switch {
	case minBase == b:
		s.point(b, bisect(minT, 0, above(b)))
	case midBelow:
		s.point(b, bisect(-half, 0, above(b)))
	default:
		s.point(a, bisect(minT, half, above(a)))
	}
}
