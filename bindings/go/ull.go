package sketches

import (
	"fmt"
	"io"
)

// ULL is an UltraLogLog distinct counter: precision p = 4..18 (2^p 8-bit
// registers plus a 128-byte header), about 28% less memory than HLL for the
// same error. Its martingale estimate (~0.658/sqrt(2^p)) answers while it
// saw only its own stream; after merges FGRA (~0.78/sqrt(2^p)) or maximum
// likelihood (~0.76/sqrt(2^p)) from the registers. At p = 13 (8 KiB) it is
// more accurate than a p = 14 HLL's register estimate.
//
// Its image lives in Go memory (or the caller's bytes for WrapULL). The zero
// value holds no image; only UnmarshalBinary (or UnmarshalText) may be
// called on it.
//
// Concurrency: the reading methods (Estimate, RegisterEstimate, MLEstimate,
// Stats, Precision, ToHLL, Size, Clone, MarshalBinary, AppendBinary,
// MarshalText, AppendText, WriteTo,
// ReadOnly) may run concurrently; the changing ones (Add*,
// Merge, Reset, UnmarshalBinary, UnmarshalText) need exclusive access.
//
// The Concurrent methods (AddConcurrent, AddConcurrentString,
// AddConcurrentUint64, AddConcurrentStrings, AddConcurrentBytes,
// AddConcurrentUint64s, AddConcurrentHash, EstimateConcurrent) are the
// exception: any number of goroutines may call them at once on one
// sketch, with no lock (the
// library raises each 8-bit register with an atomic compare-and-swap on
// the 64-bit word holding it). While any of them runs, no other method may
// be called on the sketch, the reading ones included (Estimate, Stats,
// MarshalBinary, Clone, ...: they read without atomics). Once those
// goroutines are done (joined, for example with sync.WaitGroup.Wait),
// every method may be used again: the registers (and so RegistersSet,
// RegisterEstimate and MLEstimate) equal those of the same adds made one
// at a time, while the martingale estimate does not survive: the first
// concurrent add that raises a register ends it, as a merge does
// (Stats.Martingale becomes false), and Estimate then returns the FGRA
// register estimate (~0.78/sqrt(2^p) instead of ~0.66/sqrt(2^p)).
//
// Read-only: a sketch from WrapULLReadOnly (a file mapped PROT_READ, say)
// never writes its image. Its changing methods refuse before touching
// it, with an error matching ErrReadOnly: returned by those with an
// error result, the panic value of the others (recover catches it, where
// a write to the mapping would kill the process); its reading methods,
// Clone (a writable copy), MarshalBinary and WriteTo work as usual.
type ULL struct {
	img []byte
	ro  bool // a read-only wrap: the changing methods refuse (see WrapULLReadOnly)
}

// ULLStats are the statistics of an UltraLogLog sketch.
type ULLStats struct {
	Precision    uint8   // precision p
	Martingale   bool    // Estimate is the martingale estimate (no merge so far)
	RegistersSet uint32  // registers above zero
	Seed         uint64  // hash seed
	Estimate     float64 // martingale estimate while valid, else FGRA from the registers
	ImageBytes   uint64  // image length in bytes
}

// ULLSize returns the image size in bytes of NewULL(precision) without
// building it; precisions outside 4..18 give an error matching
// ErrInvalidParameter.
func ULLSize(precision uint8) (uint64, error) {
	n, s := cCardinalitySize(FamilyULL, precision)
	return n, paramError("ULLSize", s, "precision "+itoa(int(precision)))
}

// NewULL returns an empty sketch of precision p (4..18; p = 13 is 8 KiB of
// registers, ~0.73% error).
func NewULL(precision uint8, opts ...Option) (*ULL, error) {
	b, err := newCardinality("NewULL", FamilyULL, precision, opts)
	if err != nil {
		return nil, err
	}
	return &ULL{img: b}, nil
}

// WrapULL uses b, an UltraLogLog image in caller memory, without copying
// (see WrapBloom for the rules).
func WrapULL(b []byte) (*ULL, error) {
	img, err := wrapImage("WrapULL", b, FamilyULL, func(b []byte) int32 {
		_, s := cEstimate(FamilyULL, b, estimateDefault)
		return s
	})
	if err != nil {
		return nil, err
	}
	return &ULL{img: img}, nil
}

