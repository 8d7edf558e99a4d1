package houdini_test

// The polyhedron layer against internal/bruteforce: one escape per seeded instance of its
// generators, with the feasible set given in four forms that must mean the same set —
// equalities first-class, equalities as two opposite rows, bounds as rows, everything as
// rows — and at translated and rescaled copies. Each verdict is checked against the
// exhaustive minimum of the (exact, quadratic) model over S ∩ B(x, r).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini"
	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/mat"
)

// polyForm is one way of stating an instance's feasible set.
type polyForm int

const (
	formFirstClass   polyForm = iota // bounds, rows and equalities as NewPolyhedron's parts
	formEqAsRows                     // each equality as two opposite rows
	formBoundsAsRows                 // each finite bound as a row ±eⱼ
	formAllRows                      // NewConstraints: everything as rows
	numPolyForms
)

var polyFormNames = [numPolyForms]string{"first-class", "equalities as rows", "bounds as rows", "all rows"}

// polyRows returns the rows A, b of the form (what NewPolyhedron does not get as bounds
// or equalities).
func polyRows(in *bruteforce.Instance, f polyForm) (A [][]float64, b []float64) {
	A, b = append(A, in.A...), append(b, in.B...)
	if f == formEqAsRows || f == formAllRows {
		for i, a := range in.Aeq {
			neg := make([]float64, len(a))
			for j := range a {
				neg[j] = -a[j]
			}
			A, b = append(A, a, neg), append(b, in.Beq[i], -in.Beq[i])
		}
	}
	if f == formBoundsAsRows || f == formAllRows {
		d := in.Dim()
		for j := 0; j < d; j++ {
			if in.Upper != nil && !math.IsInf(in.Upper[j], 1) {
				e := make([]float64, d)
				e[j] = 1
				A, b = append(A, e), append(b, in.Upper[j])
			}
			if in.Lower != nil && !math.IsInf(in.Lower[j], -1) {
				e := make([]float64, d)
				e[j] = -1
				A, b = append(A, e), append(b, -in.Lower[j])
			}
		}
	}
	return A, b
}

// polyConstraints states the instance's set in form f (nil: no constraint at all).
func polyConstraints(in *bruteforce.Instance, f polyForm) (*houdini.Constraints, error) {
	A, b := polyRows(in, f)
	var P houdini.Polyhedron
	if len(A) > 0 {
		P.A, P.B = relDense(A), b
	}
	if f == formFirstClass || f == formBoundsAsRows {
		if len(in.Aeq) > 0 {
			P.Aeq, P.Beq = relDense(in.Aeq), in.Beq
		}
	}
	if f == formFirstClass || f == formEqAsRows {
		P.Lower, P.Upper = in.Lower, in.Upper
	}
	if P.A == nil && P.Aeq == nil && P.Lower == nil && P.Upper == nil {
		return nil, nil
	}
	return houdini.NewPolyhedron(P)
}

// polyProblem is the instance's quadratic with its exact Hessian.
func polyProblem(in *bruteforce.Instance) houdini.Problem {
	d := in.Dim()
	H := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			H.SetSym(i, j, 0.5*(in.Q[i][j]+in.Q[j][i]))
		}
	}
	return houdini.Problem{Func: in.Func, Grad: in.Grad, Hess: func(h *mat.SymDense, _ []float64) { h.CopySym(H) }}
}

// polyScale is the range of the model on the ball, ‖g‖R + ‖Q‖_max·d·R²: the size of the
// rounding allowances below.
func polyScale(in *bruteforce.Instance) float64 {
	q := 0.0
	for _, row := range in.Q {
		for _, v := range row {
			q = math.Max(q, math.Abs(v))
		}
	}
	return relNorm(in.G)*in.R + q*float64(in.Dim())*in.R*in.R
}

