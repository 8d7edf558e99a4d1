package houdini_test

// Issue 12, "make the class visible": the catalogue of internal/bruteforce, translated and
// rescaled by its Transform, against the exhaustive minimum of the untranslated instance.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/houdini-opt/houdini"
	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/mat"
)

// relTransforms are the copies of each catalogue instance: translations by t·1 up to 1e8,
// rows and f rescaled by powers of two and by powers of ten (which round every entry).
var relTransforms = []struct{ t, rows, obj float64 }{
	{0, 1, 1}, {1e3, 1, 1}, {1e6, 1, 1}, {1e8, 1, 1},
	{0, 0x1p-20, 0x1p20}, {0, 1e-8, 3}, {1e5, 1e3, 1e-3}, {1e8, 0x1p-27, 0x1p27},
}

// TestEscapeTransformedBruteForce runs Escape on catalogue instances of internal/bruteforce
// (every family and model, Case(12, i)) and on each of relTransforms's copies, and holds
// every verdict to bruteforce.Min of the untranslated instance at tolerance 1e-14·R (an
// exhaustive enumeration that shares no code with the package; see its doc), m below.
// δ is set from m so the verdict is clear: δ = −m/4 (a third of the instances: a decrease
// of 4δ exists, so a certificate is false and the escape must move), δ = −4m (a
// certificate is expected, a move is allowed), or 10⁻²·scale where m ≈ 0. A copy's δ is
// objScale·δ. Every move must lie within FeasTol of the copy's rows (exact arithmetic),
// within r, and lower f by more than δ/3; no escape may end undecided or with the
// precision outcome (these scales are decidable: r ≥ 0.05 ≫ 10⁸·ε). Copies whose rows
// NewConstraints calls empty, or whose x one float64 evaluation calls infeasible, are
// counted and skipped: the rounding of a translation can close an equality's slab (the
// bruteforce doc's pitfall), and judging that is the polyhedron's concern. Half the
// instances give the set as rows alone (equalities as opposite pairs, bounds as rows),
// half by NewPolyhedron with first-class equalities and bounds. 2400 instances, 400 under
// -short.
func TestEscapeTransformedBruteForce(t *testing.T) {
	n := 2400
	if testing.Short() {
		n = 400
	}
	ctx := context.Background()
	counts := map[string]int{}
	failures := 0
	for i := 0; i < n; i++ {
		base := bruteforce.Case(12, i)
		bp := base.Problem()
		bp.Tol = 1e-14
		m := bruteforce.Min(bp).Value
		scale := relNorm(base.G)*base.R + float64(base.Dim())*hMax(base.Q)*base.R*base.R + 1e-300
		var delta float64
		kind := i % 3
		switch {
		case m > -1e-6*scale:
			kind, delta = 2, 1e-2*scale
		case kind == 0:
			delta = -m / 4
		default:
			kind, delta = 1, -4*m
		}
		withHess, firstClass := i%4 != 3, i%2 == 1
		for _, tr := range relTransforms {
			in := base.Transform(tr.t, tr.rows, tr.obj)
			v, why := relTransformedVerdict(ctx, in, delta*tr.obj, m*tr.obj, kind, withHess, firstClass)
			counts[fmt.Sprintf("%-22s %s", []string{"must move", "certificate expected", "m ≈ 0"}[kind], v)]++
			if why != "" {
				failures++
				if failures <= 20 {
					t.Errorf("%s, Hess %v, δ = %.4g, m = %.4gδ: %s", in.Name, withHess, delta*tr.obj, m/delta, why)
				}
			}
		}
	}
	for k, c := range counts {
		t.Logf("%s: %d", k, c)
	}
	if failures > 0 {
		t.Errorf("%d wrong verdicts in %d escapes", failures, n*len(relTransforms))
	}
}

