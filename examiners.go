package houdini

import "gonum.org/v1/gonum/mat"

// The examiners of the full path: each runs lines line:proj_start–line:proj_end and
// FindInside (alg:eigenvector_general_full) for the subset a walk holds, on the model
// f(x + h) ≈ f(x) + vᵀh + ½hᵀMh, in offsets (walk.go). With p the projection of x on the
// subset's affine set, r′ = √(r² − ‖p − x‖²), O an orthonormal basis of the affine set's
// directions, the model at p + Oy is
//
//	c0 + v′ᵀy + ½yᵀM′y,   M′ = OᵀMO,  v′ = Oᵀ(v + M(p − x)),
//	c0 = vᵀ(p − x) + ½(p − x)ᵀM(p − x).

// referenceExaminer runs FindInside with the dense backend in every subset: one
// projection of M (O(d²t)) and one EigenSym of order d − t per subset.
type referenceExaminer struct {
	mod    *quadModel
	mh     []float64 // scratch: M(p − x)
	failed bool      // an eigendecomposition failed: a subset went unexamined
}

func newReferenceExaminer(mod *quadModel) *referenceExaminer {
	return &referenceExaminer{mod: mod, mh: make([]float64, len(mod.v))}
}

func (r *referenceExaminer) pushed(*walk, float64) {}
func (r *referenceExaminer) popped()               {}

func (r *referenceExaminer) examine(w *walk) float64 {
	d := len(w.x)
	h0 := w.offset()
	mh := mat.NewVecDense(d, r.mh)
	mh.MulVec(r.mod.M, mat.NewVecDense(d, h0))
	c0 := dot(r.mod.v, h0) + 0.5*dot(r.mh, h0)
	g := make([]float64, d) // v + M(p − x)
	for j := range g {
		g[j] = r.mod.v[j] + r.mh[j]
	}
	Ms, vs, embed := r.subproblem(w, g)
	cands, lower, ok := findInsideDense(w.ctx, Ms, vs, w.radius(), c0, w.pool.keep)
	switch {
	case !ok && w.ctx.Err() != nil:
		w.stop(true) // the factorization was abandoned: a cancellation, not a failure
	case !ok:
		r.failed = true
	}
	for _, sc := range cands {
		w.considerFace(embed(h0, sc.y), sc.q, sc.kase)
	}
	return lower
}

// subproblem returns M′ and v′ = Oᵀg for the subset w holds, and embed, which maps a
// point y of the subspace to the offset h0 + Oy (h0 = p − x). O is the identity when no row is held, the columns
// eⱼ of the free coordinates when every held row is a bound (M′ is then M's submatrix),
// and otherwise the complement of the rows' Householder QR (subspace).
func (r *referenceExaminer) subproblem(w *walk, g []float64) (Ms *mat.SymDense, vs []float64, embed func(h0, y []float64) []float64) {
	t, d := len(w.rows), len(w.x)
	M := r.mod.M
	switch {
	case t == 0:
		return M, g, func(p, y []float64) []float64 {
			X := append([]float64(nil), p...)
			for j := range X {
				X[j] += y[j]
			}
			return X
		}
	case t == d: // the affine set is p: findInside returns p alone
		return mat.NewSymDense(1, nil), nil, func(p, _ []float64) []float64 { return append([]float64(nil), p...) }
	}
	if free := w.freeCoords(); free != nil {
		Ms = mat.NewSymDense(len(free), nil)
		vs = make([]float64, len(free))
		for a, i := range free {
			vs[a] = g[i]
			for b := a; b < len(free); b++ {
				Ms.SetSym(a, b, M.At(i, free[b]))
			}
		}
		return Ms, vs, func(p, y []float64) []float64 {
			X := append([]float64(nil), p...)
			for a, i := range free {
				X[i] += y[a]
			}
			return X
		}
	}
	sp := newSubspace(w.basis.dense(d), d)
	return sp.project(M), sp.coords(g), func(p, y []float64) []float64 {
		X := append([]float64(nil), p...)
		oy := sp.point(y)
		for j := range X {
			X[j] += oy[j]
		}
		return X
	}
}

// freeCoords returns the coordinates no held row fixes when every held row is a bound
// ±eⱼ, else nil. Independent held rows fix distinct coordinates.
func (w *walk) freeCoords() []int {
	fixed := make([]bool, len(w.x))
	for _, i := range w.rows {
		j := w.c.boundCoord(i)
		if j < 0 {
			return nil
		}
		fixed[j] = true
	}
	free := make([]int, 0, len(w.x)-len(w.rows))
	for j, f := range fixed {
		if !f {
			free = append(free, j)
		}
	}
	return free
}

// eigenExaminer examines the subsets below the base (the rows held when it was made,
// the forced ones) in M's eigenbasis on the base set, computed once per escape
// (eigenbasis.go): the base subset with the dense backend on the known spectrum, the
// others with the bordered backend (ebSubset). A subset the bordered backend declines, or
// for which it is expected to be slower (near a vertex, eigenbasisCheaper), goes to the
// reference examiner; fallbacks counts the declined ones.
type eigenExaminer struct {
	eb        *eigenbasis
	depth     int // rows held when eb was built
	ref       *referenceExaminer
	fallbacks int
	always    bool // every subset to the bordered backend (run's test switch eigenAlways)
}

// newEigenExaminer returns the eigenbasis examiner for the walk's current depth, or nil
// when no eigenbasis can be made (the base set is a point, the eigensolver fails, or the
// walk's context is done: the walk then stops at its first subset).
func newEigenExaminer(w *walk, ref *referenceExaminer) *eigenExaminer {
	eb := newEigenbasis(w.ctx, w.mod.M, w.mod.v, w.offset(), w.basis.dense(len(w.x)))
	if eb == nil {
		return nil
	}
	return &eigenExaminer{eb: eb, depth: len(w.rows), ref: ref}
}

func (e *eigenExaminer) pushed(w *walk, tau float64) { e.eb.push(w.basisVec(len(w.rows)-1), tau) }
func (e *eigenExaminer) popped()                     { e.eb.pop() }

func (e *eigenExaminer) examine(w *walk) float64 {
	t, tt := len(w.rows), len(w.rows)-e.depth
	rs := w.radius()
	if tt == 0 {
		cands, lower := e.eb.base(rs, w.pool.keep)
		e.consider(w, cands)
		return lower
	}
	if t < len(w.x) && (e.always || e.eb.cheaper(tt)) {
		if cands, lower, ok := findInside(e.eb.subset(tt, rs), rs, w.pool.keep); ok {
			e.consider(w, cands)
			return lower
		}
		e.fallbacks++
	}
	// Below the base the dense backend is cheaper in the eigenbasis (order d − t₀
	// instead of full), unless every held row is a bound: the reference examiner then
	// takes M's submatrix, without projections.
	if tt < e.eb.d && w.freeCoords() == nil {
		cands, lower, ok := e.eb.dense(w.ctx, tt, rs, w.pool.keep)
		if ok {
			e.consider(w, cands)
			return lower
		}
		if w.ctx.Err() != nil {
			w.stop(true)
			return lower
		}
	}
	return e.ref.examine(w)
}

// consider considers the candidates of the eigenbasis, offsets h0 + Qy (h0 = p − x).
func (e *eigenExaminer) consider(w *walk, cands []subCandidate) {
	h0 := w.offset()
	for _, c := range cands {
		h := append([]float64(nil), h0...)
		if c.kase != CaseVertex {
			h = e.eb.toOffset(h0, c.y)
		}
		w.considerFace(h, c.q, c.kase)
	}
}
