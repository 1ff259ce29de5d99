//go:build unix

package sketches

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// roFamily is one family for the read-only wrap tests: a populated,
// writable sketch, and its read-only wrap function.
type roFamily struct {
	name   string
	build  func(t *testing.T) any
	wrapRO func(b []byte) (any, error)
}

func roFamilies() []roFamily {
	ks := keys("ro-", 0, 3000)
	fail := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	return []roFamily{
		{"Bloom", func(t *testing.T) any { f, err := NewBloom(5000, 0.01); fail(t, err); f.AddStrings(ks); return f },
			func(b []byte) (any, error) { return WrapBloomReadOnly(b) }},
		{"SplitBlock", func(t *testing.T) any {
			f, err := NewSplitBlock(5000, 0.01)
			fail(t, err)
			f.AddStrings(ks)
			return f
		}, func(b []byte) (any, error) { return WrapSplitBlockReadOnly(b) }},
		{"CountingBloom", func(t *testing.T) any {
			f, err := NewCountingBloom(5000, 0.01)
			fail(t, err)
			f.AddStrings(ks)
			return f
		}, func(b []byte) (any, error) { return WrapCountingBloomReadOnly(b) }},
		{"Cuckoo", func(t *testing.T) any {
			f, err := NewCuckoo(5000, 0.01)
			fail(t, err)
			_, err = f.AddStrings(ks)
			fail(t, err)
			return f
		}, func(b []byte) (any, error) { return WrapCuckooReadOnly(b) }},
		{"BinaryFuse", func(t *testing.T) any { f, err := NewBinaryFuseStrings(ks, 8); fail(t, err); return f },
			func(b []byte) (any, error) { return WrapBinaryFuseReadOnly(b) }},
		{"HLL", func(t *testing.T) any { h, err := NewHLL(12); fail(t, err); h.AddStrings(ks); return h },
			func(b []byte) (any, error) { return WrapHLLReadOnly(b) }},
		{"ULL", func(t *testing.T) any { u, err := NewULL(12); fail(t, err); u.AddStrings(ks); return u },
			func(b []byte) (any, error) { return WrapULLReadOnly(b) }},
		{"ELL", func(t *testing.T) any { e, err := NewELL(12, 24); fail(t, err); e.AddStrings(ks); return e },
			func(b []byte) (any, error) { return WrapELLReadOnly(b) }},
		{"CountMin", func(t *testing.T) any {
			c, err := NewCountMin(0.001, 0.01)
			fail(t, err)
			fail(t, c.AddStrings(ks, nil))
			return c
		}, func(b []byte) (any, error) { return WrapCountMinReadOnly(b) }},
		{"TopK", func(t *testing.T) any {
			k, err := NewTopK(64, 32)
			fail(t, err)
			fail(t, k.AddStrings(ks, nil))
			return k
		}, func(b []byte) (any, error) { return WrapTopKReadOnly(b) }},
		{"MinHash", func(t *testing.T) any { m, err := NewMinHash(128); fail(t, err); m.AddStrings(ks); return m },
			func(b []byte) (any, error) { return WrapMinHashReadOnly(b) }},
	}
}

// readingMethods are the methods that only read a sketch: on a read-only
// wrap they must work. Every other exported method of a family type is
// treated as changing and must refuse with ErrReadOnly, so a method added
// later fails this test until it is classified here (a reading one) or
// guarded (a changing one; an unguarded one faults on the read-only
// mapping and kills the test binary).
var readingMethods = map[string]bool{
	"Contains": true, "ContainsString": true, "ContainsUint64": true, "ContainsHash": true, "ContainsHashes": true,
	"ContainsStrings": true, "ContainsBytes": true, "ContainsUint64s": true,
	"ContainsConcurrent": true, "ContainsConcurrentString": true, "ContainsConcurrentUint64": true,
	"ContainsConcurrentHash": true, "ContainsConcurrentHashes": true, "ContainsConcurrentStrings": true,
	"ContainsConcurrentBytes": true, "ContainsConcurrentUint64s": true,
	"Count": true, "CountString": true, "CountUint64": true,
	"Estimate": true, "EstimateString": true, "EstimateUint64": true, "EstimateHash": true, "EstimateHashes": true,
	"EstimateStrings": true, "EstimateBytes": true, "EstimateUint64s": true, "EstimateConcurrent": true,
	"RegisterEstimate": true, "MLEstimate": true, "MartingaleEstimate": true,
	"Stats": true, "LogValue": true, "OverCapacity": true, "OverCapacityConcurrent": true, "Size": true, "String": true, "Format": true,
	"Clone": true, "MarshalBinary": true, "AppendBinary": true, "MarshalText": true, "AppendText": true, "WriteTo": true,
	"ReadOnly": true, "Bitset": true, "FingerprintBits": true, "Precision": true, "Params": true, "Total": true,
	"List": true, "Signature": true, "K": true, "Jaccard": true, "Downsize": true, "ToHLL": true,
}

