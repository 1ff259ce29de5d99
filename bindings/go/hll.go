package sketches

import (
	"fmt"
	"io"
)

// HLL is a HyperLogLog distinct counter: precision p = 4..18 (2^p 6-bit
// registers, 0.75 * 2^p bytes plus a 384-byte header), exact while small
// (sorted hashes in the same buffer, converting in place), the martingale
// estimate (relative standard error ~0.83/sqrt(2^p)) while it saw only its
// own stream and Ertl's improved estimate (~1.04/sqrt(2^p)) after merges,
// both O(1). Merges across precisions fold down.
//
// Its image lives in Go memory (or the caller's bytes for WrapHLL). The zero
// value holds no image; only UnmarshalBinary (or UnmarshalText) may be
// called on it.
//
// Concurrency: the reading methods (Estimate, RegisterEstimate, Stats,
// Precision, Size, Clone, Downsize, MarshalBinary, AppendBinary,
// MarshalText, AppendText, WriteTo,
// ReadOnly) may run concurrently; the changing ones (Add*,
// Merge, Reset, Densify, UnmarshalBinary, UnmarshalText) need exclusive
// access.
//
// The Concurrent methods (AddConcurrent, AddConcurrentString,
// AddConcurrentUint64, AddConcurrentStrings, AddConcurrentBytes,
// AddConcurrentUint64s, AddConcurrentHash, EstimateConcurrent) are the
// exception: any number of goroutines may call them at once on one
// sketch, with no lock (the
// library raises registers with atomic compare-and-swaps on the image's
// 64-bit words). They need a dense sketch: a new sketch starts in its
// exact small mode, and so does one after Reset or one unmarshalled or
// downsized from a small sketch; there they return an error matching
// ErrSmallMode and change nothing. Call Densify (exclusive access) before
// sharing the sketch. While any Concurrent method runs, no other method
// may be called on the sketch, the reading ones included (Estimate, Stats,
// MarshalBinary, Clone, ...: they read without atomics). Once those
// goroutines are done (joined, for example with sync.WaitGroup.Wait),
// every method may be used again: the registers, RegistersSet and
// RegisterEstimate equal those of the same adds made one at a time, while
// the martingale estimate does not survive: the first concurrent add that
// raises a register ends it, as a merge does (Stats.Martingale becomes
// false), and Estimate then returns the register estimate (~1.04/sqrt(2^p)
// instead of ~0.83/sqrt(2^p)).
//
// Read-only: a sketch from WrapHLLReadOnly (a file mapped PROT_READ, say)
// never writes its image. Its changing methods refuse before touching
// it, with an error matching ErrReadOnly: returned by those with an
// error result, the panic value of the others (recover catches it, where
// a write to the mapping would kill the process); its reading methods,
// Clone (a writable copy), MarshalBinary and WriteTo work as usual.
type HLL struct {
	img []byte
	ro  bool       // a read-only wrap: the changing methods refuse (see WrapHLLReadOnly)
	tok imageToken // img's token for the single-key calls (see imageToken)
}

// hllOf returns the sketch of the live image b, with its token.
func hllOf(b []byte) *HLL { return &HLL{img: b, tok: tokenOf(FamilyHLL, b)} }

// retoken refreshes the token after the image was replaced or rewritten
// (only where the image is written under exclusive access).
func (h *HLL) retoken() { h.tok = tokenOf(FamilyHLL, h.img) }

// HLLStats are the statistics of a HyperLogLog sketch.
type HLLStats struct {
	Precision     uint8   // precision p
	Dense         bool    // false while in exact small mode
	Martingale    bool    // Estimate is the martingale estimate (dense, own stream only)
	SmallCount    uint32  // hashes stored in small mode (0 when dense)
	SmallCapacity uint32  // hashes small mode holds at this precision before converting
	RegistersSet  uint32  // registers above zero
	Seed          uint64  // hash seed
	Estimate      float64 // distinct-count estimate
	ImageBytes    uint64  // live image length in bytes
}

// HLLSize returns the image size in bytes of NewHLL(precision) without
// building it; precisions outside 4..18 give an error matching
// ErrInvalidParameter.
func HLLSize(precision uint8) (uint64, error) {
	n, s := cCardinalitySize(FamilyHLL, precision)
	return n, paramError("HLLSize", s, "precision "+itoa(int(precision)))
}

