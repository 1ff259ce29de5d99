package sketches

import (
	"bytes"
	"encoding"
	"testing"
)

// A []byte key that shares memory with the sketch's own image (bytes of
// SplitBlock.Bitset, or of the buffer a Wrap function uses, read as a key)
// is added, removed and queried as the same bytes copied elsewhere: the
// same image and answers. Before, the library refused such a key
// (StatusOverlap), which Add turned into a panic blaming a zero value or a
// rewritten image, and Cuckoo.Add, TopK.Add and the removals returned as an
// error for a key that was fine.
func TestKeyInsideTheImage(t *testing.T) {
	// twin returns the sketch wrapping mem and, for reference, the same
	// image in separate memory.
	type pair struct {
		name       string
		mem        []byte
		live, twin encoding.BinaryMarshaler
		use        func(s encoding.BinaryMarshaler, key []byte) []any
	}
	wrapped := func(t *testing.T, s encoding.BinaryMarshaler, wrap func([]byte) (encoding.BinaryMarshaler, error)) ([]byte, encoding.BinaryMarshaler, encoding.BinaryMarshaler) {
		mem := alignedCopy(marshal(t, s), 0)
		live, err := wrap(mem)
		check(t, err)
		twin, err := wrap(alignedCopy(mem, 0))
		check(t, err)
		return mem, live, twin
	}
	var pairs []pair
	add := func(name string, s encoding.BinaryMarshaler, wrap func([]byte) (encoding.BinaryMarshaler, error), use func(encoding.BinaryMarshaler, []byte) []any) {
		mem, live, twin := wrapped(t, s, wrap)
		pairs = append(pairs, pair{name, mem, live, twin, use})
	}
	bl, _ := NewBloom(100, 0.01)
	add("Bloom", bl, func(b []byte) (encoding.BinaryMarshaler, error) { return WrapBloom(b) }, func(s encoding.BinaryMarshaler, k []byte) []any {
		f := s.(*Bloom)
		return []any{f.Add(k), f.Contains(k), f.AddConcurrent(k), f.ContainsConcurrent(k)}
	})
	sb, _ := NewSplitBlock(100, 0.01)
	add("SplitBlock", sb, func(b []byte) (encoding.BinaryMarshaler, error) { return WrapSplitBlock(b) }, func(s encoding.BinaryMarshaler, k []byte) []any {
		f := s.(*SplitBlock)
		return []any{f.Add(k), f.Contains(k), f.AddConcurrent(k), f.ContainsConcurrent(k)}
	})
	cb, _ := NewCountingBloom(100, 0.01)
	add("CountingBloom", cb, func(b []byte) (encoding.BinaryMarshaler, error) { return WrapCountingBloom(b) }, func(s encoding.BinaryMarshaler, k []byte) []any {
		f := s.(*CountingBloom)
		return []any{f.Add(k), f.Add(k), f.Remove(k), f.Contains(k)}
	})
	ck, _ := NewCuckoo(100, 0.01)
	add("Cuckoo", ck, func(b []byte) (encoding.BinaryMarshaler, error) { return WrapCuckoo(b) }, func(s encoding.BinaryMarshaler, k []byte) []any {
		f := s.(*Cuckoo)
		return []any{f.Add(k), f.Add(k), f.Remove(k), f.Count(k)}
	})
	hl, _ := NewHLL(8)
	hl.Densify() // a dense image wraps (a small one exports compact)
	add("HLL", hl, func(b []byte) (encoding.BinaryMarshaler, error) { return WrapHLL(b) }, func(s encoding.BinaryMarshaler, k []byte) []any {
		h := s.(*HLL)
		a := h.Add(k)
		b, err := h.AddConcurrent(k)
		return []any{a, b, err}
	})
	ul, _ := NewULL(8)
	add("ULL", ul, func(b []byte) (encoding.BinaryMarshaler, error) { return WrapULL(b) }, func(s encoding.BinaryMarshaler, k []byte) []any {
		u := s.(*ULL)
		return []any{u.Add(k), u.AddConcurrent(k)}
	})
	el, _ := NewELL(8, 20)
	add("ELL", el, func(b []byte) (encoding.BinaryMarshaler, error) { return WrapELL(b) }, func(s encoding.BinaryMarshaler, k []byte) []any {
		return []any{s.(*ELL).Add(k)}
	})
	mh, _ := NewMinHash(16)
	add("MinHash", mh, func(b []byte) (encoding.BinaryMarshaler, error) { return WrapMinHash(b) }, func(s encoding.BinaryMarshaler, k []byte) []any {
		return []any{s.(*MinHash).Add(k)}
	})
	cm, _ := NewCountMin(0.1, 0.1)
	add("CountMin", cm, func(b []byte) (encoding.BinaryMarshaler, error) { return WrapCountMin(b) }, func(s encoding.BinaryMarshaler, k []byte) []any {
		c := s.(*CountMin)
		c.Add(k, 3)
		return []any{c.Estimate(k)}
	})
	tk, _ := NewTopK(4, 32)
	add("TopK", tk, func(b []byte) (encoding.BinaryMarshaler, error) { return WrapTopK(b) }, func(s encoding.BinaryMarshaler, k []byte) []any {
		x := s.(*TopK)
		return []any{x.Add(k, 2), x.Estimate(k)}
	})
	for _, p := range pairs {
		for _, span := range [][2]int{{0, 8}, {8, 24}, {len(p.mem) - 16, len(p.mem)}} {
			key := p.mem[span[0]:span[1]]
			copied := bytes.Clone(key) // the bytes the key holds when the calls begin
			var got, want []any
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s with a key inside its image (bytes %v): panic %v", p.name, span, r)
					}
				}()
				want = p.use(p.twin, copied)
				got = p.use(p.live, key)
			}()
			if len(got) != len(want) {
				t.Fatalf("%s: %v, want %v", p.name, got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s with a key inside its image (bytes %v): %v, want %v", p.name, span, got, want)
				}
			}
			sameImage(t, p.name+" with a key inside its image", p.twin, p.live)
		}
	}
	// The one key a sketch built in Go memory hands out: SplitBlock.Bitset.
	f, _ := NewSplitBlock(100, 0.01)
	f.AddString("a")
	g := f.Clone()
	k := f.Bitset()[:32]
	want := g.Add(bytes.Clone(k))
	if f.Add(k) != want || f.Contains(f.Bitset()[:32]) != g.Contains(g.Bitset()[:32]) {
		t.Fatal("SplitBlock.Add of its own bitset bytes")
	}
	sameImage(t, "SplitBlock.Add of its own bitset bytes", g, f)
}
