package sketches

// The shared boundary helper: image memory and alignment, key pointers,
// packing of string and byte-slice batches into the packed (Arrow Binary)
// layout, status to error, and the wrap/import/export paths every family
// uses. No cgo here: capi.go is the only file that calls C.

import (
	"encoding/binary"
	"math"
	"sync"
	"unsafe"
)

// minAlign is the alignment a live image needs (SKETCH_IMAGE_MIN_ALIGN);
// prefAlign the one images are allocated with (SKETCH_IMAGE_ALIGN: a
// split-block filter's blocks then sit in one cache line each).
const (
	minAlign  = 8
	prefAlign = 64
)

// bytesPtr returns the address of b's first byte, or nil when b is empty:
// the C functions accept NULL with length 0, and an empty slice may point
// just past an allocation, which no pointer check should see.
func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// strPtr is bytesPtr for a string (its UTF-8 bytes, no copy).
func strPtr(s string) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.StringData(s))
}

// newImage allocates n zeroed bytes of Go memory for a live image: backed by
// a []uint64 (8-byte aligned by construction) and moved to a 64-byte
// boundary when the allocator did not give one. Nothing to free.
func newImage(op string, n uint64) ([]byte, error) {
	if n > math.MaxInt/2 {
		return nil, &Error{Code: StatusInvalidParameter, Op: op, Detail: "image of " + utoa(n) + " bytes does not fit in memory"}
	}
	words := make([]uint64, (n+7)/8)
	if len(words) == 0 {
		return nil, nil
	}
	if uintptr(unsafe.Pointer(&words[0]))%prefAlign != 0 {
		words = make([]uint64, (n+7)/8+(prefAlign-minAlign)/8)
	}
	base := unsafe.Pointer(&words[0])
	all := unsafe.Slice((*byte)(base), len(words)*8)
	off := int(-uintptr(base) & (prefAlign - 1))
	return all[off : off+int(n) : off+int(n)], nil
}

// cloneImage copies a live image into fresh aligned memory.
func cloneImage(b []byte) []byte {
	c, _ := newImage("", uint64(len(b)))
	copy(c, b)
	return c
}

func utoa(n uint64) string {
	if n <= math.MaxInt {
		return itoa(int(n))
	}
	return "more than " + itoa(math.MaxInt)
}

// ---- packing -------------------------------------------------------------------

// Keys per C call and key bytes per C call in the packed batches: one call
// serves thousands of keys while the packed chunk stays in the L2 cache.
const (
	chunkKeys  = 2048
	chunkBytes = 48 << 10
)

// packer holds reusable packing buffers: chunkBytes of key data and
// chunkKeys+1 offsets.
type packer struct {
	data []byte
	offs []uint32
}

var packers = sync.Pool{New: func() any {
	return &packer{data: make([]byte, chunkBytes), offs: make([]uint32, chunkKeys+1)}
}}

// keyList is what the packed batches accept: strings (their UTF-8 bytes)
// or byte slices.
type keyList interface{ []string | [][]byte }

// packFunc receives one packed chunk: keys [start, start+len(offs)-1).
type packFunc func(start int, data []byte, offs []uint32) int32

// packed packs keys into the Arrow Binary layout in chunks and calls fn for
// each chunk with the index of its first key; it stops at the first
// non-zero status and returns it. No key pointer crosses the boundary: the
// C side sees one data buffer and one offsets array per call, both Go
// memory without pointers (legal under cgocheck=1 and GOEXPERIMENT=cgocheck2).
func packed[K keyList](keys K, fn packFunc) int32 {
	if len(keys) == 0 {
		return 0
	}
	p := packers.Get().(*packer)
	var s int32
	switch ks := any(keys).(type) {
	case []string:
		s = packStrings(p, ks, fn)
	case [][]byte:
		s = packBytes(p, ks, fn)
	}
	packers.Put(p)
	return s
}

// packStrings is the packing loop for strings (packBytes repeats it for
// byte slices: one indirect call per key would cost a fifth of the loop).
func packStrings(p *packer, keys []string, fn packFunc) int32 {
	data, offs := p.data, p.offs
	offs[0] = 0
	for start := 0; start < len(keys); {
		end := min(len(keys), start+chunkKeys)
		n, i := 0, start
		for ; i < end; i++ {
			k := keys[i]
			if n+len(k) > len(data) {
				if i > start {
					break
				}
				data = bigKey(len(k))
			}
			n = put(data, n, k)
			offs[i-start+1] = uint32(n)
		}
		if s := fn(start, data[:n], offs[:i-start+1]); s != 0 {
			return s
		}
		data, start = p.data, i
	}
	return 0
}

// packBytes is packStrings for byte slices.
func packBytes(p *packer, keys [][]byte, fn packFunc) int32 {
	data, offs := p.data, p.offs
	offs[0] = 0
	for start := 0; start < len(keys); {
		end := min(len(keys), start+chunkKeys)
		n, i := 0, start
		for ; i < end; i++ {
			k := keys[i]
			if n+len(k) > len(data) {
				if i > start {
					break
				}
				data = bigKey(len(k))
			}
			n = put(data, n, unsafe.String(unsafe.SliceData(k), len(k)))
			offs[i-start+1] = uint32(n)
		}
		if s := fn(start, data[:n], offs[:i-start+1]); s != 0 {
			return s
		}
		data, start = p.data, i
	}
	return 0
}