// sampleArgs builds arguments for method m of a sketch: two keys for every
// batch (and two weights), an image of the same family for the
// unmarshalers, and the writable sketch other for a sketch argument.
func sampleArgs(t *testing.T, family, name string, m reflect.Method, other any, img []byte) []reflect.Value {
	t.Helper()
	ft := m.Type
	args := make([]reflect.Value, 0, ft.NumIn()-1)
	for i := 1; i < ft.NumIn(); i++ {
		pt := ft.In(i)
		var v any
		switch {
		case name == "UnmarshalText":
			v = []byte(mustText(t, other))
		case name == "UnmarshalBinary":
			v = img
		case family == "HLL" && name == "Downsize":
			v = uint8(10)
		case family == "ELL" && name == "Downsize":
			v = []uint8{10, 20}[i-1]
		case pt == reflect.TypeOf(other):
			v = other
		case pt == reflect.TypeOf([]byte(nil)):
			v = []byte("ro-7")
		case pt == reflect.TypeOf(""):
			v = "ro-7"
		case pt == reflect.TypeOf(uint64(0)):
			v = uint64(7)
		case pt == reflect.TypeOf(uint32(0)):
			v = uint32(1)
		case pt == reflect.TypeOf(float64(0)):
			v = 0.5
		case pt == reflect.TypeOf([]string(nil)):
			v = []string{"ro-1", "new-1"}
		case pt == reflect.TypeOf([][]byte(nil)):
			v = [][]byte{[]byte("ro-1"), []byte("new-1")}
		case pt == reflect.TypeOf([]uint64(nil)):
			v = []uint64{1, 2}
		case pt == reflect.TypeOf([]bool(nil)):
			v = []bool(nil)
		case pt == reflect.TypeOf((*io.Writer)(nil)).Elem():
			v = io.Writer(new(bytes.Buffer))
		default:
			t.Fatalf("%s.%s: no sample argument for %v", family, name, pt)
		}
		args = append(args, reflect.ValueOf(v))
	}
	return args
}

func mustText(t *testing.T, s any) string {
	t.Helper()
	b, err := s.(encoding_TextMarshaler).MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type encoding_TextMarshaler interface{ MarshalText() ([]byte, error) }

// callRecover calls m with args and returns its results and what it
// panicked with (nil when it returned).
func callRecover(m reflect.Value, args []reflect.Value) (out []reflect.Value, panicked any) {
	defer func() { panicked = recover() }()
	return m.Call(args), nil
}

// mapReadOnly writes img to a file and maps it PROT_READ: any write to the
// returned memory is a fault that kills the test binary.
func mapReadOnly(t *testing.T, img []byte) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sketch.img")
	check(t, os.WriteFile(path, img, 0o644))
	file, err := os.Open(path)
	check(t, err)
	defer file.Close()
	mem, err := syscall.Mmap(int(file.Fd()), 0, len(img), syscall.PROT_READ, syscall.MAP_SHARED)
	check(t, err)
	t.Cleanup(func() { syscall.Munmap(mem) })
	return mem
}