// polyMoveViolation returns the largest violation of X for the instance's data as stored,
// each row scaled to unit norm and the residual exact, beyond the FeasTol test.
func polyMoveViolation(in *bruteforce.Instance, X []float64, feasTol float64) float64 {
	worst := math.Inf(-1)
	check := func(a []float64, b float64, eq bool) {
		n := relNorm(a)
		v := relResidual(a, X, b) / n
		if eq {
			v = math.Abs(v)
		}
		scale := 0.0
		for j := range a {
			scale += math.Abs(a[j] / n * X[j])
		}
		worst = math.Max(worst, v-feasTol*math.Max(1, math.Abs(b/n))-4*0x1p-52*(math.Abs(b/n)+scale))
	}
	for i, a := range in.A {
		check(a, in.B[i], false)
	}
	for i, a := range in.Aeq {
		check(a, in.Beq[i], true)
	}
	A, b := polyRows(&bruteforce.Instance{X: X, Lower: in.Lower, Upper: in.Upper}, formBoundsAsRows)
	for i, a := range A {
		check(a, b[i], false)
	}
	return worst
}

// polyTally counts verdicts per form.
type polyTally struct {
	certified, found, neither, falseCert, missed, badMove int
	forced                                                int // escapes that held forced rows
	circuits                                              int // of which by the circuit rule
}

// polyCheck runs one escape of the instance in form f with δ = delta and returns what
// contradicts the brute force (truth is Min's value of the model change), or "".
func polyCheck(in *bruteforce.Instance, f polyForm, delta, truth float64, tl *polyTally) string {
	c, err := polyConstraints(in, f)
	if err != nil {
		return fmt.Sprintf("%s: constructor: %v (X is in S)", polyFormNames[f], err)
	}
	o, err := houdini.New(polyProblem(in), c, houdini.Settings{Delta: delta, Radius: in.R, MaxSubsets: 1 << 20})
	if err != nil {
		return err.Error()
	}
	if f == formAllRows {
		o.UseLagrangeBound() // off by default; checked here on every instance's second form
	}
	o.UseConeEverywhere() // by default only from coneMinRows rows on
	e, err := o.Escape(context.Background(), in.X)
	if err != nil {
		return fmt.Sprintf("%s: Escape at X: %v", polyFormNames[f], err)
	}
	slack := 1e-7 * polyScale(in)
	if e.Forced > 0 {
		tl.forced++
		if o.ForcedByCircuits(in.X) > 0 {
			tl.circuits++
		}
	}
	switch {
	case e.Found:
		tl.found++
		h := relDiff(e.X, in.X)
		dec := in.Func(in.X) - in.Func(e.X)
		if v := polyMoveViolation(in, e.X, 1e-9); v > 0 || relNorm(h) > in.R*(1+1e-9) || !(dec > delta/3) {
			tl.badMove++
			return fmt.Sprintf("%s: move violates S by %g beyond FeasTol, length %g of r = %g, decrease %g (δ/3 = %g)",
				polyFormNames[f], v, relNorm(h), in.R, dec, delta/3)
		}
	case e.Certified:
		tl.certified++
		if truth < -delta/2-slack {
			tl.falseCert++
			return fmt.Sprintf("%s: false certificate: the model reaches %g < −δ/2 = %g in S ∩ B", polyFormNames[f], truth, -delta/2)
		}
	default:
		tl.neither++
	}
	if !e.Found && e.Complete && truth <= -1.2*delta {
		tl.missed++
		return fmt.Sprintf("%s: missed escape: complete walk, no move, but the model reaches %g ≤ −1.2δ", polyFormNames[f], truth)
	}
	return ""
}

