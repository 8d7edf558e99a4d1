package bruteforce

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// scaleOf returns ‖g‖R + d·max|Qᵢⱼ|·R², the size of q's variation on the ball; test
// tolerances are fractions of it.
func scaleOf(p *Problem) float64 {
	qm := 0.0
	for _, row := range p.Q {
		for _, v := range row {
			qm = math.Max(qm, math.Abs(v))
		}
	}
	return norm(p.G)*p.R + float64(p.Dim())*qm*p.R*p.R + 1e-300
}

// known is a problem with a minimum value known in closed form.
type known struct {
	name string
	p    Problem
	want float64 // +Inf: S ∩ B is empty
}

// checkKnown returns a message for every known problem whose Min is not the known value
// within 1e-10 of its scale, or whose minimizer is not feasible or not valued right.
func checkKnown(ks []known) []string {
	var fails []string
	for _, k := range ks {
		r := Min(k.p)
		sc := scaleOf(&k.p)
		switch {
		case math.IsInf(k.want, 1):
			if r.Feasible {
				fails = append(fails, fmt.Sprintf("%s: Min found h = %v (q = %g) in an empty set", k.name, r.H, r.Value))
			}
			continue
		case !r.Feasible:
			fails = append(fails, fmt.Sprintf("%s: Min found no feasible point; want %g", k.name, k.want))
			continue
		}
		if math.Abs(r.Value-k.want) > 1e-10*sc {
			fails = append(fails, fmt.Sprintf("%s: Min = %.15g, want %.15g (held %v)", k.name, r.Value, k.want, r.Held))
		}
		if !k.p.Feasible(r.H) || r.Value != k.p.Value(r.H) {
			fails = append(fails, fmt.Sprintf("%s: minimizer %v infeasible or misvalued", k.name, r.H))
		}
	}
	return fails
}

// oneDim returns random 1-D problems q = gh + ½ah² on [lo, hi] ∩ [−r, r], the interval
// given as two rows of random scale or as an equality, with the minimum over the
// endpoints and the stationary point.
func oneDim(rng *rand.Rand, n int) []known {
	var ks []known
	for i := range n {
		g, a, r := rng.NormFloat64(), []float64{-2, 0, 1.5, 1e-14}[i%4]*rng.Float64(), 0.1+2*rng.Float64()
		lo, hi := -3*rng.Float64(), 3*rng.Float64()
		if i%5 == 0 { // an interval that misses h = 0, or the ball
			lo, hi = hi, hi+rng.Float64()
		}
		s1, s2 := math.Pow(10, 4*rng.Float64()-2), math.Pow(10, 4*rng.Float64()-2)
		p := Problem{G: []float64{g}, Q: [][]float64{{a}}, R: r,
			A: [][]float64{{s1}, {-s2}}, B: []float64{s1 * hi, -s2 * lo}}
		want := math.Inf(1)
		L, U := math.Max(lo, -r), math.Min(hi, r)
		if L <= U {
			for _, h := range []float64{L, U, -g / a} {
				if h >= L && h <= U {
					want = math.Min(want, g*h+0.5*a*h*h)
				}
			}
		}
		ks = append(ks, known{fmt.Sprintf("1-D #%d", i), p, want})
		if c := lo; i%3 == 0 { // the equality h = lo
			pe := Problem{G: p.G, Q: p.Q, R: r, Aeq: [][]float64{{s1}}, Beq: []float64{s1 * c}}
			want := math.Inf(1)
			if math.Abs(c) <= r {
				want = g*c + 0.5*a*c*c
			}
			ks = append(ks, known{fmt.Sprintf("1-D equality #%d", i), pe, want})
		}
	}
	return ks
}

