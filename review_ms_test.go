package houdini

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
)

// Adversarial review of the root bounds (cone.go, cap.go, eqrelax.go, coupling.go) and the
// forced rows (forced.go) on the Motzkin–Straus and standard-quadratic structures of
// issue 14: −xᵀAx on the simplex at the barycentre of a planted clique C with "flat
// transfers" (vertices j outside C adjacent to all of C but one vertex i: zero multiplier,
// the model exactly flat along e_j − e_i), pairs of them adjacent to each other (a larger
// clique reachable: a real second-order escape), StQPs with planted ties, and balanced
// boxes with weakly active bounds; every escape is compared with the exhaustive minimum of
// internal/bruteforce.

// msKind selects the structure msInstance plants.
type msKind int

const (
	msFlat     msKind = iota // flat transfers sharing or not sharing the missed vertex
	msReach                  // two flat transfers sharing i and adjacent: a larger clique
	msStQP                   // StQP with integer entries and planted ties at the support
	msBalanced               // balanced box Σx = 0 with weakly active bounds
	numMsKinds
)

// msInstance builds a seeded instance of kind k; the equality is written as two opposite
// rows when twoRows.
func msInstance(rng *rand.Rand, k msKind, twoRows bool) *bruteforce.Instance {
	switch k {
	case msStQP:
		return stqpInstance(rng, twoRows)
	case msBalanced:
		return balancedInstance(rng, twoRows)
	}
	n := 5 + rng.IntN(7) // 5..11
	kc := 2 + rng.IntN(3)
	if kc > n-2 {
		kc = n - 2
	}
	adj := make([][]float64, n)
	for a := range adj {
		adj[a] = make([]float64, n)
	}
	set := func(a, b int, v float64) { adj[a][b], adj[b][a] = v, v }
	for a := 0; a < kc; a++ {
		for b := a + 1; b < kc; b++ {
			set(a, b, 1)
		}
	}
	nflat := 1 + rng.IntN(min(3, n-kc))
	shared := rng.IntN(2) == 0
	miss := make([]int, n)
	for j := kc; j < kc+nflat; j++ {
		i := 0
		if !shared {
			i = rng.IntN(kc)
		}
		miss[j] = i
		for a := 0; a < kc; a++ {
			if a != i {
				set(a, j, 1)
			}
		}
	}
	// flat vertices among themselves: adjacent at random, or always for msReach (with a
	// shared missed vertex this plants a clique of size kc+1)
	for j := kc; j < kc+nflat; j++ {
		for l := j + 1; l < kc+nflat; l++ {
			if k == msReach || rng.IntN(2) == 0 {
				set(j, l, 1)
			}
		}
	}
	if k == msReach && nflat >= 2 {
		for j := kc; j < kc+nflat; j++ { // share the missed vertex 0
			for a := 0; a < kc; a++ {
				set(a, j, 1)
			}
			set(0, j, 0)
			miss[j] = 0
		}
	}
	// the rest: fewer than kc−1 neighbours in C (a positive multiplier), random among
	// themselves and to the flat ones; now and then one adjacent to all of C
	for j := kc + nflat; j < n; j++ {
		full := rng.IntN(8) == 0
		cnt := 0
		for a := 0; a < kc; a++ {
			if full || (cnt < kc-2 && rng.IntN(2) == 0) {
				set(a, j, 1)
				cnt++
			}
		}
		for l := kc; l < n; l++ {
			if l != j && rng.IntN(3) == 0 {
				set(j, l, 1)
			}
		}
	}
	x := make([]float64, n)
	for a := 0; a < kc; a++ {
		x[a] = 1 / float64(kc)
	}
	// now and then move x along a flat transfer (still a KKT point with the same value)
	if rng.IntN(3) == 0 {
		j := kc + rng.IntN(nflat)
		s := rng.Float64() * x[miss[j]]
		x[miss[j]] -= s
		x[j] += s
	}
	sc := []float64{1, 0.25, 3}[rng.IntN(3)]
	Q := make([][]float64, n)
	for a := range Q {
		Q[a] = make([]float64, n)
		for b := range Q[a] {
			Q[a][b] = -2 * sc * adj[a][b]
		}
	}
	return simplexInstance(rng, fmt.Sprintf("ms n%d k%d flat%d shared %v kind %d", n, kc, nflat, shared, k), x, Q, twoRows)
}

