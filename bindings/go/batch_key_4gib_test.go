//go:build unix && (amd64 || arm64 || riscv64 || ppc64le || s390x || loong64 || mips64 || mips64le)

package sketches

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// A key of 4 GiB or more in a packed batch (the packed layout's offsets
// are 32-bit) is an *Error matching ErrInvalidArgument: returned by the
// batches with an error result (Cuckoo.AddStrings, CountMin.AddStrings,
// CountingBloom.RemoveBytes, HLL.AddConcurrentStrings), and the panic value
// of those without one (Bloom.AddStrings), as the package doc promises for
// every panic. Before, every one of them panicked with a plain string. The
// key is 4 GiB of a read-only anonymous mapping: nothing is read from it.
func TestBatchKeyOf4GiB(t *testing.T) {
	const size = 1 << 32
	m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		t.Skip("no 4 GiB mapping:", err)
	}
	defer syscall.Munmap(m)
	big := unsafe.String(&m[0], size)
	strs := []string{"before", big, "after"}
	byteKeys := [][]byte{[]byte("before"), m, []byte("after")}
	isArg := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "4 GiB") {
			t.Fatalf("%s with a 4 GiB key: %v", what, err)
		}
	}

	bl, _ := NewBloom(100, 0.01)
	func() {
		defer func() {
			r := recover()
			e, ok := r.(*Error)
			if !ok {
				t.Fatalf("Bloom.AddStrings with a 4 GiB key: panic %v, want an *Error", r)
			}
			isArg("Bloom.AddStrings", e)
		}()
		bl.AddStrings(strs)
	}()
	if !bl.ContainsString("before") || bl.ContainsString("after") {
		t.Fatal("Bloom.AddStrings: the keys before the 4 GiB one are added, the rest not")
	}

	ck, _ := NewCuckoo(100, 0.01)
	n, err := ck.AddStrings(strs)
	isArg("Cuckoo.AddStrings", err)
	if n != 1 {
		t.Fatalf("Cuckoo.AddStrings placed %d keys before the 4 GiB one, want 1", n)
	}
	cm, _ := NewCountMin(0.1, 0.1)
	isArg("CountMin.AddBytes", cm.AddBytes(byteKeys, nil))
	cb, _ := NewCountingBloom(100, 0.01)
	cb.AddString("before")
	_, err = cb.RemoveBytes(byteKeys)
	isArg("CountingBloom.RemoveBytes", err)
	hl, _ := NewHLL(10)
	hl.Densify()
	isArg("HLL.AddConcurrentStrings", hl.AddConcurrentStrings(strs))

	// A binary fuse build packs every key into one buffer: 4 GiB of key
	// bytes in all, here two keys of 2 GiB, is refused before packing.
	_, err = NewBinaryFuseBytes([][]byte{m[:size/2], m[size/2:]}, 8)
	isArg("NewBinaryFuseBytes", err)
	_, err = NewBinaryFuseStrings(strs, 16)
	isArg("NewBinaryFuseStrings", err)
}
