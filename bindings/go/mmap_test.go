//go:build unix

package sketches

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The zero-copy path as a service uses it: an image written with
// MarshalBinary, mapped read-only from its file, verified once, and queried
// in place (a read-only mapping allows only the reading methods).
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
			w, err := WrapBloom(mem)
			check(t, err)
			if countTrue(w.ContainsStrings(ks, nil)) != len(ks) || !w.ContainsString(ks[7]) || w.Stats().AddCalls != 10000 {
				t.Fatal("queries on the mapped filter")
			}
		case "hll":
			w, err := WrapHLL(mem)
			check(t, err)
			if w.Estimate() != h.Estimate() {
				t.Fatal("estimate of the mapped sketch")
			}
		}
		check(t, syscall.Munmap(mem))
	}
}
