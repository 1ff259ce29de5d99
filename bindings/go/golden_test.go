package sketches

import (
	"bytes"
	"encoding"
	"math"
	"testing"
)

// The golden images of tests/golden (written by the Rust core, the bytes
// every binding must read and write): each is read, answered as
// tests/tests/golden.rs checks, re-exported byte-identically, wrapped in
// place, and rebuilt in Go from its documented inputs, single-key and
// batch, to the same bytes.

const goldenKeys = 1000

func goldenStrings() []string { return keys("golden-", 0, goldenKeys) }

// unmarshalGolden reads a golden image into v and checks the round trip.
func unmarshalGolden(t *testing.T, name string, v interface {
	encoding.BinaryUnmarshaler
	encoding.BinaryMarshaler
}) []byte {
	t.Helper()
	g := readGolden(t, name)
	check(t, v.UnmarshalBinary(g))
	if out := marshal(t, v); !bytes.Equal(out, g) {
		t.Fatalf("%s: re-exported image differs from the golden bytes", name)
	}
	info, err := Inspect(g)
	check(t, err)
	if info.Seed != map[bool]uint64{true: 0, false: 42}[name == "sbbf_parquet"] {
		t.Fatalf("%s: seed %d", name, info.Seed)
	}
	check(t, Verify(g))
	return g
}

func buildMatches(t *testing.T, name string, built encoding.BinaryMarshaler, g []byte) {
	t.Helper()
	if out := marshal(t, built); !bytes.Equal(out, g) {
		t.Fatalf("%s: image built in Go differs from the golden image (%d vs %d bytes)", name, len(out), len(g))
	}
}

func TestGoldenBloom(t *testing.T) {
	var f Bloom
	g := unmarshalGolden(t, "bloom", &f)
	for i := 0; i < goldenKeys; i++ {
		if !f.ContainsString(goldenKey(i)) {
			t.Fatalf("golden key %d missing", i)
		}
	}
	if !f.ContainsUint64(7) || f.Stats().AddCalls != goldenKeys+1 {
		t.Fatalf("stats %+v", f.Stats())
	}
	w, err := WrapBloom(alignedCopy(g, 0))
	check(t, err)
	if !w.ContainsString(goldenKey(3)) || w.Stats().AddCalls != goldenKeys+1 {
		t.Fatal("wrapped golden image")
	}
	for _, batch := range []bool{false, true} {
		b, err := NewBloom(goldenKeys, 0.01, WithSeed(42))
		check(t, err)
		if batch {
			b.AddStrings(goldenStrings())
			b.AddUint64s([]uint64{7})
		} else {
			for i := 0; i < goldenKeys; i++ {
				b.AddString(goldenKey(i))
			}
			b.AddUint64(7)
		}
		buildMatches(t, "bloom", b, g)
	}
}

func TestGoldenSplitBlock(t *testing.T) {
	for _, name := range []string{"sbbf", "sbbf_parquet"} {
		var f SplitBlock
		g := unmarshalGolden(t, name, &f)
		if !f.ContainsUint64(7) || f.Stats().AddCalls != goldenKeys+1 {
			t.Fatalf("%s: stats %+v", name, f.Stats())
		}
		res := f.ContainsStrings(goldenStrings(), nil)
		if countTrue(res) != goldenKeys {
			t.Fatalf("%s: golden keys missing", name)
		}
		_, err := WrapSplitBlock(alignedCopy(g, 0))
		check(t, err)
		for _, batch := range []bool{false, true} {
			var b *SplitBlock
			if name == "sbbf" {
				b, err = NewSplitBlock(goldenKeys, 0.01, WithSeed(42))
			} else {
				b, err = NewSplitBlockParquet(goldenKeys, 0.01)
			}
			check(t, err)
			if batch {
				b.AddBytes(byteKeys(goldenStrings()))
				b.AddUint64s([]uint64{7})
			} else {
				for i := 0; i < goldenKeys; i++ {
					b.Add([]byte(goldenKey(i)))
				}
				b.AddUint64(7)
			}
			buildMatches(t, name, b, g)
		}
		if name == "sbbf_parquet" && len(f.Bitset())%32 != 0 {
			t.Fatalf("bitset of %d bytes", len(f.Bitset()))
		}
	}
}

