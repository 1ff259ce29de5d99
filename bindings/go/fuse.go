package sketches

import (
	"fmt"
	"io"
	"math"
)

// BinaryFuse is a binary fuse filter: a static membership filter built
// once from a set of keys, then read-only. Each key leaves an 8- or 16-bit
// fingerprint spread over three array slots, about 1.13 slots per key at a
// million keys: 9 bits per key for a false-positive rate of 2^-8 (0.39%),
// 18 bits per key for 2^-16 (0.0015%), below a Bloom filter's bits at the
// same rate, and a query reads three slots. There are no Add or Remove
// methods: build a new filter from the new set instead.
//
// One type serves both widths: the image records its width, so
// UnmarshalBinary, WrapBinaryFuse and Inspect take either, and the
// constructors take the width as a parameter (8 or 16; or PlanBinaryFuse
// picks it from a target rate).
//
// Its image lives in Go memory (or the caller's bytes for WrapBinaryFuse).
// The zero value holds no image; only UnmarshalBinary (or UnmarshalText) may
// be called on it.
//
// Concurrency: every method except UnmarshalBinary and UnmarshalText only
// reads the filter (Contains*, Stats, Size, Clone, MarshalBinary,
// AppendBinary, MarshalText, AppendText, WriteTo,
// ReadOnly), so any number of goroutines may
// query one filter at once with no lock; UnmarshalBinary and UnmarshalText
// replace the image and need exclusive access.
//
// Read-only: a sketch from WrapBinaryFuseReadOnly (a file mapped PROT_READ, say)
// never writes its image. Its changing methods refuse before touching
// it, with an error matching ErrReadOnly: returned by those with an
// error result, the panic value of the others (recover catches it, where
// a write to the mapping would kill the process); its reading methods,
// Clone (a writable copy), MarshalBinary and WriteTo work as usual.
type BinaryFuse struct {
	img []byte
	ro  bool // a read-only wrap: the changing methods refuse (see WrapBinaryFuseReadOnly)
}

// BinaryFuseParams are the parameters of a binary fuse filter.
type BinaryFuseParams struct {
	Keys            uint64 // keys the filter is sized for (0 ..= 2^31): a build takes at most this many, duplicates included
	FingerprintBits uint32 // fingerprint width: 8 (rate 2^-8) or 16 (rate 2^-16)
}

// BinaryFuseStats are the statistics of a built binary fuse filter.
type BinaryFuseStats struct {
	Params           BinaryFuseParams // the parameters the filter was built with (Keys is the planned count)
	Seed             uint64           // hash seed (XXH3-64 of the keys)
	Keys             uint64           // distinct keys stored (duplicates counted once)
	FuseSeed         uint64           // the fuse seed of the successful build attempt (0: the key hashes as they are)
	BitsPerKey       float64          // fingerprint array bits per stored key (+Inf for an empty filter)
	ImageBytesPerKey float64          // image bytes per stored key, header and padding included (+Inf when empty)
	ImageBytes       uint64           // image length in bytes
	FPR              float64          // false-positive rate of an absent key, 2^-FingerprintBits
	Attempts         uint32           // build attempts used (1 when the first fuse seed worked)
}

// PlanBinaryFuse plans a filter for keys keys at false-positive rate fpr:
// 8-bit fingerprints when fpr >= 2^-8 (about 0.0039), else 16-bit. Errors
// (ErrInvalidParameter): fpr outside (0, 1) or below 2^-16, keys above 2^31.
func PlanBinaryFuse(keys uint64, fpr float64) (BinaryFuseParams, error) {
	p, s := cFusePlan(keys, fpr)
	return p, paramError("PlanBinaryFuse", s, "keys "+utoa(keys)+", fpr "+ftoa(fpr))
}

