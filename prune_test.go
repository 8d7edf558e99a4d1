package houdini

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// pruneInstance is a quadratic f(x) = gᵀ(x − x0) + ½(x − x0)ᵀM(x − x0) at x0 over rows.
type pruneInstance struct {
	A  *mat.Dense
	b  []float64
	x0 []float64
	M  *mat.SymDense
	g  []float64
}

// randomPruneInstance builds instances where the pruning rules fire: x0 at a vertex,
// edge or face of a box or of an orthogonal cone (pairwise orthogonal rows, rotated),
// with outward gradient components from tiny to dominant, plus random extra rows.
func randomPruneInstance(rng *rand.Rand) pruneInstance {
	d := 2 + rng.IntN(4) // 2..5
	x0 := make([]float64, d)
	var rows [][]float64
	var b []float64
	Q := randomOrthogonal(rng, d)
	rotate := rng.IntN(2) == 0
	active := 1 + rng.IntN(d) // rows through x0
	for j := 0; j < d; j++ {
		for _, s := range []float64{1, -1} {
			row := make([]float64, d)
			row[j] = s
			if rotate {
				row = mulVec(Q, row)
			}
			off := 0.3 + rng.Float64() // a bound away from x0
			if s == 1 && j < active {
				off = 0 // bound through x0
			}
			rows = append(rows, row)
			b = append(b, dotSlices(row, x0)+off)
		}
	}
	if rng.IntN(3) == 0 { // a general row, sometimes through x0
		row := make([]float64, d)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		off := 0.0
		if rng.IntN(2) == 0 {
			off = rng.Float64()
		}
		rows = append(rows, row)
		b = append(b, dotSlices(row, x0)+off)
	}
	A := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		A.SetRow(i, r)
	}
	M := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			M.SetSym(i, j, rng.NormFloat64())
		}
	}
	g := make([]float64, d)
	scale := []float64{0, 1e-3, 0.1, 1, 10}[rng.IntN(5)]
	for j := range g {
		g[j] = scale * rng.NormFloat64()
		if j < active && rng.IntN(2) == 0 {
			// Push outward against the bound through x0 (forced when large).
			row := rows[2*j]
			for l := range g {
				g[l] -= math.Abs(rng.NormFloat64()) * 3 * row[l]
			}
		}
	}
	return pruneInstance{A: A, b: b, x0: x0, M: M, g: g}
}

func (in pruneInstance) problem() Problem {
	d := len(in.x0)
	return Problem{
		Func: func(x []float64) float64 {
			h := mat.NewVecDense(d, sub(x, in.x0))
			return mat.Dot(h, mat.NewVecDense(d, in.g)) + 0.5*mat.Inner(h, in.M, h)
		},
		Grad: func(grad, x []float64) {
			gv := mat.NewVecDense(d, grad)
			gv.MulVec(in.M, mat.NewVecDense(d, sub(x, in.x0)))
			for i := range grad {
				grad[i] += in.g[i]
			}
		},
		Hess: func(h *mat.SymDense, x []float64) { h.CopySym(in.M) },
	}
}

