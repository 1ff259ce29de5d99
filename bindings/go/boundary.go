package sketches

// The shared boundary helper: image memory and alignment, key pointers,
// packing of string and byte-slice batches into the packed (Arrow Binary)
// layout, status to error, and the wrap/import/export paths every family
// uses. No cgo here: capi.go is the only file that calls C.

import (
	"encoding"
	"encoding/base64"
	"encoding/binary"
	"math"
	"strconv"
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

// keyApart is bytesPtr for the key of a call that writes img (a
// single-key add or removal) or reads it with atomic loads (the
// ContainsConcurrent forms): a key sharing memory with the image, such as
// bytes of SplitBlock.Bitset or of a wrapped buffer, is copied first and
// the copy passed, so the key is the bytes it held when the call began.
// The library refuses a key it would read while writing the image
// (StatusOverlap), which the methods without an error result turned into
// a panic. Keys apart from the image, every key but those, pass as they
// are, with no allocation.
func keyApart(key, img []byte) unsafe.Pointer {
	if len(key) == 0 {
		return nil
	}
	k0, i0 := uintptr(unsafe.Pointer(&key[0])), uintptr(unsafe.Pointer(unsafe.SliceData(img)))
	if k0 < i0+uintptr(len(img)) && i0 < k0+uintptr(len(key)) {
		return unsafe.Pointer(&append([]byte(nil), key...)[0])
	}
	return unsafe.Pointer(&key[0])
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
// boundary when the allocator did not give one. Nothing to free. A size
// beyond what Go can allocate at all (the runtime's limit, 2^48 bytes on
// 64-bit platforms, is below what the library's parameters allow) is an
// error matching ErrInvalidParameter; memory that merely runs out is the
// runtime's fatal error, as for any allocation.
func newImage(op string, n uint64) ([]byte, error) {
	tooLarge := &Error{Code: StatusInvalidParameter, Op: op, Detail: "image of " + utoa(n) + " bytes does not fit in memory"}
	if n > math.MaxInt/2 {
		return nil, tooLarge
	}
	words, ok := makeWords(int((n + 7) / 8))
	if !ok {
		return nil, tooLarge
	}
	if len(words) == 0 {
		return nil, nil
	}
	if uintptr(unsafe.Pointer(&words[0]))%prefAlign != 0 {
		if words, ok = makeWords(int((n+7)/8 + (prefAlign-minAlign)/8)); !ok {
			return nil, tooLarge
		}
	}
	base := unsafe.Pointer(&words[0])
	all := unsafe.Slice((*byte)(base), len(words)*8)
	off := int(-uintptr(base) & (prefAlign - 1))
	return all[off : off+int(n) : off+int(n)], nil
}

// makeWords is make([]uint64, n), reporting false instead of the runtime's
// panic for a length above the largest allocation Go supports ("makeslice:
// len out of range", the only panic make has).
func makeWords(n int) (w []uint64, ok bool) {
	defer func() {
		if recover() != nil {
			w, ok = nil, false
		}
	}()
	return make([]uint64, n), true
}

// cloneImage copies a live image into fresh aligned memory.
func cloneImage(b []byte) []byte {
	c, _ := newImage("", uint64(len(b)))
	copy(c, b)
	return c
}

func utoa(n uint64) string { return strconv.FormatUint(n, 10) }

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
// No keys make one call with an empty chunk, so an empty batch validates
// the image and answers exactly as the integer batches (which pass count 0
// to C) and a non-empty batch do.
func packed[K keyList](keys K, fn packFunc) int32 {
	if len(keys) == 0 {
		var offs [1]uint32
		return fn(0, nil, offs[:])
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

// packStrings packs string keys chunk by chunk; the copying loop is kept
// in its own small function (fillStrings) so its values stay in registers.
func packStrings(p *packer, keys []string, fn packFunc) int32 {
	p.offs[0] = 0
	for start := 0; start < len(keys); {
		ks := keys[start:min(len(keys), start+chunkKeys)]
		data := p.data
		count, n := fillStrings(data, p.offs[:len(ks)+1], ks)
		if count == 0 { // the key alone is larger than a chunk: a call of its own
			var ok bool
			if data, ok = bigKey(len(ks[0])); !ok {
				return statusBatchKeyTooLong
			}
			count, n = fillStrings(data, p.offs[:2], ks[:1])
		}
		if s := fn(start, data[:n], p.offs[:count+1]); s != 0 {
			return s
		}
		start += count
	}
	return 0
}

// packBytes is packStrings for byte slices.
func packBytes(p *packer, keys [][]byte, fn packFunc) int32 {
	p.offs[0] = 0
	for start := 0; start < len(keys); {
		ks := keys[start:min(len(keys), start+chunkKeys)]
		data := p.data
		count, n := fillBytes(data, p.offs[:len(ks)+1], ks)
		if count == 0 {
			var ok bool
			if data, ok = bigKey(len(ks[0])); !ok {
				return statusBatchKeyTooLong
			}
			count, n = fillBytes(data, p.offs[:2], ks[:1])
		}
		if s := fn(start, data[:n], p.offs[:count+1]); s != 0 {
			return s
		}
		start += count
	}
	return 0
}

// fillStrings copies keys into data, writing end offsets to offs[1:]
// (len(offs) = len(keys)+1), until one does not fit; it returns how many
// keys and bytes it packed.
func fillStrings(data []byte, offs []uint32, keys []string) (count, n int) {
	offs = offs[:len(keys)+1]
	le := binary.LittleEndian
	for i, k := range keys {
		l := len(k)
		if l > len(data)-n {
			return i, n
		}
		if l >= 8 && l <= 16 { // the common size, inline
			b := unsafe.Slice(unsafe.StringData(k), l)
			lo, hi := le.Uint64(b), le.Uint64(b[l-8:])
			le.PutUint64(data[n:], lo)
			le.PutUint64(data[n+l-8:], hi)
			n += l
		} else {
			n = putOther(data, n, k)
		}
		offs[i+1] = uint32(n)
	}
	return len(keys), n
}

// fillBytes is fillStrings for byte slices.
func fillBytes(data []byte, offs []uint32, keys [][]byte) (count, n int) {
	offs = offs[:len(keys)+1]
	le := binary.LittleEndian
	for i, k := range keys {
		l := len(k)
		if l > len(data)-n {
			return i, n
		}
		if l >= 8 && l <= 16 {
			lo, hi := le.Uint64(k), le.Uint64(k[l-8:])
			le.PutUint64(data[n:], lo)
			le.PutUint64(data[n+l-8:], hi)
			n += l
		} else {
			n = putOther(data, n, unsafe.String(unsafe.SliceData(k), l))
		}
		offs[i+1] = uint32(n)
	}
	return len(keys), n
}

// bigKey returns a buffer for one key larger than a chunk (a call of its
// own), or false for a key of 4 GiB or more, which the packed layout's
// 32-bit offsets cannot hold.
func bigKey(n int) ([]byte, bool) {
	if uint64(n) > math.MaxUint32 {
		return nil, false
	}
	return make([]byte, n), true
}

// putOther copies k to data[n:] (which has room) for keys outside 8-16
// bytes (the fill loops copy those inline with two overlapping 8-byte
// moves): overlapping 4- or 8-byte moves up to 32 bytes, memmove beyond.
// It returns the end.
func putOther(data []byte, n int, k string) int {
	l := len(k)
	b := unsafe.Slice(unsafe.StringData(k), l)
	le := binary.LittleEndian
	switch {
	case l > 16 && l <= 32:
		a, c := le.Uint64(b), le.Uint64(b[8:])
		d, e := le.Uint64(b[l-16:]), le.Uint64(b[l-8:])
		le.PutUint64(data[n:], a)
		le.PutUint64(data[n+8:], c)
		le.PutUint64(data[n+l-16:], d)
		le.PutUint64(data[n+l-8:], e)
	case l >= 4 && l < 8:
		lo, hi := le.Uint32(b), le.Uint32(b[l-4:])
		le.PutUint32(data[n:], lo)
		le.PutUint32(data[n+l-4:], hi)
	default:
		copy(data[n:], b)
	}
	return n + l
}

// packAll packs every key into one buffer and len(keys)+1 offsets (the
// Arrow Binary layout), for the calls that need all keys at once (a static
// filter's build). Both are fresh Go memory without pointers. The offsets
// are 32-bit: 4 GiB of key bytes or more give StatusInvalidArgument.
func packAll[K keyList](op string, keys K) ([]byte, []uint32, error) {
	total := 0
	switch ks := any(keys).(type) {
	case []string:
		for _, k := range ks {
			total += len(k)
		}
	case [][]byte:
		for _, k := range ks {
			total += len(k)
		}
	}
	if uint64(total) > math.MaxUint32 {
		return nil, nil, &Error{Code: StatusInvalidArgument, Op: op,
			Detail: utoa(uint64(total)) + " bytes of keys: a packed batch holds less than 4 GiB"}
	}
	data, offs := make([]byte, total), make([]uint32, len(keys)+1)
	switch ks := any(keys).(type) {
	case []string:
		fillStrings(data, offs, ks)
	case [][]byte:
		fillBytes(data, offs, ks)
	}
	return data, offs, nil
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

// overlapU64s reports whether a and b share memory.
func overlapU64s(a, b []uint64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, b0 := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return a0 < b0+uintptr(len(b))*8 && b0 < a0+uintptr(len(a))*8
}

// mergeSource returns the image a merge (union, intersection) reads: src,
// or a copy of it when it shares memory with dst, the image the merge
// writes (other is the receiver itself, or a struct copy of it). The
// library refuses a source that overlaps its destination (StatusOverlap);
// merging a sketch with itself means merging an equal sketch, which the
// copy is.
func mergeSource(dst, src []byte) []byte {
	if len(dst) == 0 || len(src) == 0 {
		return src
	}
	d0, s0 := uintptr(unsafe.Pointer(&dst[0])), uintptr(unsafe.Pointer(&src[0]))
	if d0 < s0+uintptr(len(src)) && s0 < d0+uintptr(len(dst)) {
		return cloneImage(src)
	}
	return src
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

// ---- tokens ----------------------------------------------------------------------

// imageToken is a sketch_token: the identity words (common header and
// family parameters) of a live image whose headers passed validation. The
// Bloom, split-block and HLL types keep one next to their image and pass it
// to the single-key calls, which then skip the header validation while the
// image's words still equal it. A token that does not match (stale, of
// another image, or zero: the zero token matches no image) makes the call
// validate in full, with the same results and errors as without a token:
// a wrong token costs time, never correctness.
//
// Plain words, no pointers: cgo lets C read it in Go memory. It is written
// only together with the image (construction, import, and the changing
// methods, which need exclusive access) and only read by the calls, so it
// adds no rule to the types' concurrency.
type imageToken [8]uint64

// tokenOf returns the token of the live image b of family f (Bloom,
// split-block or HLL), or the zero token when the library gives none (an
// image it cannot validate: the calls then validate in full and report the
// error exactly as they did without tokens).
func tokenOf(f Family, b []byte) imageToken {
	t, s := cToken(f, b)
	if s != 0 {
		return imageToken{}
	}
	return t
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
		// Truncated bytes are a length mismatch (ErrCorrupt), as for Inspect,
		// Verify and the imports.
		return nil, untrustedError(op, s, b)
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
// live image of the size the C library asks for (sketch_<family>_import_size:
// the image length, or more for a compact HLL export). Nothing is kept from
// data.
func importImage(op string, data []byte, f Family) ([]byte, error) {
	liveLen, s := cImportSize(f, data)
	if s != 0 {
		return nil, untrustedError(op, s, data)
	}
	dst, err := newImage(op, uint64(liveLen))
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

// untrustedError is errorOf for a check of untrusted bytes (import,
// Verify, Inspect). The library reports bytes shorter than a common header,
// or (when Inspect reads the header) than the length the header
// records, as StatusBufferTooSmall; for bytes that should hold a whole
// image that is truncation, a length mismatch (what the import reports
// for missing bytes past the header), so it matches ErrCorrupt like any
// other damage. An image of another format major version (newer:
// StatusUnsupportedVersion; 0, which no writer ever produced:
// StatusCorruptHeader) says which version it holds.
func untrustedError(op string, s int32, b []byte) error {
	if Status(s) == StatusBufferTooSmall {
		return &Error{Code: StatusLengthMismatch, Op: op,
			Detail: "truncated: " + itoa(len(b)) + " bytes, fewer than the image header or the length it records"}
	}
	if (Status(s) == StatusUnsupportedVersion || Status(s) == StatusCorruptHeader) && len(b) > offMajor &&
		string(b[:len(imageMagic)]) == imageMagic && b[offMajor] != formatMajor {
		return &Error{Code: Status(s), Op: op, Detail: versionDetail(b[offMajor])}
	}
	return errorOf(op, s)
}

// versionDetail names an image's format major version and the one this
// library reads.
func versionDetail(major byte) string {
	return "format major version " + itoa(int(major)) + "; this library reads " + itoa(formatMajor)
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

// ---- text form (encoding.TextMarshaler) ------------------------------------------

// appendText appends the text form of m's exported image to dst: the
// standard, padded base64 of the bytes m.AppendBinary writes (every family's
// AppendText). An export error is returned with Op set to op, and dst
// unchanged.
func appendText(op string, dst []byte, m interface {
	AppendBinary([]byte) ([]byte, error)
}) ([]byte, error) {
	img, err := m.AppendBinary(nil)
	if err != nil {
		return dst, withOp(err, op)
	}
	return base64.StdEncoding.AppendEncode(dst, img), nil
}

// unmarshalText decodes text (standard, padded base64) and imports the
// image through u.UnmarshalBinary, the checked path, which leaves u
// unchanged on error (every family's UnmarshalText). Text that is not
// base64 is not an image: an *Error with StatusBadMagic (matching
// ErrCorrupt) carrying the base64 error's text. Import errors are
// returned with Op set to op.
func unmarshalText(op string, text []byte, u encoding.BinaryUnmarshaler) error {
	img, err := base64.StdEncoding.AppendDecode(nil, text)
	if err != nil {
		return &Error{Code: StatusBadMagic, Op: op, Detail: "not standard base64: " + err.Error()}
	}
	return withOp(u.UnmarshalBinary(img), op)
}

// withOp returns err with Op set to op when it is an *Error (a copy: the
// sentinels and other callers' errors are never written).
func withOp(err error, op string) error {
	if e, ok := err.(*Error); ok && e != nil {
		c := *e
		c.Op = op
		return &c
	}
	return err
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

// ---- concurrent batches (Bloom, split-block, HLL, ULL) ----------------------------

// filterAddConcurrent is filterAdd through the library's concurrent packed
// add: any number of goroutines may run it on one image at once (each
// packs into its own pooled buffers).
func filterAddConcurrent[K keyList](f Family, b []byte, keys K, out []bool) int32 {
	return packed(keys, func(start int, data []byte, offs []uint32) int32 {
		var o []bool
		if out != nil {
			o = out[start : start+len(offs)-1]
		}
		return cFilterAddConcurrentPacked(f, b, data, offs, o)
	})
}

// filterContainsConcurrent is filterContains with atomic loads, safe while
// other goroutines add through the concurrent methods.
func filterContainsConcurrent[K keyList](f Family, b []byte, keys K, out []bool) int32 {
	return packed(keys, func(start int, data []byte, offs []uint32) int32 {
		return cFilterContainsConcurrentPacked(f, b, data, offs, out[start:start+len(offs)-1])
	})
}

// setAddConcurrent adds packed keys to an HLL or ULL sketch through the
// concurrent packed add. It stops at the first failing chunk (the chunks
// before it are added).
func setAddConcurrent[K keyList](f Family, b []byte, keys K) int32 {
	return packed(keys, func(_ int, data []byte, offs []uint32) int32 {
		return cSetAddConcurrentPacked(f, b, data, offs)
	})
}
