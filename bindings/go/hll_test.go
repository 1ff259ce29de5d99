package sketches

import (
	"errors"
	"math"
	"testing"
)

func TestHLL(t *testing.T) {
	const n = 30000
	ks := mixedKeys("hll-", n)
	ints := u64Keys(0, n)
	single, err := NewHLL(12, WithSeed(1))
	check(t, err)
	changed := 0
	for _, k := range ks {
		if single.AddString(k) {
			changed++
		}
	}
	for _, k := range ints {
		single.AddUint64(k)
	}
	if changed == 0 || single.AddString(ks[0]) {
		t.Fatal("changed flags")
	}
	for _, form := range []string{"strings", "bytes"} {
		batch, _ := NewHLL(12, WithSeed(1))
		if form == "strings" {
			batch.AddStrings(ks)
		} else {
			batch.AddBytes(byteKeys(ks))
		}
		batch.AddUint64s(ints)
		sameImage(t, "HLL batch "+form, single, batch)
	}
	if e := single.Estimate(); math.Abs(e-2*n)/(2*n) > 0.06 {
		t.Fatalf("estimate %v for %d", e, 2*n)
	}
	st := single.Stats()
	if !st.Dense || !st.Martingale || st.Precision != 12 || st.Seed != 1 || st.Estimate != single.Estimate() {
		t.Fatalf("stats %+v", st)
	}

	// Exact small mode, compact export.
	small, _ := NewHLL(14)
	small.AddStrings(keys("s-", 0, 500))
	small.Add([]byte("s-3"))
	if small.Estimate() != 500 || small.Stats().Dense || small.Stats().SmallCount != 500 {
		t.Fatalf("small mode: %v %+v", small.Estimate(), small.Stats())
	}
	if img := marshal(t, small); len(img) >= small.Size() {
		t.Fatalf("compact export of %d bytes for a %d-byte image", len(img), small.Size())
	}
	var back HLL
	check(t, back.UnmarshalBinary(marshal(t, small)))
	if back.Estimate() != 500 || back.Size() != small.Size() {
		t.Fatal("compact round trip")
	}

	// Merge == one sketch of both streams (same registers), across precisions too.
	a, _ := NewHLL(12, WithSeed(1))
	b, _ := NewHLL(12, WithSeed(1))
	a.AddStrings(ks[:n/2])
	b.AddStrings(ks[n/2:])
	a.AddUint64s(ints)
	check(t, a.Merge(b))
	if a.RegisterEstimate() != single.RegisterEstimate() || a.Stats().Martingale {
		t.Fatalf("merge: %v vs %v", a.RegisterEstimate(), single.RegisterEstimate())
	}
	if a.Estimate() != a.RegisterEstimate() {
		t.Fatal("a merged sketch answers from its registers")
	}
	hi, _ := NewHLL(14, WithSeed(1))
	hi.AddStrings(ks)
	hi.AddUint64s(ints)
	lo, _ := NewHLL(12, WithSeed(1))
	check(t, lo.Merge(hi))
	if lo.RegisterEstimate() != single.RegisterEstimate() {
		t.Fatal("merge folding p=14 into p=12")
	}
	if err := hi.Merge(single); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("merge of a lower precision: %v", err)
	}
	other, _ := NewHLL(12, WithSeed(2))
	if err := single.Merge(other); !errors.Is(err, ErrIncompatible) {
		t.Fatal(err)
	}
	d, err := hi.Downsize(12)
	check(t, err)
	if d.RegisterEstimate() != single.RegisterEstimate() || d.Precision() != 12 {
		t.Fatal("downsize")
	}
	if _, err := hi.Downsize(16); !errors.Is(err, ErrIncompatible) {
		t.Fatal(err)
	}
	if _, err := NewHLL(3); !errors.Is(err, ErrInvalidParameter) {
		t.Fatal(err)
	}

	c := single.Clone()
	c.Reset()
	if c.Estimate() != 0 || single.Estimate() == 0 {
		t.Fatal("clone/reset")
	}
	checkImage(t, single, FamilyHLL, WrapHLL)
	mem := alignedCopy(marshal(t, single), 0)
	w, err := WrapHLL(mem)
	check(t, err)
	wrapShares(t, mem, func() {
		for i := 0; !w.AddUint64(uint64(i) + 1<<40); i++ {
		}
	})
	if _, err := WrapHLL(alignedCopy(marshal(t, small), 0)); !errors.Is(err, &Error{Code: StatusCompactImage}) {
		t.Fatalf("wrap of a compact image: %v", err)
	}
}