// WrapULLReadOnly is WrapULL for memory that must never be written, such as
// a file mapped with PROT_READ: b is used in place as WrapULL uses it
// (the same alignment, header and family checks and errors, with Op
// "WrapULLReadOnly"), and every method that would change the sketch
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
// WrapULL: a read-only sketch only reads, so any number of goroutines may
// query it at once, while nothing else writes b.
func WrapULLReadOnly(b []byte) (*ULL, error) {
	s, err := WrapULL(b)
	if err != nil {
		return nil, withOp(err, "WrapULLReadOnly")
	}
	s.ro = true
	return s, nil
}

// ReadOnly reports whether the sketch is a read-only wrap (WrapULLReadOnly),
// whose changing methods refuse with ErrReadOnly. Safe for concurrent use.
func (u *ULL) ReadOnly() bool { return u.ro }

// Add adds a byte key and reports whether a register changed.
func (u *ULL) Add(key []byte) bool {
	mustWritable(u.ro, "ULL.Add")
	c, s := cULLAdd(u.img, keyApart(key, u.img), len(key))
	must("ULL.Add", s)
	return c
}

// AddString adds a string key (its UTF-8 bytes).
func (u *ULL) AddString(key string) bool {
	mustWritable(u.ro, "ULL.AddString")
	c, s := cULLAdd(u.img, strPtr(key), len(key))
	must("ULL.AddString", s)
	return c
}

// AddUint64 adds an integer key (its 8 little-endian bytes).
func (u *ULL) AddUint64(key uint64) bool {
	mustWritable(u.ro, "ULL.AddUint64")
	c, s := cULLAddU64(u.img, key)
	must("ULL.AddUint64", s)
	return c
}

// AddStrings adds many string keys (packed batches).
func (u *ULL) AddStrings(keys []string) {
	mustWritable(u.ro, "ULL.AddStrings")
	must("ULL.AddStrings", setAdd(FamilyULL, u.img, keys))
}

// AddBytes adds many byte keys (packed batches).
func (u *ULL) AddBytes(keys [][]byte) {
	mustWritable(u.ro, "ULL.AddBytes")
	must("ULL.AddBytes", setAdd(FamilyULL, u.img, keys))
}

// AddUint64s adds many integer keys in one call.
func (u *ULL) AddUint64s(keys []uint64) {
	mustWritable(u.ro, "ULL.AddUint64s")
	must("ULL.AddUint64s", cSetAddU64s(FamilyULL, u.img, keys))
}

// AddHash adds a key by its precomputed hash: Hash(key, seed) of a byte
// or string key, HashUint64(key, seed) of an integer key, with seed the
// sketch's (Stats().Seed), the XXH3-64 hash every binding computes for
// that key, so AddHash(Hash(k, seed)) is Add(k),
// and reports whether the sketch changed (as Add). Needs exclusive access.
func (u *ULL) AddHash(h uint64) bool {
	mustWritable(u.ro, "ULL.AddHash")
	c, s := cAddHash(FamilyULL, u.img, nil, h)
	must("ULL.AddHash", s)
	return c
}

// AddHashes adds many precomputed hashes (computed as for AddHash) in one
// call, as AddHash does one by one. Needs exclusive access.
func (u *ULL) AddHashes(hashes []uint64) {
	mustWritable(u.ro, "ULL.AddHashes")
	must("ULL.AddHashes", cSetAddHashes(FamilyULL, u.img, hashes))
}

// AddConcurrent adds a byte key and reports whether a register changed,
// with atomic operations: any number of goroutines may call it, and the
// other Concurrent methods, at once on one sketch, while no other method
// runs on it (see the type's Concurrency paragraph).
func (u *ULL) AddConcurrent(key []byte) bool {
	mustWritable(u.ro, "ULL.AddConcurrent")
	c, s := cULLAddConcurrent(u.img, keyApart(key, u.img), len(key))
	must("ULL.AddConcurrent", s)
	return c
}

// AddConcurrentString is AddConcurrent for a string key (its UTF-8
// bytes): safe for any number of goroutines at once on one sketch while
// only Concurrent methods run on it.
func (u *ULL) AddConcurrentString(key string) bool {
	mustWritable(u.ro, "ULL.AddConcurrentString")
	c, s := cULLAddConcurrent(u.img, strPtr(key), len(key))
	must("ULL.AddConcurrentString", s)
	return c
}

