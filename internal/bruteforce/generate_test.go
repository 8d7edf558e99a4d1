package bruteforce

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// activeRows returns the inequality rows of p through h = 0 (offset ≤ 1e-12·R).
func activeRows(p *Problem) []int {
	var act []int
	for i, a := range p.A {
		if n := norm(a); n > 0 && p.B[i] <= 1e-12*n*p.R {
			act = append(act, i)
		}
	}
	return act
}

// TestGenerateFeatures checks that each family and model builds what its doc promises,
// on 1080 catalogue instances (twenty of every family and model pair), and that an
// instance is rebuilt bit for bit from its seed and index.
func TestGenerateFeatures(t *testing.T) {
	const seed, count = 11, 1080
	var overdet, pairs, nearPar, sumRows, boundRows int
	for i := range count {
		in := Case(seed, i)
		fam, mod := Family(i%int(NumFamilies)), Model(i/int(NumFamilies)%int(NumModels))
		if again := Case(seed, i); !reflect.DeepEqual(in, again) {
			t.Fatalf("%s: Case is not deterministic", in.Name)
		}
		p := in.Problem()
		d := in.Dim()
		if d < 1 || d > MaxDim || (fam != GeneralRows && fam != Budget && d < 2) {
			t.Errorf("%s: d = %d", in.Name, d)
		}
		act := activeRows(&p)
		switch fam {
		case Simplex, BalancedBox:
			hasEq := len(p.Aeq) == 1
			if !hasEq && len(in.A) >= 2 {
				hasEq, sumRows = true, sumRows+1
			}
			if !hasEq {
				t.Errorf("%s: no sum constraint", in.Name)
			}
		case Degenerate:
			if len(act)+len(p.Aeq) > d {
				overdet++
			}
		case NearParallel:
			nearPar += minAngleBelow(p.A, 1e-9)
		}
		if in.Lower == nil && fam != GeneralRows && fam != Degenerate && fam != NearParallel {
			boundRows++
		}
		if fam == Degenerate && hasOppositePair(p.A, p.B) {
			pairs++
		}
		checkModel(t, in, &p, fam, mod)
	}
	t.Logf("degenerate with more active rows than d: %d; with a zero-width opposite pair: %d; near-parallel pairs below 1e-9: %d; sums as rows: %d; bounds as rows: %d",
		overdet, pairs, nearPar, sumRows, boundRows)
	if overdet < 40 || pairs < 20 || nearPar < 60 || sumRows < 20 || boundRows < 20 {
		t.Errorf("the catalogue lacks a degenerate feature (counts above)")
	}
	if in := Generate(rand.New(rand.NewPCG(1, 1)), Spec{Family: Budget, Model: Convex, Dim: 9}); in.Dim() != 9 {
		t.Errorf("Spec.Dim = 9 gave d = %d", in.Dim())
	}
}

// minAngleBelow returns 1 when two rows of A are parallel or opposite within angle tol,
// and not exactly; else 0. The angle is measured as ‖uᵢ ∓ uⱼ‖ of the unit rows, which
// keeps its accuracy where 1 − cos does not.
func minAngleBelow(A [][]float64, tol float64) int {
	for i := range A {
		ui := scaled(A[i], 1/norm(A[i]))
		for j := i + 1; j < len(A); j++ {
			uj := scaled(A[j], 1/norm(A[j]))
			s := math.Min(norm(axpy(-1, uj, ui)), norm(axpy(1, uj, ui)))
			if s < tol && s > 0 {
				return 1
			}
		}
	}
	return 0
}

// hasOppositePair reports whether two rows are opposite with both offsets zero: an
// equality written as two inequalities.
func hasOppositePair(A [][]float64, B []float64) bool {
	for i := range A {
		for j := i + 1; j < len(A); j++ {
			c := dot(A[i], A[j]) / (norm(A[i]) * norm(A[j]))
			if c < -1+1e-15 && math.Abs(B[i]) <= 1e-15*norm(A[i]) && math.Abs(B[j]) <= 1e-15*norm(A[j]) {
				return true
			}
		}
	}
	return false
}