// paperCases are the saddle f = x² − y² rotated by π/6 of fig:escape-illustration,
// ½hᵀMh with M = [[1, √3], [√3, −1]] (f = ρ²cos(2θ − π/3) in polar coordinates), and
// Horn's copositive matrix on the orthant.
func paperCases() []known {
	s3 := math.Sqrt(3)
	M := [][]float64{{1, s3}, {s3, -1}}
	horn := hornMatrix()
	eps := 0.05
	hornEps := hornMatrix()
	hornEps[0][1] -= eps
	hornEps[1][0] -= eps
	orthant := func(d int) ([][]float64, []float64) {
		var A [][]float64
		for j := 0; j < d; j++ {
			A = append(A, unit(d, j, -1))
		}
		return A, make([]float64, d)
	}
	A5, B5 := orthant(5)
	return []known{
		// Quadrant x, y ≤ 0, r = 1: the unconstrained minimizers (θ = 2π/3, 5π/3, f = −1)
		// leave it; the minimum is −½ at (0, −1), on the face x = 0.
		{"paper saddle, quadrant", Problem{G: make([]float64, 2), Q: M, R: 1,
			A: [][]float64{{1, 0}, {0, 1}}, B: []float64{0, 0}}, -0.5},
		// Box [−1, 0] × [−1, 0.5] around the origin with r = 0.3: only x ≤ 0 reaches the
		// ball, and θ = 2π/3 lies in x ≤ 0, so the minimum is −r².
		{"paper saddle, box", Problem{G: make([]float64, 2), Q: M, R: 0.3,
			A: [][]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}, B: []float64{0, 1, 0.5, 1}}, -0.09},
		// Copositive: ½hᵀHh ≥ 0 on the orthant, 0 at h = 0 (and along (1, 1, 0, 0, 0)).
		{"Horn on the orthant", Problem{G: make([]float64, 5), Q: horn, R: 1, A: A5, B: B5}, 0},
	}
}

// hornMatrix is Horn's 5×5 matrix: 1 on the diagonal, −1 on cyclic neighbours, +1 else.
// It is copositive but not the sum of a PSD and a nonnegative matrix.
func hornMatrix() [][]float64 {
	H := make([][]float64, 5)
	for i := range H {
		H[i] = make([]float64, 5)
		for j := range H[i] {
			H[i][j] = 1
			if k := (j - i + 5) % 5; k == 1 || k == 4 {
				H[i][j] = -1
			}
		}
	}
	return H
}

// lagrangian returns random problems whose minimizer z is certified by Lagrangian
// sufficiency: with a ball multiplier λ ≥ 0 such that Q + λI ⪰ 0, rows through z with
// multipliers νᵢ ≥ 0, equalities through z with any multipliers, and
//
//	g = −(Q + λI)z − Σ νᵢaᵢ − Σ ηₖeₖ,
//
// z minimizes the convex Lagrangian q(h) + λ/2(‖h‖² − r²) + Σνᵢ(aᵢ·h − bᵢ) + Σηₖ(eₖ·h − cₖ),
// which is ≤ q on S ∩ B and equals q(z) at z, so q(z) is the minimum. With λ = −λ_min(Q)
// exactly and no row through z, this is the hard case.
func lagrangian(rng *rand.Rand, n int) []known {
	var ks []known
	for i := range n {
		d := 1 + rng.IntN(MaxDim)
		g := &gen{rng: rng, d: d, in: &Instance{}}
		lam := make([]float64, d)
		for j := range lam {
			lam[j] = 4*rng.Float64() - 1.5
		}
		lam[0] = -1.5 // the smallest
		W := randomOrthogonal(g)
		Q := make([][]float64, d)
		for a := range Q {
			Q[a] = make([]float64, d)
			for b := range Q[a] {
				for j := range lam {
					Q[a][b] += W.At(a, j) * lam[j] * W.At(b, j)
				}
			}
		}
		r := 0.5 + rng.Float64()
		kind := i % 3 // 0: hard case (λ = 1.5), 1: λ > 1.5, 2: rows and equalities through z
		mu := 1.5
		if kind > 0 {
			mu += 0.01 + rng.Float64()
		}
		z := g.randVec()
		z = scaled(z, r/norm(z))
		grad := make([]float64, d)
		for a := range grad {
			grad[a] = -mu * z[a]
			for b := range z {
				grad[a] -= Q[a][b] * z[b]
			}
		}
		p := Problem{G: grad, Q: Q, R: r}
		if kind == 2 {
			for range rng.IntN(d + 1) { // active rows, ν > 0
				a := g.randVec()
				p.A, p.B = append(p.A, a), append(p.B, dot(a, z))
				p.G = axpy(-rng.Float64(), a, p.G)
			}
			if d > 1 && rng.IntN(2) == 0 {
				e := g.randVec()
				p.Aeq, p.Beq = append(p.Aeq, e), append(p.Beq, dot(e, z))
				p.G = axpy(rng.NormFloat64(), e, p.G)
			}
		}
		for range rng.IntN(3) { // inactive rows: z strictly inside
			a := g.randVec()
			p.A, p.B = append(p.A, a), append(p.B, dot(a, z)+0.3*norm(a)*rng.Float64()+1e-3)
		}
		ks = append(ks, known{fmt.Sprintf("Lagrangian #%d (kind %d, d=%d)", i, kind, d), p, p.Value(z)})
	}
	return ks
}

