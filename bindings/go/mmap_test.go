//go:build unix

package sketches

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The zero-copy path as a service uses it: an image written with
// MarshalBinary, mapped read-only from its file, verified once, wrapped
// with the ReadOnly form and queried in place. A stray change (a bug
// elsewhere calling Add) is refused with ErrReadOnly instead of faulting
// on the read-only mapping, which would kill the process.
func TestWrapMappedFile(t *testing.T) {
	f, _ := NewBloom(10000, 0.01, WithSeed(3))
	ks := keys("mapped-", 0, 10000)
	f.AddStrings(ks)
	h, _ := NewHLL(12)
	h.AddStrings(ks)
	dir := t.TempDir()
	for name, img := range map[string][]byte{"bloom": marshal(t, f), "hll": marshal(t, h)} {
		path := filepath.Join(dir, name+".img")
		check(t, os.WriteFile(path, img, 0o644))
		file, err := os.Open(path)
		check(t, err)
		mem, err := syscall.Mmap(int(file.Fd()), 0, len(img), syscall.PROT_READ, syscall.MAP_SHARED)
		file.Close()
		check(t, err)
		check(t, Verify(mem))
		switch name {
		case "bloom":
			w, err := WrapBloomReadOnly(mem)
			check(t, err)
			if countTrue(w.ContainsStrings(ks, nil)) != len(ks) || !w.ContainsString(ks[7]) || w.Stats().AddCalls != 10000 {
				t.Fatal("queries on the mapped filter")
			}
			// Add has no error result: it panics with the *Error.
			func() {
				defer func() {
					if err, _ := recover().(error); !errors.Is(err, ErrReadOnly) {
						t.Fatalf("stray Add on the read-only mapping: %v", err)
					}
				}()
				w.AddString("stray")
			}()
			if err := w.Union(f); !errors.Is(err, ErrReadOnly) {
				t.Fatalf("stray Union on the read-only mapping: %v", err)
			}
		case "hll":
			w, err := WrapHLLReadOnly(mem)
			check(t, err)
			if w.Estimate() != h.Estimate() {
				t.Fatal("estimate of the mapped sketch")
			}
			if err := w.Merge(h); !errors.Is(err, ErrReadOnly) {
				t.Fatalf("stray Merge on the read-only mapping: %v", err)
			}
		}
		check(t, syscall.Munmap(mem))
	}
}

// A filter kept in a read-write mapping of its file and updated in place:
// the adds do not rewrite the checksum, so the file then fails Verify and
// UnmarshalBinary with a checksum mismatch (ErrCorrupt) although nothing is
// damaged, as WrapBloom's doc says; writing MarshalBinary's bytes back over
// the mapping before unmapping (the pattern the doc gives) leaves a file
// that verifies and loads with the adds.
func TestWrapMappedFileUpdatedInPlace(t *testing.T) {
	f, err := NewBloom(10000, 0.01)
	check(t, err)
	path := filepath.Join(t.TempDir(), "seen.img")
	check(t, os.WriteFile(path, marshal(t, f), 0o644))
	open := func() []byte {
		file, err := os.OpenFile(path, os.O_RDWR, 0)
		check(t, err)
		defer file.Close()
		st, err := file.Stat()
		check(t, err)
		mem, err := syscall.Mmap(int(file.Fd()), 0, int(st.Size()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
		check(t, err)
		return mem
	}
	mem := open()
	w, err := WrapBloom(mem)
	check(t, err)
	w.AddStrings(keys("in-place-", 0, 1000))
	err = Verify(mem)
	var e *Error
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.Code != StatusChecksumMismatch {
		t.Fatalf("updated in place, before sealing: Verify gave %v", err)
	}
	img, err := w.MarshalBinary()
	check(t, err)
	copy(mem, img) // seal: the same bytes with their checksum
	check(t, syscall.Munmap(mem))

	disk, err := os.ReadFile(path)
	check(t, err)
	check(t, Verify(disk))
	var g Bloom
	check(t, g.UnmarshalBinary(disk))
	if countTrue(g.ContainsStrings(keys("in-place-", 0, 1000), nil)) != 1000 {
		t.Fatal("the sealed file lost adds")
	}
}