// PlanBinaryFuseBits plans a filter for keys keys with an explicit
// fingerprint width, 8 or 16 bits (else ErrInvalidParameter).
func PlanBinaryFuseBits(keys uint64, fingerprintBits uint32) (BinaryFuseParams, error) {
	p, s := cFusePlanBits(keys, fingerprintBits)
	return p, paramError("PlanBinaryFuseBits", s, "keys "+utoa(keys)+", fingerprint bits "+utoa(uint64(fingerprintBits)))
}

// BinaryFuseSize returns the image size in bytes of a filter built from
// keys keys (duplicates included: the constructors plan for the length of
// their key list) of fingerprintBits (8 or 16) without building it. Errors
// as for the constructors' parameters (ErrInvalidParameter).
func BinaryFuseSize(keys uint64, fingerprintBits uint32) (uint64, error) {
	const op = "BinaryFuseSize"
	p, s := cFusePlanBits(keys, fingerprintBits)
	if s != 0 {
		return 0, paramError(op, s, "keys "+utoa(keys)+", fingerprint bits "+utoa(uint64(fingerprintBits)))
	}
	size, _, s := cFuseSizes(p)
	return size, paramError(op, s, "keys "+utoa(keys)+", fingerprint bits "+utoa(uint64(fingerprintBits)))
}

// NewBinaryFuseStrings builds a filter of string keys (their UTF-8 bytes)
// with fingerprintBits-bit fingerprints (8 or 16). Duplicate keys are
// allowed and stored once; no keys give an empty filter. The keys are
// packed into one buffer and built in one C call; the build's scratch
// memory (about 32 bytes per key) is Go memory, released after the call.
//
// Errors, *Error values matching: ErrInvalidParameter (a width other than
// 8 or 16, more than 2^31 keys), ErrInvalidArgument (4 GiB of key bytes or
// more), ErrBuildFailed (no fuse seed worked within the library's attempt
// bound; practically never for distinct keys).
func NewBinaryFuseStrings(keys []string, fingerprintBits uint32, opts ...Option) (*BinaryFuse, error) {
	return buildFuse("NewBinaryFuseStrings", keys, fingerprintBits, opts)
}

// NewBinaryFuseBytes builds a filter of byte keys (see NewBinaryFuseStrings).
func NewBinaryFuseBytes(keys [][]byte, fingerprintBits uint32, opts ...Option) (*BinaryFuse, error) {
	return buildFuse("NewBinaryFuseBytes", keys, fingerprintBits, opts)
}

// NewBinaryFuseUint64s builds a filter of integer keys, each hashed as its
// 8 little-endian bytes (see NewBinaryFuseStrings): query them with
// ContainsUint64, or Contains on the same 8 bytes.
func NewBinaryFuseUint64s(keys []uint64, fingerprintBits uint32, opts ...Option) (*BinaryFuse, error) {
	const op = "NewBinaryFuseUint64s"
	return newFuse(op, uint64(len(keys)), fingerprintBits, opts, func(b []byte, p BinaryFuseParams, seed uint64, scratch []byte) int32 {
		return cFuseBuildU64s(b, p, seed, keys, scratch)
	})
}

// NewBinaryFuseHashes builds a filter of precomputed hashes: Hash(key,
// seed) or HashUint64(key, seed) of each key, with seed the one given by
// WithSeed (default 0), which the image records so that Contains hashes
// queries the same way; the filter then equals the one built from the keys
// and answers Contains(key) and ContainsHash(h) alike. Repeated hashes are
// stored once. The hashes must be uniformly distributed (XXH3's are);
// otherwise the build may fail with ErrBuildFailed. Other errors as for
// NewBinaryFuseStrings.
func NewBinaryFuseHashes(hashes []uint64, fingerprintBits uint32, opts ...Option) (*BinaryFuse, error) {
	const op = "NewBinaryFuseHashes"
	return newFuse(op, uint64(len(hashes)), fingerprintBits, opts, func(b []byte, p BinaryFuseParams, seed uint64, scratch []byte) int32 {
		return cFuseBuildHashes(b, p, seed, hashes, scratch)
	})
}

