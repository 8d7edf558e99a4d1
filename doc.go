// Package houdini minimizes a smooth, possibly nonconvex function over a polyhedron
// S = {x : Ax ≤ b, Aeq x = beq, l ≤ x ≤ u} and certifies second-order stationarity,
// following HOUDINI of Avdiukhin and Yaroslavtsev, "HOUDINI: Escaping from Moderately
// Constrained Saddles".
//
// A point x ∈ S is a δ-SOSP (def:sosp) when no point of S within r of x is lower than
// f(x) − δ, with r = (δ/ρ)^(1/3) for a ρ-Lipschitz Hessian. Optimizer.Escape is one
// HoudiniEscape (alg:escaping_general_full): it builds the quadratic model
//
//	f(x + h) ≈ f(x) + vᵀh + ½ hᵀMh
//
// at x, walks every subset of the constraints that can be active within r of x, and in each
// affine subspace runs FindInside (alg:eigenvector_general_full) to list the model's
// minimizer candidates: the interior stationary point, every KKT point on the ball's
// boundary (roots of a secular equation) and the hard case of the trust-region subproblem.
// It returns a feasible point that lowers f by more than δ/3, or certifies x as a δ-SOSP of
// the model. Minimize repeats Escape until a certificate or a budget; between escapes
// it runs a descent phase — L-BFGS-B on a box, a quasi-Newton working-set method with
// general rows, negative-curvature steps at saddles — down to a projected gradient of
// 10⁻²·δ/r, unless Settings.EscapesOnly asks for the paper's pure escape loop.
// Settings.Search restarts after a certificate for better points than the nearest δ-SOSP
// (by default where f is a nonconvex quadratic).
//
// Each escape costs about one eigendecomposition of M: the subsets are examined in M's
// eigenbasis through small bordered systems (eigenbasis.go, Golub 1973), only two
// multipliers per subset can matter (Martínez 1994, findinside.go), and provable pruning
// rules skip most subsets (walk.go).
//
// The exhaustive search over constraint subsets is exponential in the number of rows
// within r of x (deciding copositivity is NP-hard, rem:copositivity); Settings.MaxSubsets
// bounds it, and a search cut short never certifies.
//
// For large d, the full path forms no d×d matrix when Problem.Hess is nil (from
// MatrixFreeDim on): the model's Hessian is an operator (Problem.HessVec, or gradient
// differences), the trust-region subproblem of each face is solved by Lanczos in the
// GLTR space of its gradient plus a random-start Krylov space, and the smallest curvature
// is bounded by Lanczos with the Kuczyński–Woźniakowski bound, so that a certificate
// holds with probability EscapeResult.Confidence (krylov.go). A dense Hessian from
// d = 1500 on takes the same path: the escape needs a few eigenpairs, not the spectrum.
//
// Alternatively, Settings.Method = MethodCorner (chosen by MethodAuto when there is
// neither Hess nor HessVec and d ≥ AutoCornerDim) runs HoudiniCorner (alg:matrix_copositivity)
// instead: the same subset walk, but in each affine set a projected power iteration on
// gradient differences (FindInsideCorner, alg:eigenvector) replaces the model, so no d×d
// matrix is formed. It is randomized: it certifies only with probability
// 1 − Settings.Corner.FailProb, and only at a corner with zero gradient and a user-given
// Settings.Corner.L (thm:copositive_case); otherwise a search that finds nothing ends with
// StatusCornerNoMove.
//
// Randomness (the paper's perturbations ζ and γ, the corner path's Gaussian starts and
// its estimate of L) comes from math/rand/v2, seeded by Settings.Seed afresh for every
// Minimize and every Escape call, so the same Settings and point give bit-identical
// results. An Optimizer never changes after New: each Escape and Minimize call keeps its
// state (oracle counts, the stochastic σ estimate, the generator, the radius Minimize
// halves, Purify's undo point) in a value of its own, so calls may run concurrently when
// the oracles (and Callback, Progress) are safe for concurrent use. Within one call the
// oracles are called from one goroutine at a time, the caller's.
//
// # Architecture
//
// One flat package, a file per concept, in layers whose dependencies point down
// (layers_test.go keeps them so):
//
//  0. base: vec.go, errors.go, types.go, settings.go, progress.go
//  1. polyhedron: rows.go, constraints.go, faces.go (every computation with rows),
//     preprocess.go, feasibility.go (phase one), polyhedron.go (the constructors)
//  2. oracle: vrsg.go (the VRSG estimator, alg:vrsg), oracle.go (the evaluator)
//  3. model: quadapprox.go (the quadratic model of alg:escaping_general_full), lbfgs.go
//     (the descent phase's limited-memory BFGS model, compact form)
//  4. subproblem: eigen.go, eigen_gonum.go, subspace.go, findinside.go (FindInside,
//     alg:eigenvector_general_full: one driver), polyroots.go, dense.go and eigenbasis.go
//     (its two backends), lbfgsb.go (L-BFGS-B's Cauchy point and subspace step),
//     lanczos.go
//  5. walk: walk.go (the subset walk), examiners.go, corner.go (FindInsideCorner,
//     alg:eigenvector)
//  6. drivers: run.go (one call's state), escape.go (HoudiniEscape and HoudiniCorner,
//     alg:escaping_general_full and alg:matrix_copositivity), unbounded.go,
//     descentstate.go, curvature.go and descent.go (the descent phase), purify.go,
//     search.go (Settings.Search), minimize.go, houdini.go
package houdini
