package sketches

import (
	"bytes"
	"errors"
	"testing"
)

func TestSplitBlock(t *testing.T) {
	const n = 5000
	ks := mixedKeys("sbbf-", n)
	ints := u64Keys(0, n)
	single, err := NewSplitBlock(2*n, 0.01, WithSeed(3))
	check(t, err)
	for _, k := range ks {
		single.Add([]byte(k))
	}
	for _, k := range ints {
		single.AddUint64(k)
	}
	if probe := single.Clone(); probe.AddString(ks[5]) || probe.AddUint64(ints[5]) {
		t.Fatal("a present key reported new")
	}
	for _, form := range []string{"strings", "bytes"} {
		batch, _ := NewSplitBlock(2*n, 0.01, WithSeed(3))
		if form == "strings" {
			batch.AddStrings(ks)
		} else {
			batch.AddBytes(byteKeys(ks))
		}
		batch.AddUint64s(ints)
		sameImage(t, "SplitBlock batch "+form, single, batch)
	}
	absent := keys("absent-", 0, n)
	for _, q := range [][]string{ks, absent} {
		res := single.ContainsStrings(q, nil)
		resB := single.ContainsBytes(byteKeys(q), nil)
		for i, k := range q {
			if res[i] != single.ContainsString(k) || resB[i] != single.Contains([]byte(k)) {
				t.Fatalf("batch and single answers differ for %q", k)
			}
		}
	}
	if countTrue(single.ContainsStrings(ks, nil)) != n || countTrue(single.ContainsUint64s(ints, nil)) != n {
		t.Fatal("false negative")
	}
	for _, k := range ints[:100] {
		if !single.ContainsUint64(k) || !single.Contains(le8(k)) {
			t.Fatal("integer key and its 8 little-endian bytes")
		}
	}
	fresh, _ := NewSplitBlock(100, 0.01)
	if r := fresh.AddStringsReportNew([]string{"a", "a"}, nil); !r[0] || r[1] {
		t.Fatal(r)
	}

	a, _ := NewSplitBlock(2*n, 0.01, WithSeed(3))
	b, _ := NewSplitBlock(2*n, 0.01, WithSeed(3))
	both, _ := NewSplitBlock(2*n, 0.01, WithSeed(3))
	a.AddStrings(ks[:n/2])
	b.AddStrings(ks[n/2:])
	both.AddStrings(ks)
	check(t, a.Union(b))
	if !bytes.Equal(a.Bitset(), both.Bitset()) {
		t.Fatal("union differs from one filter of both streams")
	}
	check(t, a.Intersect(both))
	if !bytes.Equal(a.Bitset(), both.Bitset()) {
		t.Fatal("intersection")
	}
	other, _ := NewSplitBlock(2*n, 0.01, WithSeed(4))
	if err := a.Union(other); !errors.Is(err, ErrIncompatible) {
		t.Fatal(err)
	}

	st := single.Stats()
	if st.Seed != 3 || st.AddCalls != 2*n || st.Capacity != 0 || st.Params.Parquet || single.OverCapacity() != 0 {
		t.Fatalf("stats %+v", st)
	}
	if len(single.Bitset()) != int(st.Params.Blocks)*32 {
		t.Fatal("bitset length")
	}
	small, _ := NewSplitBlock(n/10, 0.01)
	small.AddStrings(ks)
	if small.OverCapacity()&OverPlannedItems == 0 {
		t.Fatal("overfill not signalled")
	}
	c := single.Clone()
	c.Clear()
	if c.ContainsString(ks[0]) || !single.ContainsString(ks[0]) {
		t.Fatal("clone/clear")
	}

	// Parquet mode: power-of-two bitset, seed 0, explicit blocks.
	pq, err := NewSplitBlockParquet(1000, 0.01)
	check(t, err)
	if l := len(pq.Bitset()); l&(l-1) != 0 || !pq.Stats().Params.Parquet {
		t.Fatalf("parquet bitset of %d bytes", l)
	}
	pb, err := PlanSplitBlockBlocks(64, true)
	check(t, err)
	f, err := NewSplitBlockWithParams(pb)
	check(t, err)
	if len(f.Bitset()) != 64*32 {
		t.Fatal("explicit blocks")
	}
	if _, err := PlanSplitBlock(0, 0.01); !errors.Is(err, ErrInvalidParameter) {
		t.Fatal(err)
	}

	checkImage(t, single, FamilySplitBlock, WrapSplitBlock)
	mem := alignedCopy(marshal(t, single), 0)
	w, err := WrapSplitBlock(mem)
	check(t, err)
	wrapShares(t, mem, func() { w.AddUint64(1 << 60) })
}

// A copied SplitBlock value shares the image (adds through either are seen
// by both), as doc.go's Memory section says; Clone does not; a copy made
// before a fold keeps answering from the shared folded image.
func TestStructCopySharesImage(t *testing.T) {
	f, err := NewSplitBlock(1000, 0.01)
	check(t, err)
	g := *f
	g.AddString("through the copy")
	if !f.ContainsString("through the copy") {
		t.Fatal("an add through a struct copy is not seen by the original")
	}
	c := f.Clone()
	c.AddString("only in the clone")
	if f.ContainsString("only in the clone") {
		t.Fatal("Clone shares the image")
	}
	before := *f
	check(t, f.Fold(1))
	if before.Size() == f.Size() {
		t.Fatal("the copy made before Fold has the new length (the doc says it keeps the old one)")
	}
	if !before.ContainsString("through the copy") || !bytes.Equal(before.Bitset(), f.Bitset()) {
		t.Fatal("a copy made before Fold does not read the folded image")
	}
}

// The errors the planning and constructor docs list.
func TestSplitBlockParamErrors(t *testing.T) {
	p, err := PlanSplitBlock(100, 0.01)
	check(t, err)
	for name, edit := range map[string]func(*SplitBlockParams){
		"blocks 0": func(q *SplitBlockParams) { q.Blocks = 0 },
		"items 0":  func(q *SplitBlockParams) { q.PlannedItems = 0 },
		"fpr 1":    func(q *SplitBlockParams) { q.PlannedFPR = 1 },
	} {
		q := p
		edit(&q)
		if _, err := NewSplitBlockWithParams(q); !errors.Is(err, ErrInvalidParameter) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	q := p
	q.Parquet = true
	if _, err := NewSplitBlockWithParams(q, WithSeed(1)); !errors.Is(err, ErrInvalidParameter) {
		t.Fatalf("a seed in Parquet mode: %v", err)
	}
	if _, err := NewSplitBlockWithParams(q); err != nil {
		t.Fatal(err)
	}
	if _, err := PlanSplitBlockBlocks(1<<32+1, true); !errors.Is(err, ErrInvalidParameter) {
		t.Fatalf("2^32+1 Parquet blocks: %v", err)
	}
	if _, err := PlanSplitBlockParquet(0, 0.01); !errors.Is(err, ErrInvalidParameter) {
		t.Fatalf("ndv 0: %v", err)
	}
}
