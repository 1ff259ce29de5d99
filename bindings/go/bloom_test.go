package sketches

import (
	"errors"
	"testing"
)

func TestBloom(t *testing.T) {
	const n = 5000
	ks := mixedKeys("bloom-", n)
	ints := u64Keys(0, n)

	single, err := NewBloom(2*n, 0.01, WithSeed(9))
	check(t, err)
	newKeys := 0
	for _, k := range ks {
		if single.AddString(k) {
			newKeys++
		}
	}
	for _, k := range ints {
		single.AddUint64(k)
	}
	if newKeys < n-5 {
		t.Fatalf("%d of %d keys reported new", newKeys, n)
	}
	if probe := single.Clone(); probe.AddString(ks[7]) || probe.Add([]byte(ks[7])) || probe.AddUint64(ints[3]) {
		t.Fatal("a present key reported new")
	}

	for _, form := range []string{"strings", "bytes"} {
		batch, err := NewBloom(2*n, 0.01, WithSeed(9))
		check(t, err)
		if form == "strings" {
			batch.AddStrings(ks)
		} else {
			batch.AddBytes(byteKeys(ks))
		}
		batch.AddUint64s(ints)
		sameImage(t, "Bloom batch "+form, single, batch)
	}

	// No false negatives in any form, batch answers equal single answers.
	absent := keys("absent-", 0, n)
	for _, q := range [][]string{ks, absent} {
		res := single.ContainsStrings(q, nil)
		resB := single.ContainsBytes(byteKeys(q), make([]bool, 0, len(q)))
		for i, k := range q {
			if res[i] != single.ContainsString(k) || resB[i] != single.Contains([]byte(k)) {
				t.Fatalf("batch and single answers differ for %q", k)
			}
		}
	}
	if countTrue(single.ContainsStrings(ks, nil)) != n {
		t.Fatal("false negative (strings)")
	}
	resI := single.ContainsUint64s(ints, nil)
	for i, k := range ints {
		if !resI[i] || !single.ContainsUint64(k) || !single.Contains(le8(k)) {
			t.Fatal("false negative (integers, or their 8 little-endian bytes)")
		}
	}
	if res := single.ContainsStrings(nil, nil); len(res) != 0 {
		t.Fatal("empty batch")
	}
	single.AddStrings(nil)
	single.AddUint64s(nil)

	// Add and report new, per key.
	fresh, _ := NewBloom(n, 0.01)
	isNew := fresh.AddStringsReportNew([]string{"a", "b", "a"}, nil)
	if !isNew[0] || !isNew[1] || isNew[2] {
		t.Fatalf("report new: %v", isNew)
	}

	// Union == one filter of both streams; intersection keeps common keys.
	a, _ := NewBloom(n, 0.01, WithSeed(9))
	b, _ := NewBloom(n, 0.01, WithSeed(9))
	both, _ := NewBloom(n, 0.01, WithSeed(9))
	a.AddStrings(ks[:n/2])
	b.AddStrings(ks[n/2:])
	both.AddStrings(ks)
	u := a.Clone()
	check(t, u.Union(b))
	if countTrue(u.ContainsStrings(ks, nil)) != n {
		t.Fatal("union lost keys")
	}
	if u.Stats().SetBits != both.Stats().SetBits {
		t.Fatal("union bits differ from one filter of both streams")
	}
	x := a.Clone()
	check(t, x.Intersect(u))
	sameImage(t, "a AND (a OR b)", x, a)

	other, _ := NewBloom(n, 0.01, WithSeed(10))
	if err := a.Union(other); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("merge of different seeds: %v", err)
	}
	// With itself: the union with an equal filter (the library's
	// StatusOverlap is avoided by reading a copy; TestMergeWithItself).
	want := a.Clone()
	check(t, want.Union(a.Clone()))
	check(t, a.Union(a))
	sameImage(t, "a OR a", a, want)
	if countTrue(a.ContainsStrings(ks[:n/2], nil)) != n/2 {
		t.Fatal("a OR a lost keys")
	}

	// Statistics and the over-capacity signal.
	st := single.Stats()
	if st.Seed != 9 || st.AddCalls != 2*n || st.Params.Hashes != 7 || st.Capacity != 0 || single.OverCapacity() != 0 {
		t.Fatalf("stats %+v", st)
	}
	small, _ := NewBloom(n/10, 0.01)
	small.AddStrings(ks)
	if c := small.OverCapacity(); c != OverPlannedItems|FPRAboveTwicePlanned || c.String() == "ok" {
		t.Fatalf("overfilled filter: flags %v", c)
	}
	if small.Stats().EstimatedFPR < 0.5 {
		t.Fatalf("overfilled FPR estimate %v", small.Stats().EstimatedFPR)
	}

	// Clone is independent; Clear empties.
	c := single.Clone()
	c.Clear()
	if c.ContainsString(ks[0]) || !single.ContainsString(ks[0]) || c.Stats().AddCalls != 0 {
		t.Fatal("clone/clear")
	}

	checkImage(t, single, FamilyBloom, WrapBloom)
	mem := alignedCopy(marshal(t, single), 0)
	w, err := WrapBloom(mem)
	check(t, err)
	wrapShares(t, mem, func() { w.AddString("new key through the wrapped filter") })

	// Planning.
	p, err := PlanBloom(1000000, 0.01)
	check(t, err)
	if p.Bits != 9585059 || p.Hashes != 7 || p.PlannedItems != 1000000 {
		t.Fatalf("plan %+v", p)
	}
	if _, err := PlanBloom(0, 0.01); !errors.Is(err, ErrInvalidParameter) {
		t.Fatal(err)
	}
	if _, err := NewBloom(10, 1.5); !errors.Is(err, ErrInvalidParameter) {
		t.Fatal(err)
	}
	pb, err := PlanBloomBits(1<<20, 5)
	check(t, err)
	f, err := NewBloomWithParams(pb)
	check(t, err)
	if f.Stats().Params.Bits != 1<<20 || f.Size() < 1<<17 {
		t.Fatal("explicit bits")
	}
	if _, err := PlanBloomBits(0, 5); err == nil {
		t.Fatal("zero bits")
	}
}

