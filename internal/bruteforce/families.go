package bruteforce

import (
	"fmt"
	"math"
	"strings"
)

func (g *gen) simplex() string {
	d, rng := g.d, g.rng
	s := g.pick(1, 0.5, 4)
	x := make([]float64, d)
	var where string
	perm := rng.Perm(d)
	switch rng.IntN(4) {
	case 0:
		where = "vertex"
		x[perm[0]] = s
	case 1:
		where = "edge"
		a := dyadic(0.1 + 0.8*rng.Float64())
		x[perm[0]], x[perm[1]] = s*a, s*(1-a)
	case 2:
		where = "face"
		k := 2 + rng.IntN(max(1, d-2))
		rest := s
		for j := 0; j < k-1; j++ {
			v := dyadic(rest * (0.2 + 0.6*rng.Float64()) / float64(k-1-j))
			x[perm[j]], rest = v, rest-v
		}
		x[perm[k-1]] = rest
	default:
		where = "barycentre"
		for j := range x {
			x[j] = s / float64(d)
		}
	}
	g.in.X = x
	g.in.R = s * g.pick(0.05, 0.2, 0.6, 1.5)
	return strings.Join([]string{where, g.sumConstraint(), g.bounds(make([]float64, d), nil)}, ", ")
}

func (g *gen) budget() string {
	d, rng := g.d, g.rng
	u := make([]float64, d)
	x := make([]float64, d)
	for j := range x {
		u[j] = dyadic(0.3 + 0.7*rng.Float64())
		switch rng.IntN(3) {
		case 0:
		case 1:
			x[j] = u[j]
		default:
			x[j] = dyadic(u[j] * (0.1 + 0.8*rng.Float64()))
		}
	}
	g.in.X = x
	g.in.R = g.pick(0.05, 0.2, 0.5, 1.5)
	where := "budget active"
	slack := 0.0
	if rng.IntN(2) == 0 {
		where, slack = "budget slack", g.in.R*rng.Float64()
	}
	g.row(g.ones(1), slack)
	return where + ", " + g.bounds(make([]float64, d), u)
}

func (g *gen) balancedBox() string {
	d, rng := g.d, g.rng
	free := g.pick(0, 0, 1, 2, 3)
	nf := min(d, int(free))
	x := make([]float64, d)
	perm := rng.Perm(d)
	sum := 0.0
	for k, j := range perm[nf:] {
		x[j] = float64(1 - 2*(k%2)) // alternate signs: the sum stays in {0, 1}
		sum += x[j]
	}
	if nf == 0 && sum != 0 { // d odd: one coordinate must give
		nf, x[perm[0]], sum = 1, 0, sum-x[perm[0]]
	}
	for tries := 0; nf > 0; tries++ {
		rest := -sum
		for _, j := range perm[:nf-1] {
			x[j] = dyadic(rng.Float64() - 0.5)
			rest -= x[j]
		}
		x[perm[nf-1]] = rest
		if math.Abs(rest) <= 1 {
			break
		}
		if tries == 20 { // give up drawing: the free coordinates take the sum alone
			for _, j := range perm[:nf-1] {
				x[j] = 0
			}
			x[perm[nf-1]] = -sum
			break
		}
	}
	g.in.X = x
	g.in.R = g.pick(0.1, 0.3, 1, 2)
	lo, hi := g.ones(-1), g.ones(1)
	return strings.Join([]string{fmt.Sprintf("%d free", nf), g.sumConstraint(), g.bounds(lo, hi)}, ", ")
}

// randSlack draws the distance of a row from X: tangent to the ball, far outside it, or
// cutting it.
func (g *gen) randSlack() float64 {
	switch g.rng.IntN(4) {
	case 0:
		return g.in.R
	case 1:
		return g.in.R * (1.5 + 3.5*g.rng.Float64())
	}
	return g.in.R * g.rng.Float64()
}

// maxRows caps the general rows of a random instance: the enumeration visits up to
// Σ_{j≤d} C(k, j) subsets of the k rows that reach the ball.
const maxRows = 10

func (g *gen) generalRows() string {
	d, rng := g.d, g.rng
	g.in.X = scaled(g.randVec(), 2)
	g.in.R = g.pick(0.3, 1, 2.5)
	neq := 0
	if d > 1 && rng.IntN(3) == 0 {
		neq = 1 + rng.IntN(min(2, d-1))
		for range neq {
			g.eq(g.randVec())
		}
	}
	active := rng.IntN(d - neq + 1)
	for range active {
		g.row(g.randVec(), 0)
	}
	more := rng.IntN(5)
	for range more {
		g.row(g.randVec(), g.randSlack())
	}
	name := fmt.Sprintf("%d equalities, %d rows through X, %d more", neq, active, more)
	if d <= 4 && rng.IntN(3) == 0 {
		lo, hi := g.ones(math.Inf(-1)), g.ones(math.Inf(1))
		for j := range lo {
			if rng.IntN(2) == 0 {
				lo[j] = g.in.X[j] - g.pick(0, g.randSlack())
			}
			if rng.IntN(2) == 0 {
				hi[j] = g.in.X[j] + g.pick(0, g.randSlack())
			}
		}
		name += ", " + g.bounds(lo, hi)
	}
	g.rescaleRows()
	return name
}

