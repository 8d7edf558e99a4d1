package houdini

// Adversarial review of boxcert.go (reviewer's file, not the owners'): bounds through x
// given as bounds, as coordinate rows k·eⱼ ≤ 0 (x at 0), or both (duplicates); slivers
// (the opposite bound 1e-12…1e-6·r away); multipliers exactly at the forced rule's
// threshold cⱼ(1 + boxCertTol)(1 ± 1e-12); repeated eigenvalues and hard cases;
// radii 1e-3…1e3; translated (1e8) and rescaled (2^±30) copies. Every bound boxCertifies
// proves is compared with internal/bruteforce's exhaustive minimum.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/houdini-opt/houdini/internal/bruteforce"
	"gonum.org/v1/gonum/mat"
)

func adversarialBoxInstance(rng *rand.Rand, i int) (*bruteforce.Instance, bool) {
	d := 1 + rng.IntN(6)
	R := []float64{1, 1e-3, 1e3, 0.25}[i%4]
	ref := 1 / (R * R)
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	in := &bruteforce.Instance{Name: fmt.Sprintf("review box %d d=%d r=%g", i, d, R), X: make([]float64, d),
		G: make([]float64, d), Lower: make([]float64, d), Upper: make([]float64, d), R: R}
	// spectrum: repeated / hard case / random
	lam := make([]float64, d)
	lam0 := pick(-1, -0.5, -0.1, -0.01, 0, 0.3) * ref
	mode := rng.IntN(3)
	for k := range d {
		switch mode {
		case 0:
			lam[k] = lam0 // all equal
		case 1:
			if k < (d+1)/2 {
				lam[k] = lam0
			} else {
				lam[k] = lam0 + pick(0.1, 1, 10)*ref
			}
		default:
			lam[k] = lam0 + pick(0.1, 1, 30)*ref*rng.Float64()
		}
	}
	P := mat.NewDense(d, d, nil)
	if rng.IntN(3) == 0 {
		for k := range d {
			P.Set(k, k, 1)
		}
	} else {
		P = randOrth(rng, d)
	}
	var PL, Q mat.Dense
	PL.Apply(func(_, j int, v float64) float64 { return v * lam[j] }, P)
	Q.Mul(&PL, P.T())
	for k := range d {
		in.Q = append(in.Q, make([]float64, d))
		for j := range d {
			in.Q[k][j] = 0.5 * (Q.At(k, j) + Q.At(j, k))
		}
	}
	if rng.IntN(4) == 0 { // couplings only
		for k := range d {
			in.Q[k][k] *= pick(0, 0.01)
		}
	}
	// kinds: 0 lower bound through x, 1 upper, 2 row k·e_j ≤ 0 at x_j=0 (sign ±), 3 both
	// bound and row, 4 free, 5 sliver (lower through x, upper tiny above)
	sigma := make([]float64, d)
	rows := false
	for j := range d {
		x := math.Round((4*rng.Float64()-2)*(1<<20)) / (1 << 20)
		in.Lower[j], in.Upper[j] = math.Inf(-1), math.Inf(1)
		kind := rng.IntN(6)
		switch kind {
		case 0:
			in.Lower[j] = x
			sigma[j] = -1
		case 1:
			in.Upper[j] = x
			sigma[j] = 1
		case 2, 3:
			x = 0
			s := pick(-1, 1)
			k := pick(1, 3, 0.1, 1e3)
			row := make([]float64, d)
			row[j] = s * k
			in.A = append(in.A, row)
			in.B = append(in.B, 0)
			rows = true
			sigma[j] = s
			if kind == 3 {
				if s > 0 {
					in.Upper[j] = 0
				} else {
					in.Lower[j] = 0
				}
				if rng.IntN(2) == 0 { // a duplicate row too
					in.A = append(in.A, append([]float64(nil), row...))
					in.B = append(in.B, 0)
				}
			}
		case 4:
			if rng.IntN(2) == 0 {
				in.Lower[j] = x - pick(1e-12, 1e-9, 1e-6, 0.5)*R
			}
		default:
			in.Lower[j] = x
			in.Upper[j] = x + pick(1e-12, 1e-9, 1e-6)*R
			sigma[j] = -1
		}
		in.X[j] = x
	}
	// multipliers: C = coords with sigma ≠ 0 that get μ ≥ 0; compute the rule's cost
	inC := make([]bool, d)
	for j := range d {
		inC[j] = sigma[j] != 0 && rng.IntN(5) > 0
	}
	for j := range d {
		if sigma[j] == 0 {
			in.G[j] = pick(0, 0, 1e-3, -0.05, 0.3) / R
			continue
		}
		if !inC[j] {
			in.G[j] = sigma[j] * pick(1e-3, 0.1) / R // μ < 0: points out of the bound
			continue
		}
		a2, b2 := 0.0, 0.0
		for k := range d {
			if k == j {
				continue
			}
			m := in.Q[j][k]
			if inC[k] {
				t := math.Max(0, -sigma[j]*sigma[k]*m)
				b2 += t * t
			} else {
				a2 += m * m
			}
		}
		cost := R*math.Sqrt(a2+b2) + 0.5*R*math.Max(0, -in.Q[j][j])
		f := pick(0, 0.5, 0.99, 1+1e-6+1e-12, 1+1e-6-1e-12, 1+2e-6, 1.01, 2)
		mu := f * cost
		in.G[j] = -sigma[j] * mu
	}
	if mode < 2 && rng.IntN(2) == 0 { // hard case: free gradient zero
		for j := range d {
			if !inC[j] {
				in.G[j] = 0
			}
		}
	}
	return in, rows
}

func TestBoxCertifiesAdversarial(t *testing.T) {
	n := 4000
	rng := rand.New(rand.NewPCG(77, 1))
	certs, falseCerts, withRows := 0, 0, 0
	for i := range n {
		in, rows := adversarialBoxInstance(rng, i)
		truth := bruteforce.Min(in.Problem()).Value
		bs := boxScale(in)
		slack := 1e-9 * bs
		depth := math.Max(math.Max(-truth, 1e-3*bs), 1e-12)
		for _, k := range []float64{0.5, 0.9, 0.999, 1.001, 1.1, 3} {
			limit := k * depth
			copies := []*bruteforce.Instance{in, in.Transform(1e8, 1, 0x1p30), in.Transform(-1e8, 1, 0x1p-30), in.Transform(0, 1, 0x1p-30)}
			for ci, cp := range copies {
				sc := []float64{1, 0x1p30, 0x1p-30, 0x1p-30}[ci]
				d := cp.Dim()
				M := mat.NewSymDense(d, nil)
				for a := range d {
					for b := a; b < d; b++ {
						M.SetSym(a, b, cp.Q[a][b])
					}
				}
				c, err := forcedTestSet(cp)
				if err != nil || c == nil {
					continue
				}
				mod := &quadModel{v: append([]float64(nil), cp.G...), M: M}
				ok, forced, _ := boxCertifies(c, cp.X, mod, cp.R, limit*sc)
				if !ok {
					continue
				}
				certs++
				if rows {
					withRows++
				}
				if truth < -limit-slack {
					falseCerts++
					t.Errorf("%s (copy %d, forced %d): boxCertifies proves q ≥ −%.17g, exhaustive minimum %.17g",
						in.Name, ci, forced, limit, truth)
				}
			}
		}
	}
	t.Logf("%d instances: %d bounds proved (%d on instances with coordinate rows), %d false", n, certs, withRows, falseCerts)
}
