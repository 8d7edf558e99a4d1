package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/mat"
)

// TestForcedRowsKeepTheBestCandidate: the forced rows (holdForcedRows, the multiplier and
// circuit rules) never cut off the model's best candidate. On seeded instances of the
// simplex, budget, balanced-box and general-row families of internal/bruteforce (KKT and
// other models, gradients scaled by 1 to 4096 so that multipliers dominate), the pruned
// walk reaches the full walk's (no forcing, no pruning) best model decrease, within
// rounding, and certifies only where the full walk does, wherever rows are forced; rows
// must be forced, by circuits too, in a good share of them. 1500 instances, 300 under
// -short. (Near a hard case the relaxed bound of walk.enumerate once missed the best
// candidate by ~10⁻⁶ of its value; it is now a dual bound: TestPruningBoundNearHardCase.)
func TestForcedRowsKeepTheBestCandidate(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 300
	}
	fams := []bruteforce.Family{bruteforce.Simplex, bruteforce.Budget, bruteforce.BalancedBox, bruteforce.GeneralRows}
	ctx := context.Background()
	var forced, circuits, tried, byLagrange int
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(1417, uint64(i)))
		model := bruteforce.KKT
		if i%3 == 2 {
			model = bruteforce.Model(rng.IntN(int(bruteforce.NumModels)))
		}
		in := bruteforce.Generate(rng, bruteforce.Spec{Family: fams[i%len(fams)], Model: model})
		g := []float64{1, 16, 256, 4096}[i/len(fams)%4]
		for j := range in.G {
			in.G[j] *= g
		}
		c, err := forcedTestSet(in)
		if err != nil {
			t.Fatalf("instance %d (%s): %v", i, in.Name, err)
		}
		scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*3
		s := Settings{Delta: []float64{1e-3, 1e-2, 0.1, 1}[i%4] * scale, Radius: in.R, MaxSubsets: 1 << 20}
		p := Problem{Func: in.Func, Grad: in.Grad, Hess: func(h *mat.SymDense, _ []float64) {
			for a := range in.Q {
				for b := a; b < len(in.Q); b++ {
					h.SetSym(a, b, 0.5*(in.Q[a][b]+in.Q[b][a]))
				}
			}
		}}
		pruned, err := New(p, c, s)
		if err != nil {
			t.Fatal(err)
		}
		pruned.countLagrangePrunes(&byLagrange)
		full, _ := New(p, c, s)
		full.setNoPrune(true)
		ep, err1 := pruned.Escape(ctx, in.X)
		ef, err2 := full.Escape(ctx, in.X)
		if err1 != nil || err2 != nil {
			t.Fatalf("instance %d (%s): %v, %v", i, in.Name, err1, err2)
		}
		tried++
		if pruned.forcedRows(in.X) == 0 {
			continue // the relaxed bound alone: TestPruningSound's
		}
		forced++
		if pruned.ForcedByCircuits(in.X) > 0 {
			circuits++
		}
		tol := 1e-9*math.Abs(ef.ModelDecrease) + 1e-12*scale
		if ep.ModelDecrease < ef.ModelDecrease-tol || (ep.Certified && !ef.Certified) || (ep.Complete && ef.Found && !ep.Found) {
			t.Errorf("instance %d (%s, gradient ×%g): pruned (found %v, certified %v, model decrease %.17g) vs full (found %v, certified %v, %.17g)",
				i, in.Name, g, ep.Found, ep.Certified, ep.ModelDecrease, ef.Found, ef.Certified, ef.ModelDecrease)
		}
	}
	t.Logf("%d instances: rows forced in %d (compared), by circuits in %d; %d subtrees pruned by the Lagrangian bound alone", tried, forced, circuits, byLagrange)
	if forced < tried/10 || circuits < tried/100 {
		t.Errorf("the instances do not exercise the forced rows enough: %d, %d of %d", forced, circuits, tried)
	}
}

