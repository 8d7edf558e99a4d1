package bruteforce

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Sampling parameters. They trade time for how close Sample gets; none affects what
// Sample may return, which is always a point checked feasible.
const (
	dykstraCycles = 100 // cap on Dykstra cycles per projection
	pgIters       = 150 // projected-gradient steps per start
	pgStarts      = 4   // best samples polished, besides h = 0 (or its projection)
)

// sampler is the state of one Sample call. It does not use an SVD or eigenvalues, so
// it fails in other ways than Min: equalities by Gram–Schmidt, projections by Dykstra.
type sampler struct {
	p    *Problem
	d    int
	tau  float64
	eqU  [][]float64 // orthonormal basis of the equality rows' span
	eqC  []float64   // u_k·h = c_k on the equality set
	he   []float64   // the equality set's point nearest the origin
	rows []row       // nonzero finite inequality rows
	near []row       // those that cut the ball: S ∩ B is the same without the others
	rng  *rand.Rand
	best Result
	// scratch of dykstra
	inc     [][]float64
	w, prev []float64
}

// Sample returns the lowest point it finds in S ∩ B, an estimate that shares no method
// with Min: n points uniform in the ball and n on its sphere (both within the
// equalities' affine set), n random points projected onto S ∩ B by Dykstra's
// algorithm, and projected gradient, with Dykstra projections, from h = 0 (projected)
// and from the lowest samples. Every point it keeps is checked feasible within τ (its
// projections aim at S shrunk by τ/2, so that rounding does not push them out), so
// Value is an upper bound of the minimum over the τ-feasible set. It is usually close to
// Min's but not exact: thin sets defeat rejection, flat directions slow the gradient.
// At the same Tol it may go below Min by using the tolerance band in near-parallel
// slivers, which the package doc's sandwich allows; to cross-check Min, give Sample a
// much smaller Tol (the tests use 1e-15). Sample panics if p.Validate fails.
func Sample(p Problem, rng *rand.Rand, n int) Result {
	if err := p.Validate(); err != nil {
		panic(err)
	}
	s := &sampler{p: &p, d: p.Dim(), tau: p.tol(), rng: rng}
	s.best.Value = math.Inf(1)
	if !s.setRows() {
		return s.best
	}
	var pool []pt
	keep := func(h []float64) {
		if s.offer(h) {
			pool = append(pool, pt{h, p.Value(h)})
		}
	}
	m := s.d - len(s.eqU)
	rhoE := math.Sqrt(math.Max(0, p.R*p.R-dot(s.he, s.he)))
	for i := 0; i < 2*n; i++ {
		rad := rhoE
		if i < n {
			rad *= math.Pow(rng.Float64(), 1/float64(max(m, 1)))
		}
		keep(axpy(rad, s.nullDir(), s.he))
	}
	for i := 0; i < n; i++ {
		keep(s.dykstra(s.randomBall(1.5 * p.R)))
	}
	slices.SortStableFunc(pool, func(a, b pt) int { return cmpFloat(a.q, b.q) })
	starts := [][]float64{s.dykstra(make([]float64, s.d))}
	// The lowest samples, each at least R/4 from the starts already chosen, so that the
	// descents explore different basins.
	for i := 0; i < len(pool) && len(starts) <= pgStarts; i++ {
		far := true
		for _, h := range starts {
			far = far && dist(h, pool[i].h) > p.R/4
		}
		if far {
			starts = append(starts, pool[i].h)
		}
	}
	for _, h := range starts {
		s.descend(h)
	}
	if s.best.Feasible {
		for i := range s.rows {
			if s.rows[i].excess(s.best.H) >= -s.tau {
				s.best.Active = append(s.best.Active, s.rows[i].idx)
			}
		}
	}
	return s.best
}

func dist(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += (x[i] - y[i]) * (x[i] - y[i])
	}
	return math.Sqrt(s)
}

