package sketches

import (
	"bytes"
	"errors"
	"testing"
)

func TestCuckoo(t *testing.T) {
	const n = 3000
	ks := mixedKeys("cuckoo-", n)
	ints := u64Keys(0, n)
	single, err := NewCuckoo(2*n, 0.01, WithSeed(11))
	check(t, err)
	for _, k := range ks {
		check(t, single.AddString(k))
	}
	for _, k := range ints {
		check(t, single.AddUint64(k))
	}
	for _, form := range []string{"strings", "bytes"} {
		batch, _ := NewCuckoo(2*n, 0.01, WithSeed(11))
		var added int
		if form == "strings" {
			added, err = batch.AddStrings(ks)
		} else {
			added, err = batch.AddBytes(byteKeys(ks))
		}
		check(t, err)
		a2, err := batch.AddUint64s(ints)
		check(t, err)
		if added != n || a2 != n {
			t.Fatal(added, a2)
		}
		sameImage(t, "Cuckoo batch "+form, single, batch)
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
	if single.CountString(ks[9]) < 1 || single.Count([]byte(ks[9])) < 1 || single.CountUint64(ints[9]) < 1 {
		t.Fatal("count")
	}
	if !single.Contains(le8(ints[4])) {
		t.Fatal("integer key and its 8 little-endian bytes")
	}

	// Counts, removal.
	f, _ := NewCuckoo(100, 0.01)
	check(t, f.Add([]byte("dup")))
	check(t, f.AddString("dup"))
	if f.CountString("dup") != 2 || f.Stats().Items != 2 {
		t.Fatal("duplicates")
	}
	check(t, f.RemoveString("dup"))
	check(t, f.Remove([]byte("dup")))
	if f.ContainsString("dup") {
		t.Fatal("removed key still present")
	}
	if err := f.RemoveString("dup"); !errors.Is(err, ErrNotPresent) {
		t.Fatal(err)
	}
	check(t, f.AddUint64(5))
	check(t, f.RemoveUint64(5))
	if err := f.RemoveUint64(5); !errors.Is(err, ErrNotPresent) {
		t.Fatal(err)
	}

	// Batch removals == single removals; absent keys are counted out and
	// reported, the others still removed.
	for _, form := range []string{"strings", "bytes", "uint64s"} {
		one, batch := single.Clone(), single.Clone()
		var removed int
		var err error
		switch form {
		case "strings":
			removed, err = batch.RemoveStrings(ks[:n/2])
		case "bytes":
			removed, err = batch.RemoveBytes(byteKeys(ks[:n/2]))
		default:
			removed, err = batch.RemoveUint64s(ints[:n/2])
		}
		check(t, err)
		if removed != n/2 {
			t.Fatalf("%s: %d removed", form, removed)
		}
		for i := 0; i < n/2; i++ {
			if form == "uint64s" {
				check(t, one.RemoveUint64(ints[i]))
			} else {
				check(t, one.RemoveString(ks[i]))
			}
		}
		sameImage(t, "Cuckoo batch removal "+form, one, batch)
		if batch.Stats().Items != 2*n-n/2 {
			t.Fatalf("%s: %d items left", form, batch.Stats().Items)
		}
	}
	part := single.Clone()
	mixed := append(keys("absent-", 0, 10), ks[:20]...)
	removed, err := part.RemoveStrings(mixed)
	if !errors.Is(err, ErrNotPresent) || removed < 20 || removed > 30 || part.Stats().Items != uint64(2*n-removed) {
		t.Fatalf("partial removal: %d, %v", removed, err)
	}
	if countTrue(part.ContainsStrings(ks[20:], nil)) != n-20 {
		t.Fatal("a partial removal lost other keys")
	}
	if removed, err := part.RemoveUint64s([]uint64{1 << 60}); removed != 0 || !errors.Is(err, ErrNotPresent) {
		t.Fatal(removed, err)
	}
	if removed, err := part.RemoveStrings(nil); removed != 0 || err != nil {
		t.Fatal(removed, err)
	}

	// Full: a failed insert leaves the image byte-identical.
	p, err := PlanCuckooBuckets(4, 8)
	check(t, err)
	tiny, err := NewCuckooWithParams(p)
	check(t, err)
	var full error
	for i := uint64(0); full == nil; i++ {
		before := marshal(t, tiny)
		if full = tiny.AddUint64(i); full != nil {
			if !errors.Is(full, ErrFull) || string(marshal(t, tiny)) != string(before) {
				t.Fatalf("full insert: %v", full)
			}
		}
	}
	if tiny.Stats().Load < 0.75 {
		t.Fatalf("load at the first failure %v", tiny.Stats().Load)
	}
	items := tiny.Stats().Items
	if placed, err := tiny.AddStrings([]string{"x", "y", "z", "w"}); !errors.Is(err, ErrFull) || placed == 4 ||
		tiny.Stats().Items != items+uint64(placed) {
		t.Fatal(placed, err)
	}
	if placed, err := tiny.AddUint64s(u64Keys(0, 50)); !errors.Is(err, ErrFull) || placed == 50 {
		t.Fatal(placed, err)
	}

	// Merge == one filter of both streams (all or nothing).
	a, _ := NewCuckoo(2*n, 0.01, WithSeed(11))
	b, _ := NewCuckoo(2*n, 0.01, WithSeed(11))
	_, _ = a.AddStrings(ks)
	_, _ = b.AddUint64s(ints)
	check(t, a.Merge(b))
	if a.Stats().Items != 2*n || countTrue(a.ContainsUint64s(ints, nil)) != n || countTrue(a.ContainsStrings(ks, nil)) != n {
		t.Fatal("merge")
	}
	if err := tiny.Merge(tiny.Clone()); !errors.Is(err, ErrFull) {
		t.Fatalf("merge into a full filter: %v", err)
	}
	other, _ := NewCuckoo(2*n, 0.01, WithSeed(12))
	if err := a.Merge(other); !errors.Is(err, ErrIncompatible) {
		t.Fatal(err)
	}

	st := single.Stats()
	if st.Items != 2*n || st.Seed != 11 || st.Params.FingerprintBits != 12 || single.OverCapacity() != 0 {
		t.Fatalf("stats %+v", st)
	}
	c := single.Clone()
	c.Clear()
	if c.Stats().Items != 0 || c.ContainsString(ks[0]) {
		t.Fatal("clear")
	}
	if _, err := PlanCuckoo(100, 1e-6); !errors.Is(err, ErrInvalidParameter) {
		t.Fatal(err)
	}
	checkImage(t, single, FamilyCuckoo, WrapCuckoo)
	mem := alignedCopy(marshal(t, single), 0)
	w, err := WrapCuckoo(mem)
	check(t, err)
	wrapShares(t, mem, func() { check(t, w.RemoveString(ks[0])) })
}

// A key holds at most 8 copies (its two buckets of 4 slots): the 9th add
// fails with ErrFull in an almost empty filter, as the type's doc says,
// and leaves the filter byte-identical; the set-semantics pattern the doc
// gives (Contains before Add) never reaches it.
func TestCuckooNinthCopyIsFull(t *testing.T) {
	f, err := NewCuckoo(100000, 0.01)
	check(t, err)
	for i := 0; i < 8; i++ {
		check(t, f.AddString("user-42"))
	}
	before := marshal(t, f)
	if err := f.AddString("user-42"); !errors.Is(err, ErrFull) {
		t.Fatalf("9th copy: %v", err)
	}
	if !bytes.Equal(marshal(t, f), before) || f.CountString("user-42") != 8 || f.Stats().Load > 0.001 {
		t.Fatalf("after the refused 9th copy: count %d, %+v", f.CountString("user-42"), f.Stats())
	}
	g, err := NewCuckoo(1000, 0.01)
	check(t, err)
	for i := 0; i < 100; i++ {
		if !g.ContainsString("user-42") {
			check(t, g.AddString("user-42"))
		}
	}
	if g.CountString("user-42") != 1 {
		t.Fatal(g.CountString("user-42"))
	}
}