// forcedTestSet is the instance's set by NewPolyhedron, with first-class equalities and
// bounds.
func forcedTestSet(in *bruteforce.Instance) (*Constraints, error) {
	P := Polyhedron{Lower: in.Lower, Upper: in.Upper}
	dense := func(rows [][]float64) *mat.Dense {
		m := mat.NewDense(len(rows), len(rows[0]), nil)
		for i, r := range rows {
			m.SetRow(i, r)
		}
		return m
	}
	if len(in.A) > 0 {
		P.A, P.B = dense(in.A), in.B
	}
	if len(in.Aeq) > 0 {
		P.Aeq, P.Beq = dense(in.Aeq), in.Beq
	}
	if P.A == nil && P.Aeq == nil && P.Lower == nil && P.Upper == nil {
		return nil, nil
	}
	return NewPolyhedron(P)
}

// TestForcedCoordsAgainstGeneral: where every row holdForcedRows holds is a bound kept as
// its coordinate, forcedKeepCoords (no vector per row, one product per row with μᵢ > 0)
// forces the same rows with the same forcedErr as forcedKeep's general rule (R⁻¹, D, every
// near row's product with every dᵢ). Instances: box QPs at vertices and faces whose
// outward multipliers straddle the forcing cost (d = 2 to 12, boxes translated and
// rescaled, general rows beside the bounds in a third of them) and the brute-force
// families with bounds (simplex, balanced box: an equality below the bounds). 4000
// instances, 800 under -short; rows must be forced in a good share of them.
func TestForcedCoordsAgainstGeneral(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 800
	}
	var forced, coordCases int
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(1618, uint64(i)))
		var c *Constraints
		var x []float64
		var p Problem
		var s Settings
		if i%4 == 3 {
			fam := []bruteforce.Family{bruteforce.Simplex, bruteforce.BalancedBox}[i/4%2]
			in := bruteforce.Generate(rng, bruteforce.Spec{Family: fam, Model: bruteforce.KKT})
			var err error
			if c, err = forcedTestSet(in); err != nil {
				t.Fatal(err)
			}
			x, p = in.X, Problem{Grad: in.Grad, Hess: symHess(in.Q)}
			s = Settings{Delta: 0.01 * (norm(in.G)*in.R + float64(in.Dim())*in.R*in.R), Radius: in.R}
		} else {
			c, x, p, s = forcedBoxCase(t, rng, i)
		}
		o, err := New(p, c, s)
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		var ws [2]*walk
		for k := range ws {
			rn := o.newRun(context.Background(), 0)
			mod, _ := buildModel(x, rn.ev, newRand(0), &o.s, rn.r, MatrixFreeDim, -1)
			ws[k] = newWalk(context.Background(), o.c, x, rn.r, mod, &o.s, false)
			ws[k].allGeneral = k == 1
			ws[k].holdForcedRows()
		}
		a, b := ws[0], ws[1]
		if a.forced > 0 && a.heldAsCoords(len(a.rows)-a.base) {
			coordCases++
		}
		if a.forced > 0 {
			forced++
		}
		if a.forced != b.forced || !slices.Equal(a.near, b.near) || !slices.Equal(a.rows, b.rows) ||
			math.Abs(a.forcedErr-b.forcedErr) > 1e-12*math.Max(1, b.forcedErr) || a.byCircuits != b.byCircuits {
			t.Errorf("instance %d: coordinates force %d (rows %v, err %g, circuits %d), the general rule %d (rows %v, err %g, circuits %d)",
				i, a.forced, a.rows, a.forcedErr, a.byCircuits, b.forced, b.rows, b.forcedErr, b.byCircuits)
		}
	}
	t.Logf("%d instances: rows forced in %d, all of them bounds held as coordinates in %d", n, forced, coordCases)
	if forced < n/4 || coordCases < n/4 {
		t.Errorf("rows forced in %d, all as coordinates in %d of %d instances: too few to test the rule", forced, coordCases, n)
	}
}

