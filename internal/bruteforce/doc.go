// Package bruteforce is an exhaustive reference for houdini's escape subproblem: the
// global minimum of a quadratic over a small polyhedron intersected with a ball,
//
//	minimize   q(h) = C + gᵀh + ½hᵀQh
//	subject to A h ≤ B,  Aeq h = Beq,  ‖h‖ ≤ R,
//
// in offsets h = y − x from the point x being examined (see Problem). It exists to
// cross-check the houdini package — certificates, forced rows, lower bounds, certified
// radii — on thousands of seeded small instances, and it shares no code and no method
// with that package: it does not import it.
//
// Min enumerates every linearly independent subset of inequality rows (the equalities
// are held in every subset), and on each affine set solves the trust-region subproblem
// exactly: interior stationary points, every root of the secular equation by bisection
// between its poles, and the hard case. Sample is a second, unrelated estimate (rejection
// sampling, Dykstra projections onto S ∩ B and projected gradient) that must never beat
// Min. Generate and Catalogue build seeded adversarial instances (simplex, budget,
// balanced box, general rows, degenerate vertices, near-parallel rows) with a choice of
// curvature, and Instance.Transform translates and rescales them for the "same verdict
// at any scale" property test.
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
// the right inequality holding up to rounding in the candidates (about 1e-14·|q| on the
// families here). In near-parallel slivers the two ends can differ by far more than
// rounding: a tolerance band of width τ is a different set. To prove that a certificate
// is false, use a τ no larger than the band the certificate covers (houdini relaxes rows
// by FeasTol·max(1, |b̂ᵢ|) in absolute coordinates, so Tol·R ≤ FeasTol suffices).
package bruteforce