// AddConcurrentUint64 is AddConcurrent for an integer key (its 8
// little-endian bytes): safe for any number of goroutines at once on one
// sketch while only Concurrent methods run on it.
func (u *ULL) AddConcurrentUint64(key uint64) bool {
	mustWritable(u.ro, "ULL.AddConcurrentUint64")
	c, s := cULLAddConcurrentU64(u.img, key)
	must("ULL.AddConcurrentUint64", s)
	return c
}

// AddConcurrentHash is AddHash (a precomputed hash, computed as for
// AddHash) with atomic operations: safe for any number of goroutines at
// once on one sketch while only Concurrent methods run on it.
func (u *ULL) AddConcurrentHash(h uint64) bool {
	mustWritable(u.ro, "ULL.AddConcurrentHash")
	c, s := cAddConcurrentHash(FamilyULL, u.img, h)
	must("ULL.AddConcurrentHash", s)
	return c
}

// AddConcurrentStrings is AddStrings (packed batches) with atomic
// operations: safe for any number of goroutines at once on one sketch
// while only Concurrent methods run on it.
func (u *ULL) AddConcurrentStrings(keys []string) {
	mustWritable(u.ro, "ULL.AddConcurrentStrings")
	must("ULL.AddConcurrentStrings", setAddConcurrent(FamilyULL, u.img, keys))
}

// AddConcurrentBytes is AddBytes with atomic operations: safe for any
// number of goroutines at once on one sketch while only Concurrent methods
// run on it.
func (u *ULL) AddConcurrentBytes(keys [][]byte) {
	mustWritable(u.ro, "ULL.AddConcurrentBytes")
	must("ULL.AddConcurrentBytes", setAddConcurrent(FamilyULL, u.img, keys))
}

// AddConcurrentUint64s is AddUint64s with atomic operations: safe for any
// number of goroutines at once on one sketch while only Concurrent methods
// run on it.
func (u *ULL) AddConcurrentUint64s(keys []uint64) {
	mustWritable(u.ro, "ULL.AddConcurrentUint64s")
	must("ULL.AddConcurrentUint64s", cSetAddConcurrentU64s(FamilyULL, u.img, keys))
}

// EstimateConcurrent returns the FGRA estimate (~0.78/sqrt(2^p), O(m))
// from registers read with atomic loads: any number of goroutines may
// call it while others add through the Concurrent methods (and no other
// method runs on the sketch). While adds run it may be a few adds ahead or
// behind; once they are done it equals RegisterEstimate.
func (u *ULL) EstimateConcurrent() float64 {
	e, s := cEstimateConcurrent(FamilyULL, u.img)
	must("ULL.EstimateConcurrent", s)
	return e
}

// Estimate returns the distinct-count estimate: the martingale estimate
// while the sketch saw only its own stream (O(1)), else FGRA from the
// registers.
func (u *ULL) Estimate() float64 {
	e, s := cEstimate(FamilyULL, u.img, estimateDefault)
	must("ULL.Estimate", s)
	return e
}

// RegisterEstimate returns the FGRA estimate from the registers alone (O(m)).
func (u *ULL) RegisterEstimate() float64 {
	e, s := cEstimate(FamilyULL, u.img, estimateRegister)
	must("ULL.RegisterEstimate", s)
	return e
}

// MLEstimate returns the maximum-likelihood estimate from the registers
// (slightly more accurate than FGRA; O(m) plus a few microseconds).
func (u *ULL) MLEstimate() float64 {
	e, s := cEstimate(FamilyULL, u.img, estimateML)
	must("ULL.MLEstimate", s)
	return e
}

// Merge adds other's stream to u (same seed; other's precision at least
// u's, folding down), else ErrIncompatible and u unchanged. other may be
// u itself (see Bloom.Union).
func (u *ULL) Merge(other *ULL) error {
	if u.ro {
		return readOnlyError("ULL.Merge")
	}
	return errorOf("ULL.Merge", cMerge(FamilyULL, u.img, mergeSource(u.img, other.image())))
}