// checkModel checks the promises of the model's doc: G = 0 for ZeroGradient; G ⊥ the
// lowest eigenspace of Q for HardCase (and nearly for NearHard), unless that is all of
// ℝᵈ; Q = 0 for Linear; the signs of Q's eigenvalues; and for KKT, that X is a KKT point
// of the linear model, i.e. min Gᵀh over S ∩ B is 0, which Min with Q = 0 decides (to
// 1e-9·‖G‖R for NearParallel, whose nearly active rows are active within Min's
// tolerance but not in the multipliers).
func checkModel(t *testing.T, in *Instance, p *Problem, fam Family, m Model) {
	t.Helper()
	d := in.Dim()
	sym := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			sym.SetSym(i, j, in.Q[i][j])
		}
	}
	var es mat.EigenSym
	es.Factorize(sym, true)
	lam := es.Values(nil)
	var W mat.Dense
	es.VectorsTo(&W)
	gn := norm(in.G)
	switch m {
	case ZeroGradient:
		if gn != 0 {
			t.Errorf("%s: ‖G‖ = %g", in.Name, gn)
		}
	case HardCase, NearHard:
		limit := 1e-12 * gn
		if m == NearHard {
			limit = 1e-7 * gn
		}
		for k := 0; k < d && lam[k]-lam[0] < 1e-9 && lam[d-1]-lam[0] > 1e-9; k++ {
			if w := math.Abs(mat.Dot(W.ColView(k), mat.NewVecDense(d, in.G))); w > limit {
				t.Errorf("%s: G has %g on the lowest eigenspace (‖G‖ = %g)", in.Name, w, gn)
			}
		}
		if lam[0] >= 0 {
			t.Errorf("%s: lowest eigenvalue %g, want negative", in.Name, lam[0])
		}
	case Linear:
		if lam[0] != 0 || lam[d-1] != 0 {
			t.Errorf("%s: Q ≠ 0", in.Name)
		}
	case Convex:
		if lam[0] < -1e-12 {
			t.Errorf("%s: convex model with λ_min = %g", in.Name, lam[0])
		}
	case Concave:
		if lam[d-1] > -0.05 {
			t.Errorf("%s: concave model with λ_max = %g", in.Name, lam[d-1])
		}
	case KKT:
		lin := *p
		lin.Q = make([][]float64, d)
		for i := range lin.Q {
			lin.Q[i] = make([]float64, d)
		}
		tol := 1e-12
		if fam == NearParallel {
			tol = 1e-9
		}
		if r := Min(lin); r.Value < -tol*gn*p.R {
			t.Errorf("%s: X is not a KKT point: Gᵀh = %g at h = %v", in.Name, r.Value, r.H)
		}
	}
}

// TestTransform checks Instance.Transform: offsets in distance units survive within the
// rounding of each right-hand side; Transform(0, 1, 1) changes nothing; and, where that
// rounding is far below τ (|t| ≤ 1e3), the minimum scales with the objective, on every
// family but NearParallel, whose slivers change shape under any perturbation.
func TestTransform(t *testing.T) {
	count := 300
	if testing.Short() {
		count = 90
	}
	p2 := math.Ldexp
	type tf struct{ t, s, o float64 }
	var tfs []tf
	for _, tr := range []float64{0, 1e3, 1e6, 1e8} {
		for _, s := range []float64{1, p2(1, -27), p2(1, 27), 1e-8, 1e8} {
			tfs = append(tfs, tf{tr, s, []float64{p2(1, -27), 1e8}[len(tfs)%2]})
		}
	}
	for i := range count {
		in := Case(21, i)
		p := in.Problem()
		if id := in.Transform(0, 1, 1).Problem(); !reflect.DeepEqual(id, p) {
			t.Fatalf("%s: Transform(0, 1, 1) changed the problem", in.Name)
		}
		var m Result
		computed := false
		for _, x := range tfs {
			tr := in.Transform(x.t, x.s, x.o)
			pt := tr.Problem()
			checkOffsets(t, in, tr, &p, &pt)
			if x.t > 1e3 || Family(i%int(NumFamilies)) == NearParallel {
				continue
			}
			if !computed {
				m, computed = Min(p), true
			}
			mt := Min(pt)
			if sc := scaleOf(&p); !mt.Feasible || math.Abs(mt.Value/x.o-m.Value) > 1e-9*sc {
				t.Errorf("%s: Min %.12g, translated by %g, rows ×%g, f ×%g: %.12g", in.Name, m.Value, x.t, x.s, x.o, mt.Value/x.o)
			}
		}
	}
}

// checkOffsets checks that the transformed instance's rows are the base rows times s,
// at the same distance from X′ as from X, up to the rounding of a′ᵢ·X′ + s·cᵢ (an ulp
// of each product's size) and of the scaled offset.
func checkOffsets(t *testing.T, in, tr *Instance, p, pt *Problem) {
	t.Helper()
	const eps = 0x1p-52
	check := func(kind string, i int, a, at []float64, c, ct float64, bt float64) {
		na, nt := norm(a), norm(at)
		round := 0.0
		for j := range at {
			round += math.Abs(at[j] * tr.X[j])
		}
		tol := 2*eps*(round+math.Abs(bt))/nt + 2*eps*math.Abs(c)/na + 1e-300
		if math.Abs(ct/nt-c/na) > tol {
			t.Errorf("%s (%s): %s row %d moved from %g to %g (tolerance %g)", in.Name, tr.Name, kind, i, c/na, ct/nt, tol)
		}
	}
	for i := range p.A {
		bt := 0.0
		if i < len(tr.B) {
			bt = tr.B[i]
		}
		check("inequality", i, p.A[i], pt.A[i], p.B[i], pt.B[i], bt)
	}
	for i := range p.Aeq {
		check("equality", i, p.Aeq[i], pt.Aeq[i], p.Beq[i], pt.Beq[i], tr.Beq[i])
	}
}
