package sketches

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// A weights slice that is neither nil nor one weight per key is an error
// of every weighted batch (Count-Min and Top-k, string, byte and integer
// keys), matching ErrInvalidArgument and naming the method and both
// lengths, and the image is unchanged; it panicked before (TopK) or could
// not be reported at all (CountMin's batches returned nothing).
func TestWeightsLengthMismatchIsAnError(t *testing.T) {
	cm, err := NewCountMin(0.01, 0.01)
	check(t, err)
	tk, err := NewTopK(16, 32)
	check(t, err)
	check(t, cm.AddStrings([]string{"seen"}, []uint64{4}))
	check(t, tk.AddStrings([]string{"seen"}, []uint64{4}))
	type batch struct {
		name  string
		image func() []byte
		add   func(weights []uint64) error
	}
	three := []string{"a", "b", "c"}
	ints := []uint64{1, 2, 3}
	batches := []batch{
		{"CountMin.AddStrings", func() []byte { return cm.img }, func(w []uint64) error { return cm.AddStrings(three, w) }},
		{"CountMin.AddBytes", func() []byte { return cm.img }, func(w []uint64) error { return cm.AddBytes(byteKeys(three), w) }},
		{"CountMin.AddUint64s", func() []byte { return cm.img }, func(w []uint64) error { return cm.AddUint64s(ints, w) }},
		{"TopK.AddStrings", func() []byte { return tk.img }, func(w []uint64) error { return tk.AddStrings(three, w) }},
		{"TopK.AddBytes", func() []byte { return tk.img }, func(w []uint64) error { return tk.AddBytes(byteKeys(three), w) }},
		{"TopK.AddUint64s", func() []byte { return tk.img }, func(w []uint64) error { return tk.AddUint64s(ints, w) }},
	}
	for _, b := range batches {
		for _, w := range [][]uint64{{5, 6}, {5, 6, 7, 8}, {}} {
			before := bytes.Clone(b.image())
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s with %d weights for 3 keys panicked: %v", b.name, len(w), r)
					}
				}()
				return b.add(w)
			}()
			if !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("%s with %d weights for 3 keys: %v, want ErrInvalidArgument", b.name, len(w), err)
			}
			msg := err.Error()
			if !strings.Contains(msg, b.name) || !strings.Contains(msg, itoa(len(w))+" weights for 3 keys") {
				t.Fatalf("%s: message %q names neither the method nor both lengths", b.name, msg)
			}
			if !bytes.Equal(before, b.image()) {
				t.Fatalf("%s with %d weights changed the image", b.name, len(w))
			}
		}
		// nil weights (one each) and one weight per key still add.
		if err := b.add(nil); err != nil {
			t.Fatalf("%s with nil weights: %v", b.name, err)
		}
		if err := b.add([]uint64{1, 2, 3}); err != nil {
			t.Fatalf("%s with 3 weights: %v", b.name, err)
		}
	}
	if got := cm.EstimateString("seen"); got != 4 {
		t.Fatalf("CountMin estimate of the earlier key: %d", got)
	}
	if got := tk.EstimateString("seen").Count; got != 4 {
		t.Fatalf("TopK count of the earlier key: %d", got)
	}
	// Empty keys with empty (non-nil) weights is no mismatch.
	check(t, cm.AddStrings(nil, []uint64{}))
	check(t, tk.AddStrings(nil, []uint64{}))
}
