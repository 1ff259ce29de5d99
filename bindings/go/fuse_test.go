package sketches

import (
	"errors"
	"math"
	"testing"
)

func TestBinaryFuse(t *testing.T) {
	const n = 3000
	ks := mixedKeys("fuse-", n)
	ints := u64Keys(0, n)
	absent := keys("absent-", 0, 20*n)
	for _, bits := range []uint32{8, 16} {
		f, err := NewBinaryFuseStrings(ks, bits, WithSeed(11))
		check(t, err)
		fb, err := NewBinaryFuseBytes(byteKeys(ks), bits, WithSeed(11))
		check(t, err)
		sameImage(t, "BinaryFuse strings and bytes", f, fb)
		for i, k := range ks {
			if !f.ContainsString(k) || !f.Contains([]byte(k)) {
				t.Fatalf("%d bits: false negative for key %d", bits, i)
			}
		}
		if countTrue(f.ContainsStrings(ks, nil)) != n || countTrue(f.ContainsBytes(byteKeys(ks), nil)) != n {
			t.Fatal("false negative in a batch")
		}
		res := f.ContainsStrings(absent, nil)
		resB := f.ContainsBytes(byteKeys(absent), make([]bool, 0, len(absent)))
		for i, k := range absent {
			if res[i] != f.ContainsString(k) || resB[i] != res[i] {
				t.Fatal("batch and single answers differ")
			}
		}
		// About 2^-bits of absent keys pass (binomial, 5 sigma).
		p := math.Ldexp(1, -int(bits))
		if hits := countTrue(res); math.Abs(float64(hits)-p*float64(len(absent))) > 5*math.Sqrt(p*float64(len(absent)))+1 {
			t.Fatalf("%d bits: %d of %d absent keys pass", bits, hits, len(absent))
		}

		st := f.Stats()
		if st.Keys != n || st.Params != (BinaryFuseParams{Keys: n, FingerprintBits: bits}) || st.Seed != 11 ||
			st.FPR != p || st.Attempts < 1 || st.ImageBytes != uint64(f.Size()) || f.FingerprintBits() != bits {
			t.Fatalf("stats %+v", st)
		}
		if st.BitsPerKey < float64(bits) || st.BitsPerKey > 1.5*float64(bits) || st.ImageBytesPerKey*8 < st.BitsPerKey {
			t.Fatalf("%d bits: %v bits per key", bits, st.BitsPerKey)
		}

		// Integer keys: their 8 little-endian bytes.
		fi, err := NewBinaryFuseUint64s(ints, bits, WithSeed(11))
		check(t, err)
		if countTrue(fi.ContainsUint64s(ints, nil)) != n || !fi.ContainsUint64(ints[5]) || !fi.Contains(le8(ints[5])) {
			t.Fatal("integer keys")
		}
		le := make([][]byte, n)
		for i, k := range ints {
			le[i] = le8(k)
		}
		fl, err := NewBinaryFuseBytes(le, bits, WithSeed(11))
		check(t, err)
		sameImage(t, "integer keys and their 8 little-endian bytes", fi, fl)
		res = fi.ContainsUint64s(u64Keys(n, 3*n), nil)
		for i, k := range u64Keys(n, 3*n) {
			if res[i] != fi.ContainsUint64(k) {
				t.Fatal("integer batch and single answers differ")
			}
		}

		checkImage(t, f, FamilyBinaryFuse, WrapBinaryFuse)
		w, err := WrapBinaryFuse(alignedCopy(marshal(t, f), 0))
		check(t, err)
		if countTrue(w.ContainsStrings(ks, nil)) != n || w.Stats() != st {
			t.Fatal("wrapped filter")
		}
		c := w.Clone()
		if c.Size() != f.Size() || !c.ContainsString(ks[7]) {
			t.Fatal("clone")
		}
	}

	// Duplicates are stored once; the plan counts them.
	dup, err := NewBinaryFuseStrings([]string{"a", "b", "a", "a"}, 8)
	check(t, err)
	if st := dup.Stats(); st.Keys != 2 || st.Params.Keys != 4 || !dup.ContainsString("a") || !dup.ContainsString("b") {
		t.Fatalf("duplicates: %+v", st)
	}
	// No keys: an empty filter that contains nothing.
	empty, err := NewBinaryFuseUint64s(nil, 16)
	check(t, err)
	if st := empty.Stats(); st.Keys != 0 || !math.IsInf(st.BitsPerKey, 1) || empty.ContainsUint64(0) ||
		countTrue(empty.ContainsStrings(absent[:1000], nil)) != 0 {
		t.Fatalf("empty filter: %+v", empty.Stats())
	}
	var back BinaryFuse
	check(t, back.UnmarshalBinary(marshal(t, empty)))

	// Parameters.
	for _, bits := range []uint32{0, 4, 12, 32} {
		if _, err := NewBinaryFuseStrings(ks, bits); !errors.Is(err, ErrInvalidParameter) {
			t.Fatalf("%d-bit fingerprints: %v", bits, err)
		}
	}
	if p, err := PlanBinaryFuse(1000, 0.01); err != nil || p != (BinaryFuseParams{Keys: 1000, FingerprintBits: 8}) {
		t.Fatal(p, err)
	}
	if p, err := PlanBinaryFuse(1000, 1e-4); err != nil || p.FingerprintBits != 16 {
		t.Fatal(p, err)
	}
	if p, err := PlanBinaryFuseBits(5, 16); err != nil || p != (BinaryFuseParams{Keys: 5, FingerprintBits: 16}) {
		t.Fatal(p, err)
	}
	for _, fpr := range []float64{1e-6, 0, 1, math.NaN()} {
		if _, err := PlanBinaryFuse(1000, fpr); !errors.Is(err, ErrInvalidParameter) {
			t.Fatalf("fpr %v: %v", fpr, err)
		}
	}
	if _, err := PlanBinaryFuse(1<<31+1, 0.01); !errors.Is(err, ErrInvalidParameter) {
		t.Fatal(err)
	}
	var e *Error
	if _, err := PlanBinaryFuseBits(10, 9); !errors.As(err, &e) || e.Op != "PlanBinaryFuseBits" {
		t.Fatalf("%#v", err)
	}

	// The zero value holds no image.
	var zero BinaryFuse
	expectPanic(t, "zero value", func() { zero.ContainsString("x") })
	if _, err := zero.MarshalBinary(); err == nil {
		t.Fatal("zero value marshalled")
	}
}

// The packing of a whole build: every key lands at its offsets, the
// longest beyond one chunk included.
func TestPackAll(t *testing.T) {
	ks := mixedKeys("p-", 5000)
	for _, form := range []string{"strings", "bytes"} {
		var data []byte
		var offs []uint32
		var err error
		if form == "strings" {
			data, offs, err = packAll("test", ks)
		} else {
			data, offs, err = packAll("test", byteKeys(ks))
		}
		check(t, err)
		if len(offs) != len(ks)+1 || offs[0] != 0 || int(offs[len(ks)]) != len(data) {
			t.Fatalf("%s: %d offsets, %d bytes", form, len(offs), len(data))
		}
		for i, k := range ks {
			if string(data[offs[i]:offs[i+1]]) != k {
				t.Fatalf("%s: key %d packed as %q", form, i, data[offs[i]:offs[i+1]])
			}
		}
	}
}
