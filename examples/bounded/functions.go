package main

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Function is a smooth test function of the literature, defined for every d in its
// Dims rule, with its exact gradient and Hessian. Every oracle is O(d) except Hess,
// which fills a dense d×d matrix (the Hessians below are banded or block diagonal).
type Function struct {
	Name string
	// Valid reports whether the function is defined in dimension d.
	Valid func(d int) bool
	F     func(x []float64) float64
	Grad  func(g, x []float64)
	// AddHess adds ∇²f(x) into h, which must be zero on entry (only the upper triangle
	// is written, through SetSym).
	AddHess func(h *mat.SymDense, x []float64)
}

// fromTerms returns the Function whose oracles all come from terms, which returns f(x)
// and adds ∇f(x) into g and ∇²f(x) into h, each when not nil.
func fromTerms(name string, valid func(d int) bool, terms func(x, g []float64, h *mat.SymDense) float64) Function {
	return Function{
		Name:  name,
		Valid: valid,
		F:     func(x []float64) float64 { return terms(x, nil, nil) },
		Grad: func(g, x []float64) {
			zero(g)
			terms(x, g, nil)
		},
		AddHess: func(h *mat.SymDense, x []float64) { terms(x, nil, h) },
	}
}

// Hess writes ∇²f(x) into h.
func (fn Function) Hess(h *mat.SymDense, x []float64) {
	d := len(x)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			h.SetSym(i, j, 0)
		}
	}
	fn.AddHess(h, x)
}

// addSym adds v to hᵢⱼ and hⱼᵢ (once, for i ≠ j).
func addSym(h *mat.SymDense, i, j int, v float64) { h.SetSym(i, j, h.At(i, j)+v) }

func even(d int) bool      { return d >= 2 && d%2 == 0 }
func multiple4(d int) bool { return d >= 4 && d%4 == 0 }
func positive(d int) bool  { return d >= 1 }

// rosenPair adds one Rosenbrock term 100(b − a²)² + (1 − a)² over (x[i], x[j]) =
// (a, b) to f, g and h (each when not nil).
func rosenPair(x []float64, i, j int, c float64, g []float64, h *mat.SymDense) float64 {
	a, b := x[i], x[j]
	t := b - a*a
	if g != nil {
		g[i] += -4*c*a*t - 2*(1-a)
		g[j] += 2 * c * t
	}
	if h != nil {
		addSym(h, i, i, -4*c*(b-3*a*a)+2)
		addSym(h, i, j, -4*c*a)
		addSym(h, j, j, 2*c)
	}
	return c*t*t + (1-a)*(1-a)
}

func zero(g []float64) {
	for i := range g {
		g[i] = 0
	}
}

// RosenChain is the chained ("generalized") Rosenbrock function
//
//	f(x) = Σ_{i=1}^{d−1} 100(x_{i+1} − x_i²)² + (1 − x_i)²,
//
// Rosenbrock (1960), "An automatic method for finding the greatest or least value of a
// function", Comput. J. 3(3):175–184, chained over consecutive pairs as in SciPy's
// scipy.optimize.rosen (the function of issue 15's measurements) and CUTEst's GENROSE
// (which adds 1). Minimum 0 at x = 1.
var RosenChain = fromTerms("rosen-chain", func(d int) bool { return d >= 2 },
	func(x, g []float64, h *mat.SymDense) float64 {
		var s float64
		for i := 0; i+1 < len(x); i++ {
			s += rosenPair(x, i, i+1, 100, g, h)
		}
		return s
	})

// RosenExt is the extended Rosenbrock function, problem 21 of Moré, Garbow & Hillstrom
// (1981), "Testing unconstrained optimization software", ACM TOMS 7(1):17–41:
//
//	f(x) = Σ_{i=1}^{d/2} 100(x_{2i} − x_{2i−1}²)² + (1 − x_{2i−1})²,  d even,
//
// independent pairs; x₀ = (−1.2, 1, …), minimum 0 at x = 1.
var RosenExt = fromTerms("rosen-ext", even,
	func(x, g []float64, h *mat.SymDense) float64 {
		var s float64
		for i := 0; i+1 < len(x); i += 2 {
			s += rosenPair(x, i, i+1, 100, g, h)
		}
		return s
	})

// StyblinskiTang is the function of Styblinski & Tang (1990), "Experiments in
// nonconvex optimization: stochastic approximation with function smoothing and
// simulated annealing", Neural Networks 3(4):467–483:
//
//	f(x) = ½ Σᵢ (xᵢ⁴ − 16xᵢ² + 5xᵢ),
//
// separable, each coordinate with a global minimum at −2.903534, a local one at
// 2.746803 and a local maximum at 0.156731; 2^d stationary minima in all.
var StyblinskiTang = fromTerms("styblinski-tang", positive,
	func(x, g []float64, h *mat.SymDense) float64 {
		var s float64
		for i, v := range x {
			s += (v*v*v*v - 16*v*v + 5*v) / 2
			if g != nil {
				g[i] += 2*v*v*v - 16*v + 2.5
			}
			if h != nil {
				addSym(h, i, i, 6*v*v-16)
			}
		}
		return s
	})