// relTransformedVerdict runs one Escape of the instance and returns its verdict and why it
// is wrong ("" when it is not), m being the base minimum in the copy's units. The set is
// given as rows alone (equalities as opposite pairs, bounds as rows) or, firstClass, by
// NewPolyhedron with its equalities and bounds.
func relTransformedVerdict(ctx context.Context, in *bruteforce.Instance, delta, m float64, kind int, withHess, firstClass bool) (verdict, why string) {
	A, b := relTransformedRows(in)
	c, err := relTransformedSet(in, A, b, firstClass)
	if errors.Is(err, houdini.ErrEmpty) {
		return "rows called empty (skipped)", ""
	} else if err != nil {
		return "error", fmt.Sprintf("NewPolyhedron: %v", err)
	}
	p := houdini.Problem{Func: in.Func, Grad: in.Grad}
	if withHess {
		p.Hess = func(h *mat.SymDense, _ []float64) {
			for i := range in.Q {
				for j := i; j < len(in.Q); j++ {
					h.SetSym(i, j, in.Q[i][j])
				}
			}
		}
	}
	o, err := houdini.New(p, c, houdini.Settings{Delta: delta, Radius: in.R, MaxSubsets: 1 << 16})
	if err != nil {
		return "error", fmt.Sprintf("New: %v", err)
	}
	e, err := o.Escape(ctx, in.X)
	var inf *houdini.InfeasibleError
	if errors.As(err, &inf) && inf.Violation <= 8*relEps*relNorm(in.X) {
		return "start called infeasible (skipped)", ""
	}
	verdict = relVerdict(e, err)
	switch verdict {
	case "move":
		return verdict, relCheckTransformedMove(in, A, b, e.X, delta)
	case "certified":
		limit := delta / 2 * (1 + 1e-6)
		if !withHess {
			limit = delta * (1 + 1e-3) // the finite-difference model is held to def:sosp's δ
		}
		if m < -limit {
			return verdict, fmt.Sprintf("false certificate: S holds a decrease of %.4gδ (bruteforce.Min)", -m/delta)
		}
		return verdict, ""
	case "error":
		return verdict, fmt.Sprintf("Escape: %v", err)
	}
	return verdict, fmt.Sprintf("the escape ended %s (numerical failure %v) on a decidable instance", verdict, e.NumericalFailure)
}

// relTransformedSet returns the instance's set: NewConstraints(A, b) of the rows alone, or
// NewPolyhedron of its parts when firstClass; nil without constraints.
func relTransformedSet(in *bruteforce.Instance, A [][]float64, b []float64, firstClass bool) (*houdini.Constraints, error) {
	if len(A) == 0 {
		return nil, nil
	}
	if !firstClass {
		return houdini.NewConstraints(relDense(A), b)
	}
	P := houdini.Polyhedron{Lower: in.Lower, Upper: in.Upper}
	if len(in.A) > 0 {
		P.A, P.B = relDense(in.A), in.B
	}
	if len(in.Aeq) > 0 {
		P.Aeq, P.Beq = relDense(in.Aeq), in.Beq
	}
	return houdini.NewPolyhedron(P)
}

// relTransformedRows returns the instance's rows as houdini takes them: A, each equality
// as two opposite rows, and the finite bounds as rows ±eⱼ.
func relTransformedRows(in *bruteforce.Instance) (A [][]float64, b []float64) {
	A, b = append(A, in.A...), append(b, in.B...)
	for i, a := range in.Aeq {
		neg := make([]float64, len(a))
		for j := range a {
			neg[j] = -a[j]
		}
		A, b = append(A, a, neg), append(b, in.Beq[i], -in.Beq[i])
	}
	d := in.Dim()
	for j := 0; j < d; j++ {
		for _, s := range []float64{1, -1} {
			bound := in.Upper
			if s < 0 {
				bound = in.Lower
			}
			if bound == nil || math.IsInf(bound[j], 0) {
				continue
			}
			e := make([]float64, d)
			e[j] = s
			A, b = append(A, e), append(b, s*bound[j])
		}
	}
	return A, b
}

// relCheckTransformedMove returns why the move to X is invalid, or "".
func relCheckTransformedMove(in *bruteforce.Instance, A [][]float64, b []float64, X []float64, delta float64) string {
	for i, a := range A {
		if v := relScaledViolation(a, b[i], X, 1e-9); v > 8*relEps*(relNorm(X)+math.Abs(b[i])/relNorm(a)) {
			return fmt.Sprintf("the move to %v violates row %d by %g beyond FeasTol", X, i, v)
		}
	}
	if n := relNorm(relDiff(X, in.X)); !(n <= in.R*(1+1e-12)) {
		return fmt.Sprintf("the move has length %.17g > r = %g", n, in.R)
	}
	if dec := in.Func(in.X) - in.Func(X); !(dec > delta/3) {
		return fmt.Sprintf("the move lowers f by %g, not more than δ/3 = %g", dec, delta/3)
	}
	return ""
}
