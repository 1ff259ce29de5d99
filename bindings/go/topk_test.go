package sketches

import (
	"bytes"
	"errors"
	"sort"
	"strconv"
	"testing"
)

func TestTopK(t *testing.T) {
	// A skewed stream: key i appears about 2000/(i+1) times.
	var ks []string
	var ws []uint64
	exact := map[string]uint64{}
	for i := 0; i < 3000; i++ {
		k := "item-" + strconv.Itoa(i%(1+i%97))
		w := 1 + uint64(i%3)
		ks, ws = append(ks, k), append(ws, w)
		exact[k] += w
	}
	single, err := NewTopK(32, 16, WithSeed(4))
	check(t, err)
	for i := range ks {
		check(t, single.AddString(ks[i], ws[i]))
	}
	for _, form := range []string{"strings", "bytes"} {
		batch, _ := NewTopK(32, 16, WithSeed(4))
		if form == "strings" {
			check(t, batch.AddStrings(ks, ws))
		} else {
			check(t, batch.AddBytes(byteKeys(ks), ws))
		}
		sameImage(t, "TopK batch "+form, single, batch)
	}
	st := single.Stats()
	var total uint64
	for _, w := range ws {
		total += w
	}
	if st.Total != total || st.Used != 32 || st.Capacity != 32 || st.MaxKeyLen != 16 || st.MinCount == 0 {
		t.Fatalf("stats %+v", st)
	}
	list := single.List()
	if len(list) != 32 || !sort.SliceIsSorted(list, func(i, j int) bool { return list[i].Count > list[j].Count }) {
		t.Fatal("listing not sorted")
	}
	bound := total / 32
	listed := map[string]bool{}
	for _, it := range list {
		k := string(it.Key)
		listed[k] = true
		if it.Count < exact[k] || it.Count-exact[k] > bound || it.Error > bound {
			t.Fatalf("%s: count %d, exact %d, error %d", k, it.Count, exact[k], it.Error)
		}
		if e := single.Estimate(it.Key); !e.Listed || e.Count != it.Count || e != single.EstimateString(k) {
			t.Fatal("estimate of a listed key")
		}
	}
	for k, c := range exact {
		if c > bound && !listed[k] {
			t.Fatalf("%s (count %d > N/capacity %d) not listed", k, c, bound)
		}
	}
	// The listing is a copy.
	first := bytes.Clone(list[0].Key)
	single.Clear()
	if !bytes.Equal(list[0].Key, first) || len(single.List()) != 0 {
		t.Fatal("listing aliases the image")
	}

	// Keys too long: refused, all or nothing.
	f, _ := NewTopK(8, 4)
	check(t, f.AddString("abcd", 1))
	before := marshal(t, f)
	if err := f.AddString("abcde", 1); !errors.Is(err, ErrKeyTooLong) {
		t.Fatal(err)
	}
	if err := f.AddUint64(1, 1); !errors.Is(err, ErrKeyTooLong) {
		t.Fatal(err)
	}
	if err := f.AddStrings([]string{"a", "b", "toolong"}, nil); !errors.Is(err, ErrKeyTooLong) {
		t.Fatal(err)
	}
	many := append(keys("k", 0, 5000), "toolong")
	if err := f.AddBytes(byteKeys(many), nil); !errors.Is(err, ErrKeyTooLong) {
		t.Fatal(err)
	}
	if !bytes.Equal(marshal(t, f), before) {
		t.Fatal("a refused batch changed the sketch")
	}
	// Such keys were never added: their estimate is zero, not a panic.
	for _, e := range []TopKEstimate{f.EstimateString("abcde"), f.Estimate(make([]byte, 5000)), f.EstimateUint64(1)} {
		if e != (TopKEstimate{}) {
			t.Fatalf("estimate of a key too long to add: %+v", e)
		}
	}
	if e := f.EstimateString("abcd"); e.Count != 1 || !e.Listed {
		t.Fatalf("estimate of a listed key: %+v", e)
	}

	// Integer keys are their 8 little-endian bytes; merge.
	a, _ := NewTopK(16, 8, WithSeed(4))
	b, _ := NewTopK(16, 8, WithSeed(4))
	check(t, a.AddUint64s([]uint64{1, 2, 2}, nil))
	check(t, b.AddUint64s([]uint64{2, 3}, []uint64{5, 7}))
	check(t, b.Add(le8(1), 1))
	check(t, a.Merge(b))
	if a.EstimateUint64(2).Count != 7 || a.EstimateUint64(3).Count != 7 || a.EstimateUint64(1).Count != 2 || a.Stats().Total != 16 {
		t.Fatalf("merge: %+v", a.List())
	}
	if a.EstimateUint64(99).Listed {
		t.Fatal("an absent key listed")
	}
	other, _ := NewTopK(16, 9, WithSeed(4))
	if err := a.Merge(other); !errors.Is(err, ErrIncompatible) {
		t.Fatal(err)
	}
	if _, err := NewTopK(0, 8); !errors.Is(err, ErrInvalidParameter) {
		t.Fatal(err)
	}

	for i := range ks {
		check(t, single.AddString(ks[i], ws[i]))
	}
	checkImage(t, single, FamilyTopK, WrapTopK)
	mem := alignedCopy(marshal(t, single), 0)
	w, err := WrapTopK(mem)
	check(t, err)
	wrapShares(t, mem, func() { check(t, w.AddString("new", 1)) })
}

// A zero weight is no occurrence (the library skips it): in a full sketch
// an unlisted key added with weight 0 takes no counter and evicts nothing;
// it evicted the smallest counter's key before.
func TestTopKZeroWeightChangesNothing(t *testing.T) {
	k, err := NewTopK(2, 8)
	check(t, err)
	check(t, k.AddString("a", 5))
	check(t, k.AddString("b", 3))
	before := marshal(t, k)
	check(t, k.AddString("empty", 0))
	check(t, k.AddUint64(7, 0))
	check(t, k.AddStrings([]string{"x", "y"}, []uint64{0, 0}))
	if e := k.EstimateString("b"); !e.Listed || e.Count != 3 {
		t.Fatalf("b evicted by a zero-weight add: %+v", k.List())
	}
	if e := k.EstimateString("empty"); e.Listed || k.Stats().Total != 8 {
		t.Fatalf("the zero-weight key: %+v, %+v", e, k.Stats())
	}
	if !bytes.Equal(before, marshal(t, k)) {
		t.Fatal("a zero-weight add changed the image")
	}
}