// TestEscapeFormsAgainstBruteForce (issue 14 item 1; issue 12 defects 5 and 6): thousands
// of seeded instances of internal/bruteforce's families (simplex, budget, balanced box,
// general rows, degenerate, near-parallel), each escaped in the four forms of its feasible set, at δ
// chosen so that the exhaustive minimum m of the model is −2δ (an escape is required),
// −δ or −δ/1.9 (no certificate), −δ/2.1, −δ/4 or −δ/10 (a certificate allowed), and at
// a translated and rescaled copy. No form may certify where m < −δ/2, miss an escape where m ≤ −1.2δ after
// a complete walk, or return a move that is infeasible (checked exactly), longer than r
// or lowers f by δ/3 or less.
func TestEscapeFormsAgainstBruteForce(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 250
	}
	fams := []bruteforce.Family{bruteforce.Simplex, bruteforce.Budget, bruteforce.BalancedBox,
		bruteforce.GeneralRows, bruteforce.Degenerate, bruteforce.NearParallel}
	ratios := []float64{0.5, 1, 1.9, 2.1, 4, 10}
	tallies := make([]polyTally, numPolyForms)
	instances, bad := 0, 0
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(14, uint64(i)))
		base := bruteforce.Generate(rng, bruteforce.Spec{
			Family: fams[i%len(fams)], Model: bruteforce.Model(i / len(fams) % int(bruteforce.NumModels))})
		for _, tr := range []struct{ t, rows, obj float64 }{{0, 1, 1}, {[]float64{10, 1e3}[i%2], []float64{1e-3, 1e3}[i/2%2], []float64{1e-2, 1e2}[i/4%2]}} {
			in := base.Transform(tr.t, tr.rows, tr.obj)
			truth := bruteforce.Min(in.Problem()).Value
			if math.IsInf(truth, 0) || truth >= -1e-6*polyScale(in) {
				continue // x is the minimum on the ball: nothing to find, δ arbitrary
			}
			delta := -truth * ratios[i%len(ratios)]
			instances++
			for f := polyForm(0); f < numPolyForms; f++ {
				if msg := polyCheck(in, f, delta, truth, &tallies[f]); msg != "" {
					bad++
					if bad <= 10 {
						t.Errorf("instance %d (%s), δ = %g: %s", i, in.Name, delta, msg)
					}
				}
			}
		}
	}
	for f, tl := range tallies {
		t.Logf("%-18s certified %4d, moved %4d, neither %3d; false certificates %d, missed escapes %d, bad moves %d",
			polyFormNames[f], tl.certified, tl.found, tl.neither, tl.falseCert, tl.missed, tl.badMove)
	}
	t.Logf("%d instances × %d forms (of %d generated, with copies)", instances, numPolyForms, 2*n)
	if bad > 0 {
		t.Errorf("%d verdicts contradict the brute force", bad)
	}
}

// TestNewPolyhedronFormsAgree: the four forms of an instance's set have the same
// feasibility verdict at random points near X (Violation within FeasTol or not, away
// from the boundary band), and the same dimension.
func TestNewPolyhedronFormsAgree(t *testing.T) {
	n := 500
	if testing.Short() {
		n = 100
	}
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(15, uint64(i)))
		in := bruteforce.Generate(rng, bruteforce.Spec{Family: bruteforce.Family(i % int(bruteforce.NumFamilies))})
		var cs [numPolyForms]*houdini.Constraints
		for f := range cs {
			c, err := polyConstraints(in, polyForm(f))
			if err != nil && !errors.Is(err, houdini.ErrEmpty) {
				t.Fatalf("instance %d, %s: %v", i, polyFormNames[f], err)
			}
			cs[f] = c
		}
		for trial := 0; trial < 20; trial++ {
			y := append([]float64(nil), in.X...)
			for j := range y {
				y[j] += in.R * rng.NormFloat64() * []float64{1e-3, 0.3}[trial%2]
			}
			ref := polyMoveViolation(in, y, 1e-9)
			if math.Abs(ref) < 1e-6*in.R {
				continue // in the band: either verdict is right
			}
			for f, c := range cs {
				if c == nil {
					continue
				}
				_, v := c.Violation(y)
				if (v > 0) != (ref > 0) {
					t.Errorf("instance %d (%s), %s: Violation(y) = %g, exact check %g", i, in.Name, polyFormNames[f], v, ref)
				}
			}
		}
	}
}