func TestGoldenCountingBloom(t *testing.T) {
	var f CountingBloom
	g := unmarshalGolden(t, "counting", &f)
	for i := 1; i < goldenKeys; i++ {
		if !f.ContainsString(goldenKey(i)) {
			t.Fatalf("golden key %d missing", i)
		}
	}
	if !f.ContainsUint64(7) || f.Stats().Items != goldenKeys+1 {
		t.Fatalf("stats %+v", f.Stats())
	}
	_, err := WrapCountingBloom(alignedCopy(g, 0))
	check(t, err)
	for _, batch := range []bool{false, true} {
		b, err := NewCountingBloom(goldenKeys, 0.01, WithSeed(42))
		check(t, err)
		if batch {
			b.AddStrings(goldenStrings())
			b.AddUint64s([]uint64{7, 7})
			n, err := b.RemoveStrings([]string{goldenKey(0)})
			check(t, err)
			if n != 1 {
				t.Fatal("remove batch")
			}
		} else {
			for i := 0; i < goldenKeys; i++ {
				b.AddString(goldenKey(i))
			}
			b.AddUint64(7)
			b.AddUint64(7)
			check(t, b.RemoveString(goldenKey(0)))
		}
		buildMatches(t, "counting", b, g)
	}
}

func TestGoldenCuckoo(t *testing.T) {
	var f Cuckoo
	g := unmarshalGolden(t, "cuckoo", &f)
	for i := 1; i < goldenKeys; i++ {
		if !f.ContainsString(goldenKey(i)) {
			t.Fatalf("golden key %d missing", i)
		}
	}
	if !f.ContainsUint64(7) || f.Stats().Items != goldenKeys {
		t.Fatalf("stats %+v", f.Stats())
	}
	_, err := WrapCuckoo(alignedCopy(g, 0))
	check(t, err)
	for _, batch := range []bool{false, true} {
		b, err := NewCuckoo(goldenKeys, 0.01, WithSeed(42))
		check(t, err)
		if batch {
			n, err := b.AddStrings(goldenStrings())
			check(t, err)
			if n != goldenKeys {
				t.Fatal(n)
			}
			_, err = b.AddUint64s([]uint64{7})
			check(t, err)
		} else {
			for i := 0; i < goldenKeys; i++ {
				check(t, b.AddString(goldenKey(i)))
			}
			check(t, b.AddUint64(7))
		}
		check(t, b.Remove([]byte(goldenKey(0))))
		buildMatches(t, "cuckoo", b, g)
	}
}

func TestGoldenHLL(t *testing.T) {
	for _, name := range []string{"hll_small", "hll_dense"} {
		var h HLL
		g := unmarshalGolden(t, name, &h)
		count := goldenKeys
		if name == "hll_small" {
			count = 200
			if len(g) != 384+201*8 || h.Estimate() != 201 || h.Stats().Dense {
				t.Fatalf("small golden: %d bytes, estimate %v", len(g), h.Estimate())
			}
			if _, err := WrapHLL(alignedCopy(g, 0)); err == nil {
				t.Fatal("a compact image must not wrap")
			}
		} else {
			if math.Abs(h.Estimate()-1001) > 0.1*1001 || !h.Stats().Dense {
				t.Fatalf("dense golden: estimate %v", h.Estimate())
			}
			w, err := WrapHLL(alignedCopy(g, 0))
			check(t, err)
			if w.Estimate() != h.Estimate() {
				t.Fatal("wrapped estimate")
			}
		}
		fresh, err := NewHLL(12)
		check(t, err)
		if h.Precision() != 12 || h.Size() != fresh.Size() {
			t.Fatalf("precision %d size %d", h.Precision(), h.Size())
		}
		for _, batch := range []bool{false, true} {
			b, err := NewHLL(12, WithSeed(42))
			check(t, err)
			if batch {
				b.AddStrings(keys("golden-", 0, count))
				b.AddUint64s([]uint64{7})
			} else {
				for i := 0; i < count; i++ {
					b.AddString(goldenKey(i))
				}
				b.AddUint64(7)
			}
			buildMatches(t, name, b, g)
		}
	}
}

