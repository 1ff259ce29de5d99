package sketches

import (
	"errors"
	"math"
	"testing"
)

func TestELL(t *testing.T) {
	const n = 30000
	ks := mixedKeys("ell-", n)
	ints := u64Keys(0, n)
	for _, d := range []uint8{20, 24} {
		single, err := NewELL(10, d, WithSeed(1))
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
		if changed == 0 || single.AddString(ks[0]) || single.Add([]byte(ks[1])) || single.AddUint64(ints[2]) {
			t.Fatal("changed flags")
		}
		for _, form := range []string{"strings", "bytes"} {
			batch, _ := NewELL(10, d, WithSeed(1))
			if form == "strings" {
				batch.AddStrings(ks)
			} else {
				batch.AddBytes(byteKeys(ks))
			}
			batch.AddUint64s(ints)
			sameImage(t, "ELL batch "+form, single, batch)
		}
		mart, ok := single.MartingaleEstimate()
		if !ok || single.Estimate() != mart {
			t.Fatalf("martingale %v %v, estimate %v", mart, ok, single.Estimate())
		}
		for _, e := range []float64{mart, single.MLEstimate()} {
			if math.Abs(e-2*n)/(2*n) > 5*0.37/32 {
				t.Fatalf("d=%d: estimate %v for %d", d, e, 2*n)
			}
		}
		st := single.Stats()
		if !st.Martingale || st.Params != (ELLParams{T: 2, D: d, Precision: 10}) || st.Seed != 1 ||
			st.RegistersSet != 1024 || st.Estimate != mart || st.ImageBytes != uint64(single.Size()) ||
			single.Params() != st.Params || st.StandardError <= 0 || st.StandardError > 0.33/32 {
			t.Fatalf("stats %+v", st)
		}

		// Merge == one sketch of both streams (same registers), across
		// precisions and d; the merged sketch answers by maximum likelihood.
		a, _ := NewELL(10, d, WithSeed(1))
		b, _ := NewELL(12, 24, WithSeed(1))
		a.AddStrings(ks)
		b.AddUint64s(ints)
		check(t, a.Merge(b))
		if a.MLEstimate() != single.MLEstimate() || a.Estimate() != a.MLEstimate() || a.Stats().Martingale {
			t.Fatalf("merge: %v vs %v", a.MLEstimate(), single.MLEstimate())
		}
		if m, ok := a.MartingaleEstimate(); ok || !math.IsNaN(m) {
			t.Fatal("a merged sketch has no martingale estimate")
		}
		if a.Stats().StandardError <= st.StandardError {
			t.Fatal("the ML standard error is above the martingale's")
		}
		if err := b.Merge(a); !errors.Is(err, ErrIncompatible) {
			t.Fatalf("merge of a lower precision: %v", err)
		}
		other, _ := NewELL(10, d, WithSeed(2))
		if err := single.Merge(other); !errors.Is(err, ErrIncompatible) {
			t.Fatal(err)
		}

		// Downsize: the registers the same stream gives at the smaller parameters.
		hi, _ := NewELL(12, 24, WithSeed(1))
		hi.AddStrings(ks)
		hi.AddUint64s(ints)
		down, err := hi.Downsize(10, d)
		check(t, err)
		if down.MLEstimate() != single.MLEstimate() || down.Params() != single.Params() || down.Stats().Martingale {
			t.Fatal("downsize")
		}
		if _, err := single.Downsize(11, d); !errors.Is(err, ErrIncompatible) {
			t.Fatal(err)
		}
		if _, err := single.Downsize(10, 22); !errors.Is(err, ErrInvalidParameter) {
			t.Fatal(err)
		}

		c := single.Clone()
		c.Reset()
		if m, ok := c.MartingaleEstimate(); c.Estimate() != 0 || m != 0 || !ok || single.Estimate() == 0 {
			t.Fatal("clone/reset")
		}
		checkImage(t, single, FamilyELL, WrapELL)
		mem := alignedCopy(marshal(t, single), 0)
		w, err := WrapELL(mem)
		check(t, err)
		if w.Estimate() != single.Estimate() {
			t.Fatal("wrapped estimate")
		}
		wrapShares(t, mem, func() {
			for i := 0; !w.AddUint64(uint64(i) + 1<<40); i++ {
			}
		})
	}

	// The martingale state survives an export.
	s, _ := NewELL(8, 20)
	s.AddUint64s(u64Keys(0, 500))
	var back ELL
	check(t, back.UnmarshalBinary(marshal(t, s)))
	if m1, _ := s.MartingaleEstimate(); !back.Stats().Martingale || back.Estimate() != m1 {
		t.Fatal("martingale round trip")
	}

	// Parameters.
	if p, err := PlanELL(0.01, 20); err != nil || p != (ELLParams{T: 2, D: 20, Precision: 11}) {
		t.Fatal(p, err)
	}
	if p, err := PlanELL(0.01, 24); err != nil || p.Precision != 11 || p.D != 24 {
		t.Fatal(p, err)
	}
	for _, bad := range []struct {
		err float64
		d   uint8
	}{{0.01, 22}, {0, 20}, {1, 20}, {1e-6, 24}, {math.NaN(), 20}} {
		if _, err := PlanELL(bad.err, bad.d); !errors.Is(err, ErrInvalidParameter) {
			t.Fatalf("PlanELL(%v, %d): %v", bad.err, bad.d, err)
		}
	}
	for _, bad := range []ELLParams{{2, 20, 1}, {2, 20, 25}, {2, 21, 10}, {3, 20, 10}} {
		if _, err := NewELLWithParams(bad); !errors.Is(err, ErrInvalidParameter) {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
	small, err := NewELL(2, 24)
	check(t, err)
	small.AddString("x")
	if small.Estimate() <= 0 {
		t.Fatal("precision 2")
	}
	var zero ELL
	expectPanic(t, "zero value", func() { zero.Estimate() })
}