// ChainedWood is the chained Wood function, problem 8 of Conn, Gould & Toint (1988),
// "Testing a class of methods for solving minimization problems with simple bounds on
// the variables", Math. Comp. 50(182):399–430 (CUTEst CHAINWOO):
//
//	f(x) = 1 + Σ_{i=1}^{d/2−1} 100(x_{2i} − x_{2i−1}²)² + (1 − x_{2i−1})²
//	         + 90(x_{2i+2} − x_{2i+1}²)² + (1 − x_{2i+1})²
//	         + 10(x_{2i} + x_{2i+2} − 2)² + 0.1(x_{2i} − x_{2i+2})²,
//
// x₀ = (−3, −1, −3, −1, −2, −2, …), minimum 1 at x = 1. CUTEst asks d divisible by 4;
// the formula is defined for every even d, and d = 10 is used here.
var ChainedWood = fromTerms("chained-wood", func(d int) bool { return even(d) && d >= 4 }, woodTerms)

// woodTerms returns f of ChainedWood and adds its gradient into g and Hessian into h
// (each when not nil). Indices are 0-based: the i-th block uses x[2i−2], …, x[2i+1].
func woodTerms(x, g []float64, h *mat.SymDense) float64 {
	s := 1.0
	for i := 1; i <= len(x)/2-1; i++ {
		a, b, c, e := 2*i-2, 2*i-1, 2*i, 2*i+1 // x_{2i−1}, x_{2i}, x_{2i+1}, x_{2i+2}
		s += rosenPair(x, a, b, 100, g, h)
		s += rosenPair(x, c, e, 90, g, h)
		u, v := x[b]+x[e]-2, x[b]-x[e]
		s += 10*u*u + 0.1*v*v
		if g != nil {
			g[b] += 20*u + 0.2*v
			g[e] += 20*u - 0.2*v
		}
		if h != nil {
			addSym(h, b, b, 20.2)
			addSym(h, e, e, 20.2)
			addSym(h, b, e, 19.8)
		}
	}
	return s
}

// PowellSingular is the extended Powell singular function, problem 22 of Moré, Garbow &
// Hillstrom (1981):
//
//	f(x) = Σ_{i=1}^{d/4} (x_{4i−3} + 10x_{4i−2})² + 5(x_{4i−1} − x_{4i})²
//	         + (x_{4i−2} − 2x_{4i−1})⁴ + 10(x_{4i−3} − x_{4i})⁴,  d divisible by 4,
//
// x₀ = (3, −1, 0, 1, …), minimum 0 at x = 0, where the Hessian is singular.
var PowellSingular = fromTerms("powell-singular", multiple4, powellTerms)

// powellTerms returns f of PowellSingular and adds its gradient into g and Hessian into h
// (each when not nil).
func powellTerms(x, g []float64, h *mat.SymDense) float64 {
	var s float64
	for k := 0; k+3 < len(x); k += 4 {
		p, q, r, t := k, k+1, k+2, k+3
		a := x[p] + 10*x[q]
		b := x[r] - x[t]
		c := x[q] - 2*x[r]
		e := x[p] - x[t]
		s += a*a + 5*b*b + c*c*c*c + 10*e*e*e*e
		if g != nil {
			g[p] += 2*a + 40*e*e*e
			g[q] += 20*a + 4*c*c*c
			g[r] += 10*b - 8*c*c*c
			g[t] += -10*b - 40*e*e*e
		}
		if h != nil {
			c2, e2 := 12*c*c, 120*e*e
			addSym(h, p, p, 2+e2)
			addSym(h, p, q, 20)
			addSym(h, p, t, -e2)
			addSym(h, q, q, 200+c2)
			addSym(h, q, r, -2*c2)
			addSym(h, r, r, 10+4*c2)
			addSym(h, r, t, -10)
			addSym(h, t, t, 10+e2)
		}
	}
	return s
}

// BroydenTridiagonal is the Broyden tridiagonal function, problem 30 of Moré, Garbow &
// Hillstrom (1981):
//
//	f(x) = Σ_{i=1}^{d} ((3 − 2xᵢ)xᵢ − x_{i−1} − 2x_{i+1} + 1)²,  x₀ = x_{d+1} = 0,
//
// x₀ = (−1, …, −1), minimum 0 near x ≈ −0.7 (ends ≈ −0.57 and −0.42).
var BroydenTridiagonal = fromTerms("broyden-tridiag", positive, broydenTerms)

