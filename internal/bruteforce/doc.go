// Package bruteforce is an exhaustive reference for houdini's escape subproblem: the
// global minimum of a quadratic over a small polyhedron intersected with a ball,
//
//	minimize   q(h) = C + gᵀh + ½hᵀQh
//	subject to A h ≤ B,  Aeq h = Beq,  ‖h‖ ≤ R,
//
// in offsets h = y − x from the point x being examined (see Problem). It exists to
// cross-check the houdini package — certificates, forced rows, Lagrangian and
// copositivity bounds, certified radii — on thousands of seeded small instances, and
// it shares no code and no method with that package: it does not import it.
//
// Min enumerates every linearly independent subset of inequality rows (the equalities
// are held in every subset), and on each affine set solves the trust-region subproblem
// exactly: interior stationary points, every root of the secular equation by bisection
// between its poles, and the hard case. Sample is a second, unrelated estimate
// (rejection sampling, Dykstra projections onto S ∩ B, projected gradient) that must
// never beat Min. Case and Generate build seeded adversarial instances — simplex,
// budget, balanced box, general rows, degenerate vertices, near-parallel rows, each with
// nine kinds of quadratic model — and Instance.Transform translates and rescales them
// for the "same verdict at any scale" property test of issue 12.
//
// # Tolerances
//
// A point h is feasible when, with τ = Tol·R,
//
//	(aᵢ·h − bᵢ)/‖aᵢ‖ ≤ τ for every inequality row,
//	|aᵢ·h − bᵢ|/‖aᵢ‖ ≤ τ for every equality row, and ‖h‖ ≤ R + τ.
//
// Every point Min returns is feasible in that sense and its Value is q at that point, so
//
//	min{q(h) : h feasible within τ} ≤ Min(p).Value ≲ min{q(h) : h exactly feasible},
//
// the right inequality holding up to rounding in the candidates: on 2000 catalogue
// instances no sampled exactly-feasible point beats Min by more than 3e-15 of q's range
// ‖g‖R + d·max|Qᵢⱼ|R², and on known answers Min is within 4e-14 of it. In near-parallel
// slivers the two ends can differ by far more than rounding: a band of width τ is a
// different set.
//
// # Pitfalls
//
//   - Proving a certificate false: a certificate that covers S relaxed by some band is
//     contradicted by Min only if τ is no larger than that band. houdini relaxes a row
//     by FeasTol·max(1, |b̂ᵢ|) in absolute coordinates; Tol·R ≤ FeasTol suffices.
//   - Proving an escape missed: Min(p).Value < −cδ means a point within τ of S has
//     q < −cδ; the exact minimum may be higher by up to the rounding above, or, in a
//     sliver, by more (then the point needs the band).
//   - Comparing two methods at the same tolerance in slivers: either may use the band.
//     Sample beats Min there at Min's own Tol; cross-check with a far smaller Tol on the
//     sampling side (the tests use 1e-15).
//   - Problem.Hold: hold only rows that are exactly active (Result.Held), not every row
//     of Result.Active; see Hold.
//   - Scale: Transform keeps the geometry only to an ulp of each right-hand side, about
//     |t|·1e-16. Beyond |t| ≈ Tol·R/1e-16 the stored data is a different problem, which
//     Problem() reports exactly; use Min of the untranslated instance as the truth about
//     the intended problem.
//   - Cost: Min visits up to Σ_{j≤d} C(k, j) subsets of the k rows that reach the ball
//     (offset ≤ R), each an SVD and an eigendecomposition: well under a millisecond for
//     the catalogue (d ≤ 6, k ≤ 14, at most a few thousand subsets), but exponential in k. Sample costs a few
//     milliseconds at n = 100.
//   - Dependence: rows whose unit vectors have smallest singular value below 1e-12 are
//     dependent for Min; nearer than that, their intersection is decided by the
//     tolerance, not by the rows.
package bruteforce
