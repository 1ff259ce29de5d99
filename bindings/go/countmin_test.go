package sketches

import (
	"errors"
	"math"
	"testing"
)

func TestCountMin(t *testing.T) {
	const n = 4000
	ks := mixedKeys("cm-", n)
	ints := u64Keys(0, n)
	weights := make([]uint64, n)
	for i := range weights {
		weights[i] = 1 + uint64(i%5)
	}
	single, err := NewCountMin(0.001, 0.01, WithSeed(8))
	check(t, err)
	for i, k := range ks {
		single.AddString(k, weights[i])
	}
	for _, k := range ints {
		single.AddUint64(k, 1)
	}
	for _, form := range []string{"strings", "bytes"} {
		batch, _ := NewCountMin(0.001, 0.01, WithSeed(8))
		if form == "strings" {
			batch.AddStrings(ks, weights)
		} else {
			batch.AddBytes(byteKeys(ks), weights)
		}
		batch.AddUint64s(ints, nil)
		sameImage(t, "CountMin batch "+form, single, batch)
	}
	est := single.EstimateStrings(ks, nil)
	estB := single.EstimateBytes(byteKeys(ks), make([]uint64, n))
	estI := single.EstimateUint64s(ints, nil)
	st := single.Stats()
	over := 0
	for i, k := range ks {
		if est[i] != single.EstimateString(k) || estB[i] != single.Estimate([]byte(k)) {
			t.Fatal("batch and single estimates differ")
		}
		if est[i] < weights[i] {
			t.Fatalf("underestimate: %d < %d", est[i], weights[i])
		}
		if float64(est[i]-weights[i]) > st.ErrorBound {
			over++
		}
	}
	for i, k := range ints {
		if estI[i] < 1 || estI[i] != single.EstimateUint64(k) || single.Estimate(le8(k)) != estI[i] {
			t.Fatal("integer estimates")
		}
	}
	if float64(over) > 0.01*n+10 {
		t.Fatalf("%d estimates beyond epsilon*N", over)
	}
	var total uint64
	for _, w := range weights {
		total += w
	}
	if single.Total() != total+n || st.Params.Width != 2719 || st.Params.Depth != 5 || st.Seed != 8 {
		t.Fatalf("stats %+v", st)
	}

	// Merge == one sketch of both streams (plain update).
	a, _ := NewCountMin(0.001, 0.01, WithSeed(8))
	b, _ := NewCountMin(0.001, 0.01, WithSeed(8))
	a.AddStrings(ks, weights)
	b.AddUint64s(ints, nil)
	check(t, a.Merge(b))
	sameImage(t, "merge", a, single)
	p, _ := PlanCountMinSize(500, 3)
	p.Conservative, p.CounterBits = true, 64
	cons, err := NewCountMinWithParams(p)
	check(t, err)
	cons.AddStrings(ks, weights)
	if cons.Stats().Params != p || cons.EstimateString(ks[10]) < weights[10] {
		t.Fatal("conservative")
	}
	if err := a.Merge(cons); !errors.Is(err, ErrIncompatible) {
		t.Fatal(err)
	}
	if _, err := NewCountMin(0, 0.01); !errors.Is(err, ErrInvalidParameter) {
		t.Fatal(err)
	}
	if err := single.AddStrings(ks, weights[:3]); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("mismatched weights: %v", err)
	}
	c := single.Clone()
	c.Clear()
	if c.Total() != 0 || c.EstimateString(ks[0]) != 0 {
		t.Fatal("clear")
	}
	checkImage(t, single, FamilyCountMin, WrapCountMin)
	mem := alignedCopy(marshal(t, single), 0)
	w, err := WrapCountMin(mem)
	check(t, err)
	wrapShares(t, mem, func() { w.Add([]byte("k"), 3) })
}

// EstimateUint64s(ids, ids) (estimates written over the keys, the results
// slice having room) answers as into a fresh slice, as do overlapping
// windows of one array, instead of panicking on the library's overlap
// refusal.
func TestCountMinEstimateUint64sInPlace(t *testing.T) {
	c, err := NewCountMin(0.001, 0.01)
	check(t, err)
	ids := u64Keys(0, 5000)
	weights := make([]uint64, len(ids))
	for i := range weights {
		weights[i] = uint64(i%7 + 1)
	}
	c.AddUint64s(ids, weights)
	want := c.EstimateUint64s(ids, nil)

	inPlace := append([]uint64(nil), ids...)
	got := c.EstimateUint64s(inPlace, inPlace)
	if &got[0] != &inPlace[0] {
		t.Fatal("results with room were not used")
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("in place: estimate %d = %d, want %d", i, got[i], want[i])
		}
	}
	// Shifted windows of one array: results start one key after (and one
	// key before) the keys they answer.
	for _, shift := range []int{1, -1} {
		buf := make([]uint64, len(ids)+1)
		ks, rs := buf[1:], buf[:len(ids)]
		if shift < 0 {
			ks, rs = buf[:len(ids)], buf[1:]
		}
		copy(ks, ids)
		got := c.EstimateUint64s(ks, rs)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("shift %d: estimate %d = %d, want %d", shift, i, got[i], want[i])
			}
		}
	}
	if got := c.EstimateUint64s(nil, inPlace[:0]); len(got) != 0 {
		t.Fatal("no keys")
	}
}

// Counters saturate: with the 32-bit counters the planners choose, a key
// whose true weight passes 2^32 - 1 reads math.MaxUint32, below the truth
// (as the type's doc says; it once promised never below), while Total
// keeps counting; 64-bit counters give the truth.
func TestCountMinSaturatesBelowTheTruth(t *testing.T) {
	const truth = 1<<32 + 5
	c, err := NewCountMin(0.01, 0.01)
	check(t, err)
	if c.Stats().Params.CounterBits != 32 {
		t.Fatal("the planner's counters are not 32-bit")
	}
	c.AddString("bytes-of-10.0.0.1", truth)
	if got := c.EstimateString("bytes-of-10.0.0.1"); got != math.MaxUint32 || c.Total() != truth {
		t.Fatalf("32-bit counters: estimate %d (want the maximum %d), total %d", got, uint64(math.MaxUint32), c.Total())
	}
	p, err := PlanCountMin(0.01, 0.01)
	check(t, err)
	p.CounterBits = 64
	w, err := NewCountMinWithParams(p)
	check(t, err)
	w.AddString("bytes-of-10.0.0.1", truth)
	if got := w.EstimateString("bytes-of-10.0.0.1"); got != truth {
		t.Fatalf("64-bit counters: estimate %d, want %d", got, truth)
	}
}
