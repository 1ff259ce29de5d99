package sketches

import (
	"errors"
	"testing"
)

func TestCountingBloom(t *testing.T) {
	const n = 3000
	ks := mixedKeys("counting-", n)
	ints := u64Keys(0, n)
	single, err := NewCountingBloom(2*n, 0.01, WithSeed(5))
	check(t, err)
	for _, k := range ks {
		single.AddString(k)
	}
	for _, k := range ints {
		single.AddUint64(k)
	}
	for _, form := range []string{"strings", "bytes"} {
		batch, _ := NewCountingBloom(2*n, 0.01, WithSeed(5))
		if form == "strings" {
			batch.AddStrings(ks)
		} else {
			batch.AddBytes(byteKeys(ks))
		}
		batch.AddUint64s(ints)
		sameImage(t, "CountingBloom batch "+form, single, batch)
	}
	absent := keys("absent-", 0, n)
	res := single.ContainsStrings(absent, nil)
	resB := single.ContainsBytes(byteKeys(absent), nil)
	for i, k := range absent {
		if res[i] != single.ContainsString(k) || resB[i] != single.Contains([]byte(k)) {
			t.Fatal("batch and single answers differ")
		}
	}
	if countTrue(single.ContainsStrings(ks, nil)) != n || countTrue(single.ContainsUint64s(ints, nil)) != n {
		t.Fatal("false negative")
	}

	// Removal: single and batch forms agree; absent keys change nothing.
	r1, r2 := single.Clone(), single.Clone()
	for _, k := range ks[:n/2] {
		check(t, r1.RemoveString(k))
	}
	for _, k := range ints[:n/2] {
		check(t, r1.RemoveUint64(k))
	}
	m, err := r2.RemoveBytes(byteKeys(ks[:n/2]))
	check(t, err)
	m2, err := r2.RemoveUint64s(ints[:n/2])
	check(t, err)
	if m != n/2 || m2 != n/2 {
		t.Fatal(m, m2)
	}
	sameImage(t, "remove batch", r1, r2)
	if countTrue(r1.ContainsStrings(ks[n/2:], nil)) != n-n/2 {
		t.Fatal("a removal caused a false negative")
	}
	if r1.Stats().Items != 2*n-2*(n/2) || r1.Stats().Removes != 2*(n/2) {
		t.Fatalf("stats %+v", r1.Stats())
	}
	fresh, _ := NewCountingBloom(100, 0.01)
	before := marshal(t, fresh)
	if err := fresh.RemoveString("never added"); !errors.Is(err, ErrNotPresent) {
		t.Fatal(err)
	}
	if err := fresh.Remove([]byte("x")); !errors.Is(err, ErrNotPresent) {
		t.Fatal(err)
	}
	if err := fresh.RemoveUint64(1); !errors.Is(err, ErrNotPresent) {
		t.Fatal(err)
	}
	if string(marshal(t, fresh)) != string(before) {
		t.Fatal("a failed removal changed the filter")
	}
	fresh.AddString("a")
	if n, err := fresh.RemoveStrings([]string{"a", "b"}); n != 1 || !errors.Is(err, ErrNotPresent) {
		t.Fatal(n, err)
	}
	if _, err := fresh.RemoveStrings(nil); err != nil {
		t.Fatal(err)
	}

	// Merge == one filter of both streams (counters add).
	a, _ := NewCountingBloom(2*n, 0.01, WithSeed(5))
	b, _ := NewCountingBloom(2*n, 0.01, WithSeed(5))
	a.AddStrings(ks)
	b.AddUint64s(ints)
	check(t, a.Merge(b))
	if a.Stats().NonzeroCounters != single.Stats().NonzeroCounters || countTrue(a.ContainsUint64s(ints, nil)) != n {
		t.Fatal("merge")
	}
	other, _ := NewCountingBloom(2*n, 0.01, WithSeed(6))
	if err := a.Merge(other); !errors.Is(err, ErrIncompatible) {
		t.Fatal(err)
	}

	if single.OverCapacity() != 0 {
		t.Fatal(single.OverCapacity())
	}
	over, _ := NewCountingBloom(n/10, 0.01)
	over.AddStrings(ks)
	if over.OverCapacity() == 0 || over.Stats().Capacity == 0 {
		t.Fatal("overfill not signalled")
	}
	c := single.Clone()
	c.Clear()
	if c.ContainsString(ks[0]) || c.Stats().Items != 0 {
		t.Fatal("clear")
	}
	pb, _ := PlanBloomBits(4096, 3)
	if _, err := NewCountingBloomWithParams(pb); err != nil {
		t.Fatal(err)
	}
	checkImage(t, single, FamilyCountingBloom, WrapCountingBloom)
	mem := alignedCopy(marshal(t, single), 0)
	w, err := WrapCountingBloom(mem)
	check(t, err)
	wrapShares(t, mem, func() { check(t, w.RemoveString(ks[0])) })
}