type pt struct {
	h []float64
	q float64
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// setRows orthonormalizes the equality rows (Gram–Schmidt, twice) and keeps the
// inequality rows; it returns false when a zero or dependent row is inconsistent.
func (s *sampler) setRows() bool {
	p := s.p
	s.he = make([]float64, s.d)
	for i, a := range p.Aeq {
		na := norm(a)
		if na == 0 {
			if p.Beq[i] != 0 {
				return false
			}
			continue
		}
		v, c := scaled(a, 1/na), p.Beq[i]/na
		for range 2 {
			for k, u := range s.eqU {
				f := dot(u, v)
				v, c = axpy(-f, u, v), c-f*s.eqC[k]
			}
		}
		nv := norm(v)
		if nv < 1e-10 { // dependent: consistent within τ, or the set is empty
			if math.Abs(c) > s.tau {
				return false
			}
			continue
		}
		s.eqU, s.eqC = append(s.eqU, scaled(v, 1/nv)), append(s.eqC, c/nv)
	}
	for k, u := range s.eqU {
		s.he = axpy(s.eqC[k], u, s.he)
	}
	rows, ok := p.ineqRows()
	s.rows = rows
	for _, r := range rows {
		if r.c < p.R {
			s.near = append(s.near, r)
		}
	}
	return ok
}

// nullDir returns a random unit vector orthogonal to the equality rows (zero when there
// is none).
func (s *sampler) nullDir() []float64 {
	for range 10 {
		v := s.randomBall(1)
		for range 2 {
			for _, u := range s.eqU {
				v = axpy(-dot(u, v), u, v)
			}
		}
		if n := norm(v); n > 1e-6 {
			return scaled(v, 1/n)
		}
	}
	return make([]float64, s.d)
}

// randomBall returns a point uniform in the ball of radius rad.
func (s *sampler) randomBall(rad float64) []float64 {
	v := make([]float64, s.d)
	for i := range v {
		v[i] = s.rng.NormFloat64()
	}
	return scaled(v, rad*math.Pow(s.rng.Float64(), 1/float64(s.d))/norm(v))
}

// offer keeps h as the best point when it is feasible and lower; it reports feasibility.
func (s *sampler) offer(h []float64) bool {
	if !s.p.Feasible(h) {
		return false
	}
	s.best.Points++
	if v := s.p.Value(h); v < s.best.Value {
		s.best.Feasible, s.best.Value, s.best.H = true, v, append([]float64(nil), h...)
	}
	return true
}

// dykstra returns the projection of z onto S ∩ B by Dykstra's alternating projections
// (Boyle and Dykstra 1986) over the equality set, each half-space and the ball, each
// with its own correction, which converge to the exact projection. It stops when a
// cycle moves the point by less than 1e-15·R, or after dykstraCycles cycles.
func (s *sampler) dykstra(z []float64) []float64 {
	sets := len(s.near) + 2
	if len(s.inc) < sets {
		s.inc = make([][]float64, sets)
		for i := range s.inc {
			s.inc[i] = make([]float64, s.d)
		}
		s.w, s.prev = make([]float64, s.d), make([]float64, s.d)
	}
	for _, v := range s.inc[:sets] {
		clear(v)
	}
	y, w := append([]float64(nil), z...), s.w
	for range dykstraCycles {
		copy(s.prev, y)
		for set, inc := range s.inc[:sets] {
			for i := range w {
				w[i] = y[i] + inc[i]
			}
			s.project(set, w, y)
			for i := range w {
				inc[i] = w[i] - y[i]
			}
		}
		moved := 0.0
		for i := range y {
			moved = max(moved, math.Abs(y[i]-s.prev[i]))
		}
		if moved <= s.tau/8 {
			break
		}
	}
	return y
}

// project writes into y the projection of w onto set number set: the inequality rows,
// then the equality set, then the ball.
func (s *sampler) project(set int, w, y []float64) {
	copy(y, w)
	k := len(s.near)
	switch {
	case set < k:
		r := &s.near[set]
		if ex := dot(r.u, w) - (r.c - s.tau/2); ex > 0 {
			for i := range y {
				y[i] -= ex * r.u[i]
			}
		}
	case set == k:
		for j, u := range s.eqU {
			ex := dot(u, y) - s.eqC[j]
			for i := range y {
				y[i] -= ex * u[i]
			}
		}
	default:
		if n, R := math.Sqrt(dot(w, w)), s.p.R-s.tau/2; n > R {
			for i := range y {
				y[i] *= R / n
			}
		}
	}
}

// descend runs monotone projected gradient from h, offering every iterate. The step
// starts at 1/L, L = ‖Q‖_F (at least the spectral norm; with L also at least ‖g‖/2R so
// that one step moves at most about 2R), grows by half after a step that lowers q and
// shrinks fourfold after one that does not (or that Dykstra could not make feasible:
// thin sets converge slowly). It stops when 20 steps gain less than 1e-13 of q's scale
// on the ball, or the step falls below 1e-6/L.
func (s *sampler) descend(h []float64) {
	p := s.p
	L := 0.0
	for _, row := range p.Q {
		for _, v := range row {
			L += v * v
		}
	}
	L = math.Max(math.Sqrt(L), norm(p.G)/(2*p.R))
	if L == 0 {
		return
	}
	g := make([]float64, s.d)
	step := 1 / L
	qh := p.Value(h)
	last := qh // q at the last checkpoint
	for it := 1; it <= pgIters; it++ {
		p.Grad(g, h)
		next := s.dykstra(axpy(-step, g, h))
		qn := p.Value(next)
		if !s.offer(next) || qn > qh {
			if step *= 0.25; step < 1e-6/L {
				return
			}
			continue
		}
		h, qh = next, qn
		step = math.Min(1.5*step, 100/L)
		if it%20 == 0 {
			if last-qh <= 1e-13*(norm(p.G)*p.R+L*p.R*p.R) {
				return
			}
			last = qh
		}
	}
}