func TestGoldenULL(t *testing.T) {
	var u ULL
	g := unmarshalGolden(t, "ull", &u)
	if math.Abs(u.Estimate()-1001) > 0.1*1001 || u.Precision() != 10 {
		t.Fatalf("estimate %v precision %d", u.Estimate(), u.Precision())
	}
	w, err := WrapULL(alignedCopy(g, 0))
	check(t, err)
	if w.Estimate() != u.Estimate() {
		t.Fatal("wrapped estimate")
	}
	for _, batch := range []bool{false, true} {
		b, err := NewULL(10, WithSeed(42))
		check(t, err)
		if batch {
			b.AddBytes(byteKeys(goldenStrings()))
			b.AddUint64s([]uint64{7})
		} else {
			for i := 0; i < goldenKeys; i++ {
				b.Add([]byte(goldenKey(i)))
			}
			b.AddUint64(7)
		}
		buildMatches(t, "ull", b, g)
	}
}

func TestGoldenCountMin(t *testing.T) {
	var c CountMin
	g := unmarshalGolden(t, "countmin", &c)
	est := c.EstimateStrings(goldenStrings(), nil)
	for i, e := range est {
		if e <= uint64(i%3) || e != c.EstimateString(goldenKey(i)) {
			t.Fatalf("key %d: estimate %d", i, e)
		}
	}
	if c.EstimateUint64(7) != 80000 {
		t.Fatal(c.EstimateUint64(7))
	}
	p := c.Stats().Params
	if p != (CountMinParams{Width: 500, Depth: 3, CounterBits: 64, Conservative: true}) {
		t.Fatalf("params %+v", p)
	}
	_, err := WrapCountMin(alignedCopy(g, 0))
	check(t, err)
	for _, batch := range []bool{false, true} {
		b, err := NewCountMinWithParams(p, WithSeed(42))
		check(t, err)
		if batch {
			w := make([]uint64, goldenKeys)
			for i := range w {
				w[i] = 1 + uint64(i%3)
			}
			b.AddStrings(goldenStrings(), w)
			b.AddUint64s([]uint64{7}, []uint64{80000})
		} else {
			for i := 0; i < goldenKeys; i++ {
				b.AddString(goldenKey(i), 1+uint64(i%3))
			}
			b.AddUint64(7, 80000)
		}
		buildMatches(t, "countmin", b, g)
	}
}

func TestGoldenMinHash(t *testing.T) {
	var m MinHash
	g := unmarshalGolden(t, "minhash", &m)
	if j, err := m.Jaccard(&m); err != nil || j != 1 {
		t.Fatal(j, err)
	}
	if st := m.Stats(); st.Filled != 128 || st.K != 128 {
		t.Fatalf("%+v", st)
	}
	_, err := WrapMinHash(alignedCopy(g, 0))
	check(t, err)
	for _, batch := range []bool{false, true} {
		b, err := NewMinHash(128, WithSeed(42))
		check(t, err)
		if batch {
			b.AddStrings(goldenStrings())
		} else {
			for i := 0; i < goldenKeys; i++ {
				b.AddString(goldenKey(i))
			}
		}
		buildMatches(t, "minhash", b, g)
	}
}

func TestGoldenTopK(t *testing.T) {
	var tk TopK
	g := unmarshalGolden(t, "topk", &tk)
	top := tk.List()
	if len(top) == 0 || !bytes.Equal(top[0].Key, le8(7)) || top[0].Count != 5000 {
		t.Fatalf("top: %+v", top)
	}
	if e := tk.EstimateUint64(7); !e.Listed || e.Count != 5000 {
		t.Fatalf("%+v", e)
	}
	_, err := WrapTopK(alignedCopy(g, 0))
	check(t, err)
	var ks []string
	var ws []uint64
	for i := 0; i < goldenKeys; i++ {
		ks = append(ks, goldenKey(i%97%(1+i%13)))
		ws = append(ws, 1+uint64(i%4))
	}
	for _, batch := range []bool{false, true} {
		b, err := NewTopK(64, 16, WithSeed(42))
		check(t, err)
		if batch {
			check(t, b.AddStrings(ks, ws))
			check(t, b.AddUint64s([]uint64{7}, []uint64{5000}))
		} else {
			for i := range ks {
				check(t, b.AddString(ks[i], ws[i]))
			}
			check(t, b.AddUint64(7, 5000))
		}
		buildMatches(t, "topk", b, g)
	}
}

