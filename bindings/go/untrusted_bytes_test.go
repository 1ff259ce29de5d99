package sketches

import (
	"bytes"
	"fmt"
	"testing"
)

// record is a caller's heap object holding a Go pointer beside a byte
// array: passing a slice of buf to C is legal under cgo's rules (the
// memory in question is the array, which holds no pointers), but cgo's
// run-time check of an unsafe.Pointer argument scans the whole object and
// panics ("argument of cgo function has Go pointer to unpinned Go
// pointer") when the binding passes such bytes as void*.
type record struct {
	name *string
	buf  [8192]byte
}

var recordSink []*record // keeps the records on the heap

func newRecord(b []byte) (*record, []byte) {
	name := "image"
	r := &record{name: &name}
	recordSink = append(recordSink, r)
	return r, r.buf[:copy(r.buf[:], b)]
}

// Bytes handed to UnmarshalBinary, Verify, Inspect, AppendBinary and
// NewSplitBlockFromParquetBitset may sit inside such an object.
func TestUntrustedBytesInsideObjectsWithPointers(t *testing.T) {
	call := func(what string, f func() error) {
		t.Helper()
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			err = f()
		}()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	f, err := NewSplitBlockParquet(1000, 0.01)
	check(t, err)
	f.AddStrings(keys("rec-", 0, 100))
	img := mustMarshal(t, f)

	_, data := newRecord(img)
	var g SplitBlock
	call("SplitBlock.UnmarshalBinary", func() error { return g.UnmarshalBinary(data) })
	call("Verify", func() error { return Verify(data) })
	call("Inspect", func() error { _, err := Inspect(data); return err })
	if !bytes.Equal(mustMarshal(t, &g), img) {
		t.Fatal("unmarshalled from a record: another image")
	}
	_, bits := newRecord(f.Bitset())
	var loaded *SplitBlock
	call("NewSplitBlockFromParquetBitset", func() (err error) {
		loaded, err = NewSplitBlockFromParquetBitset(bits, 0.01)
		return err
	})
	if !bytes.Equal(loaded.Bitset(), f.Bitset()) {
		t.Fatal("bitset loaded from a record differs")
	}
	r, _ := newRecord(nil)
	var out []byte
	call("AppendBinary", func() (err error) { out, err = f.AppendBinary(r.buf[:0]); return err })
	if !bytes.Equal(out, img) || &out[0] != &r.buf[0] {
		t.Fatal("AppendBinary into a record's buffer")
	}

	// Every family's import and verify path.
	h, _ := NewHLL(12)
	h.AddString("a")
	tk, _ := NewTopK(8, 16)
	_ = tk.AddString("a", 2)
	fuse, _ := NewBinaryFuseStrings([]string{"a", "b"}, 8)
	e, _ := NewELL(10, 20)
	bl, _ := NewBloom(100, 0.01)
	cb, _ := NewCountingBloom(100, 0.01)
	ck, _ := NewCuckoo(100, 0.01)
	u, _ := NewULL(10)
	cm, _ := NewCountMin(0.01, 0.01)
	mh, _ := NewMinHash(64)
	for _, s := range []interface {
		MarshalBinary() ([]byte, error)
		UnmarshalBinary([]byte) error
	}{bl, f, cb, ck, h, u, cm, tk, mh, fuse, e} {
		b, err := s.MarshalBinary()
		check(t, err)
		_, data := newRecord(b)
		name := fmt.Sprintf("%T", s)
		call(name+".UnmarshalBinary", func() error { return s.UnmarshalBinary(data) })
		call(name+" Verify", func() error { return Verify(data) })
	}
}