func buildFuse[K keyList](op string, keys K, bits uint32, opts []Option) (*BinaryFuse, error) {
	if _, s := cFusePlanBits(uint64(len(keys)), bits); s != 0 { // refuse before packing
		return nil, paramError(op, s, "keys "+itoa(len(keys))+", fingerprint bits "+utoa(uint64(bits)))
	}
	data, offs, err := packAll(op, keys)
	if err != nil {
		return nil, err
	}
	return newFuse(op, uint64(len(keys)), bits, opts, func(b []byte, p BinaryFuseParams, seed uint64, scratch []byte) int32 {
		return cFuseBuildPacked(b, p, seed, data, offs, scratch)
	})
}

// newFuse plans for count keys, allocates the image and the scratch the
// library asks for, and runs build.
func newFuse(op string, count uint64, bits uint32, opts []Option,
	build func(b []byte, p BinaryFuseParams, seed uint64, scratch []byte) int32) (*BinaryFuse, error) {
	o := applyOptions(opts)
	p, s := cFusePlanBits(count, bits)
	if s != 0 {
		return nil, paramError(op, s, "keys "+utoa(count)+", fingerprint bits "+utoa(uint64(bits)))
	}
	size, scratchSize, s := cFuseSizes(p)
	if s != 0 {
		return nil, paramError(op, s, "keys "+utoa(count)+", fingerprint bits "+utoa(uint64(bits)))
	}
	b, err := newImage(op, size)
	if err != nil {
		return nil, err
	}
	if scratchSize > math.MaxInt/2 {
		return nil, &Error{Code: StatusInvalidParameter, Op: op, Detail: "scratch of " + utoa(scratchSize) + " bytes does not fit in memory"}
	}
	scratch := make([]byte, scratchSize)
	if s := build(b, p, o.seed, scratch); s != 0 {
		return nil, paramError(op, s, "keys "+utoa(count)+", fingerprint bits "+utoa(uint64(bits)))
	}
	return &BinaryFuse{img: b}, nil
}

// WrapBinaryFuse uses b, a binary fuse image in caller memory, without
// copying (see WrapBloom for the rules; the filter only reads b, so a
// read-only mapping allows every method).
func WrapBinaryFuse(b []byte) (*BinaryFuse, error) {
	img, err := wrapImage("WrapBinaryFuse", b, FamilyBinaryFuse, func(b []byte) int32 {
		_, s := cFuseStats(b)
		return s
	})
	if err != nil {
		return nil, err
	}
	return &BinaryFuse{img: img}, nil
}

// WrapBinaryFuseReadOnly is WrapBinaryFuse (the same checks and errors,
// with Op "WrapBinaryFuseReadOnly") with UnmarshalBinary and UnmarshalText
// refused with an error matching ErrReadOnly, so the value keeps reading
// b, and ReadOnly reporting true. A built filter is never written, so
// WrapBinaryFuse already suits a read-only mapping; this form gives every
// family one read-only wrap with the same rules (see WrapBloomReadOnly).
// Every other method reads, WriteTo and Clone (a writable copy) included,
// and any number of goroutines may use them at once.
func WrapBinaryFuseReadOnly(b []byte) (*BinaryFuse, error) {
	s, err := WrapBinaryFuse(b)
	if err != nil {
		return nil, withOp(err, "WrapBinaryFuseReadOnly")
	}
	s.ro = true
	return s, nil
}

// ReadOnly reports whether the sketch is a read-only wrap (WrapBinaryFuseReadOnly),
// whose changing methods refuse with ErrReadOnly. Safe for concurrent use.
func (f *BinaryFuse) ReadOnly() bool { return f.ro }

