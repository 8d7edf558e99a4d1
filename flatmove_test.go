package houdini

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// TestMinimizeFlatMovesAgainstBruteForce: Minimize with and without flat moves
// (Settings.NoFlatMoves) on the planted Motzkin–Straus and standard-quadratic structures
// (review_ms_test.go: flat transfers between cliques, x moved along them, ties), at small
// MaxSubsets so that escapes end undecided. Every end point is feasible; every certificate
// is checked against the exhaustive minimum of f over S ∩ B(X, r) at the end point X
// itself (f is quadratic: the model is f); a run with flat moves never ends higher than
// the same run without them (beyond the moves' allowance d·purifySlack·δ), and where it
// ends undecided it ends at the same point with the same CertifiedRadius. The sweep must
// turn some undecided ends into certificates, or it tests nothing.
func TestMinimizeFlatMovesAgainstBruteForce(t *testing.T) {
	n, seed := reviewSize(480, 480, 31)
	var runs, undecided, rescued, moves, undone int
	for i := range n {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		var in *bruteforce.Instance
		switch i % 3 {
		case 0, 1:
			in = msInstance(rng, msKind(i%int(numMsKinds)), false)
		default:
			in = stqpInstance(rng, false)
		}
		if i%4 != 3 {
			flatTransfer(rng, in)
		}
		c, err := forcedTestSet(in)
		if err != nil {
			continue
		}
		p := Problem{Func: in.Func, Grad: in.Grad, Hess: exactHess(in)}
		scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*maxAbs(in.Q)
		delta := []float64{1e-4, 1e-3, 1e-2}[i%3] * scale
		s := Settings{Delta: delta, Radius: in.R, MaxSubsets: 1 + i%2, Seed: uint64(i)}
		sOff := s
		sOff.NoFlatMoves = true
		on, err1 := Minimize(context.Background(), p, c, in.X, s)
		off, err2 := Minimize(context.Background(), p, c, in.X, sOff)
		if err1 != nil || err2 != nil {
			t.Fatalf("instance %d (%s): %v, %v", i, in.Name, err1, err2)
		}
		runs++
		what := fmt.Sprintf("seed %d instance %d (%s, δ %.3g)", seed, i, in.Name, delta)
		if off.Stats.FlatMoves != 0 {
			t.Errorf("%s: %d flat moves with NoFlatMoves", what, off.Stats.FlatMoves)
		}
		moves += on.Stats.FlatMoves
		undone += on.Stats.FlatMovesUndone
		for _, res := range []*Result{on, off} {
			if res.MaxViolation > 1e-9*(1+norm(res.X)) {
				t.Errorf("%s: end point violates a row by %g", what, res.MaxViolation)
			}
			if res.Status == StatusCertified {
				flatCheckCertificate(t, in, res, delta, scale, what)
			}
		}
		allowance := float64(in.Dim())*purifySlack*delta + 1e-12*scale
		if on.F > off.F+allowance {
			t.Errorf("%s: flat moves ended higher: f %.17g > %.17g (status %v, %d moves)", what, on.F, off.F, on.Status, on.Stats.FlatMoves)
		}
		if off.Status == StatusSubsetLimit {
			undecided++
			if on.Status == StatusCertified || on.F < off.F-delta/4 {
				rescued++
			}
		}
		if on.Status == StatusSubsetLimit && !slices.Equal(on.X, off.X) {
			if on.F > off.F-delta/4 { // no escape moved after the flat moves: back where they started
				t.Errorf("%s: undecided end at a point other than the run without flat moves (f %.17g vs %.17g, %d moves, %d undone)",
					what, on.F, off.F, on.Stats.FlatMoves, on.Stats.FlatMovesUndone)
			}
		}
		if on.Status == StatusSubsetLimit && slices.Equal(on.X, off.X) && on.CertifiedRadius != off.CertifiedRadius {
			t.Errorf("%s: same undecided end, CertifiedRadius %g vs %g", what, on.CertifiedRadius, off.CertifiedRadius)
		}
	}
	t.Logf("%d runs: %d undecided without flat moves, %d of them certified or lower with them; %d flat moves, %d runs returned to the undecided point",
		runs, undecided, rescued, moves, undone)
	if rescued == 0 || undone == 0 {
		t.Errorf("the sweep does not exercise flat moves: %d rescued, %d undone of %d undecided", rescued, undone, undecided)
	}
}

// flatTransfer moves in.X along a flat transfer of its quadratic, when it has one: a
// vertex j off the support and i on it with (Qx)ⱼ = (Qx)ᵢ and Qⱼⱼ + Qᵢᵢ − 2Qᵢⱼ = 0, so
// that f is constant on x + s(eⱼ − eᵢ), s ∈ [0, xᵢ]; x moves to a random s inside,
// leaving the row xⱼ ≥ 0 at a small positive slack. in.G follows x; in.F0 is unchanged.
func flatTransfer(rng *rand.Rand, in *bruteforce.Instance) {
	x, Q := in.X, in.Q
	qx := make([]float64, len(x))
	for a := range x {
		for b := range x {
			qx[a] += Q[a][b] * x[b]
		}
	}
	for _, j := range rng.Perm(len(x)) {
		if x[j] != 0 {
			continue
		}
		for i := range x {
			if x[i] > 0 && qx[i] == qx[j] && Q[j][j]+Q[i][i]-2*Q[i][j] == 0 {
				s := x[i] * (0.05 + 0.4*rng.Float64())
				x[i] -= s
				x[j] += s
				for a := range in.G {
					in.G[a] += s * (Q[a][j] - Q[a][i])
				}
				return
			}
		}
	}
}

// flatCheckCertificate checks a certified end point res.X of f = in's quadratic against
// the exhaustive minimum over S ∩ B(X, res.Radius): nothing lower than f(X) − δ/2 (the
// escape's certificate on an exact model), up to rounding of the instance's scale.
func flatCheckCertificate(t *testing.T, in *bruteforce.Instance, res *Result, delta, scale float64, what string) {
	t.Helper()
	at := *in
	at.X = append([]float64(nil), res.X...)
	at.G = make([]float64, in.Dim())
	in.Grad(at.G, res.X)
	at.F0 = in.Func(res.X)
	at.R = res.Radius
	truth := bruteforce.Min(at.Problem())
	if truth.Feasible && truth.Value < -delta/2-1e-9*scale {
		t.Errorf("%s: FALSE certificate at the end point (r %g, %d flat moves): exhaustive minimum %.17g < −δ/2 = %g",
			what, res.Radius, res.Stats.FlatMoves, truth.Value, -delta/2)
	}
}