// TestForcedRowsAgainstBruteForce (issue 14 item 2): the forced-row rule by KKT
// multipliers (walk.holdForcedRows) against exhaustive enumeration. Instances of every
// family of internal/bruteforce with the KKT model (−G in the cone of the active normals,
// a third of the multipliers zero), and with the other models, have their gradient
// scaled by 1, 16, 256 or 4096 so that multipliers from small to dominant occur, and are
// escaped as given and as a translated, rescaled copy, in the first-class and the
// all-rows forms, at δ = −m·{0.5, 1, 1.9, 2.1, 4, 10} (m the exhaustive minimum): no
// false certificate, no missed escape after a complete walk, no bad move; and the rule
// must fire (rows forced) in a good share of the escapes, bounds beside equalities and
// rows decided by circuits (circuits.go) included. 3000 instances, 600 under -short.
func TestForcedRowsAgainstBruteForce(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	fams := []bruteforce.Family{bruteforce.Simplex, bruteforce.Budget, bruteforce.BalancedBox,
		bruteforce.GeneralRows, bruteforce.Degenerate, bruteforce.NearParallel}
	tl, instances := forcedBruteForce(t, n, fams, 1414)
	if tl.forced < instances/10 || tl.circuits < instances/100 {
		t.Errorf("the instances do not exercise the rule enough: forced in %d, by circuits in %d, of %d",
			tl.forced, tl.circuits, instances)
	}
}

// TestCircuitRowsAgainstBruteForce is TestForcedRowsAgainstBruteForce on the balanced box,
// the simplex and the budget alone, where the circuit rule (circuits.go) decides bounds
// beside the equality or the budget. 1500 instances, 300 under -short.
func TestCircuitRowsAgainstBruteForce(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 300
	}
	tl, instances := forcedBruteForce(t, n, []bruteforce.Family{bruteforce.BalancedBox, bruteforce.Simplex, bruteforce.Budget}, 1416)
	if tl.circuits < instances/25 {
		t.Errorf("the instances do not exercise the circuit rule enough: %d of %d", tl.circuits, instances)
	}
}

// forcedBruteForce runs the escapes of TestForcedRowsAgainstBruteForce for n instances of
// the families, seeded by seed, and returns the first-class form's tally and the number
// of instances.
func forcedBruteForce(t *testing.T, n int, fams []bruteforce.Family, seed uint64) (polyTally, int) {
	ratios := []float64{0.5, 1, 1.9, 2.1, 4, 10}
	var tl [numPolyForms]polyTally
	instances, bad := 0, 0
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		model := bruteforce.KKT
		if i%3 == 2 {
			model = bruteforce.Model(rng.IntN(int(bruteforce.NumModels)))
		}
		base := bruteforce.Generate(rng, bruteforce.Spec{Family: fams[i%len(fams)], Model: model})
		g := []float64{1, 16, 256, 4096}[i/len(fams)%4]
		for j := range base.G {
			base.G[j] *= g
		}
		for _, tr := range []struct{ t, rows, obj float64 }{{0, 1, 1}, {[]float64{10, 1e3}[i%2], []float64{1e-3, 1e3}[i/2%2], []float64{1e-2, 1e2}[i/4%2]}} {
			in := base.Transform(tr.t, tr.rows, tr.obj)
			truth := bruteforce.Min(in.Problem()).Value
			if math.IsInf(truth, 0) || truth >= -1e-6*polyScale(in) {
				continue
			}
			delta := -truth * ratios[i%len(ratios)]
			instances++
			for _, f := range []polyForm{formFirstClass, formAllRows} {
				if msg := polyCheck(in, f, delta, truth, &tl[f]); msg != "" {
					bad++
					if bad <= 10 {
						t.Errorf("instance %d (%s, gradient ×%g), δ = %g: %s", i, in.Name, g, delta, msg)
					}
				}
			}
		}
	}
	for _, f := range []polyForm{formFirstClass, formAllRows} {
		x := tl[f]
		t.Logf("%-18s certified %4d, moved %4d, neither %3d, rows forced in %4d (by circuits in %d); false certificates %d, missed escapes %d, bad moves %d",
			polyFormNames[f], x.certified, x.found, x.neither, x.forced, x.circuits, x.falseCert, x.missed, x.badMove)
	}
	t.Logf("%d instances × 2 forms", instances)
	if bad > 0 {
		t.Errorf("%d verdicts contradict the brute force", bad)
	}
	return tl[formFirstClass], instances
}