func TestMinOneDim(t *testing.T) {
	for _, f := range checkKnown(oneDim(rand.New(rand.NewPCG(1, 2)), 400)) {
		t.Error(f)
	}
}

func TestMinPaperCases(t *testing.T) {
	for _, f := range checkKnown(paperCases()) {
		t.Error(f)
	}
	// Horn with the (1, 2) entries lowered by ε is not copositive: on the face spanned by
	// e₁, e₂ the point (1, 1, 0, 0, 0)/√2 gives −ε/2, and no point goes below λ_min/2.
	H := hornMatrix()
	H[0][1] -= 0.05
	H[1][0] -= 0.05
	A, B := make([][]float64, 5), make([]float64, 5)
	for j := range A {
		A[j] = unit(5, j, -1)
	}
	p := Problem{G: make([]float64, 5), Q: H, R: 1, A: A, B: B}
	r := Min(p)
	var es mat.EigenSym
	sym := mat.NewSymDense(5, nil)
	for i := range H {
		for j := i; j < 5; j++ {
			sym.SetSym(i, j, H[i][j])
		}
	}
	es.Factorize(sym, false)
	if lmin := es.Values(nil)[0]; !(r.Value <= -0.025+1e-15) || r.Value < lmin/2-1e-12 {
		t.Errorf("perturbed Horn: Min = %g, want ≤ −0.025 and ≥ λ_min/2 = %g", r.Value, lmin/2)
	}
}

func TestMinLagrangian(t *testing.T) {
	for _, f := range checkKnown(lagrangian(rand.New(rand.NewPCG(3, 4)), 600)) {
		t.Error(f)
	}
}

// TestMinAngularScan compares Min on unconstrained 2-D problems with a scan of the
// circle (4096 angles, then golden-section refinement of every local minimum; q on a
// circle is a trigonometric polynomial of degree 2, with at most two) and the interior
// stationary point: a method that knows nothing of the secular equation.
func TestMinAngularScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		a, b, c := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		if i%3 == 0 {
			a, c = -1, 2 // with g ⊥ e₁ below: the hard case
		}
		g := []float64{rng.NormFloat64(), rng.NormFloat64()}
		if i%3 == 0 {
			b, g[0] = 0, 0
			g[1] *= 0.5
		}
		p := Problem{G: g, Q: [][]float64{{a, b}, {b, c}}, R: 0.5 + rng.Float64()}
		want := scanCircle(&p)
		if got := Min(p).Value; math.Abs(got-want) > 1e-11*scaleOf(&p) {
			t.Errorf("#%d: Min = %.15g, circle scan %.15g", i, got, want)
		}
	}
}

