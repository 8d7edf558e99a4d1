package bruteforce

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// model sets F0, G and Q for model m. Q = Wdiag(λ)Wᵀ with W from the QR factorization
// of a Gaussian matrix; G = W·gs·γ with γ in Q's eigenbasis and gs = R·10^U(−2, 0.5), so
// that the gradient's part of q on the ball, gs·R, ranges from far below to above its
// curvature part, about R².
func (g *gen) model(m Model) {
	d, rng := g.d, g.rng
	lam := make([]float64, d)
	split := (d + 1) / 2 // size of the repeated lowest cluster
	switch m {
	case Indefinite, KKT:
		for j := range lam {
			lam[j] = 6*rng.Float64() - 3
		}
	case ZeroGradient:
		for j := range lam {
			lam[j] = 6*rng.Float64() - 3
		}
		lam[0] = -0.2 - 2.8*rng.Float64()
	case Convex:
		for j := range lam {
			lam[j] = 3 * rng.Float64()
		}
		if rng.IntN(2) == 0 {
			lam[0] = 0
		}
	case Concave:
		for j := range lam {
			lam[j] = -0.1 - 3*rng.Float64()
		}
	case Repeated, HardCase, NearHard:
		lo := -0.2 - 3*rng.Float64()
		hi := lo + 0.5 + 3*rng.Float64()
		for j := range lam {
			lam[j] = hi
			if j < split {
				lam[j] = lo
			}
		}
		if m == NearHard && split > 1 {
			lam[1] = lam[0] + 1e-12
		}
	}
	W := randomOrthogonal(g)
	g.in.Q = make([][]float64, d)
	for a := range g.in.Q {
		g.in.Q[a] = make([]float64, d)
	}
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			s := 0.0
			for j := 0; j < d; j++ {
				s += W.At(a, j) * lam[j] * W.At(b, j)
			}
			g.in.Q[a][b], g.in.Q[b][a] = s, s
		}
	}
	gs := g.in.R * math.Pow(10, 2.5*rng.Float64()-2)
	gam := g.randVec()
	for j := range gam {
		switch {
		case m == ZeroGradient:
			gam[j] = 0
		case m == HardCase && j < split:
			gam[j] = 0
		case m == NearHard && j < split:
			gam[j] *= 1e-9
		}
	}
	g.in.G = make([]float64, d)
	for a := range g.in.G {
		for j := 0; j < d; j++ {
			g.in.G[a] += W.At(a, j) * gs * gam[j]
		}
	}
	if m == KKT {
		g.in.G = g.kktGradient(gs)
	}
	g.in.F0 = 10 * rng.NormFloat64()
}

// kktGradient returns G = −gs·(Σ μᵢ âᵢ + Σ νₖ âₖ) over the unit normals âᵢ of the
// inequality rows active at X (bounds included) and âₖ of the equality rows, with
// μᵢ = 0 for about a third of the rows (weakly active) and otherwise U(0.1, 1.1), and
// νₖ = U(−1, 1): X is a KKT point of the linear model, and the enumeration must look
// past the gradient to the curvature on the faces through X.
func (g *gen) kktGradient(gs float64) []float64 {
	p := g.in.Problem()
	G := make([]float64, g.d)
	for i, a := range p.A {
		n := norm(a)
		if n == 0 || p.B[i] > 1e-12*n*g.in.R || g.rng.IntN(3) == 0 {
			continue
		}
		G = axpy(-gs*(0.1+g.rng.Float64())/n, a, G)
	}
	for _, a := range p.Aeq {
		if n := norm(a); n > 0 {
			G = axpy(-gs*(2*g.rng.Float64()-1)/n, a, G)
		}
	}
	return G
}

// randomOrthogonal returns the Q factor of a d×d Gaussian matrix.
func randomOrthogonal(g *gen) *mat.Dense {
	var qr mat.QR
	M := mat.NewDense(g.d, g.d, nil)
	for i := 0; i < g.d; i++ {
		M.SetRow(i, g.randVec())
	}
	qr.Factorize(M)
	var W mat.Dense
	qr.QTo(&W)
	return &W
}