// simplexInstance is f = ½yᵀQy on the simplex at x, R drawn.
func simplexInstance(rng *rand.Rand, name string, x []float64, Q [][]float64, twoRows bool) *bruteforce.Instance {
	n := len(x)
	g := make([]float64, n)
	for a := range g {
		for b := range g {
			g[a] += Q[a][b] * x[b]
		}
	}
	in := &bruteforce.Instance{Name: name, X: x, G: g, Q: Q, R: []float64{0.05, 0.2, 0.5, 1.2}[rng.IntN(4)]}
	in.Lower = make([]float64, n)
	one := make([]float64, n)
	mone := make([]float64, n)
	for a := range one {
		one[a], mone[a] = 1, -1
	}
	if twoRows {
		in.A, in.B = [][]float64{one, mone}, []float64{1, -1}
	} else {
		in.Aeq, in.Beq = [][]float64{one}, []float64{1}
	}
	if rng.IntN(4) == 0 { // upper bounds at 1 (far or, at a vertex, weakly active)
		in.Upper = make([]float64, n)
		for a := range in.Upper {
			in.Upper[a] = 1
		}
	}
	return in
}

// stqpInstance: Q with entries in {−1, 0, 1}, x uniform on a support S whose diagonal is
// set so that (Qx)_S is constant, and some j outside S planted with (Qx)_j equal to it
// (ties: zero multipliers).
func stqpInstance(rng *rand.Rand, twoRows bool) *bruteforce.Instance {
	n := 4 + rng.IntN(5)
	ks := 1 + rng.IntN(min(4, n-1))
	Q := make([][]float64, n)
	for a := range Q {
		Q[a] = make([]float64, n)
	}
	for a := range n {
		for b := a; b < n; b++ {
			v := float64(rng.IntN(3) - 1)
			Q[a][b], Q[b][a] = v, v
		}
	}
	// row sums over S equal to c on S: fix the diagonal
	c := float64(rng.IntN(3) - 1)
	for a := range ks {
		s := 0.0
		for b := range ks {
			if b != a {
				s += Q[a][b]
			}
		}
		Q[a][a] = c - s
	}
	for j := ks; j < n; j++ {
		if rng.IntN(2) == 0 { // a tie: Σ_{b∈S} Q_jb = c, by the last entry
			s := 0.0
			for b := 0; b < ks-1; b++ {
				s += Q[j][b]
			}
			Q[j][ks-1], Q[ks-1][j] = c-s, c-s
			if ks == 1 {
				Q[j][0], Q[0][j] = c, c
			}
		}
	}
	// the diagonal entries of S may have changed through the ties: recompute
	for a := range ks {
		s := 0.0
		for b := range ks {
			if b != a {
				s += Q[a][b]
			}
		}
		Q[a][a] = c - s
	}
	x := make([]float64, n)
	for a := range ks {
		x[a] = 1 / float64(ks)
	}
	return simplexInstance(rng, fmt.Sprintf("stqp n%d support %d", n, ks), x, Q, twoRows)
}