// symHess returns the Hessian oracle of ½yᵀQy (Q symmetrized).
func symHess(Q [][]float64) func(h *mat.SymDense, _ []float64) {
	return func(h *mat.SymDense, _ []float64) {
		for a := range Q {
			for b := a; b < len(Q); b++ {
				h.SetSym(a, b, 0.5*(Q[a][b]+Q[b][a]))
			}
		}
	}
}

// forcedBoxCase draws a box QP ½yᵀQy + gᵀy at a point x with most coordinates at a bound,
// the gradient there pointing out of the box by multipliers of either side of the forcing
// cost ρ‖Meⱼ‖, the box translated and rescaled, and in a third of the cases a general row
// or two beside the bounds (some through x).
func forcedBoxCase(t *testing.T, rng *rand.Rand, i int) (*Constraints, []float64, Problem, Settings) {
	d := 2 + rng.IntN(11)
	shift, scale := rng.NormFloat64()*math.Pow(10, float64(rng.IntN(5))), math.Pow(10, float64(rng.IntN(5)-2))
	lo, hi, x := make([]float64, d), make([]float64, d), make([]float64, d)
	Q := make([][]float64, d)
	for a := range Q {
		Q[a] = make([]float64, d)
		for b := range Q[a] {
			Q[a][b] = rng.NormFloat64() * scale
		}
	}
	g := make([]float64, d)
	r := 0.1 * scale
	for j := range x {
		lo[j], hi[j] = shift-scale, shift+scale
		switch k := rng.IntN(5); {
		case k == 0: // interior
			x[j] = shift + 0.3*scale*rng.NormFloat64()
			g[j] = rng.NormFloat64() * 0.01 * scale
		default: // at a bound, pushed out by a multiplier around ρ‖Qeⱼ‖ ≈ r·√d·scale
			sigma := float64(1 - 2*rng.IntN(2))
			x[j] = shift + sigma*scale
			if sigma > 0 {
				x[j] = hi[j]
			} else {
				x[j] = lo[j]
			}
			g[j] = -sigma * r * math.Sqrt(float64(d)) * scale * 3 * rng.Float64()
		}
	}
	grad := func(gr, y []float64) { // Q(y − x) + g: the gradient g at x
		for a := range gr {
			gr[a] = g[a]
			for b := range y {
				gr[a] += 0.5 * (Q[a][b] + Q[b][a]) * (y[b] - x[b])
			}
		}
	}
	P := Polyhedron{Lower: lo, Upper: hi}
	if i%3 == 0 { // a general row through x or near it
		m := 1 + rng.IntN(2)
		A := mat.NewDense(m, d, nil)
		B := make([]float64, m)
		for k := 0; k < m; k++ {
			for j := 0; j < d; j++ {
				A.Set(k, j, rng.NormFloat64())
			}
			B[k] = mat.Dot(A.RowView(k), mat.NewVecDense(d, x)) + float64(rng.IntN(2))*0.05*r
		}
		P.A, P.B = A, B
	}
	c, err := NewPolyhedron(P)
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{Delta: 0.01 * scale * scale, Radius: r}
	return c, x, Problem{Grad: grad, Hess: symHess(Q)}, s
}