// TestCertifiedRadiusAgainstBruteForce (issue 14 item 4): with MaxSubsets so small that
// the walk at r stops short, an escape may still report a certified radius r′ < r; the
// exhaustive minimum of the model over S ∩ B(x, r′) must then be above −δ/2, and a move
// found at r′ must be a genuine one. Seeded instances of every family, with δ at −m/4,
// −m and −4m (m the minimum at r) and their translated, rescaled copies. 1500 instances,
// 300 under -short.
func TestCertifiedRadiusAgainstBruteForce(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 300
	}
	fams := []bruteforce.Family{bruteforce.Simplex, bruteforce.Budget, bruteforce.BalancedBox,
		bruteforce.GeneralRows, bruteforce.Degenerate, bruteforce.NearParallel}
	var shrunk, moved, tried, bad int
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(1415, uint64(i)))
		base := bruteforce.Generate(rng, bruteforce.Spec{Family: fams[i%len(fams)],
			Model: bruteforce.Model(rng.IntN(int(bruteforce.NumModels)))})
		tr := [][3]float64{{0, 1, 1}, {1e3, 1e-3, 1e2}, {10, 1e3, 1e-2}}[i%3]
		in := base.Transform(tr[0], tr[1], tr[2])
		m := bruteforce.Min(in.Problem()).Value
		scale := polyScale(in)
		if math.IsInf(m, 0) || m >= -1e-6*scale {
			continue
		}
		delta := -m * []float64{0.25, 1, 4}[i/3%3]
		c, err := polyConstraints(in, polyForm(i%int(numPolyForms)))
		if err != nil {
			t.Fatal(err)
		}
		o, err := houdini.New(polyProblem(in), c, houdini.Settings{Delta: delta, Radius: in.R, MaxSubsets: 1 + i%3})
		if err != nil {
			t.Fatal(err)
		}
		e, err := o.Escape(context.Background(), in.X)
		if err != nil {
			t.Fatal(err)
		}
		tried++
		if e.Found {
			moved++
			dec := in.Func(in.X) - in.Func(e.X)
			if v := polyMoveViolation(in, e.X, 1e-9); v > 0 || relNorm(relDiff(e.X, in.X)) > in.R*(1+1e-9) || !(dec > delta/3) {
				bad++
				t.Errorf("instance %d (%s): bad move: violation %g, decrease %g (δ/3 = %g)", i, in.Name, v, dec, delta/3)
			}
			continue
		}
		if e.Certified || e.CertifiedRadius == 0 {
			continue
		}
		shrunk++
		if !(e.CertifiedRadius < in.R) {
			t.Errorf("instance %d: certified radius %g not below r = %g", i, e.CertifiedRadius, in.R)
		}
		small := *in
		small.R = e.CertifiedRadius
		if truth := bruteforce.Min(small.Problem()).Value; truth < -delta/2-1e-7*scale {
			bad++
			t.Errorf("instance %d (%s): false certificate at r′ = %g: the model reaches %g < −δ/2 = %g",
				i, in.Name, e.CertifiedRadius, truth, -delta/2)
		}
	}
	t.Logf("%d escapes with MaxSubsets ≤ 3: %d moved, %d certified at a smaller radius only; %d wrong", tried, moved, shrunk, bad)
	if shrunk < tried/20 {
		t.Errorf("the instances do not exercise the certified radius enough: %d of %d", shrunk, tried)
	}
}