// ToHLL returns the HyperLogLog the same hashes give (same precision and seed).
func (u *ULL) ToHLL() (*HLL, error) {
	const op = "ULL.ToHLL"
	st, s := cULLStats(u.img)
	if s != 0 {
		return nil, errorOf(op, s)
	}
	n, s := cCardinalitySize(FamilyHLL, st.Precision)
	if s != 0 {
		return nil, errorOf(op, s)
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cULLToHLL(u.img, b); s != 0 {
		return nil, errorOf(op, s)
	}
	return hllOf(b), nil
}

// Precision returns p. It reads Stats, O(m): keep it rather than ask per
// key.
func (u *ULL) Precision() uint8 { return u.Stats().Precision }

// Stats returns the sketch's statistics (O(m)).
func (u *ULL) Stats() ULLStats {
	st, s := cULLStats(u.img)
	must("ULL.Stats", s)
	return st
}

// Reset empties the sketch (same precision and seed).
func (u *ULL) Reset() {
	mustWritable(u.ro, "ULL.Reset")
	must("ULL.Reset", cClear(FamilyULL, u.img))
}

// Size returns the image size in bytes.
func (u *ULL) Size() int { return len(u.img) }

// String describes the sketch in one line for fmt and logs: its type, image
// size and seed ("<nil>" for a nil pointer), not the image bytes.
func (u *ULL) String() string {
	if u == nil {
		return "<nil>"
	}
	return describe(FamilyULL, u.img)
}

// Format prints String's description under any verb, also for a ULL
// held by value (see Bloom.Format).
func (u ULL) Format(s fmt.State, verb rune) { formatSketch(s, verb, FamilyULL, u.img) }

// Clone returns an independent copy in new Go memory.
func (u *ULL) Clone() *ULL { return &ULL{img: cloneImage(u.img)} }

// MarshalBinary returns the exported image (copy with checksum).
func (u ULL) MarshalBinary() ([]byte, error) { return u.AppendBinary(nil) }

// AppendBinary appends the exported image to b.
func (u ULL) AppendBinary(b []byte) ([]byte, error) {
	return appendExport("ULL.MarshalBinary", FamilyULL, u.img, len(u.img), b)
}

// UnmarshalBinary replaces u with the checked sketch in data (headers,
// length, checksum, register values; see HLL.UnmarshalBinary).
func (u *ULL) UnmarshalBinary(data []byte) error {
	if u.ro {
		return readOnlyError("ULL.UnmarshalBinary")
	}
	b, err := importImage("ULL.UnmarshalBinary", data, FamilyULL)
	if err != nil {
		return err
	}
	u.img = b
	return nil
}

// MarshalText returns the text form of the sketch: the standard, padded base64
// of MarshalBinary's bytes, a string in JSON (see Bloom.MarshalText). It
// only reads u, like MarshalBinary.
func (u ULL) MarshalText() ([]byte, error) { return u.AppendText(nil) }

// AppendText appends the text form of MarshalText to b.
func (u ULL) AppendText(b []byte) ([]byte, error) { return appendText("ULL.MarshalText", b, &u) }

// UnmarshalText replaces u with the sketch whose text form is text, checked
// as UnmarshalBinary checks it: text that is not padded standard base64,
// and damaged or truncated images, give an error matching ErrCorrupt and
// u is then unchanged (see Bloom.UnmarshalText). It writes u.
func (u *ULL) UnmarshalText(text []byte) error {
	if u.ro {
		return readOnlyError("ULL.UnmarshalText")
	}
	return unmarshalText("ULL.UnmarshalText", text, u)
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
// error. ReadULL reads the image back.
func (u ULL) WriteTo(w io.Writer) (int64, error) {
	return writeImage("ULL.WriteTo", FamilyULL, u.img, len(u.img), w)
}

// ReadULL reads exactly one ULL image from r, such as one WriteTo or
// MarshalBinary wrote, and checks it as UnmarshalBinary does; the rules,
// memory bounds and errors are ReadBloom's (io.EOF at the end of the
// stream, ErrCorrupt with io.ErrUnexpectedEOF for a cut image,
// ErrWrongFamily for another family's image).
func ReadULL(r io.Reader) (*ULL, error) {
	img, err := readLive("ReadULL", r, FamilyULL)
	if err != nil {
		return nil, err
	}
	return &ULL{img: img}, nil
}