// Contains reports false when key was certainly not in the set the filter
// was built from, true when it was (always: no false negatives) or for a
// false positive (rate 2^-FingerprintBits).
func (f *BinaryFuse) Contains(key []byte) bool {
	r, s := cFuseContains(f.img, bytesPtr(key), len(key))
	must("BinaryFuse.Contains", s)
	return r
}

// ContainsString is Contains for a string key (its UTF-8 bytes).
func (f *BinaryFuse) ContainsString(key string) bool {
	r, s := cFuseContains(f.img, strPtr(key), len(key))
	must("BinaryFuse.ContainsString", s)
	return r
}

// ContainsUint64 is Contains for an integer key (its 8 little-endian bytes).
func (f *BinaryFuse) ContainsUint64(key uint64) bool {
	r, s := cFuseContainsU64(f.img, key)
	must("BinaryFuse.ContainsUint64", s)
	return r
}

// ContainsStrings answers Contains for many string keys: results[i] for
// keys[i], written into results when it has room for len(keys) (pass nil to
// allocate). Returns the results slice. Keys cross into C once per few
// thousand (packed batches), looked up in groups whose memory accesses
// overlap.
func (f *BinaryFuse) ContainsStrings(keys []string, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("BinaryFuse.ContainsStrings", filterContains(FamilyBinaryFuse, f.img, keys, out))
	return out
}

// ContainsBytes answers Contains for many byte keys (see ContainsStrings).
func (f *BinaryFuse) ContainsBytes(keys [][]byte, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("BinaryFuse.ContainsBytes", filterContains(FamilyBinaryFuse, f.img, keys, out))
	return out
}

// ContainsUint64s answers Contains for many integer keys in one call (see
// ContainsStrings).
func (f *BinaryFuse) ContainsUint64s(keys []uint64, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("BinaryFuse.ContainsUint64s", cFilterContainsU64s(FamilyBinaryFuse, f.img, keys, out))
	return out
}

// ContainsHash is Contains for a key given by its precomputed hash:
// Hash(key, seed) of a byte or string key, HashUint64(key, seed) of an
// integer key, with seed the filter's (Stats().Seed), so
// ContainsHash(Hash(k, seed)) is Contains(k).
// Safe for concurrent use.
func (f *BinaryFuse) ContainsHash(h uint64) bool {
	r, s := cContainsHash(FamilyBinaryFuse, f.img, nil, h)
	must("BinaryFuse.ContainsHash", s)
	return r
}

// ContainsHashes answers ContainsHash for many precomputed hashes into
// results (see Bloom.ContainsHashes). Safe for concurrent use.
func (f *BinaryFuse) ContainsHashes(hashes []uint64, results []bool) []bool {
	out := boolsFor(results, len(hashes))
	must("BinaryFuse.ContainsHashes", cFilterContainsHashes(FamilyBinaryFuse, f.img, hashes, out))
	return out
}

// Stats returns the filter's statistics, O(1).
func (f *BinaryFuse) Stats() BinaryFuseStats {
	st, s := cFuseStats(f.img)
	must("BinaryFuse.Stats", s)
	return st
}

// FingerprintBits returns the fingerprint width, 8 or 16.
func (f *BinaryFuse) FingerprintBits() uint32 { return f.Stats().Params.FingerprintBits }

// Size returns the image size in bytes: the memory the filter uses, and the
// length of MarshalBinary's output.
func (f *BinaryFuse) Size() int { return len(f.img) }

// String describes the filter in one line for fmt and logs: its type, image
// size and seed ("<nil>" for a nil pointer), not the image bytes.
func (f *BinaryFuse) String() string {
	if f == nil {
		return "<nil>"
	}
	return describe(FamilyBinaryFuse, f.img)
}

// Format prints String's description under any verb, also for a BinaryFuse
// held by value (see Bloom.Format).
func (f BinaryFuse) Format(s fmt.State, verb rune) { formatSketch(s, verb, FamilyBinaryFuse, f.img) }