// broydenTerms returns f of BroydenTridiagonal and adds its gradient into g and Hessian
// into h (each when not nil).
func broydenTerms(x, g []float64, h *mat.SymDense) float64 {
	d := len(x)
	var s float64
	for i := 0; i < d; i++ {
		// rᵢ = (3 − 2xᵢ)xᵢ − x_{i−1} − 2x_{i+1} + 1 with ∇rᵢ = (−1, 3 − 4xᵢ, −2) on
		// (i−1, i, i+1) and ∇²rᵢ = −4 at (i, i).
		idx := [3]int{i - 1, i, i + 1}
		dr := [3]float64{-1, 3 - 4*x[i], -2}
		r := (3-2*x[i])*x[i] + 1
		if i > 0 {
			r -= x[i-1]
		}
		if i+1 < d {
			r -= 2 * x[i+1]
		}
		s += r * r
		for a := 0; a < 3; a++ {
			if idx[a] < 0 || idx[a] >= d {
				continue
			}
			if g != nil {
				g[idx[a]] += 2 * r * dr[a]
			}
			if h == nil {
				continue
			}
			for b := a; b < 3; b++ {
				if idx[b] >= 0 && idx[b] < d {
					addSym(h, idx[a], idx[b], 2*dr[a]*dr[b])
				}
			}
		}
		if h != nil {
			addSym(h, i, i, -8*r)
		}
	}
	return s
}

// Case is one benchmark problem: a function, a box and a feasible start.
type Case struct {
	Name         string // "<function>/<box>"
	Fn           Function
	D            int
	Lower, Upper []float64
	X0           []float64
	// CutsOff says whether the box excludes the function's unconstrained minimum.
	CutsOff bool
}

// boxSpec is one function's box and start; start is the literature's x₀, projected
// onto the box (as SciPy's L-BFGS-B does silently) so that every solver starts at the
// same feasible point.
type boxSpec struct {
	fn      Function
	box     string
	lower   func(i int) float64
	upper   func(i int) float64
	start   func(i int) float64
	cutsOff bool
}

func constant(v float64) func(int) float64 { return func(int) float64 { return v } }

// rosenStart is MGH's (−1.2, 1, −1.2, 1, …).
func rosenStart(i int) float64 {
	if i%2 == 0 {
		return -1.2
	}
	return 1
}

// specs lists the benchmark: the Rosenbrock boxes (the [−2, 2] ones contain
// the minimum and are the reference rows), then each function in a box of ours
// that excludes its unconstrained minimum.
var specs = []boxSpec{
	{RosenChain, "[-2,2]", constant(-2), constant(2), rosenStart, false},
	{RosenChain, "[-2,0.5]", constant(-2), constant(0.5), rosenStart, true},
	{RosenExt, "[-2,2]", constant(-2), constant(2), rosenStart, false},
	{RosenExt, "[-2,0.5]", constant(-2), constant(0.5), rosenStart, true},
	// Both one-dimensional minima (−2.9035, 2.7468) lie outside [−2.5, 2.5]; from 0 the
	// gradient 2.5 points every coordinate to the lower bound.
	{StyblinskiTang, "[-2.5,2.5]", constant(-2.5), constant(2.5), constant(0), true},
	{ChainedWood, "[-4,0.8]", constant(-4), constant(0.8), func(i int) float64 {
		if i < 4 {
			return []float64{-3, -1, -3, -1}[i]
		}
		return -2
	}, true},
	// x_{4i−3} ≥ 0.1 and x_{4i} ≥ 0.1 exclude the minimum 0; the start (3, −1, 0, 1)
	// is inside.
	{PowellSingular, "[-4,4];x1,x4>=0.1", func(i int) float64 {
		if i%4 == 0 || i%4 == 3 {
			return 0.1
		}
		return -4
	}, constant(4), func(i int) float64 { return []float64{3, -1, 0, 1}[i%4] }, true},
	{BroydenTridiagonal, "[-2,-0.6]", constant(-2), constant(-0.6), constant(-1), true},
}

// Cases returns the benchmark cases in dimension d. A function not defined at d (the
// Powell function needs d divisible by 4) is run at the next dimension it accepts.
func Cases(d int) []Case {
	var cs []Case
	for _, s := range specs {
		dd := d
		for !s.fn.Valid(dd) {
			dd++
		}
		c := Case{Name: s.fn.Name + "/" + s.box, Fn: s.fn, D: dd, CutsOff: s.cutsOff,
			Lower: make([]float64, dd), Upper: make([]float64, dd), X0: make([]float64, dd)}
		for i := 0; i < dd; i++ {
			c.Lower[i], c.Upper[i] = s.lower(i), s.upper(i)
			c.X0[i] = math.Max(c.Lower[i], math.Min(c.Upper[i], s.start(i)))
		}
		cs = append(cs, c)
	}
	return cs
}

// Key identifies a case at its dimension, as the peers' CSV does.
func (c Case) Key() string { return fmt.Sprintf("%s@%d", c.Name, c.D) }

// ProjGradNorm returns ‖P(x − ∇f(x)) − x‖∞ for the projection P onto [lower, upper]:
// zero exactly at the box's first-order stationary points (the measure of L-BFGS-B's
// pgtol).
func ProjGradNorm(g, x, lower, upper []float64) float64 {
	var m float64
	for i := range x {
		p := math.Max(lower[i], math.Min(upper[i], x[i]-g[i]))
		m = math.Max(m, math.Abs(p-x[i]))
	}
	return m
}
