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

// Keys of every length from 0 to 70 bytes pack byte for byte (the copy
// has special paths for 4-7, 8-16 and 17-32 bytes).
func TestPackEveryLength(t *testing.T) {
	var ks []string
	for l := 0; l <= 70; l++ {
		b := make([]byte, l)
		for i := range b {
			b[i] = byte(l*31 + i)
		}
		ks = append(ks, string(b))
	}
	var got []string
	packed(ks, func(start int, data []byte, offs []uint32) int32 {
		for i := 0; i+1 < len(offs); i++ {
			got = append(got, string(data[offs[i]:offs[i+1]]))
		}
		return 0
	})
	var gotB []string
	packed(byteKeys(ks), func(start int, data []byte, offs []uint32) int32 {
		for i := 0; i+1 < len(offs); i++ {
			gotB = append(gotB, string(data[offs[i]:offs[i+1]]))
		}
		return 0
	})
	if len(got) != len(ks) || len(gotB) != len(ks) {
		t.Fatal(len(got), len(gotB))
	}
	for i := range ks {
		if got[i] != ks[i] || gotB[i] != ks[i] {
			t.Fatalf("key of %d bytes packed as %q", len(ks[i]), got[i])
		}
	}
}