// balancedInstance: [−1, 1]ⁿ ∩ {Σx = 0} at a ±1 vertex (or with one coordinate free), a
// gradient whose multipliers are zero for some bounds (weakly active), and a random or
// coupling Hessian.
func balancedInstance(rng *rand.Rand, twoRows bool) *bruteforce.Instance {
	n := 2 * (2 + rng.IntN(3))
	x := make([]float64, n)
	for a := range x {
		x[a] = 1
		if a < n/2 {
			x[a] = -1
		}
	}
	mu := float64(rng.IntN(3) - 1)
	g := make([]float64, n)
	for a := range g {
		ell := float64(rng.IntN(3)) // 0: weakly active
		if a < n/2 {
			g[a] = mu + ell // lower bound: rate gₐ − μ ≥ 0
		} else {
			g[a] = mu - ell
		}
	}
	Q := make([][]float64, n)
	for a := range Q {
		Q[a] = make([]float64, n)
	}
	for a := range n {
		for b := a; b < n; b++ {
			if rng.IntN(3) == 0 {
				v := float64(rng.IntN(5) - 2)
				Q[a][b], Q[b][a] = v, v
			}
		}
	}
	in := &bruteforce.Instance{Name: fmt.Sprintf("balanced n%d μ%g", n, mu), X: x, G: g, Q: Q, R: []float64{0.05, 0.3, 1, 2.5}[rng.IntN(4)]}
	in.Lower, in.Upper = make([]float64, n), make([]float64, n)
	one := make([]float64, n)
	mone := make([]float64, n)
	for a := range one {
		in.Lower[a], in.Upper[a] = -1, 1
		one[a], mone[a] = 1, -1
	}
	if twoRows {
		in.A, in.B = [][]float64{one, mone}, []float64{0, 0}
	} else {
		in.Aeq, in.Beq = [][]float64{one}, []float64{0}
	}
	return in
}

// msConfig is one way of running the escape: a name and the test switches.
type msConfig struct {
	name string
	prep func(o *Optimizer, n *int)
	max  int // MaxSubsets, 0: 1<<20
}

var msConfigs = []msConfig{
	{"default", func(o *Optimizer, n *int) {}, 0},
	{"cone", func(o *Optimizer, n *int) { o.countConePrunes(n) }, 0},
	{"cap", func(o *Optimizer, n *int) { o.setNoCone(false); o.countCapPrunes(n) }, 0},
	{"eqrelax", func(o *Optimizer, n *int) { o.countEqRelaxPrunes(n) }, 0},
	{"coupling", func(o *Optimizer, n *int) { o.countCouplingPrunes(n) }, 0},
	{"noCone", func(o *Optimizer, n *int) { o.setNoCone(true) }, 0},
	{"matrixfree", func(o *Optimizer, n *int) { o.setMatrixFree(true, -1); o.countConePrunes(n) }, 0},
	{"mfexact", func(o *Optimizer, n *int) { o.setMatrixFree(true, 0); o.countConePrunes(n) }, 0},
	{"cone-max4", func(o *Optimizer, n *int) { o.countConePrunes(n) }, 4},
	{"default-max2", func(o *Optimizer, n *int) {}, 2},
}

// msTally counts per configuration.
type msTally struct {
	escapes, certified, falseCert, missed, errs, pruned, found, radius int
}

// msCheck escapes in.X with every configuration at δ and compares with the exhaustive
// minimum (at CertifiedRadius where the certificate is at a smaller radius). It returns
// false certificates as errors.
func msCheck(t *testing.T, in *bruteforce.Instance, delta float64, tally map[string]*msTally, what string) {
	t.Helper()
	c, err := forcedTestSet(in)
	if err != nil {
		return
	}
	p := Problem{Func: in.Func, Grad: in.Grad, Hess: exactHess(in)}
	bp := in.Problem()
	truth := bruteforce.Min(bp)
	if !truth.Feasible {
		return
	}
	scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*maxAbs(in.Q)
	for _, cf := range msConfigs {
		tl := tally[cf.name]
		if tl == nil {
			tl = &msTally{}
			tally[cf.name] = tl
		}
		s := Settings{Delta: delta, Radius: in.R, MaxSubsets: 1 << 20}
		if cf.max > 0 {
			s.MaxSubsets = cf.max
		}
		o, err := New(p, c, s)
		if err != nil {
			tl.errs++
			continue
		}
		cf.prep(o, &tl.pruned)
		e, err := o.Escape(context.Background(), in.X)
		if err != nil {
			tl.errs++
			continue
		}
		tl.escapes++
		if e.Found {
			tl.found++
		}
		ref := truth.Value
		rr := in.R
		if e.CertifiedRadius > 0 && e.CertifiedRadius < in.R {
			tl.radius++
			bq := bp
			bq.R = e.CertifiedRadius
			rr = bq.R
			ref = bruteforce.Min(bq).Value
		}
		if e.CertifiedRadius > 0 || e.Certified {
			tl.certified++
			if ref < -delta/2-1e-9*scale {
				tl.falseCert++
				t.Errorf("%s [%s]: FALSE certificate at r′ %g (Certified %v, Forced %d, Walked %d, Examined %d, Pruned %d): exhaustive minimum %.17g < −δ/2 = %g",
					what, cf.name, rr, e.Certified, e.Forced, e.Walked, e.Examined, e.Pruned, ref, -delta/2)
			}
		}
		if e.Complete && !e.Found && !e.Certified && truth.Value > -delta/2+1e-9*scale {
			// neither verdict at a complete walk: allowed only where the minimum is between
			t.Logf("%s [%s]: complete walk, neither found nor certified, minimum %.6g, δ %g", what, cf.name, truth.Value, delta)
		}
		if e.Complete && !e.Found && truth.Value < -delta-1e-9*scale {
			tl.missed++
			t.Errorf("%s [%s]: MISSED escape: complete walk without a move, exhaustive minimum %.17g < −δ %g", what, cf.name, truth.Value, -delta)
		}
	}
}

