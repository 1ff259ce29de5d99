package sketches

import (
	"bytes"
	"encoding/gob"
	"testing"
)

// gobDoc is a caller's gob record holding a sketch by value and through a
// pointer.
type gobDoc[T any] struct {
	Name string
	Val  T
	Ptr  *T
}

// checkGob encodes a record holding s by value and by pointer with
// encoding/gob, the record itself passed by value (enc.Encode(doc), as a
// service streams records) and by pointer, and decodes it back: both
// fields must come back with s's image. gob uses MarshalBinary, so a
// pointer receiver there made the record by value fail with "gob:
// unaddressable value".
func checkGob[T any, P interface {
	*T
	imageCodec
}](t *testing.T, s P) {
	t.Helper()
	img := marshal(t, s)
	d := gobDoc[T]{Name: "doc", Ptr: (*T)(s)}
	check(t, P(&d.Val).UnmarshalBinary(img))
	for _, how := range []string{"by value", "by pointer"} {
		var buf bytes.Buffer
		var err error
		if how == "by value" {
			err = gob.NewEncoder(&buf).Encode(d)
		} else {
			err = gob.NewEncoder(&buf).Encode(&d)
		}
		if err != nil {
			t.Fatalf("gob.Encode of the record %s: %v", how, err)
		}
		var back gobDoc[T]
		check(t, gob.NewDecoder(&buf).Decode(&back))
		if back.Name != "doc" || back.Ptr == nil ||
			!bytes.Equal(marshal(t, P(&back.Val)), img) || !bytes.Equal(marshal(t, P(back.Ptr)), img) {
			t.Fatalf("the record encoded %s decodes to other sketches", how)
		}
	}
}

func TestGobEveryFamily(t *testing.T) {
	in := keys("gob-", 0, 200)
	ok := func(err error) {
		t.Helper()
		check(t, err)
	}
	t.Run("Bloom", func(t *testing.T) {
		f, err := NewBloom(1000, 0.01)
		ok(err)
		f.AddStrings(in)
		checkGob(t, f)
	})
	t.Run("SplitBlock", func(t *testing.T) {
		f, err := NewSplitBlockParquet(1000, 0.01)
		ok(err)
		f.AddStrings(in)
		checkGob(t, f)
	})
	t.Run("CountingBloom", func(t *testing.T) {
		f, err := NewCountingBloom(1000, 0.01)
		ok(err)
		f.AddStrings(in)
		checkGob(t, f)
	})
	t.Run("Cuckoo", func(t *testing.T) {
		f, err := NewCuckoo(1000, 0.01)
		ok(err)
		_, err = f.AddStrings(in)
		ok(err)
		checkGob(t, f)
	})
	t.Run("BinaryFuse", func(t *testing.T) {
		f, err := NewBinaryFuseStrings(in, 8)
		ok(err)
		checkGob(t, f)
	})
	t.Run("HLL", func(t *testing.T) {
		h, err := NewHLL(10)
		ok(err)
		h.AddStrings(in[:5]) // small mode: a compact image
		checkGob(t, h)
		h.AddStrings(in)
		checkGob(t, h)
	})
	t.Run("ULL", func(t *testing.T) {
		u, err := NewULL(10)
		ok(err)
		u.AddStrings(in)
		checkGob(t, u)
	})
	t.Run("ELL", func(t *testing.T) {
		e, err := NewELL(10, 24)
		ok(err)
		e.AddStrings(in)
		checkGob(t, e)
	})
	t.Run("CountMin", func(t *testing.T) {
		c, err := NewCountMin(0.01, 0.01)
		ok(err)
		c.AddStrings(in, nil)
		checkGob(t, c)
	})
	t.Run("TopK", func(t *testing.T) {
		k, err := NewTopK(16, 16)
		ok(err)
		ok(k.AddStrings(in, nil))
		checkGob(t, k)
	})
	t.Run("MinHash", func(t *testing.T) {
		m, err := NewMinHash(64)
		ok(err)
		m.AddStrings(in)
		checkGob(t, m)
	})
}
