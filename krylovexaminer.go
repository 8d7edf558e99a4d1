package houdini

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// krylovExactDim: a face of at most this dimension whose held rows are all bounds is
// examined exactly, by the dense backend on M′ formed from m products with unit vectors
// (a submatrix of a dense M): m products and one m×m eigendecomposition, cheaper than the
// Krylov backend's runs and free of its failure probability.
const krylovExactDim = 500

// krylovDenseDim is the dimension from which a dense model (Problem.Hess) is examined by
// the Krylov examiner too: the eigenbasis examiner's one eigendecomposition of order d
// (9d³ flops) then costs more than the ~2·krylovMaxSteps products (2d² flops each) that
// find the few eigenpairs an escape needs.
const krylovDenseDim = 1500

// krylovExaminer examines every subset by products with M alone (quadModel.mul): small
// faces of bounds exactly (krylovExactDim), others by the Krylov backend
// (findInsideKrylov), whose candidates are genuine points but whose bound holds only with
// probability 1 − ξ and which may miss the face's minimizers. The escape therefore
// certifies, when some subset went to the Krylov backend, only by the first subset's
// bound (rootLower: its face ∩ ball holds every point the walk covers) with confidence
// 1 − fail, fail the sum of the ξ of every Krylov bound the walk used.
type krylovExaminer struct {
	mod      *quadModel
	rng      *rand.Rand
	delta    float64
	exactDim int  // krylovExactDim, or the test switch's
	twoPass  bool // every Lanczos face two-pass (run's test switch twoPass)

	started   bool
	rootLower float64 // the first subset's bound
	coneLower float64 // the cone or block bound at the walk's root (keepCone), −Inf when none
	inexact   bool    // a subset went to the Krylov backend
	fail      float64 // Σ ξ of the Krylov bounds used
	failed    bool    // a dense or Rayleigh–Ritz eigensolve failed: a subset went unexamined

	cols   map[int][]float64 // Meⱼ of exactly examined faces, while they fit in krylovColumnCap
	colLen int               // floats held in cols
	mh     [][]float64       // M(p − x) at the depths below the first examined one
}

// krylovColumnCap bounds the floats the Krylov examiner keeps of M's columns: the faces
// of one walk share most of their free coordinates, so each column is one product for
// the whole walk instead of one per subset.
const krylovColumnCap = 1 << 25

func newKrylovExaminer(mod *quadModel, rng *rand.Rand, delta float64, exactDim int) *krylovExaminer {
	if exactDim == 0 {
		exactDim = krylovExactDim
	}
	return &krylovExaminer{mod: mod, rng: rng, delta: delta, exactDim: exactDim, coneLower: math.Inf(-1)}
}

// keepCone returns the walk's cone bound (cone.go) with its values kept: it is finite
// only at the walk's root, where it bounds the model over the walk's whole set S_w ∩ B
// as the first subset's bound does, so that the certificate of an inexact walk may rest
// on the larger of the two (run.modelCertifies). The cone bound on the Krylov examiner's
// models takes its Schur block from coordinates (conekrylov.go): it carries no failure
// probability.
func (e *krylovExaminer) keepCone(bound func(*walk) float64) func(*walk) float64 {
	return func(w *walk) float64 {
		L := bound(w)
		e.coneLower = math.Max(e.coneLower, L)
		return L
	}
}

// certLower returns the bound an inexact walk certifies by: the larger of the first
// subset's bound and the cone bound at the root.
func (e *krylovExaminer) certLower() float64 { return math.Max(e.rootLower, e.coneLower) }

// pushed updates M(p − x) for the step p′ = p + τu: M(p′ − x) = M(p − x) + τ·Mu, with Mu
// a cached column when u is a coordinate vector (a bound row), else one product.
func (e *krylovExaminer) pushed(w *walk, tau float64) {
	if len(e.mh) == 0 {
		return // before the first subset: examine computes it
	}
	mh := append([]float64(nil), e.mh[len(e.mh)-1]...)
	k, d := w.basis.size()-1, len(w.x)
	if j, sign := w.basis.isCoord(k); j >= 0 {
		axpy(mh, tau*sign, e.column(j, d))
	} else {
		u := w.basis.vecs[k]
		mu := make([]float64, d)
		e.mod.mul(mu, u)
		axpy(mh, tau, mu)
	}
	e.mh = append(e.mh, mh)
}

func (e *krylovExaminer) popped() {
	if len(e.mh) > 1 {
		e.mh = e.mh[:len(e.mh)-1]
	}
}

