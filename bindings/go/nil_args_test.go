package sketches

import (
	"bytes"
	"encoding"
	"errors"
	"strings"
	"testing"
)

// A nil sketch argument to Merge, Union, Intersect or Jaccard (a shard
// that was never created, an optional field left nil) returns the zero
// value's error, naming the method and saying what is missing, and the
// receiver is unchanged; it was a nil-pointer panic before.
func TestNilSketchArgumentIsAnError(t *testing.T) {
	bl, _ := NewBloom(100, 0.01)
	sb, _ := NewSplitBlock(100, 0.01)
	cb, _ := NewCountingBloom(100, 0.01)
	ck, _ := NewCuckoo(100, 0.01)
	hl, _ := NewHLL(10)
	ul, _ := NewULL(10)
	el, _ := NewELL(10, 20)
	cm, _ := NewCountMin(0.1, 0.1)
	tk, _ := NewTopK(8, 8)
	mh, _ := NewMinHash(16)
	bl.AddString("a")
	sb.AddString("a")
	cb.AddString("a")
	check(t, ck.AddString("a"))
	hl.AddString("a")
	ul.AddString("a")
	el.AddString("a")
	cm.AddString("a", 2)
	check(t, tk.AddString("a", 2))
	mh.AddString("a")
	calls := []struct {
		op   string
		recv encoding.BinaryMarshaler
		call func() error
	}{
		{"Bloom.Union", bl, func() error { return bl.Union(nil) }},
		{"Bloom.Merge", bl, func() error { return bl.Merge(nil) }},
		{"Bloom.Intersect", bl, func() error { return bl.Intersect(nil) }},
		{"SplitBlock.Union", sb, func() error { return sb.Union(nil) }},
		{"SplitBlock.Merge", sb, func() error { return sb.Merge(nil) }},
		{"SplitBlock.Intersect", sb, func() error { return sb.Intersect(nil) }},
		{"CountingBloom.Merge", cb, func() error { return cb.Merge(nil) }},
		{"Cuckoo.Merge", ck, func() error { return ck.Merge(nil) }},
		{"HLL.Merge", hl, func() error { return hl.Merge(nil) }},
		{"ULL.Merge", ul, func() error { return ul.Merge(nil) }},
		{"ELL.Merge", el, func() error { return el.Merge(nil) }},
		{"CountMin.Merge", cm, func() error { return cm.Merge(nil) }},
		{"TopK.Merge", tk, func() error { return tk.Merge(nil) }},
		{"MinHash.Merge", mh, func() error { return mh.Merge(nil) }},
		{"MinHash.Jaccard", mh, func() error { _, err := mh.Jaccard(nil); return err }},
	}
	for _, c := range calls {
		before := marshal(t, c.recv)
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s(nil) panicked: %v", c.op, r)
				}
			}()
			return c.call()
		}()
		var e *Error
		if !errors.As(err, &e) || e.Op != c.op || !strings.Contains(err.Error(), "nil argument") || !errors.Is(err, ErrNoImage) {
			t.Fatalf("%s(nil): %v", c.op, err)
		}
		if !bytes.Equal(before, marshal(t, c.recv)) {
			t.Fatalf("%s(nil) changed the receiver", c.op)
		}
	}
}