// bigKey returns a buffer for one key larger than a chunk (a call of its own).
func bigKey(n int) []byte {
	if uint64(n) > math.MaxUint32 {
		panic("sketches: a key in a batch is 4 GiB or longer (packed offsets are 32-bit)")
	}
	return make([]byte, n)
}

// put copies k to data[n:] (which has room) and returns the end. Keys of 8
// to 16 bytes, the common case, take two overlapping 8-byte moves instead
// of a memmove call.
func put(data []byte, n int, k string) int {
	l := len(k)
	if l >= 8 && l <= 16 {
		b := unsafe.Slice(unsafe.StringData(k), l)
		lo, hi := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[l-8:])
		binary.LittleEndian.PutUint64(data[n:], lo)
		binary.LittleEndian.PutUint64(data[n+l-8:], hi)
		return n + l
	}
	return n + copy(data[n:], k)
}

// longestKey returns the index and length of the longest key.
func longestKey[K keyList](keys K) (int, int) {
	at, longest := -1, -1
	switch ks := any(keys).(type) {
	case []string:
		for i, k := range ks {
			if len(k) > longest {
				at, longest = i, len(k)
			}
		}
	case [][]byte:
		for i, k := range ks {
			if len(k) > longest {
				at, longest = i, len(k)
			}
		}
	}
	return at, longest
}

// boolsFor returns out[:n] when out can hold n results, else a new slice.
func boolsFor(out []bool, n int) []bool {
	if cap(out) >= n {
		return out[:n]
	}
	return make([]bool, n)
}

// u64sFor is boolsFor for uint64 results.
func u64sFor(out []uint64, n int) []uint64 {
	if cap(out) >= n {
		return out[:n]
	}
	return make([]uint64, n)
}

func countTrue(v []bool) int {
	n := 0
	for _, b := range v {
		if b {
			n++
		}
	}
	return n
}

// ---- wrap, import, export ---------------------------------------------------------

// wrapImage checks b for the zero-copy path: 8-byte alignment, a sound
// common header of family f, and then check (an O(1) call that validates the
// family header against the length). It returns b cut to the image length.
func wrapImage(op string, b []byte, f Family, check func([]byte) int32) ([]byte, error) {
	if len(b) > 0 && uintptr(unsafe.Pointer(&b[0]))%minAlign != 0 {
		return nil, &Error{Code: StatusMisaligned, Op: op,
			Detail: "a live image must start on an 8-byte boundary; copy it into aligned memory or use UnmarshalBinary"}
	}
	info, s := cInspect(b)
	if s != 0 {
		return nil, errorOf(op, s)
	}
	if info.Family != f {
		return nil, &Error{Code: StatusWrongFamily, Op: op, Detail: "the image holds a " + info.Family.String()}
	}
	b = b[:info.ImageBytes:info.ImageBytes]
	if s := check(b); s != 0 {
		return nil, errorOf(op, s)
	}
	return b, nil
}

// importImage checks untrusted bytes (headers, exact length, checksum and,
// for the families that have them, body rules) and copies them into a new
// live image of liveLen bytes. Nothing is kept from data.
func importImage(op string, data []byte, f Family, liveLen int) ([]byte, error) {
	if liveLen < len(data) {
		liveLen = len(data)
	}
	dst, err := newImage(op, uint64(max(liveLen, prefAlign)))
	if err != nil {
		return nil, err
	}
	if s := cImport(f, data, dst); s != 0 {
		return nil, errorOf(op, s)
	}
	info, s := cInspect(dst)
	if s != 0 {
		return nil, errorOf(op, s)
	}
	return dst[:info.ImageBytes:info.ImageBytes], nil
}

// appendExport appends the exported image (checksum written, size bytes at
// most) to dst.
func appendExport(op string, f Family, b []byte, size int, dst []byte) ([]byte, error) {
	n := len(dst)
	if cap(dst)-n < size {
		grown := make([]byte, n, n+size)
		copy(grown, dst)
		dst = grown
	}
	w, s := cExport(f, b, dst[n:n+size])
	if s != 0 {
		return dst[:n], errorOf(op, s)
	}
	return dst[:n+w], nil
}

// ---- batches shared by the membership filters ---------------------------------

// filterAdd adds packed keys to a membership filter; out (nil, or one slot
// per key) receives the per-key flags of the C call (was new; for the
// cuckoo filter: added). It returns the status of the first failing call.
func filterAdd[K keyList](f Family, b []byte, keys K, out []bool) int32 {
	return packed(keys, func(start int, data []byte, offs []uint32) int32 {
		var o []bool
		if out != nil {
			o = out[start : start+len(offs)-1]
		}
		return cFilterAddPacked(f, b, data, offs, o)
	})
}

// filterContains answers packed keys into out (len(keys) slots).
func filterContains[K keyList](f Family, b []byte, keys K, out []bool) int32 {
	return packed(keys, func(start int, data []byte, offs []uint32) int32 {
		return cFilterContainsPacked(f, b, data, offs, out[start:start+len(offs)-1])
	})
}