func (e *krylovExaminer) examine(w *walk) float64 {
	lower := e.examineFace(w)
	if !e.started {
		e.started, e.rootLower = true, lower
	}
	return lower
}

// examineFace runs FindInside on the subset w holds and returns its bound.
func (e *krylovExaminer) examineFace(w *walk) float64 {
	d := len(w.x)
	h0 := w.offset()
	if len(e.mh) == 0 {
		mh := make([]float64, d)
		e.mod.mul(mh, h0)
		e.mh = [][]float64{mh}
	}
	g := append([]float64(nil), e.mh[len(e.mh)-1]...) // v + M(p − x)
	c0 := dot(e.mod.v, h0) + 0.5*dot(g, h0)
	axpy(g, 1, e.mod.v)
	t := len(w.rows)
	if t == d || w.radius() == 0 {
		if c0 < w.pool.keep {
			w.considerFace(append([]float64(nil), h0...), c0, CaseVertex)
		}
		return c0
	}
	free := w.freeCoords()
	if free != nil && len(free) <= e.exactDim {
		return e.exactFace(w, free, h0, g, c0)
	}
	op := faceOp{mul: e.mod.mul, m: d - t, err: func() error { return e.mod.err }}
	if free != nil {
		fixed := make([]bool, d)
		for _, i := range w.rows {
			fixed[w.c.boundCoord(i)] = true
		}
		op.proj = func(v []float64) {
			for j, f := range fixed {
				if f {
					v[j] = 0
				}
			}
		}
	} else {
		op.proj = w.basis.project
	}
	op.proj(g)
	findInside := findInsideKrylov
	if useTwoPass(d, op.m) || e.twoPass { // O(d) memory instead of O(d·k): twopass.go
		findInside = findInsideTwoPass
	}
	res := findInside(w.ctx, op, g, c0, w.radius(), w.pool.keep, e.delta, e.rng)
	e.inexact = e.inexact || !res.exact
	if !res.ok {
		if w.ctx.Err() != nil {
			w.stop(true)
		} else if e.mod.err == nil {
			e.failed = true
		}
		return math.Inf(-1)
	}
	e.fail += res.fail
	for _, c := range res.cands {
		axpy(c.y, 1, h0)
		w.considerFace(c.y, c.q, c.kase)
	}
	return res.lower
}

// exactFace examines a face of bounds exactly: M′ from products with the free unit
// vectors (the submatrix of a dense M), then the dense backend.
func (e *krylovExaminer) exactFace(w *walk, free []int, h0, g []float64, c0 float64) float64 {
	m, d := len(free), len(w.x)
	Ms := mat.NewSymDense(m, nil)
	vs := make([]float64, m)
	if M := e.mod.M; M != nil {
		for a, i := range free {
			for b := a; b < m; b++ {
				Ms.SetSym(a, b, M.At(i, free[b]))
			}
		}
	} else {
		cols := mat.NewDense(m, m, nil)
		for a, i := range free {
			col := e.column(i, d)
			for b, j := range free {
				cols.Set(b, a, col[j])
			}
		}
		for a := 0; a < m; a++ {
			for b := a; b < m; b++ {
				Ms.SetSym(a, b, 0.5*(cols.At(a, b)+cols.At(b, a)))
			}
		}
	}
	for a, i := range free {
		vs[a] = g[i]
	}
	cands, lower, ok := findInsideDense(w.ctx, Ms, vs, w.radius(), c0, w.pool.keep)
	switch {
	case !ok && w.ctx.Err() != nil:
		w.stop(true)
	case !ok:
		e.failed = true
	}
	for _, c := range cands {
		h := append([]float64(nil), h0...)
		for a, i := range free {
			h[i] += c.y[a]
		}
		w.considerFace(h, c.q, c.kase)
	}
	return lower
}

// column returns Meᵢ, from the cache when it holds it (a view of a dense M's column).
func (e *krylovExaminer) column(i, d int) []float64 {
	if col, ok := e.cols[i]; ok {
		return col
	}
	unit, col := make([]float64, d), make([]float64, d)
	if M := e.mod.M; M != nil {
		for j := range col {
			col[j] = M.At(j, i)
		}
		return col
	}
	unit[i] = 1
	e.mod.mul(col, unit)
	if e.colLen+d <= krylovColumnCap && e.mod.err == nil {
		if e.cols == nil {
			e.cols = make(map[int][]float64)
		}
		e.cols[i] = col
		e.colLen += d
	}
	return col
}
