package sketches

import (
	"fmt"
	"io"
)

// MinHash estimates the Jaccard similarity of sets from k registers
// (one-permutation hashing with optimal densification: one hash per item);
// the error is about sqrt(J(1-J)/k). Merging gives the sketch of the union.
//
// Its image lives in Go memory (or the caller's bytes for WrapMinHash). The
// zero value holds no image; only UnmarshalBinary (or UnmarshalText) may be
// called on it.
//
// Concurrency: the reading methods (Jaccard, Signature, Stats, K, Size,
// Clone, MarshalBinary, AppendBinary, MarshalText, AppendText, WriteTo,
// ReadOnly) may run
// concurrently; the changing ones (Add*, Merge, Clear, UnmarshalBinary,
// UnmarshalText) need exclusive access.
//
// Read-only: a sketch from WrapMinHashReadOnly (a file mapped PROT_READ, say)
// never writes its image. Its changing methods refuse before touching
// it, with an error matching ErrReadOnly: returned by those with an
// error result, the panic value of the others (recover catches it, where
// a write to the mapping would kill the process); its reading methods,
// Clone (a writable copy), MarshalBinary and WriteTo work as usual.
type MinHash struct {
	img []byte
	ro  bool // a read-only wrap: the changing methods refuse (see WrapMinHashReadOnly)
}

// MinHashStats are the statistics of a MinHash sketch.
type MinHashStats struct {
	K      uint32 // registers
	Filled uint32 // registers that received at least one item
	Seed   uint64 // hash seed
}

// MinHashSize returns the image size in bytes of NewMinHash(k) without
// building it (errors as for NewMinHash).
func MinHashSize(k uint32) (uint64, error) {
	n, s := cMinHashSize(k)
	return n, paramError("MinHashSize", s, "k "+utoa(uint64(k)))
}