// TestForcedCostsViolatedRows cross-checks forcedCosts and forcedCostsCoords by dense
// sampling where x violates held bounds within the feasibility tolerance (holdForcedRows's
// frame at x, offsets sₖ = −uₖ < 0): box QPs with x outside some bounds by up to 0.4r
// (FeasTol = 0.05), the Hessian's diagonal often negative on them. For each sampled z of
// the disc with A_E z ≤ s and each held row i with tᵢ = sᵢ − âᵢ·z > 0, z′ = z + tᵢdᵢ must
// have z′ᵀMdᵢ − ½tᵢNᵢᵢ ≤ cᵢ, the cost both functions return (what condition (c) rests
// on). Without the term Σₖ uₖ·max(0, −Nₖᵢ) of the second bound the test fails.
func TestForcedCostsViolatedRows(t *testing.T) {
	n, samples := 400, 4000
	if testing.Short() {
		n = 100
	}
	rng := rand.New(rand.NewPCG(2718, 28))
	checked, out := 0, 0
	for i := range n {
		d := 2 + rng.IntN(3)
		r := 0.1
		lo, hi, x := make([]float64, d), make([]float64, d), make([]float64, d)
		held := make([]bool, d)
		for j := range d {
			lo[j], hi[j] = -1, 1
			if j == 0 || rng.IntN(2) == 0 { // outside a bound by up to 0.4r
				held[j] = true
				x[j] = float64(1-2*rng.IntN(2)) * (1 + 0.4*r*rng.Float64())
			} else {
				x[j] = 0.5 * rng.NormFloat64() * 0.3
			}
		}
		Q := make([][]float64, d)
		for a := range Q {
			Q[a] = make([]float64, d)
		}
		for a := range d {
			for b := a; b < d; b++ {
				v := rng.NormFloat64()
				switch {
				case a == b && held[a]:
					v = -math.Abs(v) - 0.5
				case held[a] != held[b]:
					v *= 0.05
				}
				Q[a][b], Q[b][a] = v, v
			}
		}
		g := make([]float64, d)
		for j := range g {
			g[j] = rng.NormFloat64()
		}
		grad := func(gr, y []float64) {
			for a := range gr {
				gr[a] = g[a]
				for b := range y {
					gr[a] += Q[a][b] * (y[b] - x[b])
				}
			}
		}
		c, err := NewBox(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		o, err := New(Problem{Grad: grad, Hess: symHess(Q)}, c, Settings{Delta: 1e-3, Radius: r, FeasTol: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		rn := o.newRun(context.Background(), 0)
		mod, _ := buildModel(x, rn.ev, newRand(0), &o.s, rn.r, MatrixFreeDim, -1)
		w := newWalk(context.Background(), o.c, x, rn.r, mod, &o.s, false)
		var rows []int
		for _, k := range w.forcedCandidates() {
			if w.push(k) {
				rows = append(rows, k)
			}
		}
		fr, ok := w.forcedFrame(rows)
		if !ok || fr.pF != nil || len(rows) == 0 {
			continue
		}
		f := len(rows)
		D := make([][]float64, f)
		for k := range D {
			D[k] = w.basisVec(w.base + k)
		}
		viol := w.forcedViolations(rows, fr)
		costs := [][]float64{
			w.forcedCosts(D, lowerInverse(o.c, rows, D), fr.rho, make([]bool, f), viol),
			w.forcedCostsCoords(f, fr.rho, make([]float64, f), make([]bool, f), viol),
		}
		s := make([]float64, f)
		for k, l := range rows {
			s[k] = w.s[l]
		}
		checked++
		z, zp, Md := make([]float64, d), make([]float64, d), make([]float64, d)
		for range samples {
			for j := range z {
				z[j] = rng.NormFloat64()
			}
			rad := fr.rho
			if rng.IntN(2) == 0 {
				rad *= math.Pow(rng.Float64(), 1/float64(d))
			}
			scale(z, rad/norm(z))
			in := true
			for k := range f {
				in = in && dot(D[k], z) <= s[k]
			}
			if !in {
				continue
			}
			for k := range f {
				tk := s[k] - dot(D[k], z)
				if !(tk > 0) {
					continue
				}
				copy(zp, z)
				axpy(zp, tk, D[k])
				w.mod.mul(Md, D[k])
				val := dot(zp, Md) - 0.5*tk*dot(D[k], Md)
				for m, cs := range costs {
					if val > cs[k]*(1+1e-12)+1e-15 {
						if out++; out <= 5 {
							t.Errorf("instance %d (d=%d, offsets %v), row %d, %s: z′ᵀMdᵢ − ½tᵢNᵢᵢ = %g above the cost %g",
								i, d, s, k, []string{"forcedCosts", "forcedCostsCoords"}[m], val, cs[k])
						}
					}
				}
			}
		}
	}
	t.Logf("%d instances in the frame at x with violated held bounds; %d samples above a cost", checked, out)
	if checked < n/2 {
		t.Errorf("only %d of %d instances had the frame at x", checked, n)
	}
}