// Clone returns an independent copy in new Go memory (for example to keep
// a wrapped filter after its buffer is unmapped).
func (f *BinaryFuse) Clone() *BinaryFuse { return &BinaryFuse{img: cloneImage(f.img)} }

// MarshalBinary returns the exported image (a copy with its checksum
// written): the bytes every binding reads, byte for byte.
func (f BinaryFuse) MarshalBinary() ([]byte, error) { return f.AppendBinary(nil) }

// AppendBinary appends the exported image to b (encoding.BinaryAppender).
func (f BinaryFuse) AppendBinary(b []byte) ([]byte, error) {
	return appendExport("BinaryFuse.MarshalBinary", FamilyBinaryFuse, f.img, len(f.img), b)
}

// UnmarshalBinary replaces f with the filter in data, an exported image of
// either width, after checking headers (the array shape must be the one
// planned for the recorded key count), exact length, checksum and zero
// padding: damaged bytes give an error matching ErrCorrupt (another
// family: ErrWrongFamily), and f is then unchanged. data is copied.
func (f *BinaryFuse) UnmarshalBinary(data []byte) error {
	if f.ro {
		return readOnlyError("BinaryFuse.UnmarshalBinary")
	}
	b, err := importImage("BinaryFuse.UnmarshalBinary", data, FamilyBinaryFuse)
	if err != nil {
		return err
	}
	f.img = b
	return nil
}

// MarshalText returns the text form of the filter: the standard, padded base64
// of MarshalBinary's bytes, a string in JSON (see Bloom.MarshalText). It
// only reads f, like MarshalBinary.
func (f BinaryFuse) MarshalText() ([]byte, error) { return f.AppendText(nil) }

// AppendText appends the text form of MarshalText to b.
func (f BinaryFuse) AppendText(b []byte) ([]byte, error) {
	return appendText("BinaryFuse.MarshalText", b, &f)
}

// UnmarshalText replaces f with the filter whose text form is text, checked
// as UnmarshalBinary checks it: text that is not padded standard base64,
// and damaged or truncated images, give an error matching ErrCorrupt and
// f is then unchanged (see Bloom.UnmarshalText). It writes f.
func (f *BinaryFuse) UnmarshalText(text []byte) error {
	if f.ro {
		return readOnlyError("BinaryFuse.UnmarshalText")
	}
	return unmarshalText("BinaryFuse.UnmarshalText", text, f)
}

// WriteTo writes the exported image, exactly the bytes MarshalBinary
// returns, to w (io.WriterTo), and returns the bytes written (Size()): a
// 48-byte header copy carrying the checksum, then the rest of the live
// image itself, with no copy of it. w must neither keep nor change the
// bytes (io.Writer's contract). It reads the filter during the whole
// write, as a query does: other reading methods may run meanwhile, no
// changing one (for a slow writer, MarshalBinary under the lock and write
// that). It works on a read-only wrap. Errors: an *Error for a zero value;
// w's own errors, wrapped with the operation (errors.Is finds them),
// and io.ErrShortWrite when w takes fewer bytes than given without an
// error. ReadBinaryFuse reads the image back.
func (f BinaryFuse) WriteTo(w io.Writer) (int64, error) {
	return writeImage("BinaryFuse.WriteTo", FamilyBinaryFuse, f.img, len(f.img), w)
}

// ReadBinaryFuse reads exactly one BinaryFuse image from r, such as one WriteTo or
// MarshalBinary wrote, and checks it as UnmarshalBinary does; the rules,
// memory bounds and errors are ReadBloom's (io.EOF at the end of the
// stream, ErrCorrupt with io.ErrUnexpectedEOF for a cut image,
// ErrWrongFamily for another family's image).
func ReadBinaryFuse(r io.Reader) (*BinaryFuse, error) {
	img, err := readLive("ReadBinaryFuse", r, FamilyBinaryFuse)
	if err != nil {
		return nil, err
	}
	return &BinaryFuse{img: img}, nil
}