func TestZeroValuePanics(t *testing.T) {
	var f Bloom
	expectPanic(t, "zero Bloom", func() { f.ContainsString("x") })
	var h HLL
	expectPanic(t, "zero HLL", func() { h.AddString("x") })
	if err := f.Union(&f); err == nil {
		t.Fatal("union of zero values")
	}
}

// Parameters the library accepts can size an image beyond what Go can
// allocate at all (2^56 bits is 8 PiB; 64-bit Go allocates at most
// 2^48 bytes): the constructors return an error matching
// ErrInvalidParameter instead of the runtime's makeslice panic.
func TestImageTooLargeForMemory(t *testing.T) {
	p, err := PlanBloomBits(1<<56, 7)
	check(t, err)
	blocks, err := PlanSplitBlockBlocks(1<<50, false)
	check(t, err)
	for name, build := range map[string]func() (any, error){
		"NewBloomWithParams":         func() (any, error) { return NewBloomWithParams(p) },
		"NewCountingBloomWithParams": func() (any, error) { return NewCountingBloomWithParams(p) },
		"NewSplitBlockWithParams":    func() (any, error) { return NewSplitBlockWithParams(blocks) },
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s of an image larger than memory panicked: %v", name, r)
				}
			}()
			if s, err := build(); !errors.Is(err, ErrInvalidParameter) {
				t.Fatalf("%s of an image larger than memory: %v, %v", name, s, err)
			}
		}()
	}
}

// A nil Option (an option chosen at run time and left unset) is ignored,
// as no option at all, instead of a nil-function panic in the constructor.
func TestNilOptionIgnored(t *testing.T) {
	var unset Option
	f, err := NewBloom(100, 0.01, unset, WithSeed(3), nil)
	check(t, err)
	if f.Stats().Seed != 3 {
		t.Fatalf("seed %d", f.Stats().Seed)
	}
	h, err := NewHLL(10, nil)
	check(t, err)
	if h.Stats().Seed != 0 {
		t.Fatal("nil option changed the seed")
	}
}