// The pruning rules never lose the model's best candidate: on thousands of instances
// the pruned walk reaches the same best model decrease and the same certificate as the
// walk over every subset.
func TestPruningSound(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	var certified, escaped, prunedSomething, forcedSomething, byLagrange int
	for trial := 0; trial < n; trial++ {
		in := randomPruneInstance(rng)
		c, err := NewConstraints(in.A, in.b)
		if err != nil {
			t.Fatal(err)
		}
		s := Settings{Delta: []float64{1e-3, 1e-2, 0.1, 1}[rng.IntN(4)], Radius: 0.1 + rng.Float64(), MaxSubsets: 1 << 20}
		pruned, err := New(in.problem(), c, s)
		if err != nil {
			t.Fatal(err)
		}
		pruned.countLagrangePrunes(&byLagrange)
		full, _ := New(in.problem(), c, s)
		full.setNoPrune(true)
		ep, err := pruned.Escape(ctx, in.x0)
		if err != nil {
			t.Fatal(err)
		}
		ef, err := full.Escape(ctx, in.x0)
		if err != nil {
			t.Fatal(err)
		}
		if !ep.Complete || !ef.Complete {
			t.Fatalf("trial %d: walk incomplete", trial)
		}
		tol := 1e-9 * (1 + math.Abs(ef.ModelDecrease))
		if ep.ModelDecrease < ef.ModelDecrease-tol {
			t.Fatalf("trial %d: pruned walk's best model decrease %g < full walk's %g", trial, ep.ModelDecrease, ef.ModelDecrease)
		}
		if ep.Certified != ef.Certified || ep.Found != ef.Found {
			t.Fatalf("trial %d: pruned (found %v, certified %v) vs full (found %v, certified %v)",
				trial, ep.Found, ep.Certified, ef.Found, ef.Certified)
		}
		if ep.Certified {
			certified++
		}
		if ep.Found {
			escaped++
		}
		if ep.Examined < ef.Examined {
			prunedSomething++
		}
		if pruned.forcedRows(in.x0) > 0 {
			forcedSomething++
		}
	}
	t.Logf("%d instances: %d certified, %d escaped; pruning cut the walk in %d, forced rows in %d; %d subtrees pruned by the Lagrangian bound alone",
		n, certified, escaped, prunedSomething, forcedSomething, byLagrange)
	if prunedSomething < n/10 || forcedSomething < n/20 || certified < n/20 || escaped < n/20 {
		t.Fatalf("the instances do not exercise the rules enough")
	}
}

func randomOrthogonal(rng *rand.Rand, d int) *mat.Dense {
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return &q
}

func mulVec(a *mat.Dense, x []float64) []float64 {
	r, _ := a.Dims()
	y := make([]float64, r)
	mat.NewVecDense(r, y).MulVec(a, mat.NewVecDense(len(x), x))
	return y
}

func dotSlices(x, y []float64) float64 { return dot(x, y) }

// The pruning rules stay sound where rows through x have small positive offsets in the
// walk (general rows relaxed by their rounding, holdForcedRows's p > 0): the instances of
// TestPruningSound moved to x0 + t·1 (t up to 1e6, b recomputed in floating point, so the
// rows through x0 are so up to rounding). A pruned certificate implies the full walk's,
// the best model decreases agree, and forced rows with p > 0 occur.
func TestPruningSoundOffsets(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	var forcedOffset, certified int
	for trial := 0; trial < n; trial++ {
		in := randomPruneInstance(rng)
		shift := []float64{0.37, 3.1, 1e3, 1e6}[rng.IntN(4)]
		k, d := in.A.Dims()
		for j := range in.x0 {
			in.x0[j] += shift
		}
		for i := 0; i < k; i++ {
			in.b[i] += shift * mat.Sum(in.A.RowView(i))
		}
		c, err := NewConstraints(in.A, in.b)
		if err != nil {
			t.Fatal(err)
		}
		s := Settings{Delta: []float64{1e-3, 1e-2, 0.1, 1}[rng.IntN(4)], Radius: 0.1 + rng.Float64(), MaxSubsets: 1 << 20}
		pruned, _ := New(in.problem(), c, s)
		full, _ := New(in.problem(), c, s)
		full.setNoPrune(true)
		ep, err1 := pruned.Escape(ctx, in.x0)
		ef, err2 := full.Escape(ctx, in.x0)
		if err1 != nil || err2 != nil {
			continue // the start is outside S after the rounding of b: not this test's concern
		}
		tol := 1e-9 * (1 + math.Abs(ef.ModelDecrease))
		if ep.ModelDecrease < ef.ModelDecrease-tol || ep.Found != ef.Found || (ep.Certified && !ef.Certified) {
			t.Fatalf("trial %d (d = %d, shift %g): pruned (found %v, certified %v, model decrease %g) vs full (found %v, certified %v, %g)",
				trial, d, shift, ep.Found, ep.Certified, ep.ModelDecrease, ef.Found, ef.Certified, ef.ModelDecrease)
		}
		if ep.Certified {
			certified++
		}
		if nf, e := pruned.forcedRowsErr(in.x0); nf > 0 && e > 0 {
			forcedOffset++
		}
	}
	t.Logf("%d instances: %d certified; forced rows with p > 0 in %d", n, certified, forcedOffset)
	if forcedOffset < n/20 || certified < n/20 {
		t.Fatalf("the instances do not exercise forced rows with positive offsets enough")
	}
}
