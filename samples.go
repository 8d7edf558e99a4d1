package houdini

import "math/rand/v2"

// The samples of one run with a Sampled oracle: which ids a batch names. The calls on
// them, their counts and the estimates built on common samples are in sampledoracle.go.

// sampleStream is the PCG stream of the ids' generator: seeded by Settings.Seed like the
// run's own generator but apart from it, so that drawing ids never shifts the run's
// other randomness (the perturbation, the corner path's starts).
const sampleStream = 0x2545f4914f6cdd1d

// sampler draws the ids of one run's batches.
type sampler struct {
	sp   *Sampled
	rng  *rand.Rand // finite data: uniform ids with replacement
	next int        // stream: the next fresh id
	all  []int      // 0, …, N−1, made on the first full pass
}

func newSampler(sp *Sampled, seed uint64) *sampler {
	return &sampler{sp: sp, rng: rand.New(rand.NewPCG(seed, sampleStream))}
}

// draw returns n new ids: uniform on [0, N) with replacement for a finite data set, the
// next n fresh ids of a stream.
func (sm *sampler) draw(n int) []int {
	ids := make([]int, n)
	for k := range ids {
		if sm.sp.N > 0 {
			ids[k] = sm.rng.IntN(sm.sp.N)
		} else {
			ids[k] = sm.next
			sm.next++
		}
	}
	return ids
}

// full reports whether n samples cost at least a full pass over a finite data set, which
// gives the exact value instead of an estimate.
func (sm *sampler) full(n int) bool { return sm.sp.N > 0 && n >= sm.sp.N }

// allIDs returns the ids of a full pass, 0, …, N−1. The slice is shared: callers must not
// modify it.
func (sm *sampler) allIDs() []int {
	if sm.all == nil {
		sm.all = make([]int, sm.sp.N)
		for i := range sm.all {
			sm.all[i] = i
		}
	}
	return sm.all
}
