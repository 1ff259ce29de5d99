package sketches

import (
	"bytes"
	"encoding"
	"errors"
	"testing"
)

// sketchImage is what every family type implements.
type sketchImage interface {
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
	AppendBinary([]byte) ([]byte, error)
	Size() int
}

// checkImage runs the image paths every family shares on s: export and
// import round trip, damaged, truncated and foreign bytes, Verify, Inspect,
// AppendBinary, and Wrap (in place, misaligned, foreign).
func checkImage[T any, P interface {
	*T
	sketchImage
}](t *testing.T, s P, fam Family, wrap func([]byte) (P, error)) {
	t.Helper()
	img := marshal(t, s)
	if info, err := Inspect(img); err != nil || info.Family != fam || info.ImageBytes != uint64(len(img)) {
		t.Fatalf("inspect: %+v %v", info, err)
	}
	check(t, Verify(img))

	var u T
	check(t, P(&u).UnmarshalBinary(img))
	if !bytes.Equal(marshal(t, P(&u)), img) {
		t.Fatal("export(import(image)) differs")
	}
	if out, err := s.AppendBinary([]byte("prefix")); err != nil || !bytes.Equal(out, append([]byte("prefix"), img...)) {
		t.Fatal("AppendBinary", err)
	}

	// Damaged bytes: an error matching ErrCorrupt, and the receiver keeps its image.
	for _, at := range []int{len(img) / 2, len(img) - 1, 5} {
		bad := bytes.Clone(img)
		bad[at] ^= 0x40
		err := P(&u).UnmarshalBinary(bad)
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped: %v", at, err)
		}
		var e *Error
		if !errors.As(err, &e) || e.Code == StatusOK || e.Op == "" {
			t.Fatalf("not an *Error: %#v", err)
		}
		if !errors.Is(Verify(bad), ErrCorrupt) {
			t.Fatalf("Verify of damaged bytes: %v", Verify(bad))
		}
	}
	// Truncated bytes (a partly written file) are damaged bytes too, at any
	// length: shorter than the header, or than the length it records.
	for _, n := range []int{len(img) - 8, len(img) - 1, 47, 20, 1, 0} {
		if err := P(&u).UnmarshalBinary(img[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("UnmarshalBinary of the first %d bytes: %v", n, err)
		}
		if err := Verify(img[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Verify of the first %d bytes: %v", n, err)
		}
		if _, err := Inspect(img[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Inspect of the first %d bytes: %v", n, err)
		}
	}
	// An image of a newer format major version (the byte after the magic).
	newer := bytes.Clone(img)
	newer[4]++
	if err := P(&u).UnmarshalBinary(newer); !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatalf("newer major version: %v", err)
	}
	if _, err := wrap(alignedCopy(newer, 0)); !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatalf("newer major version wrapped: %v", err)
	}
	if err := P(&u).UnmarshalBinary(nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("empty image: %v", err)
	}
	if !bytes.Equal(marshal(t, P(&u)), img) {
		t.Fatal("a failed UnmarshalBinary changed the receiver")
	}
	foreign := readGolden(t, "minhash")
	if fam == FamilyMinHash {
		foreign = readGolden(t, "bloom")
	}
	if err := P(&u).UnmarshalBinary(foreign); !errors.Is(err, ErrWrongFamily) {
		t.Fatalf("foreign image: %v", err)
	}

	// Wrap: in place, aligned; the sketch reads and writes the caller's bytes.
	mem := alignedCopy(img, 0)
	w, err := wrap(mem)
	check(t, err)
	if w.Size() != len(img) || !bytes.Equal(marshal(t, w), img) {
		t.Fatal("wrapped image")
	}
	if _, err := wrap(alignedCopy(img, 4)); !errors.Is(err, ErrMisaligned) {
		t.Fatalf("misaligned wrap: %v", err)
	}
	if _, err := wrap(alignedCopy(foreign, 0)); !errors.Is(err, ErrWrongFamily) {
		t.Fatalf("foreign wrap: %v", err)
	}
	if _, err := wrap(make([]byte, 128)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("zero bytes wrapped: %v", err)
	}
	if _, err := wrap(alignedCopy(img[:len(img)-64], 0)); err == nil {
		t.Fatal("short buffer wrapped")
	}
	// A longer buffer is cut to the image.
	long := alignedCopy(append(bytes.Clone(img), make([]byte, 64)...), 0)
	if w, err := wrap(long); err != nil || w.Size() != len(img) {
		t.Fatalf("long buffer: %v", err)
	}
}

// wrapShares checks that a wrapped sketch works on the caller's bytes:
// change is called on the wrapped sketch and must show in mem.
func wrapShares(t *testing.T, mem []byte, change func()) {
	t.Helper()
	before := bytes.Clone(mem)
	change()
	if bytes.Equal(before, mem) {
		t.Fatal("a change through the wrapped sketch did not reach the caller's bytes")
	}
}

// mixedKeys returns keys crossing the packing chunk limits: more keys than
// one chunk holds, the empty key, and keys longer than a chunk's bytes.
func mixedKeys(prefix string, n int) []string {
	k := keys(prefix, 0, n)
	k[1] = ""
	k[n/3] = string(bytes.Repeat([]byte{'x'}, chunkBytes+10))
	k[n/3+1] = string(bytes.Repeat([]byte{'y'}, chunkBytes/2))
	return k
}

func u64Keys(from, to int) []uint64 {
	k := make([]uint64, 0, to-from)
	for i := from; i < to; i++ {
		k = append(k, uint64(i)*0x9e3779b97f4a7c15)
	}
	return k
}

func expectPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatalf("%s: no panic", what)
		}
		if e, ok := r.(*Error); !ok || e.Code == StatusOK {
			t.Fatalf("%s: panic %v is not an *Error", what, r)
		}
	}()
	f()
}