func maxAbs(Q [][]float64) float64 {
	m := 0.0
	for _, r := range Q {
		for _, v := range r {
			m = max(m, math.Abs(v))
		}
	}
	return m
}

// TestReviewMotzkinStraus: the escape under every configuration (msConfigs: default, each
// root bound alone from one row on, cone off, matrix-free, small MaxSubsets for the
// certified radius below R) against the exhaustive minimum on the planted structures,
// with translated and rescaled copies, at δ spread around the true minimum: no
// certificate (Certified or CertifiedRadius > 0) where the minimum at that radius is below
// −δ/2, no complete walk without a move where it is below −δ. 24 instances (8 under
// -short); REVIEW_N and REVIEW_SEED for longer runs by hand.
func TestReviewMotzkinStraus(t *testing.T) {
	n, seed := reviewSize(16, 8, 77)
	tally := map[string]*msTally{}
	for i := range n {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		kind := msKind(i % int(numMsKinds))
		base := msInstance(rng, kind, i/int(numMsKinds)%2 == 1)
		if i%3 == 2 { // x off its rows by a rounding-sized to a small amount
			msNudge(rng, base, i/3)
		}
		truth := bruteforce.Min(base.Problem())
		if !truth.Feasible {
			continue
		}
		scale := norm(base.G)*base.R + float64(base.Dim())*base.R*base.R*maxAbs(base.Q)
		// δ around 2|min| (so that −δ/2 is near the minimum) and fixed fractions
		deltas := []float64{1e-3 * scale, 0.05 * scale}
		if truth.Value < 0 {
			m := -truth.Value
			deltas = append(deltas, 1.9*m, 2.1*m, 0.9*m)
		}
		tr := [][3]float64{{0, 1, 1}, {[]float64{3, 1e3}[i%2], []float64{1e-2, 1e2}[i/2%2], []float64{1e-3, 1e3}[i/4%2]}}
		for _, cp := range tr {
			in := base.Transform(cp[0], cp[1], cp[2])
			for _, d := range deltas {
				msCheck(t, in, d*cp[2], tally, fmt.Sprintf("seed %d instance %d (%s, copy %v, δ %.6g)", seed, i, in.Name, cp, d*cp[2]))
			}
		}
	}
	for _, cf := range msConfigs {
		tl := tally[cf.name]
		if tl == nil {
			continue
		}
		t.Logf("%-12s escapes %5d certified %5d (r′<R %4d) found %5d false %d missed %d errors %d pruned-by-rule %d",
			cf.name, tl.escapes, tl.certified, tl.radius, tl.found, tl.falseCert, tl.missed, tl.errs, tl.pruned)
	}
}

