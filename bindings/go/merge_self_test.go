package sketches

import (
	"bytes"
	"testing"
)

// Merging a sketch with itself (f.Merge(f), or with a struct copy g := *f
// that shares its image: an accumulator that is also one of the parts it
// loops over) merges an equal copy, as with f.Merge(f.Clone()). The
// library refuses a source that overlaps the image it writes
// (StatusOverlap), which the Go methods returned as an error no sentinel
// matched and no Merge doc mentioned.
func TestMergeWithItself(t *testing.T) {
	in := keys("self-", 0, 300)
	type selfMerge struct {
		name string
		// make returns a fresh sketch holding in; merge merges src into dst.
		make  func() imageCodec
		merge func(dst, src imageCodec) error
		// alias returns a struct copy of s (the same image).
		alias func(s imageCodec) imageCodec
	}
	cases := []selfMerge{
		{"Bloom.Union", func() imageCodec { f, _ := NewBloom(1000, 0.01); f.AddStrings(in); return f },
			func(d, s imageCodec) error { return d.(*Bloom).Union(s.(*Bloom)) },
			func(s imageCodec) imageCodec { c := *s.(*Bloom); return &c }},
		{"Bloom.Intersect", func() imageCodec { f, _ := NewBloom(1000, 0.01); f.AddStrings(in); return f },
			func(d, s imageCodec) error { return d.(*Bloom).Intersect(s.(*Bloom)) },
			func(s imageCodec) imageCodec { c := *s.(*Bloom); return &c }},
		{"SplitBlock.Union", func() imageCodec { f, _ := NewSplitBlockParquet(1000, 0.01); f.AddStrings(in); return f },
			func(d, s imageCodec) error { return d.(*SplitBlock).Union(s.(*SplitBlock)) },
			func(s imageCodec) imageCodec { c := *s.(*SplitBlock); return &c }},
		{"SplitBlock.Intersect", func() imageCodec { f, _ := NewSplitBlock(1000, 0.01); f.AddStrings(in); return f },
			func(d, s imageCodec) error { return d.(*SplitBlock).Intersect(s.(*SplitBlock)) },
			func(s imageCodec) imageCodec { c := *s.(*SplitBlock); return &c }},
		{"CountingBloom", func() imageCodec { f, _ := NewCountingBloom(1000, 0.01); f.AddStrings(in); return f },
			func(d, s imageCodec) error { return d.(*CountingBloom).Merge(s.(*CountingBloom)) },
			func(s imageCodec) imageCodec { c := *s.(*CountingBloom); return &c }},
		{"Cuckoo", func() imageCodec { f, _ := NewCuckoo(1000, 0.01); f.AddStrings(in); return f },
			func(d, s imageCodec) error { return d.(*Cuckoo).Merge(s.(*Cuckoo)) },
			func(s imageCodec) imageCodec { c := *s.(*Cuckoo); return &c }},
		{"HLL", func() imageCodec { h, _ := NewHLL(10); h.AddStrings(in); return h },
			func(d, s imageCodec) error { return d.(*HLL).Merge(s.(*HLL)) },
			func(s imageCodec) imageCodec { c := *s.(*HLL); return &c }},
		{"HLL small", func() imageCodec { h, _ := NewHLL(10); h.AddStrings(in[:3]); return h },
			func(d, s imageCodec) error { return d.(*HLL).Merge(s.(*HLL)) },
			func(s imageCodec) imageCodec { c := *s.(*HLL); return &c }},
		{"ULL", func() imageCodec { u, _ := NewULL(10); u.AddStrings(in); return u },
			func(d, s imageCodec) error { return d.(*ULL).Merge(s.(*ULL)) },
			func(s imageCodec) imageCodec { c := *s.(*ULL); return &c }},
		{"ELL", func() imageCodec { e, _ := NewELL(8, 20); e.AddStrings(in); return e },
			func(d, s imageCodec) error { return d.(*ELL).Merge(s.(*ELL)) },
			func(s imageCodec) imageCodec { c := *s.(*ELL); return &c }},
		{"CountMin", func() imageCodec { c, _ := NewCountMin(0.01, 0.01); c.AddStrings(in, nil); return c },
			func(d, s imageCodec) error { return d.(*CountMin).Merge(s.(*CountMin)) },
			func(s imageCodec) imageCodec { c := *s.(*CountMin); return &c }},
		{"TopK", func() imageCodec { k, _ := NewTopK(16, 16); k.AddStrings(in, nil); return k },
			func(d, s imageCodec) error { return d.(*TopK).Merge(s.(*TopK)) },
			func(s imageCodec) imageCodec { c := *s.(*TopK); return &c }},
		{"MinHash", func() imageCodec { m, _ := NewMinHash(64); m.AddStrings(in); return m },
			func(d, s imageCodec) error { return d.(*MinHash).Merge(s.(*MinHash)) },
			func(s imageCodec) imageCodec { c := *s.(*MinHash); return &c }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The answer: merging an equal copy in separate memory.
			want := c.make()
			check(t, c.merge(want, c.make()))
			for _, how := range []string{"itself", "a struct copy"} {
				s := c.make()
				src := s
				if how == "a struct copy" {
					src = c.alias(s)
				}
				if err := c.merge(s, src); err != nil {
					t.Fatalf("merged with %s: %v", how, err)
				}
				if !bytes.Equal(marshal(t, s), marshal(t, want)) {
					t.Fatalf("merged with %s: not the sketch of merging an equal copy", how)
				}
			}
		})
	}
}