// Every exported method of every family type, called on a read-only wrap
// of a PROT_READ mapping: the changing ones refuse with an error matching
// ErrReadOnly (returned, or the panic value of the methods without an
// error result) and change nothing; the reading ones work and answer as
// the writable sketch does where the answer is a plain value.
func TestWrapReadOnlyEveryMethod(t *testing.T) {
	for _, fam := range roFamilies() {
		t.Run(fam.name, func(t *testing.T) {
			orig := fam.build(t)
			img, err := orig.(encoding_BinaryMarshaler).MarshalBinary()
			check(t, err)
			mem := mapReadOnly(t, img)
			check(t, Verify(mem))
			ro, err := fam.wrapRO(mem)
			check(t, err)
			rv := reflect.ValueOf(ro)
			if !rv.MethodByName("ReadOnly").Call(nil)[0].Bool() {
				t.Fatal("ReadOnly() false on a read-only wrap")
			}
			typ := rv.Type()
			var changing, reading []string
			for i := 0; i < typ.NumMethod(); i++ {
				m := typ.Method(i)
				if m.Name == "Format" {
					reading = append(reading, m.Name)
					if got, want := fmt.Sprintf("%v", ro), fmt.Sprintf("%v", orig); got != want {
						t.Errorf("Format: %q, writable %q", got, want)
					}
					continue
				}
				args := sampleArgs(t, fam.name, m.Name, m, orig, img)
				out, p := callRecover(rv.Method(i), args)
				if readingMethods[m.Name] {
					reading = append(reading, m.Name)
					if p != nil {
						t.Errorf("reading method %s panicked on a read-only wrap: %v", m.Name, p)
						continue
					}
					if n := len(out); n > 0 && out[n-1].Type() == reflect.TypeOf((*error)(nil)).Elem() && !out[n-1].IsNil() {
						err := out[n-1].Interface().(error)
						// An HLL estimate in small mode refuses the concurrent form by design.
						if !(m.Name == "EstimateConcurrent" && errors.Is(err, ErrSmallMode)) {
							t.Errorf("reading method %s on a read-only wrap: %v", m.Name, err)
						}
					}
					// The same call on the writable sketch gives the same plain answer.
					if m.Name != "Clone" && m.Name != "ReadOnly" && m.Name != "Downsize" && m.Name != "ToHLL" {
						wout := reflect.ValueOf(orig).MethodByName(m.Name).Call(sampleArgs(t, fam.name, m.Name, m, orig, img))
						if !reflect.DeepEqual(valuesOf(out), valuesOf(wout)) {
							t.Errorf("%s: read-only wrap answered %v, writable sketch %v", m.Name, valuesOf(out), valuesOf(wout))
						}
					}
					continue
				}
				changing = append(changing, m.Name)
				var got error
				if p != nil {
					e, ok := p.(error)
					if !ok {
						t.Errorf("changing method %s panicked with %v, not an error", m.Name, p)
						continue
					}
					got = e
				} else if n := len(out); n > 0 && out[n-1].Type() == reflect.TypeOf((*error)(nil)).Elem() && !out[n-1].IsNil() {
					got = out[n-1].Interface().(error)
				}
				var e *Error
				if !errors.Is(got, ErrReadOnly) || !errors.As(got, &e) || e.Code != StatusReadOnly ||
					!strings.Contains(e.Op, fam.name+"."+m.Name) {
					t.Errorf("changing method %s on a read-only wrap: got %v, want an error matching ErrReadOnly naming %s.%s",
						m.Name, got, fam.name, m.Name)
				}
			}
			// Nothing changed: the same bytes (the mapping could not be
			// written anyway), still wrapped (UnmarshalBinary refused), still
			// read-only, and exporting the image it had.
			if !bytes.Equal(mem, img) {
				t.Fatal("the mapping changed")
			}
			again, err := ro.(encoding_BinaryMarshaler).MarshalBinary()
			check(t, err)
			if !bytes.Equal(again, img) || !rv.MethodByName("ReadOnly").Call(nil)[0].Bool() {
				t.Fatal("the read-only sketch changed")
			}
			if len(changing) == 0 || len(reading) == 0 {
				t.Fatalf("changing %v reading %v", changing, reading)
			}
			sort.Strings(changing)
			t.Logf("%d changing methods refused: %v", len(changing), changing)

			// A read-only sketch is a merge source (into an emptied copy, so
			// that a cuckoo filter has room), and its Clone is writable.
			dst := reflect.ValueOf(orig).MethodByName("Clone").Call(nil)[0]
			if cl, ok := dst.Interface().(interface{ Clear() }); ok {
				cl.Clear()
			}
			if mm := dst.MethodByName("Merge"); mm.IsValid() {
				if out := mm.Call([]reflect.Value{rv}); !out[0].IsNil() {
					t.Fatalf("Merge from a read-only source: %v", out[0].Interface())
				}
			}
			c := rv.MethodByName("Clone").Call(nil)[0]
			if c.MethodByName("ReadOnly").Call(nil)[0].Bool() {
				t.Fatal("Clone of a read-only wrap is read-only")
			}
			if cl, ok := c.Interface().(interface{ Clear() }); ok {
				cl.Clear() // a writable copy in Go memory: no panic, no fault
			}
		})
	}
}

type encoding_BinaryMarshaler interface{ MarshalBinary() ([]byte, error) }

// valuesOf returns the plain values of results for comparison; sketches
// (pointers) and writers are compared by their exported image.
func valuesOf(vs []reflect.Value) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		x := v.Interface()
		if m, ok := x.(encoding_BinaryMarshaler); ok && v.Kind() == reflect.Pointer && !v.IsNil() {
			b, err := m.MarshalBinary()
			out[i] = [2]any{b, err}
			continue
		}
		out[i] = x
	}
	return out
}

// The wrap checks and their errors are WrapX's, with the read-only name.
func TestWrapReadOnlyErrors(t *testing.T) {
	u, err := NewULL(10)
	check(t, err)
	img := alignedCopy(marshal(t, u), 0)
	if _, err := WrapBloomReadOnly(img); !errors.Is(err, ErrWrongFamily) || !strings.Contains(err.Error(), "WrapBloomReadOnly") {
		t.Fatalf("another family: %v", err)
	}
	if _, err := WrapULLReadOnly(alignedCopy(img, 1)); !errors.Is(err, ErrMisaligned) {
		t.Fatalf("misaligned: %v", err)
	}
	if _, err := WrapULLReadOnly(img[:40]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("truncated: %v", err)
	}
	r, err := WrapULLReadOnly(img)
	check(t, err)
	err = r.Merge(u)
	if !errors.Is(err, ErrReadOnly) || errors.Is(err, ErrCorrupt) || errors.Is(err, ErrInvalidArgument) ||
		err.Error() != "sketches: ULL.Merge: the sketch is a read-only wrap: changing methods refuse ("+readOnlyDetail+")" {
		t.Fatalf("read-only Merge: %v", err)
	}
	w, err := WrapULL(img)
	check(t, err)
	if w.ReadOnly() {
		t.Fatal("WrapULL gave a read-only sketch")
	}
}