// rescaleRows multiplies every general row and its right-hand side by 10^U(−2, 2),
// keeping each offset exact: the geometry is unchanged, the scales are not.
func (g *gen) rescaleRows() {
	for i, a := range g.in.A {
		f := math.Pow(10, 4*g.rng.Float64()-2)
		off := f * exactAffine(g.in.B[i], -1, a, g.in.X)
		g.in.A[i] = scaled(a, f)
		g.in.B[i] = exactAffine(off, +1, g.in.A[i], g.in.X)
	}
}

func (g *gen) degenerate() string {
	g.in.X = scaled(g.randVec(), 2)
	g.in.R = g.pick(0.3, 1, 2.5)
	var parts []string
	for _, k := range g.rng.Perm(4)[:1+g.rng.IntN(2)] {
		if len(g.in.A) >= maxRows-2 {
			break
		}
		parts = append(parts, [...]func() string{g.overdetermined, g.copies, g.onEqualities, g.oppositePair}[k]())
	}
	g.rescaleRows()
	return strings.Join(parts, " + ")
}

// overdetermined adds d+1 or d+2 rows through X whose normals all make an angle of more
// than about 100° with one direction e, so the cone {h : aᵢ·h ≤ 0} is pointed with e
// inside: a degenerate vertex.
func (g *gen) overdetermined() string {
	e := g.randVec()
	e = scaled(e, 1/norm(e))
	t := g.d + 1 + g.rng.IntN(2)
	for range t {
		a := g.randVec()
		a = scaled(a, 1/norm(a))
		if c := dot(a, e); c > -0.2 {
			a = axpy(-0.2-c, e, a)
		}
		g.row(a, 0)
	}
	return fmt.Sprintf("vertex with %d rows", t)
}

// copies adds a few rows through X and one more, then exact duplicates, scaled copies
// and opposite rows (slabs, of width zero when the slack is zero).
func (g *gen) copies() string {
	base := 1 + g.rng.IntN(min(g.d, 3))
	for range base {
		g.row(g.randVec(), 0)
	}
	g.row(g.randVec(), g.randSlack())
	n := len(g.in.A)
	for len(g.in.A) < maxRows && len(g.in.A) < 3*n {
		src := g.rng.IntN(n)
		a, b := g.in.A[src], g.in.B[src]
		switch g.rng.IntN(3) {
		case 0:
			g.in.A, g.in.B = append(g.in.A, clone(a)), append(g.in.B, b)
		case 1:
			f := g.pick(1e-3, 0.5, 7, 1e3)
			off := exactAffine(b, -1, a, g.in.X)
			g.row(scaled(a, f), off/norm(a))
		default:
			g.row(scaled(a, -1), g.in.R*g.pick(0, 0.2, 1, 3))
		}
	}
	return "copies"
}

// onEqualities adds equality rows through X, inequality rows that combine them (through
// X, so they hold on the whole equality set, or at a slack), the first equality as two
// opposite rows, and an active bound repeated as a general row and a scaled one.
func (g *gen) onEqualities() string {
	neq := 1 + g.rng.IntN(min(2, g.d-1))
	for range neq {
		g.eq(g.randVec())
	}
	for range 2 {
		a := make([]float64, g.d)
		for _, e := range g.in.Aeq {
			a = axpy(g.rng.NormFloat64(), e, a)
		}
		g.row(a, g.pick(0, 0, g.in.R*g.rng.Float64()))
	}
	g.row(clone(g.in.Aeq[0]), 0)
	g.row(scaled(g.in.Aeq[0], -1), 0)
	j := g.rng.IntN(g.d)
	g.in.Lower = g.ones(math.Inf(-1))
	g.in.Lower[j] = g.in.X[j]
	g.row(unit(g.d, j, -1), 0)
	g.row(unit(g.d, j, -7), 0)
	return fmt.Sprintf("%d equalities and rows on them", neq)
}

// oppositePair adds an equality written as two opposite rows through X, and other rows
// through X.
func (g *gen) oppositePair() string {
	a := g.randVec()
	g.row(a, 0)
	g.row(scaled(a, -g.pick(1, 3)), 0)
	t := g.rng.IntN(g.d)
	for range t {
		g.row(g.randVec(), 0)
	}
	return "opposite pair"
}

func (g *gen) nearParallel() string {
	g.in.X = scaled(g.randVec(), 2)
	g.in.R = g.pick(0.3, 1, 2.5)
	R := g.in.R
	a := g.randVec()
	g.row(a, 0)
	var kinds []string
	noise := func(size float64) []float64 { return scaled(g.randVec(), size*norm(a)) }
	for range 5 {
		switch g.rng.IntN(5) {
		case 0:
			g.row(axpy(1, noise(g.pick(1e-13, 1e-10, 1e-7)), a), R*g.pick(0, 1e-13, 1e-9))
			kinds = append(kinds, "parallel")
		case 1:
			g.row(g.randVec(), R*(1+g.pick(-1e-12, 1e-12, -1e-9, 1e-9)))
			kinds = append(kinds, "tangent")
		case 2:
			g.row(g.randVec(), R*g.pick(1e-14, 1e-12, 1e-10))
			kinds = append(kinds, "active")
		case 3:
			last := g.in.A[len(g.in.A)-1]
			g.row(axpy(1, noise(1e-11), axpy(1, last, a)), 0)
			kinds = append(kinds, "dependent")
		default:
			g.row(axpy(-1, a, noise(1e-13)), 1e-12*R)
			kinds = append(kinds, "sliver")
		}
	}
	g.rescaleRows()
	return "nearly " + strings.Join(kinds, "/")
}