func scanCircle(p *Problem) float64 {
	at := func(th float64) float64 { return p.Value([]float64{p.R * math.Cos(th), p.R * math.Sin(th)}) }
	const n = 1 << 12
	best := 0.0
	for i := range n {
		lo, hi := 2*math.Pi*float64(i-1)/n, 2*math.Pi*float64(i+1)/n
		if mid := 2 * math.Pi * float64(i) / n; at(mid) > math.Min(at(lo), at(hi)) {
			continue
		}
		for range 100 { // golden section on the bracket of a local minimum
			m1, m2 := hi-(hi-lo)/math.Phi, lo+(hi-lo)/math.Phi
			if at(m1) < at(m2) {
				hi = m2
			} else {
				lo = m1
			}
		}
		best = math.Min(best, at((lo+hi)/2))
	}
	// The interior stationary point, when Q ≻ 0 and it lies inside.
	a, b, c := p.Q[0][0], p.Q[0][1], p.Q[1][1]
	if det := a*c - b*b; a > 0 && det > 0 {
		h := []float64{-(c*p.G[0] - b*p.G[1]) / det, -(a*p.G[1] - b*p.G[0]) / det}
		if norm(h) <= p.R {
			best = math.Min(best, p.Value(h))
		}
	}
	return best
}

// edgeCases are sets that are empty, or given with zero, infinite, dependent, opposite
// or inconsistent rows; q = h₂ (plus h₁ where said), R = 1.
func edgeCases() []known {
	q := func(A [][]float64, B []float64, Aeq [][]float64, Beq []float64) Problem {
		return Problem{G: []float64{0, 1}, Q: [][]float64{{0, 0}, {0, 0}}, R: 1, A: A, B: B, Aeq: Aeq, Beq: Beq}
	}
	inf := math.Inf(1)
	e1, e2 := []float64{1, 0}, []float64{0, 1}
	zero := []float64{0, 0}
	return []known{
		{"equality beyond the ball", q(nil, nil, [][]float64{e1}, []float64{2}), inf},
		{"inconsistent parallel equalities", q(nil, nil, [][]float64{e1, e1}, []float64{0.5, 0.6}), inf},
		{"dependent consistent equalities", q(nil, nil, [][]float64{e1, scaled(e1, 2)}, []float64{0.5, 1}), -math.Sqrt(0.75)},
		{"zero row violated", q([][]float64{zero}, []float64{-1}, nil, nil), inf},
		{"zero rows satisfied", q([][]float64{zero}, []float64{0}, [][]float64{zero}, []float64{0}), -1},
		{"zero equality violated", q(nil, nil, [][]float64{zero}, []float64{1e-300}), inf},
		{"row beyond the ball", q([][]float64{e1}, []float64{-2}, nil, nil), inf},
		{"row at +Inf", q([][]float64{e2}, []float64{inf}, nil, nil), -1},
		{"opposite pair: h₁ = 0.3", q([][]float64{e1, scaled(e1, -4)}, []float64{0.3, -1.2}, nil, nil), -math.Sqrt(1 - 0.09)},
		{"tangent row: one point", q([][]float64{scaled(e2, -1)}, []float64{-1}, nil, nil), 1},
		{"ball only", q(nil, nil, nil, nil), -1},
	}
}

func TestMinEdgeCases(t *testing.T) {
	for _, f := range checkKnown(edgeCases()) {
		t.Error(f)
	}
	bad := []Problem{
		{G: []float64{1}, Q: [][]float64{{1}}, R: 0},
		{G: []float64{1}, Q: [][]float64{{1, 2}}, R: 1},
		{G: []float64{math.NaN()}, Q: [][]float64{{1}}, R: 1},
		{G: []float64{1}, Q: [][]float64{{1}}, R: 1, A: [][]float64{{1}}, B: nil},
		{G: []float64{1}, Q: [][]float64{{1}}, R: 1, Aeq: [][]float64{{1}}, Beq: []float64{math.Inf(1)}},
		{G: []float64{1}, Q: [][]float64{{1}}, R: 1, Tol: -1},
	}
	for i, p := range bad {
		if p.Validate() == nil {
			t.Errorf("bad problem %d validates", i)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Min accepted bad problem %d", i)
				}
			}()
			Min(p)
		}()
	}
}