func TestGoldenBinaryFuse(t *testing.T) {
	// The golden keys and the integer key 7, as its 8 little-endian bytes.
	strs := append(goldenStrings(), string(le8(7)))
	for _, bits := range []uint32{8, 16} {
		name := "fuse" + itoa(int(bits))
		var f BinaryFuse
		g := unmarshalGolden(t, name, &f)
		if countTrue(f.ContainsStrings(goldenStrings(), nil)) != goldenKeys || !f.ContainsUint64(7) {
			t.Fatalf("%s: golden keys missing", name)
		}
		st := f.Stats()
		if st.Keys != goldenKeys+1 || st.Params != (BinaryFuseParams{Keys: goldenKeys + 1, FingerprintBits: bits}) ||
			st.Seed != 42 || st.ImageBytes != uint64(len(g)) {
			t.Fatalf("%s: stats %+v", name, st)
		}
		absent := keys("absent-", 0, 100000)
		if passed := countTrue(f.ContainsStrings(absent, nil)); passed >= 100000>>(bits-2) {
			t.Fatalf("%s: %d false positives", name, passed)
		}
		w, err := WrapBinaryFuse(alignedCopy(g, 0))
		check(t, err)
		if !w.ContainsString(goldenKey(3)) || w.Stats() != st {
			t.Fatal("wrapped golden image")
		}
		// Built in Go from the keys: the bytes Rust and the C ABI write.
		for _, form := range []string{"strings", "bytes"} {
			var b *BinaryFuse
			if form == "strings" {
				b, err = NewBinaryFuseStrings(strs, bits, WithSeed(42))
			} else {
				b, err = NewBinaryFuseBytes(byteKeys(strs), bits, WithSeed(42))
			}
			check(t, err)
			buildMatches(t, name+" "+form, b, g)
		}
	}
}

func TestGoldenELL(t *testing.T) {
	for _, c := range []struct {
		name string
		d    uint8
	}{{"ell", 20}, {"ell_d24", 24}} {
		var e ELL
		g := unmarshalGolden(t, c.name, &e)
		if e.Params() != (ELLParams{T: 2, D: c.d, Precision: 10}) {
			t.Fatalf("%s: params %+v", c.name, e.Params())
		}
		m, ok := e.MartingaleEstimate()
		if !ok || e.Estimate() != m {
			t.Fatalf("%s: an unmerged golden sketch keeps its martingale", c.name)
		}
		for _, est := range []float64{m, e.MLEstimate()} {
			if math.Abs(est-1001) > 0.1*1001 {
				t.Fatalf("%s: estimate %v", c.name, est)
			}
		}
		w, err := WrapELL(alignedCopy(g, 0))
		check(t, err)
		if w.Estimate() != e.Estimate() {
			t.Fatal("wrapped estimate")
		}
		// Adding the same keys again changes nothing.
		for i := 0; i < goldenKeys; i++ {
			if w.AddString(goldenKey(i)) {
				t.Fatalf("%s: golden key %d changed a register", c.name, i)
			}
		}
		if w.AddUint64(7) {
			t.Fatal("key 7 changed a register")
		}
		for _, batch := range []bool{false, true} {
			b, err := NewELL(10, c.d, WithSeed(42))
			check(t, err)
			if batch {
				b.AddStrings(goldenStrings())
				b.AddUint64s([]uint64{7})
			} else {
				for i := 0; i < goldenKeys; i++ {
					b.AddString(goldenKey(i))
				}
				b.AddUint64(7)
			}
			buildMatches(t, c.name, b, g)
		}
	}
}
