package bruteforce

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Family is a kind of feasible set, with the point X placed in it where escapes are hard.
type Family int

const (
	// Simplex: {y ≥ 0, Σy = s}, X at a vertex, on an edge, inside a face or at the
	// barycentre. Variants write the equality as two opposite rows, scale it, or give the
	// bounds as general rows.
	Simplex Family = iota
	// Budget: {0 ≤ y ≤ u, Σy ≤ β}, X with each coordinate at 0, at uⱼ or between, and
	// the budget active or not.
	Budget
	// BalancedBox: {−1 ≤ y ≤ 1, Σy = 0}, X with all or all but a few coordinates at ±1
	// (with d even and none free, more active rows than d). Variants as for Simplex.
	BalancedBox
	// GeneralRows: random rows through X (none up to d), cutting, tangent to and far from
	// the ball, sometimes equality rows through X and bounds beside the rows.
	GeneralRows
	// Degenerate: degenerate vertices and redundant rows: more active rows than d with a
	// pointed cone, exact and scaled duplicates, opposite rows (slabs, and a pair of
	// width zero that forms an equality), rows that combine the equalities, an equality
	// repeated as rows, bounds repeated as rows.
	Degenerate
	// NearParallel: rows nearly parallel (angles 1e-13 … 1e-7), nearly opposite (slivers
	// of width 1e-12·R), nearly tangent to the ball, nearly active and nearly dependent.
	NearParallel
	NumFamilies // the number of families
)

var familyNames = [NumFamilies]string{"simplex", "budget", "balanced box", "general rows",
	"degenerate", "near-parallel"}

// String returns the family's name as Case writes it.
func (f Family) String() string {
	if f >= 0 && f < NumFamilies {
		return familyNames[f]
	}
	return fmt.Sprintf("Family(%d)", int(f))
}

// Model is a kind of quadratic model: the spectrum of Q and the gradient G at X.
type Model int

const (
	Indefinite   Model = iota // eigenvalues uniform in [−3, 3]
	Convex                    // eigenvalues in [0, 3], one of them 0 half of the time
	Concave                   // eigenvalues in [−3.1, −0.1]
	Repeated                  // two eigenvalues, a negative one repeated ⌈d/2⌉ times
	ZeroGradient              // G = 0, indefinite Q: the hard case in every subset through X
	HardCase                  // G orthogonal to the lowest, negative, repeated eigenspace
	NearHard                  // as HardCase, G with a 1e-9 residue there and the cluster split by 1e-12
	KKT                       // −G in the cone of the active normals, a third of the multipliers zero; Q indefinite
	Linear                    // Q = 0
	NumModels                 // the number of models
)

var modelNames = [NumModels]string{"indefinite", "convex", "concave", "repeated",
	"zero gradient", "hard case", "near hard case", "KKT", "linear"}

// String returns the model's name as Case writes it.
func (m Model) String() string {
	if m >= 0 && m < NumModels {
		return modelNames[m]
	}
	return fmt.Sprintf("Model(%d)", int(m))
}

// Spec chooses what Generate builds.
type Spec struct {
	Family Family
	Model  Model
	Dim    int // d; 0 draws d from the family's smallest (1 or 2) to MaxDim
}

// MaxDim is the largest d Generate draws when Spec.Dim is zero.
const MaxDim = 6

// Case returns instance i of the catalogue with the given seed: family i mod NumFamilies,
// model (i / NumFamilies) mod NumModels, everything else drawn from
// rand.New(rand.NewPCG(seed, i)), so any instance can be rebuilt alone from (seed, i).
func Case(seed uint64, i int) *Instance {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	in := Generate(rng, Spec{Family: Family(i % int(NumFamilies)), Model: Model(i / int(NumFamilies) % int(NumModels))})
	in.Name = fmt.Sprintf("case (%d, %d) %s", seed, i, in.Name)
	return in
}

// Generate builds one instance of the family and model of s, drawing everything else
// (dimension unless given, variant, radius, placement, data) from rng.
func Generate(rng *rand.Rand, s Spec) *Instance {
	d := s.Dim
	if d <= 0 {
		lo := 1
		if s.Family != GeneralRows && s.Family != Budget {
			lo = 2
		}
		d = lo + rng.IntN(MaxDim-lo+1)
	}
	g := &gen{rng: rng, d: d, in: &Instance{}}
	if s.Family < 0 || s.Family >= NumFamilies {
		panic(fmt.Sprintf("bruteforce: unknown family %d", s.Family))
	}
	builders := [NumFamilies]func(*gen) string{(*gen).simplex, (*gen).budget,
		(*gen).balancedBox, (*gen).generalRows, (*gen).degenerate, (*gen).nearParallel}
	variant := builders[s.Family](g)
	g.model(s.Model)
	g.in.Name = fmt.Sprintf("%v/%s, %v, d=%d r=%g", s.Family, variant, s.Model, d, g.in.R)
	return g.in
}

// gen holds the instance being built.
type gen struct {
	rng *rand.Rand
	d   int
	in  *Instance
}

func (g *gen) pick(xs ...float64) float64 { return xs[g.rng.IntN(len(xs))] }

func (g *gen) randVec() []float64 {
	v := make([]float64, g.d)
	for i := range v {
		v[i] = g.rng.NormFloat64()
	}
	return v
}

// row appends a·y ≤ b with b = a·X + slack·‖a‖, exactly rounded: the hyperplane at
// distance slack from X (X violates it for slack < 0).
func (g *gen) row(a []float64, slack float64) {
	g.in.A = append(g.in.A, a)
	g.in.B = append(g.in.B, exactAffine(slack*norm(a), +1, a, g.in.X))
}

// eq appends a·y = a·X, exactly rounded.
func (g *gen) eq(a []float64) {
	g.in.Aeq = append(g.in.Aeq, a)
	g.in.Beq = append(g.in.Beq, exactAffine(0, +1, a, g.in.X))
}

// ones returns the vector of d ones scaled by s.
func (g *gen) ones(s float64) []float64 {
	v := make([]float64, g.d)
	for i := range v {
		v[i] = s
	}
	return v
}

// dyadic rounds v to a multiple of 2⁻²⁰, so that sums of a few such values are exact.
func dyadic(v float64) float64 { return math.Round(v*(1<<20)) / (1 << 20) }

// sumConstraint states Σy = c (c = Σ X computed exactly) in one of three forms: an
// equality row, a scaled equality row, or two opposite inequality rows. It returns the
// form's name.
func (g *gen) sumConstraint() string {
	switch g.rng.IntN(4) {
	case 0:
		g.row(g.ones(1), 0)
		g.row(g.ones(-1), 0)
		return "sum as two rows"
	case 1:
		g.eq(g.ones(g.pick(3, 0.1)))
		return "scaled sum"
	}
	g.eq(g.ones(1))
	return "sum"
}

// bounds sets Lower and Upper (nil for none), or with probability 1/4 states them as
// general rows instead; it returns the form's name.
func (g *gen) bounds(lo, hi []float64) string {
	if g.rng.IntN(4) > 0 {
		g.in.Lower, g.in.Upper = lo, hi
		return "bounds"
	}
	for j := 0; j < g.d; j++ {
		if lo != nil && !math.IsInf(lo[j], -1) {
			g.row(unit(g.d, j, -1), g.in.X[j]-lo[j])
		}
		if hi != nil && !math.IsInf(hi[j], 1) {
			g.row(unit(g.d, j, 1), hi[j]-g.in.X[j])
		}
	}
	return "bounds as rows"
}