func TestULL(t *testing.T) {
	const n = 30000
	ks := mixedKeys("ull-", n)
	ints := u64Keys(0, n)
	single, err := NewULL(10, WithSeed(1))
	check(t, err)
	for _, k := range ks {
		single.Add([]byte(k))
	}
	for _, k := range ints {
		single.AddUint64(k)
	}
	if single.AddString(ks[0]) {
		t.Fatal("changed flag for a present key")
	}
	for _, form := range []string{"strings", "bytes"} {
		batch, _ := NewULL(10, WithSeed(1))
		if form == "strings" {
			batch.AddStrings(ks)
		} else {
			batch.AddBytes(byteKeys(ks))
		}
		batch.AddUint64s(ints)
		sameImage(t, "ULL batch "+form, single, batch)
	}
	for _, e := range []float64{single.Estimate(), single.RegisterEstimate(), single.MLEstimate()} {
		if math.Abs(e-2*n)/(2*n) > 0.1 {
			t.Fatalf("estimate %v for %d", e, 2*n)
		}
	}
	st := single.Stats()
	if !st.Martingale || st.Precision != 10 || st.Seed != 1 || st.RegistersSet != 1024 {
		t.Fatalf("stats %+v", st)
	}

	a, _ := NewULL(10, WithSeed(1))
	b, _ := NewULL(11, WithSeed(1))
	a.AddStrings(ks)
	b.AddUint64s(ints)
	check(t, a.Merge(b))
	if a.RegisterEstimate() != single.RegisterEstimate() || a.Stats().Martingale {
		t.Fatal("merge (folding p=11 into p=10)")
	}
	if err := b.Merge(a); !errors.Is(err, ErrIncompatible) {
		t.Fatal(err)
	}

	h, err := single.ToHLL()
	check(t, err)
	direct, _ := NewHLL(10, WithSeed(1))
	direct.AddStrings(ks)
	direct.AddUint64s(ints)
	if h.RegisterEstimate() != direct.RegisterEstimate() || h.Precision() != 10 {
		t.Fatal("ToHLL differs from the HLL of the same keys")
	}
	c := single.Clone()
	c.Reset()
	if c.Estimate() != 0 {
		t.Fatal("reset")
	}
	checkImage(t, single, FamilyULL, WrapULL)
	mem := alignedCopy(marshal(t, single), 0)
	w, err := WrapULL(mem)
	check(t, err)
	wrapShares(t, mem, func() {
		for i := 0; !w.AddUint64(uint64(i) + 1<<40); i++ {
		}
	})
}

// The compact export of a small HLL is not a live image: every Wrap form
// refuses it with an error matching ErrCompactImage (a service wrapping a
// mapped file falls back to UnmarshalBinary on it), and the export of the
// same sketch after Densify wraps.
func TestWrapCompactHLLIsErrCompactImage(t *testing.T) {
	small, err := NewHLL(14)
	check(t, err)
	small.AddStrings([]string{"a", "b", "c"})
	img := marshal(t, small)
	if len(img) >= small.Size() {
		t.Fatalf("want a compact export: %d of %d bytes", len(img), small.Size())
	}
	for name, wrap := range map[string]func([]byte) (*HLL, error){"WrapHLL": WrapHLL, "WrapHLLReadOnly": WrapHLLReadOnly} {
		_, err := wrap(alignedCopy(img, 0))
		var e *Error
		if !errors.Is(err, ErrCompactImage) || !errors.As(err, &e) || e.Op != name || errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s of a compact export: %v", name, err)
		}
		var u HLL
		check(t, u.UnmarshalBinary(img))
		if u.Estimate() != small.Estimate() {
			t.Fatal("the compact export does not unmarshal to the sketch")
		}
	}
	small.Densify()
	full := marshal(t, small)
	w, err := WrapHLLReadOnly(alignedCopy(full, 0))
	check(t, err)
	if len(full) != small.Size() || w.Estimate() != small.Estimate() {
		t.Fatalf("the dense export wraps: %d of %d bytes", len(full), small.Size())
	}
}