// NewMinHash returns an empty sketch of k registers (1 ..= 2^20; 8 bytes
// each). Signature and Jaccard cost about k*k/filled on a sketch with few
// filled registers: keep k well below the distinct items it will see.
func NewMinHash(k uint32, opts ...Option) (*MinHash, error) {
	const op = "NewMinHash"
	o := applyOptions(opts)
	n, s := cMinHashSize(k)
	if s != 0 {
		return nil, paramError(op, s, "k "+utoa(uint64(k)))
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cMinHashInit(b, k, o.seed); s != 0 {
		return nil, paramError(op, s, "k "+utoa(uint64(k)))
	}
	return &MinHash{img: b}, nil
}

// WrapMinHash uses b, a MinHash image in caller memory, without copying
// (see WrapBloom for the rules).
func WrapMinHash(b []byte) (*MinHash, error) {
	img, err := wrapImage("WrapMinHash", b, FamilyMinHash, func(b []byte) int32 {
		_, s := cMinHashStats(b)
		return s
	})
	if err != nil {
		return nil, err
	}
	return &MinHash{img: img}, nil
}

// WrapMinHashReadOnly is WrapMinHash for memory that must never be written, such as
// a file mapped with PROT_READ: b is used in place as WrapMinHash uses it
// (the same alignment, header and family checks and errors, with Op
// "WrapMinHashReadOnly"), and every method that would change the sketch
// refuses instead of writing b. The changing methods with an error
// result return an error matching ErrReadOnly; the others (Add and the
// batches without an error result) panic with that *Error, which
// recover catches, where a write to a read-only mapping is a SIGSEGV that
// kills the process. Either way nothing is written, b and the sketch are
// unchanged. UnmarshalBinary and UnmarshalText refuse too, so the value
// keeps reading b. Every reading method works: queries, Stats, the
// estimates, MarshalBinary, AppendBinary, WriteTo, the text forms, and
// being the argument of another sketch's Merge. Clone returns a writable
// copy in Go memory. ReadOnly reports the mode. Concurrency is as for
// WrapMinHash: a read-only sketch only reads, so any number of goroutines may
// query it at once, while nothing else writes b.
func WrapMinHashReadOnly(b []byte) (*MinHash, error) {
	s, err := WrapMinHash(b)
	if err != nil {
		return nil, withOp(err, "WrapMinHashReadOnly")
	}
	s.ro = true
	return s, nil
}

// ReadOnly reports whether the sketch is a read-only wrap (WrapMinHashReadOnly),
// whose changing methods refuse with ErrReadOnly. Safe for concurrent use.
func (m *MinHash) ReadOnly() bool { return m.ro }

// Add adds a byte key and reports whether a register changed.
func (m *MinHash) Add(key []byte) bool {
	mustWritable(m.ro, "MinHash.Add")
	c, s := cMinHashAdd(m.img, keyApart(key, m.img), len(key))
	must("MinHash.Add", s)
	return c
}

// AddString adds a string key (its UTF-8 bytes).
func (m *MinHash) AddString(key string) bool {
	mustWritable(m.ro, "MinHash.AddString")
	c, s := cMinHashAdd(m.img, strPtr(key), len(key))
	must("MinHash.AddString", s)
	return c
}

// AddUint64 adds an integer key (its 8 little-endian bytes).
func (m *MinHash) AddUint64(key uint64) bool {
	mustWritable(m.ro, "MinHash.AddUint64")
	c, s := cMinHashAddU64(m.img, key)
	must("MinHash.AddUint64", s)
	return c
}

// AddStrings adds many string keys (packed batches).
func (m *MinHash) AddStrings(keys []string) {
	mustWritable(m.ro, "MinHash.AddStrings")
	must("MinHash.AddStrings", setAdd(FamilyMinHash, m.img, keys))
}

// AddBytes adds many byte keys (packed batches).
func (m *MinHash) AddBytes(keys [][]byte) {
	mustWritable(m.ro, "MinHash.AddBytes")
	must("MinHash.AddBytes", setAdd(FamilyMinHash, m.img, keys))
}

// AddUint64s adds many integer keys in one call.
func (m *MinHash) AddUint64s(keys []uint64) {
	mustWritable(m.ro, "MinHash.AddUint64s")
	must("MinHash.AddUint64s", cSetAddU64s(FamilyMinHash, m.img, keys))
}

// AddHash adds a key by its precomputed hash: Hash(key, seed) of a byte
// or string key, HashUint64(key, seed) of an integer key, with seed the
// sketch's (Stats().Seed), the XXH3-64 hash every binding computes for
// that key, so AddHash(Hash(k, seed)) is Add(k),
// and reports whether the sketch changed (as Add). Needs exclusive access.
func (m *MinHash) AddHash(h uint64) bool {
	mustWritable(m.ro, "MinHash.AddHash")
	c, s := cAddHash(FamilyMinHash, m.img, nil, h)
	must("MinHash.AddHash", s)
	return c
}

// AddHashes adds many precomputed hashes (computed as for AddHash) in one
// call, as AddHash does one by one. Needs exclusive access.
func (m *MinHash) AddHashes(hashes []uint64) {
	mustWritable(m.ro, "MinHash.AddHashes")
	must("MinHash.AddHashes", cSetAddHashes(FamilyMinHash, m.img, hashes))
}

// Jaccard returns the estimated Jaccard similarity of the two sets (0..1;
// two empty sketches give 1). Different k or seed: ErrIncompatible.
//
// Cost: that of Signature for both sketches, quadratic in k for a sketch
// that saw few distinct items (see Signature).
func (m *MinHash) Jaccard(other *MinHash) (float64, error) {
	j, s := cMinHashJaccard(m.img, other.image())
	return j, errorOf("MinHash.Jaccard", s)
}

// Signature returns the k densified signature values (for LSH banding).
//
// Cost: O(k) when most registers are filled, but each empty register
// probes about k/filled others, about k*(k-filled)/filled probes in all
// (Stats reports filled): quadratic in k for a sketch that saw few
// distinct items. One item at k = 16384 takes most of a second, at the
// largest k (2^20) most of an hour, in one C call that no context can
// cancel; pick k well below the distinct items a sketch will see, or
// check Stats().Filled before calling it on untrusted sketches.
func (m *MinHash) Signature() []uint64 {
	out := make([]uint64, m.K())
	must("MinHash.Signature", cMinHashSignature(m.img, out))
	return out
}

// Merge sets m to the sketch of the union (register-wise minimum); same k
// and seed required, else ErrIncompatible and m unchanged. other may be m
// itself (see Bloom.Union).
func (m *MinHash) Merge(other *MinHash) error {
	if m.ro {
		return readOnlyError("MinHash.Merge")
	}
	return errorOf("MinHash.Merge", cMerge(FamilyMinHash, m.img, mergeSource(m.img, other.image())))
}

// K returns the number of registers. It reads Stats, O(k): keep it rather
// than ask per key.
func (m *MinHash) K() int { return int(m.Stats().K) }

// Stats returns the sketch's statistics (O(k)).
func (m *MinHash) Stats() MinHashStats {
	st, s := cMinHashStats(m.img)
	must("MinHash.Stats", s)
	return st
}

// Clear empties the sketch.
func (m *MinHash) Clear() {
	mustWritable(m.ro, "MinHash.Clear")
	must("MinHash.Clear", cClear(FamilyMinHash, m.img))
}

// Size returns the image size in bytes.
func (m *MinHash) Size() int { return len(m.img) }

// String describes the sketch in one line for fmt and logs: its type, image
// size and seed ("<nil>" for a nil pointer), not the image bytes.
func (m *MinHash) String() string {
	if m == nil {
		return "<nil>"
	}
	return describe(FamilyMinHash, m.img)
}

// Format prints String's description under any verb, also for a MinHash
// held by value (see Bloom.Format).
func (m MinHash) Format(s fmt.State, verb rune) { formatSketch(s, verb, FamilyMinHash, m.img) }

// Clone returns an independent copy in new Go memory.
func (m *MinHash) Clone() *MinHash { return &MinHash{img: cloneImage(m.img)} }

// MarshalBinary returns the exported image (copy with checksum).
func (m MinHash) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// AppendBinary appends the exported image to b.
func (m MinHash) AppendBinary(b []byte) ([]byte, error) {
	return appendExport("MinHash.MarshalBinary", FamilyMinHash, m.img, len(m.img), b)
}

// UnmarshalBinary replaces m with the checked sketch in data (see
// Bloom.UnmarshalBinary).
func (m *MinHash) UnmarshalBinary(data []byte) error {
	if m.ro {
		return readOnlyError("MinHash.UnmarshalBinary")
	}
	b, err := importImage("MinHash.UnmarshalBinary", data, FamilyMinHash)
	if err != nil {
		return err
	}
	m.img = b
	return nil
}

// MarshalText returns the text form of the sketch: the standard, padded base64
// of MarshalBinary's bytes, a string in JSON (see Bloom.MarshalText). It
// only reads m, like MarshalBinary.
func (m MinHash) MarshalText() ([]byte, error) { return m.AppendText(nil) }

// AppendText appends the text form of MarshalText to b.
func (m MinHash) AppendText(b []byte) ([]byte, error) {
	return appendText("MinHash.MarshalText", b, &m)
}

// UnmarshalText replaces m with the sketch whose text form is text, checked
// as UnmarshalBinary checks it: text that is not padded standard base64,
// and damaged or truncated images, give an error matching ErrCorrupt and
// m is then unchanged (see Bloom.UnmarshalText). It writes m.
func (m *MinHash) UnmarshalText(text []byte) error {
	if m.ro {
		return readOnlyError("MinHash.UnmarshalText")
	}
	return unmarshalText("MinHash.UnmarshalText", text, m)
}

// WriteTo writes the exported image, exactly the bytes MarshalBinary
// returns, to w (io.WriterTo), and returns the bytes written (Size()): a
// 48-byte header copy carrying the checksum, then the rest of the live
// image itself, with no copy of it. w must neither keep nor change the
// bytes (io.Writer's contract). It reads the sketch during the whole
// write, as a query does: other reading methods may run meanwhile, no
// changing one (for a slow writer, MarshalBinary under the lock and write
// that). It works on a read-only wrap. Errors: an *Error for a zero value;
// w's own errors, wrapped with the operation (errors.Is finds them),
// and io.ErrShortWrite when w takes fewer bytes than given without an
// error. ReadMinHash reads the image back.
func (m MinHash) WriteTo(w io.Writer) (int64, error) {
	return writeImage("MinHash.WriteTo", FamilyMinHash, m.img, len(m.img), w)
}

// ReadMinHash reads exactly one MinHash image from r, such as one WriteTo or
// MarshalBinary wrote, and checks it as UnmarshalBinary does; the rules,
// memory bounds and errors are ReadBloom's (io.EOF at the end of the
// stream, ErrCorrupt with io.ErrUnexpectedEOF for a cut image,
// ErrWrongFamily for another family's image).
func ReadMinHash(r io.Reader) (*MinHash, error) {
	img, err := readLive("ReadMinHash", r, FamilyMinHash)
	if err != nil {
		return nil, err
	}
	return &MinHash{img: img}, nil
}
