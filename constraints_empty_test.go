package houdini_test

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/houdini-opt/houdini"
	"gonum.org/v1/gonum/mat"
)

// TestNewConstraintsThinNotEmpty checks that NewConstraints does not call a polyhedron
// empty when it is a single point or lies in a hyperplane: every row is built through a
// point x (b = A x), so x is feasible up to rounding. The first case is the input
// FuzzEscape found (testdata/fuzz/FuzzEscape/d625a488212553b8, reduced): three rows
// through x and an equality slab in ℝ⁴. Then random S = {x}: d rows through x plus the
// row −Σ cᵢaᵢ (cᵢ > 0), which only x satisfies, and with a duplicated equality.
func TestNewConstraintsThinNotEmpty(t *testing.T) {
	v := 3.3846153846153846
	fuzzX := []float64{-v, -3.5, -v, -v}
	fuzzRows := [][]float64{
		{-1.8461538461538463, -v, -v, -v},
		{-0.46153846153846156, -v, 0, 0},
		{-v, -3.3461538461538463, -v, -v},
		{-v, -v, -v, -v},
		{v, v, v, v},
	}
	check := func(name string, rows [][]float64, x []float64) {
		t.Helper()
		A := mat.NewDense(len(rows), len(x), nil)
		b := make([]float64, len(rows))
		for i, r := range rows {
			A.SetRow(i, r)
			b[i] = vdot(r, x)
		}
		if _, err := houdini.NewConstraints(A, b); errors.Is(err, houdini.ErrEmpty) {
			t.Errorf("%s: NewConstraints says empty, but x = %v satisfies every row (A = %v, b = %v)", name, x, rows, b)
		} else if err != nil {
			t.Errorf("%s: NewConstraints: %v", name, err)
		}
	}
	check("fuzz", fuzzRows, fuzzX)

	rng := rand.New(rand.NewPCG(1, 2))
	n := 200
	if testing.Short() {
		n = 50
	}
	for i := 0; i < n; i++ {
		d := 1 + rng.IntN(5)
		x := randVec2(rng, d)
		for j := range x {
			x[j] *= 1 + 10*rng.Float64()
		}
		var rows [][]float64
		last := make([]float64, d)
		for j := 0; j < d; j++ {
			a := randVec2(rng, d)
			rows = append(rows, a)
			last = vadd(last, vscale(a, -0.1-rng.Float64()))
		}
		rows = append(rows, last)
		if i%2 == 1 { // an equality slab on the first row, duplicated
			rows = append(rows, vscale(rows[0], -1), vscale(rows[0], -3))
		}
		check("point", rows, x)
	}
}

// TestNewConstraintsEmpty checks that clearly empty polyhedra are still reported, also in
// the presence of duplicated and scaled rows.
func TestNewConstraintsEmpty(t *testing.T) {
	cases := []struct {
		name string
		rows [][]float64
		b    []float64
	}{
		{"gap 1e-6", [][]float64{{1}, {-1}}, []float64{0, -1e-6}},
		{"gap 1", [][]float64{{1, 0}, {-1, 0}, {0, 1}}, []float64{0, -1, 5}},
		{"triangle", [][]float64{{1, 1}, {-1, 0}, {0, -1}}, []float64{-1, 0, 0}},
		{"scaled slab", [][]float64{{2, 2, 0}, {-3, -3, 0}, {2, 2, 0}}, []float64{1, -6, 1}},
	}
	for _, c := range cases {
		A := mat.NewDense(len(c.rows), len(c.rows[0]), nil)
		for i, r := range c.rows {
			A.SetRow(i, r)
		}
		if _, err := houdini.NewConstraints(A, c.b); !errors.Is(err, houdini.ErrEmpty) {
			t.Errorf("%s: NewConstraints returned %v, want ErrEmpty", c.name, err)
		}
	}
}

// TestNewConstraintsTerminates holds the inputs on which FuzzEscape found NewConstraints
// looping forever: gonum's simplex cycled on the emptiness LP (the first on the LP relaxed
// to the feasibility tolerance; the second already on the plain LP of the original core,
// with a row repeated three times). NewConstraints must return within seconds.
func TestNewConstraintsTerminates(t *testing.T) {
	for _, data := range []string{
		"70000C\x000000000000000020000000200\xff\xff\xff200\xf7\xff01",
		"70000a\x000000000000000020000000200\xff\xff\xff200\xf7\xff0001",
		"7000ZZ9\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3\xf3200\xff\xff\xff200\xf7\xff01",
	} {
		in := decodeFuzz([]byte(data))
		p := &in.p
		A := mat.NewDense(len(p.A), p.d, nil)
		for j, a := range p.A {
			A.SetRow(j, a)
		}
		done := make(chan error, 1)
		go func() { _, err := houdini.NewConstraints(A, p.b); done <- err }()
		select {
		case err := <-done:
			if err != nil && !isSentinel(err) {
				t.Errorf("NewConstraints: %v wraps no sentinel", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("NewConstraints(A = %v, b = %v) did not return within 10 s", p.A, p.b)
		}
	}
}