// TestReviewMotzkinStrausBars: every root bound (cone, cap, relaxed equality, directed
// cone) asked bars around the exhaustive minimum at the root of the walk at X, on the
// planted structures and translated/rescaled copies; once with no row forced and once
// after holdForcedRows (then the bound may exceed the minimum only by forcedErr).
func TestReviewMotzkinStrausBars(t *testing.T) {
	n, seed := reviewSize(60, 30, 79)
	bounds := []struct {
		name string
		f    func(w *walk) float64
	}{
		{"cone", (*walk).coneBound},
		{"cap", (*walk).capBound},
		{"eqrelax", (*walk).eqRelaxBound},
		{"coupling", func(w *walk) float64 { return w.couplingBound(1) }},
	}
	counts := make([]barCounts, 2*len(bounds))
	for i := range n {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		base := msInstance(rng, msKind(i%int(numMsKinds)), i/int(numMsKinds)%2 == 1)
		if i%3 == 2 { // x off its rows by a rounding-sized to a small amount
			msNudge(rng, base, i/3)
		}
		for _, cp := range [][3]float64{{0, 1, 1}, {[]float64{3, 1e3}[i%2], []float64{1e-2, 1e2}[i/2%2], []float64{1e-3, 1e3}[i/4%2]}} {
			in := base.Transform(cp[0], cp[1], cp[2])
			truth := bruteforce.Min(in.Problem())
			if !truth.Feasible {
				continue
			}
			scale := norm(in.G)*in.R + float64(in.Dim())*in.R*in.R*maxAbs(in.Q)
			for forced := range 2 {
				for b, bd := range bounds {
					w, _ := coneWalk(t, in)
					if forced == 1 {
						w.holdForcedRows()
					}
					if w.stopped {
						continue
					}
					tol := 1e-9*scale + w.forcedErr
					barSweep(t, w, func() float64 { return bd.f(w) }, truth.Value, scale, tol, &counts[2*b+forced],
						fmt.Sprintf("seed %d instance %d (%s, copy %v, forced %v: %d rows, err %g): %s bound", seed, i, in.Name, cp, forced == 1, w.forced, w.forcedErr, bd.name))
				}
			}
		}
	}
	for b, bd := range bounds {
		for forced := range 2 {
			c := counts[2*b+forced]
			t.Logf("%-9s forced %v: answered %5d, %5d of %5d bars below the minimum decided", bd.name, forced == 1, c.answered, c.below, c.total)
		}
	}
}

// msNudge moves x off its rows: by nudgeBy (1e-13, 1e-9 or 1e-5 of R in a random
// direction within the equality: outside some bounds) or, every other time, toward the
// interior, x ← (1 − ε)x + ε·w with w the barycentre of the set's vertices e_j (simplex) or
// 0 (balanced box), so that the rows through x get small positive slacks.
func msNudge(rng *rand.Rand, in *bruteforce.Instance, k int) {
	amt := []float64{1e-13, 1e-9, 1e-5}[k%3]
	if k/3%2 == 0 {
		nudgeBy(rng, in, amt)
		return
	}
	eps := amt * 1e2
	n := float64(len(in.X))
	simplex := in.Lower != nil && in.Lower[0] == 0
	for j := range in.X {
		w := 0.0
		if simplex {
			w = 1 / n
		}
		in.X[j] = (1-eps)*in.X[j] + eps*w
	}
	for i, a := range in.Aeq { // (the equality as two rows keeps Σx: w is on it)
		in.Beq[i] = dot(a, in.X)
	}
	// the gradient of the quadratic at the new x
	for a := range in.G {
		in.G[a] = 0
	}
	for a := range in.Q {
		for b := range in.Q {
			in.G[a] += in.Q[a][b] * in.X[b]
		}
	}
}

// reviewSize returns the instance count (short under -short) and the seed of a review
// sweep, or REVIEW_N and REVIEW_SEED where set, for longer runs by hand.
func reviewSize(n, short int, seed uint64) (int, uint64) {
	if testing.Short() {
		n = short
	}
	if v, err := strconv.Atoi(os.Getenv("REVIEW_N")); err == nil {
		n = v
	}
	if v, err := strconv.Atoi(os.Getenv("REVIEW_SEED")); err == nil {
		seed = uint64(v)
	}
	return n, seed
}
