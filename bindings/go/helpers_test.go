package sketches

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"unsafe"
)

// goldenDir holds the images every binding must read and reproduce.
var goldenDir = filepath.Join("..", "..", "tests", "golden")

func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(goldenDir, name+"_v1.img"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// goldenKey is the key of tests/tests/golden.rs: "golden-<i>".
func goldenKey(i int) string { return "golden-" + strconv.Itoa(i) }

func keys(prefix string, from, to int) []string {
	k := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		k = append(k, prefix+strconv.Itoa(i))
	}
	return k
}

func byteKeys(s []string) [][]byte {
	b := make([][]byte, len(s))
	for i, k := range s {
		b[i] = []byte(k)
	}
	return b
}

func le8(v uint64) []byte {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return b[:]
}

// alignedCopy returns b copied to a 64-byte aligned address, shifted by off bytes.
func alignedCopy(b []byte, off int) []byte {
	words := make([]uint64, (len(b)+off)/8+16)
	base := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)
	start := int(-uintptr(unsafe.Pointer(&words[0]))&63) + off
	out := base[start : start+len(b)]
	copy(out, b)
	return out
}

func marshal(t testing.TB, m encoding.BinaryMarshaler) []byte {
	t.Helper()
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sameImage(t testing.TB, what string, a, b encoding.BinaryMarshaler) {
	t.Helper()
	if !bytes.Equal(marshal(t, a), marshal(t, b)) {
		t.Fatalf("%s: images differ", what)
	}
}

func check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