// NewHLL returns an empty sketch of precision p (4..18; p = 14 is 12 KiB of
// registers, ~0.65% error).
func NewHLL(precision uint8, opts ...Option) (*HLL, error) {
	b, err := newCardinality("NewHLL", FamilyHLL, precision, opts)
	if err != nil {
		return nil, err
	}
	return hllOf(b), nil
}

func newCardinality(op string, f Family, p uint8, opts []Option) ([]byte, error) {
	o := applyOptions(opts)
	n, s := cCardinalitySize(f, p)
	if s != 0 {
		return nil, paramError(op, s, "precision "+itoa(int(p)))
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cCardinalityInit(f, b, p, o.seed); s != 0 {
		return nil, paramError(op, s, "precision "+itoa(int(p)))
	}
	return b, nil
}

// WrapHLL uses b, a live HLL image in caller memory, without copying (see
// WrapBloom for the rules). The compact export of a small sketch (what
// MarshalBinary writes while the sketch is in its exact small mode) cannot
// be wrapped: the error matches ErrCompactImage, and UnmarshalBinary
// imports such bytes. Export a sketch meant to be wrapped from a file after
// Densify: its export is then the whole live image.
func WrapHLL(b []byte) (*HLL, error) {
	img, err := wrapImage("WrapHLL", b, FamilyHLL, func(b []byte) int32 {
		_, s := cEstimate(FamilyHLL, b, estimateDefault)
		return s
	})
	if err != nil {
		return nil, err
	}
	return hllOf(img), nil
}

// WrapHLLReadOnly is WrapHLL for memory that must never be written, such as
// a file mapped with PROT_READ: b is used in place as WrapHLL uses it
// (the same alignment, header and family checks and errors, with Op
// "WrapHLLReadOnly"), and every method that would change the sketch
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
// WrapHLL: a read-only sketch only reads, so any number of goroutines may
// query it at once, while nothing else writes b.
func WrapHLLReadOnly(b []byte) (*HLL, error) {
	s, err := WrapHLL(b)
	if err != nil {
		return nil, withOp(err, "WrapHLLReadOnly")
	}
	s.ro = true
	return s, nil
}

// ReadOnly reports whether the sketch is a read-only wrap (WrapHLLReadOnly),
// whose changing methods refuse with ErrReadOnly. Safe for concurrent use.
func (h *HLL) ReadOnly() bool { return h.ro }

// Add adds a byte key and reports whether the sketch changed.
func (h *HLL) Add(key []byte) bool {
	mustWritable(h.ro, "HLL.Add")
	c, s := cHLLAdd(h.img, &h.tok, keyApart(key, h.img), len(key))
	must("HLL.Add", s)
	return c
}

// AddString adds a string key (its UTF-8 bytes) and reports whether the
// sketch changed.
func (h *HLL) AddString(key string) bool {
	mustWritable(h.ro, "HLL.AddString")
	c, s := cHLLAdd(h.img, &h.tok, strPtr(key), len(key))
	must("HLL.AddString", s)
	return c
}

// AddUint64 adds an integer key (its 8 little-endian bytes) and reports
// whether the sketch changed.
func (h *HLL) AddUint64(key uint64) bool {
	mustWritable(h.ro, "HLL.AddUint64")
	c, s := cHLLAddU64(h.img, &h.tok, key)
	must("HLL.AddUint64", s)
	return c
}

// AddStrings adds many string keys (packed batches).
func (h *HLL) AddStrings(keys []string) {
	mustWritable(h.ro, "HLL.AddStrings")
	must("HLL.AddStrings", setAdd(FamilyHLL, h.img, keys))
}

// AddBytes adds many byte keys (packed batches).
func (h *HLL) AddBytes(keys [][]byte) {
	mustWritable(h.ro, "HLL.AddBytes")
	must("HLL.AddBytes", setAdd(FamilyHLL, h.img, keys))
}

// AddUint64s adds many integer keys in one call.
func (h *HLL) AddUint64s(keys []uint64) {
	mustWritable(h.ro, "HLL.AddUint64s")
	must("HLL.AddUint64s", cSetAddU64s(FamilyHLL, h.img, keys))
}

// AddHash adds a key by its precomputed hash: Hash(key, seed) of a byte
// or string key, HashUint64(key, seed) of an integer key, with seed the
// sketch's (Stats().Seed), the XXH3-64 hash every binding computes for
// that key, so AddHash(Hash(k, seed)) is Add(k),
// and reports whether the sketch changed (as Add). Needs exclusive access.
func (h *HLL) AddHash(hash uint64) bool {
	mustWritable(h.ro, "HLL.AddHash")
	c, s := cAddHash(FamilyHLL, h.img, &h.tok, hash)
	must("HLL.AddHash", s)
	return c
}

// AddHashes adds many precomputed hashes (computed as for AddHash) in one
// call, as AddHash does one by one. Needs exclusive access.
func (h *HLL) AddHashes(hashes []uint64) {
	mustWritable(h.ro, "HLL.AddHashes")
	must("HLL.AddHashes", cSetAddHashes(FamilyHLL, h.img, hashes))
}

func setAdd[K keyList](f Family, b []byte, keys K) int32 {
	return packed(keys, func(_ int, data []byte, offs []uint32) int32 {
		return cSetAddPacked(f, b, data, offs)
	})
}

// Densify converts a sketch in its exact small mode to dense registers in
// place (a no-op when it is already dense), as the Concurrent methods
// need; the estimate is unchanged and the memory stays Size() bytes
// (MarshalBinary then writes the whole image). It changes the sketch, so
// it needs exclusive access like Add: call it before sharing the sketch
// between goroutines, never while a Concurrent method runs.
func (h *HLL) Densify() {
	mustWritable(h.ro, "HLL.Densify")
	must("HLL.Densify", cHLLDensify(h.img))
	h.retoken()
}

// AddConcurrent adds a byte key and reports whether a register changed,
// with atomic operations: any number of goroutines may call it, and the
// other Concurrent methods, at once on one sketch, while no other method
// runs on it (see the type's Concurrency paragraph).
//
// The sketch must be dense (Densify): in small mode the error matches
// ErrSmallMode and nothing changes. An error matching ErrCorrupt
// (StatusCorruptHeader) means the image's lock word for the registers that
// straddle two 64-bit words stayed set for about five seconds: a damaged
// image, or a shared mapping whose other writer died inside an add. (An
// add that finds the lock held by another adding goroutine spins, then
// yields its thread, then sleeps 1 ms at a time, so a holder descheduled
// among many more threads than cores gets to finish.) Other
// errors are those of an unusable image (a zero value: no panic here).
func (h *HLL) AddConcurrent(key []byte) (bool, error) {
	if h.ro {
		return false, readOnlyError("HLL.AddConcurrent")
	}
	c, s := cHLLAddConcurrent(h.img, keyApart(key, h.img), len(key))
	return c, errorOf("HLL.AddConcurrent", s)
}

// AddConcurrentString is AddConcurrent for a string key (its UTF-8
// bytes): safe for any number of goroutines at once on one sketch while
// only Concurrent methods run on it. Errors as AddConcurrent (ErrSmallMode
// before Densify).
func (h *HLL) AddConcurrentString(key string) (bool, error) {
	if h.ro {
		return false, readOnlyError("HLL.AddConcurrentString")
	}
	c, s := cHLLAddConcurrent(h.img, strPtr(key), len(key))
	return c, errorOf("HLL.AddConcurrentString", s)
}

// AddConcurrentUint64 is AddConcurrent for an integer key (its 8
// little-endian bytes): safe for any number of goroutines at once on one
// sketch while only Concurrent methods run on it. Errors as AddConcurrent.
func (h *HLL) AddConcurrentUint64(key uint64) (bool, error) {
	if h.ro {
		return false, readOnlyError("HLL.AddConcurrentUint64")
	}
	c, s := cHLLAddConcurrentU64(h.img, key)
	return c, errorOf("HLL.AddConcurrentUint64", s)
}

// AddConcurrentHash is AddHash (a precomputed hash, computed as for
// AddHash) with atomic operations: safe for any number of goroutines at
// once on one sketch while only Concurrent methods run on it. Errors as
// AddConcurrent (ErrSmallMode before Densify).
func (h *HLL) AddConcurrentHash(hash uint64) (bool, error) {
	if h.ro {
		return false, readOnlyError("HLL.AddConcurrentHash")
	}
	c, s := cAddConcurrentHash(FamilyHLL, h.img, hash)
	return c, errorOf("HLL.AddConcurrentHash", s)
}

// AddConcurrentStrings is AddStrings (packed batches) with atomic
// operations: safe for any number of goroutines at once on one sketch
// while only Concurrent methods run on it. Errors as AddConcurrent: in
// small mode ErrSmallMode and nothing added; on a stuck lock word the keys
// before the failing one are added.
func (h *HLL) AddConcurrentStrings(keys []string) error {
	if h.ro {
		return readOnlyError("HLL.AddConcurrentStrings")
	}
	return errorOf("HLL.AddConcurrentStrings", setAddConcurrent(FamilyHLL, h.img, keys))
}

// AddConcurrentBytes is AddBytes with atomic operations: safe for any
// number of goroutines at once on one sketch while only Concurrent methods
// run on it. Errors as AddConcurrentStrings.
func (h *HLL) AddConcurrentBytes(keys [][]byte) error {
	if h.ro {
		return readOnlyError("HLL.AddConcurrentBytes")
	}
	return errorOf("HLL.AddConcurrentBytes", setAddConcurrent(FamilyHLL, h.img, keys))
}

// AddConcurrentUint64s is AddUint64s with atomic operations: safe for any
// number of goroutines at once on one sketch while only Concurrent methods
// run on it. Errors as AddConcurrentStrings.
func (h *HLL) AddConcurrentUint64s(keys []uint64) error {
	if h.ro {
		return readOnlyError("HLL.AddConcurrentUint64s")
	}
	return errorOf("HLL.AddConcurrentUint64s", cSetAddConcurrentU64s(FamilyHLL, h.img, keys))
}

// EstimateConcurrent returns the register estimate (Ertl's improved
// estimator, ~1.04/sqrt(2^p)) read with atomic loads: any number of
// goroutines may call it while others add through the Concurrent methods
// (and no other method runs on the sketch). While adds run it may be a few
// adds ahead or behind; once they are done it equals RegisterEstimate. In
// small mode the error matches ErrSmallMode (Densify first).
func (h *HLL) EstimateConcurrent() (float64, error) {
	e, s := cEstimateConcurrent(FamilyHLL, h.img)
	return e, errorOf("HLL.EstimateConcurrent", s)
}

// Estimate returns the distinct-count estimate, O(1): exact in small mode,
// the martingale estimate while the sketch saw only its own stream, the
// estimate from the registers after merges.
func (h *HLL) Estimate() float64 {
	e, s := cEstimate(FamilyHLL, h.img, estimateDefault)
	must("HLL.Estimate", s)
	return e
}

// RegisterEstimate returns the estimate from the registers alone (Ertl's
// improved estimator; exact in small mode): what a merged sketch reports.
func (h *HLL) RegisterEstimate() float64 {
	e, s := cEstimate(FamilyHLL, h.img, estimateRegister)
	must("HLL.RegisterEstimate", s)
	return e
}

// Merge adds other's stream to h: h then estimates the union. Same seed
// required, and a dense other's precision must be at least h's (a higher
// precision folds down); else an error matching ErrIncompatible and h is
// unchanged. An other still in its exact small mode (it holds whole
// hashes) merges at any precision, so mixed precisions can merge while the
// inputs are small and fail once one is dense: merge into the lowest
// precision, or Downsize the others to it first. other may be h itself
// (see Bloom.Union).
func (h *HLL) Merge(other *HLL) error {
	if h.ro {
		return readOnlyError("HLL.Merge")
	}
	s := cMerge(FamilyHLL, h.img, mergeSource(h.img, other.image()))
	h.retoken()
	return errorOf("HLL.Merge", s)
}

// Downsize returns a new sketch of precision p holding what h holds
// (registers folded down, or the stored hashes). p may exceed h's
// precision only while h is in small mode.
func (h *HLL) Downsize(p uint8) (*HLL, error) {
	const op = "HLL.Downsize"
	n, s := cCardinalitySize(FamilyHLL, p)
	if s != 0 {
		return nil, paramError(op, s, "precision "+itoa(int(p)))
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cHLLDownsize(h.img, b, p); s != 0 {
		return nil, paramError(op, s, "precision "+itoa(int(p)))
	}
	return hllOf(b), nil
}

// Precision returns p.
func (h *HLL) Precision() uint8 { return h.Stats().Precision }

// Stats returns the sketch's statistics.
func (h *HLL) Stats() HLLStats {
	st, s := cHLLStats(h.img)
	must("HLL.Stats", s)
	return st
}

// Reset empties the sketch (same precision and seed).
func (h *HLL) Reset() {
	mustWritable(h.ro, "HLL.Reset")
	must("HLL.Reset", cClear(FamilyHLL, h.img))
	h.retoken()
}

// Size returns the live image size in bytes (the memory the sketch uses;
// MarshalBinary writes less while the sketch is in small mode).
func (h *HLL) Size() int { return len(h.img) }

// String describes the sketch in one line for fmt and logs: its type, image
// size and seed ("<nil>" for a nil pointer), not the image bytes.
func (h *HLL) String() string {
	if h == nil {
		return "<nil>"
	}
	return describe(FamilyHLL, h.img)
}

// Format prints String's description under any verb, also for an HLL
// held by value (see Bloom.Format).
func (h HLL) Format(s fmt.State, verb rune) { formatSketch(s, verb, FamilyHLL, h.img) }

// Clone returns an independent copy in new Go memory.
func (h *HLL) Clone() *HLL { return hllOf(cloneImage(h.img)) }

// MarshalBinary returns the exported image with its checksum: the whole
// image when dense, the header plus 8 bytes per stored hash in small mode.
func (h HLL) MarshalBinary() ([]byte, error) { return h.AppendBinary(nil) }

// AppendBinary appends the exported image to b.
func (h HLL) AppendBinary(b []byte) ([]byte, error) {
	const op = "HLL.MarshalBinary"
	n, s := cHLLExportedSize(h.img)
	if s != 0 {
		return b, errorOf(op, s)
	}
	return appendExport(op, FamilyHLL, h.img, n, b)
}

// UnmarshalBinary replaces h with the sketch in data, an exported image
// (compact or full), after checking headers, length, checksum and register
// values: damaged bytes give an error matching ErrCorrupt and h is then
// unchanged. data is copied; a compact image imports into the full image
// of its precision (the size the library's import_size reports).
func (h *HLL) UnmarshalBinary(data []byte) error {
	if h.ro {
		return readOnlyError("HLL.UnmarshalBinary")
	}
	b, err := importImage("HLL.UnmarshalBinary", data, FamilyHLL)
	if err != nil {
		return err
	}
	h.img = b
	h.retoken()
	return nil
}

// MarshalText returns the text form of the sketch: the standard, padded base64
// of MarshalBinary's bytes, a string in JSON (see Bloom.MarshalText). It
// only reads h, like MarshalBinary.
func (h HLL) MarshalText() ([]byte, error) { return h.AppendText(nil) }

// AppendText appends the text form of MarshalText to b.
func (h HLL) AppendText(b []byte) ([]byte, error) { return appendText("HLL.MarshalText", b, &h) }

// UnmarshalText replaces h with the sketch whose text form is text, checked
// as UnmarshalBinary checks it: text that is not padded standard base64,
// and damaged or truncated images, give an error matching ErrCorrupt and
// h is then unchanged (see Bloom.UnmarshalText). It writes h.
func (h *HLL) UnmarshalText(text []byte) error {
	if h.ro {
		return readOnlyError("HLL.UnmarshalText")
	}
	return unmarshalText("HLL.UnmarshalText", text, h)
}

// WriteTo writes the exported image, exactly the bytes MarshalBinary
// returns, to w (io.WriterTo), and returns the bytes written: in dense
// mode the image itself with a 48-byte header copy carrying the checksum,
// no copy of the registers; in small mode the compact export, made in a
// buffer first (it is small). w must neither keep nor change the bytes
// (io.Writer's contract). It reads h during the whole write, as a query
// does: other reading methods may run meanwhile, no changing one (for a
// slow writer, MarshalBinary under the lock and write that). Errors: an
// *Error for a zero value; w's own errors, wrapped with the operation
// (errors.Is finds them), and io.ErrShortWrite when w takes fewer bytes
// than given without an error. ReadHLL reads the image back.
func (h HLL) WriteTo(w io.Writer) (int64, error) {
	const op = "HLL.WriteTo"
	n, s := cHLLExportedSize(h.img)
	if s != 0 {
		return 0, errorOf(op, s)
	}
	return writeImage(op, FamilyHLL, h.img, n, w)
}

// ReadHLL reads exactly one HLL image from r, such as one WriteTo or
// MarshalBinary wrote, and checks it as UnmarshalBinary does; the rules,
// memory bounds and errors are ReadBloom's (io.EOF at the end of the
// stream, ErrCorrupt with io.ErrUnexpectedEOF for a cut image,
// ErrWrongFamily for another family's image).
func ReadHLL(r io.Reader) (*HLL, error) {
	img, err := readLive("ReadHLL", r, FamilyHLL)
	if err != nil {
		return nil, err
	}
	return hllOf(img), nil
}
