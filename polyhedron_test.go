package houdini_test

import (
	"context"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// TestEqualitiesReducedAndChecked: dependent rows of Aeq are accepted, inconsistent ones
// are an *EmptyError naming them with a reason, an x₀ off an equality is an
// *InfeasibleError naming that row, and lower = upper fixes a coordinate.
func TestEqualitiesReducedAndChecked(t *testing.T) {
	dep := houdini.Polyhedron{
		Aeq: relDense([][]float64{{1, 1, 0}, {2, 2, 0}, {0, 0, 1}, {1, 1, 1}}),
		Beq: []float64{1, 2, 3, 4},
	}
	c, err := houdini.NewPolyhedron(dep)
	if err != nil {
		t.Fatalf("dependent, consistent equalities: %v", err)
	}
	if k, d := c.Dims(); k != 4 || d != 3 {
		t.Errorf("Dims = (%d, %d), want (4, 3)", k, d)
	}
	bad := dep
	bad.Beq = []float64{1, 2.5, 3, 4}
	_, err = houdini.NewPolyhedron(bad)
	var ee *houdini.EmptyError
	if !errors.As(err, &ee) || !errors.Is(err, houdini.ErrEmpty) || ee.Reason == "" || !slices.Contains(ee.Eq, 1) {
		t.Errorf("inconsistent equalities: %v (%#v), want an *EmptyError naming row 1 of Aeq with a reason", err, ee)
	}
	o, err := houdini.New(relSquares(0), c, houdini.Settings{Delta: 1e-3, Radius: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Minimize(context.Background(), []float64{0.5, 0.5, 3.001})
	var ie *houdini.InfeasibleError
	if !errors.As(err, &ie) || ie.Kind != houdini.Equality || (ie.Row != 2 && ie.Row != 3) {
		t.Errorf("x₀ off rows 2 and 3 of Aeq: %v, want an *InfeasibleError naming one of them", err)
	}
	fixed, err := houdini.NewBox([]float64{0, 2}, []float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := houdini.Minimize(context.Background(), relSquares(3), fixed, []float64{0.5, 2}, houdini.Settings{Delta: 1e-6, Radius: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != houdini.StatusCertified || res.X[1] != 2 || math.Abs(res.X[0]-1) > 1e-9 {
		t.Errorf("x₁ fixed at 2: %v at %v, want certified at (1, 2)", res.Status, res.X)
	}
}

// simplexProjection is f(x) = ½‖x − z‖² on the simplex {x ≥ 0, Σx = 1} with
// z = (0.8, 0.6, −0.5): the minimizer is x* = (0.6, 0.4, 0) (Σ max(zⱼ − τ, 0) = 1 at
// τ = 0.2), where ∇f = (−0.2, −0.2, 0.5) = −0.2·1 + 0.7·e₃: the equality's multiplier is
// 0.2 and the lower bound of x₂ carries 0.7.
func simplexProjection() houdini.Problem {
	z := []float64{0.8, 0.6, -0.5}
	return houdini.Problem{
		Func: func(x []float64) float64 {
			s := 0.0
			for j := range x {
				s += 0.5 * (x[j] - z[j]) * (x[j] - z[j])
			}
			return s
		},
		Grad: func(g, x []float64) {
			for j := range x {
				g[j] = x[j] - z[j]
			}
		},
	}
}

// TestActiveSetMultipliers checks Result.Active against the closed form of
// simplexProjection, with the equality first-class (scaled by 3, which the multiplier
// undoes) and as two opposite rows (the multiplier on the row whose sign makes it ≥ 0).
func TestActiveSetMultipliers(t *testing.T) {
	x0 := []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	s := houdini.Settings{Delta: 1e-9, Radius: 0.3}
	zero := []float64{0, 0, 0}
	first, err := houdini.NewPolyhedron(houdini.Polyhedron{Lower: zero,
		Aeq: relDense([][]float64{{3, 3, 3}}), Beq: []float64{3}})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := houdini.NewPolyhedron(houdini.Polyhedron{Lower: zero,
		A: relDense([][]float64{{1, 1, 1}, {-1, -1, -1}}), B: []float64{1, -1}})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*houdini.Constraints{"first-class": first, "pair": pair} {
		res, err := houdini.Minimize(context.Background(), simplexProjection(), c, x0, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != houdini.StatusCertified || relNorm(relDiff(res.X, []float64{0.6, 0.4, 0})) > 1e-7 {
			t.Fatalf("%s: %v at %v, want certified at (0.6, 0.4, 0)", name, res.Status, res.X)
		}
		want := map[houdini.Constraint]float64{{Kind: houdini.LowerBound, Index: 2}: 0.7}
		if name == "first-class" {
			want[houdini.Constraint{Kind: houdini.Equality, Index: 0}] = 0.2 / 3
		} else {
			want[houdini.Constraint{Kind: houdini.Inequality, Index: 0}] = 0.2
			want[houdini.Constraint{Kind: houdini.Inequality, Index: 1}] = 0
		}
		if len(res.Active) != len(want) {
			t.Errorf("%s: Active = %v, want %v", name, res.Active, want)
		}
		for _, a := range res.Active {
			if w, ok := want[a.Constraint]; !ok || math.Abs(a.Multiplier-w) > 1e-7 {
				t.Errorf("%s: %v has multiplier %g, want %g (present: %v)", name, a.Constraint, a.Multiplier, w, ok)
			}
		}
		if !(res.KKTResidual < 1e-7) {
			t.Errorf("%s: KKTResidual = %g at the minimizer", name, res.KKTResidual)
		}
	}
}

// TestPolyhedronZeroAndNil: the zero Constraints and nil are ℝᵈ for any d, Violation of
// a point of the wrong length is +Inf (no panic), and Constraint names each constraint.
func TestPolyhedronZeroAndNil(t *testing.T) {
	var zero houdini.Constraints
	var nilC *houdini.Constraints
	for _, c := range []*houdini.Constraints{&zero, nilC} {
		if row, v := c.Violation([]float64{1, 2, 3}); row != -1 || !math.IsInf(v, -1) {
			t.Errorf("no constraints: Violation = (%d, %g)", row, v)
		}
		if k, d := c.Dims(); k != 0 || d != 0 {
			t.Errorf("no constraints: Dims = (%d, %d)", k, d)
		}
	}
	c, err := houdini.NewPolyhedron(houdini.Polyhedron{
		Lower: []float64{0, math.Inf(-1)}, Upper: []float64{1, 5},
		A: relDense([][]float64{{1, 1}, {1, -1}}), B: []float64{math.Inf(1), 1},
		Aeq: relDense([][]float64{{1, 2}}), Beq: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	if row, v := c.Violation([]float64{1}); row != -1 || !math.IsInf(v, 1) {
		t.Errorf("wrong length: Violation = (%d, %g), want (-1, +Inf)", row, v)
	}
	want := []houdini.Constraint{{houdini.Inequality, 1}, {houdini.Equality, 0},
		{houdini.UpperBound, 0}, {houdini.LowerBound, 0}, {houdini.UpperBound, 1}}
	if k, _ := c.Dims(); k != len(want) {
		t.Fatalf("Dims: k = %d, want %d", k, len(want))
	}
	for i, w := range want {
		if got := c.Constraint(i); got != w {
			t.Errorf("Constraint(%d) = %v, want %v", i, got, w)
		}
	}
	if got := c.Constraint(len(want)); got != (houdini.Constraint{}) {
		t.Errorf("Constraint out of range = %v", got)
	}
}

// TestNewPolyhedronSparse: a sparse input (a mat.RowNonZeroDoer) and the same matrix
// dense give the same set (Violation at random points) and the same escape.
func TestNewPolyhedronSparse(t *testing.T) {
	const d = 40
	T := mat.NewTriDense(d, mat.Upper, nil) // upper bidiagonal: x_j − x_{j+1} ≤ 1
	b := make([]float64, d)
	for j := 0; j < d; j++ {
		T.SetTri(j, j, 1)
		if j+1 < d {
			T.SetTri(j, j+1, -1)
		}
		b[j] = 1
	}
	sparse, err := houdini.NewConstraints(T, b)
	if err != nil {
		t.Fatal(err)
	}
	dense, err := houdini.NewConstraints(mat.DenseCopyOf(T), b)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, d)
	for trial := 0; trial < 50; trial++ {
		for j := range y {
			y[j] = math.Sin(float64(trial*d+j)) * 3
		}
		r1, v1 := sparse.Violation(y)
		r2, v2 := dense.Violation(y)
		if r1 != r2 || v1 != v2 {
			t.Fatalf("Violation differs: sparse (%d, %g), dense (%d, %g)", r1, v1, r2, v2)
		}
	}
}

// TestEqualitiesRespectedByEveryPath: on the balanced box {Σx = 0, −1 ≤ x ≤ 1} in ℝ⁶ with
// f = −½‖x‖² (every direction of the equality's null space is one of negative curvature),
// the full path with the descent phase and Purify, the paper's escape loop, the corner
// path and the stochastic path all move from x₀ = 0 and return points on the equality
// and in the box; the deterministic ones reach f = −3 (a balanced vertex: three +1, three
// −1) certified.
func TestEqualitiesRespectedByEveryPath(t *testing.T) {
	const d = 6
	lo, hi, ones := make([]float64, d), make([]float64, d), make([]float64, d)
	for j := range lo {
		lo[j], hi[j], ones[j] = -1, 1, 1
	}
	c, err := houdini.NewPolyhedron(houdini.Polyhedron{Lower: lo, Upper: hi,
		Aeq: relDense([][]float64{ones}), Beq: []float64{0}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(16, 1))
	f := func(x []float64) float64 { return -0.5 * relDot(x, x) }
	exact := houdini.Problem{Func: f, Grad: func(g, x []float64) {
		for j := range x {
			g[j] = -x[j]
		}
	}}
	noisy := houdini.Problem{Func: f, Grad: func(g, x []float64) {
		for j := range x {
			g[j] = -x[j] + 0.01*rng.NormFloat64()
		}
	}}
	base := houdini.Settings{Delta: 1e-2, Radius: 0.5, Seed: 1}
	cases := []struct {
		name string
		p    houdini.Problem
		s    func(houdini.Settings) houdini.Settings
		cert bool
	}{
		{"full, descent, Purify", exact, func(s houdini.Settings) houdini.Settings { s.Purify = true; return s }, true},
		{"escapes only", exact, func(s houdini.Settings) houdini.Settings { s.EscapesOnly = true; return s }, true},
		{"corner", exact, func(s houdini.Settings) houdini.Settings {
			s.Method, s.Corner.L = houdini.MethodCorner, 1.5
			return s
		}, false},
		{"stochastic", noisy, func(s houdini.Settings) houdini.Settings {
			s.Stochastic = houdini.StochasticSettings{Grad: true, Sigma: 0.01 * math.Sqrt(d), HessAccuracy: 2}
			s.MaxEscapes = 3
			return s
		}, false},
	}
	for _, tc := range cases {
		var xs [][]float64
		s := tc.s(base)
		s.Callback = func(_ int, e *houdini.EscapeResult) bool { xs = append(xs, e.X); return false }
		res, err := houdini.Minimize(context.Background(), tc.p, c, make([]float64, d), s)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, x := range append(xs, res.X) {
			if sum := math.Abs(relDot(x, ones)); sum > 1e-9 {
				t.Errorf("%s: a point has Σx = %g", tc.name, sum)
			}
			if _, v := c.Violation(x); v > 1e-9 {
				t.Errorf("%s: a point violates S by %g", tc.name, v)
			}
		}
		t.Logf("%s: %v at f = %.3g after %d escapes", tc.name, res.Status, f(res.X), res.Stats.Escapes)
		if res.Decrease <= 0 {
			t.Errorf("%s: no move from the saddle (%v)", tc.name, res.Status)
		}
		if tc.cert && (res.Status != houdini.StatusCertified || math.Abs(f(res.X)+3) > 1e-9) {
			t.Errorf("%s: %v at %v (f = %g), want certified at a balanced vertex (f = −3)", tc.name, res.Status, res.X, f(res.X))
		}
	}
}

// TestExactlyFeasibleFarPointHolds (Settings.FeasTol's rounding term): a point x far from
// the origin (‖x‖ from 1e6 to 1e9) that satisfies aᵢ·x ≤ bᵢ exactly (bᵢ = aᵢ·x rounded
// up, computed exactly; rows of every scale, often one nearly orthogonal to x, so that
// |b̂ᵢ| ≪ Σ|âᵢⱼxⱼ| and FeasTol·max(1, |b̂ᵢ|) alone is below the rounding of âᵢ; as rows,
// equalities (bᵢ rounded to nearest) and bounds) is accepted as a start: the slack's rounding is the
// tolerance's business, not the user's. The same points moved outward by 1e-6·(1 + |b̂ᵢ|)
// across one row are refused, naming that row.
func TestExactlyFeasibleFarPointHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2))
	n := 2000
	if testing.Short() {
		n = 300
	}
	p := houdini.Problem{Grad: func(g, _ []float64) { clear(g) }}
	for trial := 0; trial < n; trial++ {
		d := 1 + rng.IntN(12)
		scale := math.Pow(10, 6+3*rng.Float64())
		x := make([]float64, d)
		for j := range x {
			x[j] = scale * rng.NormFloat64()
		}
		var rows [][]float64
		var b []float64
		for i := 0; i < 1+rng.IntN(6); i++ {
			a := make([]float64, d)
			for j := range a {
				if rng.IntN(3) > 0 {
					a[j] = rng.NormFloat64() * math.Pow(10, 4*rng.Float64()-2)
				}
			}
			a[rng.IntN(d)] = 1 + rng.Float64()
			// One row nearly orthogonal to x: b̂ ≪ Σ|âⱼxⱼ|, all cancellation. (Several
			// such rows are nearly dependent in the d − 1 dimensions orthogonal to x: they
			// make a cone of angle ~1e-16 whose points all lie out near x, from rows rounded
			// to the data's precision no different from a set empty near the origin, which
			// NewPolyhedron may call empty beyond farkasReach.)
			if i == 0 && d > 1 && rng.IntN(2) == 0 {
				f := relDot(a, x) / relDot(x, x)
				for j := range a {
					a[j] -= f * x[j]
				}
			}
			rows, b = append(rows, a), append(b, relRowRHS(a, x, 0))
		}
		P := houdini.Polyhedron{A: relDense(rows), B: b}
		if rng.IntN(2) == 0 {
			a := rows[0]
			P.Aeq, P.Beq = relDense([][]float64{a}), []float64{relDot(a, x)}
			r := new(big.Float).SetPrec(relPrec)
			for j := range a {
				r.Add(r, new(big.Float).SetPrec(relPrec).Mul(relBig(a[j]), relBig(x[j])))
			}
			P.Beq[0], _ = r.Float64()
		}
		if rng.IntN(2) == 0 {
			P.Lower, P.Upper = append([]float64(nil), x...), append([]float64(nil), x...)
			for j := range x {
				P.Upper[j] += math.Abs(x[j]) * rng.Float64()
			}
		}
		c, err := houdini.NewPolyhedron(P)
		if err != nil {
			t.Fatalf("trial %d: NewPolyhedron: %v (x satisfies every row exactly)", trial, err)
		}
		o, err := houdini.New(p, c, houdini.Settings{Delta: 1, Radius: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.Escape(context.Background(), x); err != nil {
			t.Fatalf("trial %d: ‖x‖ = %.3g satisfies every constraint exactly, but Escape says %v", trial, relNorm(x), err)
		}
		i := rng.IntN(len(rows))
		out := append([]float64(nil), x...)
		nrm := relNorm(rows[i])
		for j := range out {
			out[j] += rows[i][j] / nrm * 1e-6 * (1 + math.Abs(b[i]/nrm)) * 4
		}
		var ie *houdini.InfeasibleError
		if _, err := o.Escape(context.Background(), out); !errors.As(err, &ie) {
			t.Fatalf("trial %d: a point outside row %d by 4e-6·(1 + |b̂|) accepted (%v)", trial, i, err)
		}
	}
}
