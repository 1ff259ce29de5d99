package sketches

import (
	"fmt"
	"io"
)

// CountMin is a Count-Min sketch: width x depth counters of 32 or 64 bits
// that saturate and never wrap, plain or conservative update, weights. An
// estimate never falls below the true count while that count is below the
// counter maximum, and exceeds it by more than epsilon*N (N = total
// weight) with probability at most delta. A counter stops at its maximum:
// with the 32-bit counters that PlanCountMin and PlanCountMinSize choose,
// a key whose true weight passes 2^32 - 1 (4 GiB of byte counts, say)
// reads math.MaxUint32, below the truth. Set CounterBits to 64 on the
// parameters when weights can add up that far.
//
// Its image lives in Go memory (or the caller's bytes for WrapCountMin). The
// zero value holds no image; only UnmarshalBinary (or UnmarshalText) may be
// called on it.
//
// Concurrency: the reading methods (Estimate*, Total, Stats, Size, Clone,
// MarshalBinary, AppendBinary, MarshalText, AppendText, WriteTo,
// ReadOnly) may run
// concurrently; the changing ones (Add*, Merge, Clear, UnmarshalBinary,
// UnmarshalText) need exclusive access.
//
// Read-only: a sketch from WrapCountMinReadOnly (a file mapped PROT_READ, say)
// never writes its image. Its changing methods refuse before touching
// it, with an error matching ErrReadOnly: returned by those with an
// error result, the panic value of the others (recover catches it, where
// a write to the mapping would kill the process); its reading methods,
// Clone (a writable copy), MarshalBinary and WriteTo work as usual.
type CountMin struct {
	img []byte
	ro  bool // a read-only wrap: the changing methods refuse (see WrapCountMinReadOnly)
}

// CountMinParams are the parameters of a Count-Min sketch.
type CountMinParams struct {
	Width        uint64 // counters per row (1 ..= 2^32)
	Depth        uint32 // rows (1 ..= 64)
	CounterBits  uint32 // 32 or 64; counters saturate, never wrap
	Conservative bool   // conservative update: raise counters only to min + weight
}

// CountMinStats are the statistics of a Count-Min sketch.
type CountMinStats struct {
	Params     CountMinParams // parameters
	Seed       uint64         // hash seed
	Total      uint64         // total weight added, N (saturating)
	Epsilon    float64        // e / width
	Delta      float64        // e^-depth
	ErrorBound float64        // epsilon * N: exceeded with probability at most delta
}

// PlanCountMin plans from the guarantee: width = ceil(e/epsilon), depth =
// ceil(ln(1/delta)), 32-bit counters, plain update (set CounterBits and
// Conservative on the result to change those). Both must be in (0, 1).
func PlanCountMin(epsilon, delta float64) (CountMinParams, error) {
	p, s := cCountMinPlan(epsilon, delta)
	return p, paramError("PlanCountMin", s, "epsilon "+ftoa(epsilon)+", delta "+ftoa(delta))
}

// PlanCountMinSize plans an explicit width x depth (32-bit counters, plain update).
func PlanCountMinSize(width uint64, depth uint32) (CountMinParams, error) {
	p, s := cCountMinPlanSize(width, depth)
	return p, paramError("PlanCountMinSize", s, "width "+utoa(width)+", depth "+utoa(uint64(depth)))
}

// CountMinSize returns the image size in bytes of NewCountMin(epsilon,
// delta) without building it. Errors as for PlanCountMin.
func CountMinSize(epsilon, delta float64) (uint64, error) {
	p, err := PlanCountMin(epsilon, delta)
	if err != nil {
		return 0, err
	}
	return CountMinSizeWithParams(p)
}

// CountMinSizeWithParams returns the image size in bytes of
// NewCountMinWithParams(p) without building it.
func CountMinSizeWithParams(p CountMinParams) (uint64, error) {
	n, s := cCountMinSize(p)
	return n, paramError("CountMinSize", s, fmt.Sprintf("%+v", p))
}

// NewCountMin returns an empty sketch planned for (epsilon, delta).
func NewCountMin(epsilon, delta float64, opts ...Option) (*CountMin, error) {
	p, err := PlanCountMin(epsilon, delta)
	if err != nil {
		return nil, err
	}
	return NewCountMinWithParams(p, opts...)
}

// NewCountMinWithParams returns an empty sketch with explicit parameters.
func NewCountMinWithParams(p CountMinParams, opts ...Option) (*CountMin, error) {
	const op = "NewCountMin"
	o := applyOptions(opts)
	n, s := cCountMinSize(p)
	if s != 0 {
		return nil, paramError(op, s, fmt.Sprintf("%+v", p))
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cCountMinInit(b, p, o.seed); s != 0 {
		return nil, paramError(op, s, fmt.Sprintf("%+v", p))
	}
	return &CountMin{img: b}, nil
}

// WrapCountMin uses b, a Count-Min image in caller memory, without copying
// (see WrapBloom for the rules).
func WrapCountMin(b []byte) (*CountMin, error) {
	img, err := wrapImage("WrapCountMin", b, FamilyCountMin, func(b []byte) int32 {
		_, s := cCountMinStats(b)
		return s
	})
	if err != nil {
		return nil, err
	}
	return &CountMin{img: img}, nil
}

// WrapCountMinReadOnly is WrapCountMin for memory that must never be written, such as
// a file mapped with PROT_READ: b is used in place as WrapCountMin uses it
// (the same alignment, header and family checks and errors, with Op
// "WrapCountMinReadOnly"), and every method that would change the sketch
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
// WrapCountMin: a read-only sketch only reads, so any number of goroutines may
// query it at once, while nothing else writes b.
func WrapCountMinReadOnly(b []byte) (*CountMin, error) {
	s, err := WrapCountMin(b)
	if err != nil {
		return nil, withOp(err, "WrapCountMinReadOnly")
	}
	s.ro = true
	return s, nil
}

// ReadOnly reports whether the sketch is a read-only wrap (WrapCountMinReadOnly),
// whose changing methods refuse with ErrReadOnly. Safe for concurrent use.
func (c *CountMin) ReadOnly() bool { return c.ro }

// Add adds weight occurrences of a byte key.
func (c *CountMin) Add(key []byte, weight uint64) {
	mustWritable(c.ro, "CountMin.Add")
	must("CountMin.Add", cCountMinAdd(c.img, keyApart(key, c.img), len(key), weight))
}

// AddString adds weight occurrences of a string key (its UTF-8 bytes).
func (c *CountMin) AddString(key string, weight uint64) {
	mustWritable(c.ro, "CountMin.AddString")
	must("CountMin.AddString", cCountMinAdd(c.img, strPtr(key), len(key), weight))
}

// AddUint64 adds weight occurrences of an integer key (its 8 little-endian bytes).
func (c *CountMin) AddUint64(key, weight uint64) {
	mustWritable(c.ro, "CountMin.AddUint64")
	must("CountMin.AddUint64", cCountMinAddU64(c.img, key, weight))
}

// AddStrings adds many string keys (packed batches); weights is nil (1
// each) or holds one weight per key. A weights slice of another length
// gives an error matching ErrInvalidArgument that names both lengths, and
// nothing is added; a zero-value receiver gives an error matching
// ErrNoImage. Needs exclusive access.
func (c *CountMin) AddStrings(keys []string, weights []uint64) error {
	if c.ro {
		return readOnlyError("CountMin.AddStrings")
	}
	const op = "CountMin.AddStrings"
	if err := checkWeights(op, len(keys), weights); err != nil {
		return err
	}
	return errorOf(op, countMinAdd(c.img, keys, weights))
}

// AddBytes adds many byte keys (see AddStrings for weights and errors).
func (c *CountMin) AddBytes(keys [][]byte, weights []uint64) error {
	if c.ro {
		return readOnlyError("CountMin.AddBytes")
	}
	const op = "CountMin.AddBytes"
	if err := checkWeights(op, len(keys), weights); err != nil {
		return err
	}
	return errorOf(op, countMinAdd(c.img, keys, weights))
}

// AddUint64s adds many integer keys in one call (see AddStrings for
// weights and errors).
func (c *CountMin) AddUint64s(keys, weights []uint64) error {
	if c.ro {
		return readOnlyError("CountMin.AddUint64s")
	}
	const op = "CountMin.AddUint64s"
	if err := checkWeights(op, len(keys), weights); err != nil {
		return err
	}
	return errorOf(op, cCountMinAddU64s(c.img, keys, weights))
}

// checkWeights refuses a weights slice that is neither nil nor one weight
// per key (the weighted batches of CountMin and TopK): an *Error matching
// ErrInvalidArgument naming both lengths, before anything changes.
func checkWeights(op string, keys int, weights []uint64) error {
	if weights != nil && len(weights) != keys {
		return &Error{Code: StatusInvalidArgument, Op: op,
			Detail: itoa(len(weights)) + " weights for " + itoa(keys) + " keys: pass nil (weight 1 each) or one weight per key"}
	}
	return nil
}

// chunkWeights returns the weights of keys [start, start+n), nil for nil.
func chunkWeights(weights []uint64, start, n int) []uint64 {
	if weights == nil {
		return nil
	}
	return weights[start : start+n]
}

func countMinAdd[K keyList](b []byte, keys K, weights []uint64) int32 {
	return packed(keys, func(start int, data []byte, offs []uint32) int32 {
		return cCountMinAddPacked(b, data, offs, chunkWeights(weights, start, len(offs)-1))
	})
}

// AddHash adds weight occurrences of a key given by its precomputed hash:
// Hash(key, seed) of a byte or string key, HashUint64(key, seed) of an
// integer key, with seed the sketch's (Stats().Seed), the XXH3-64 hash
// every binding computes for that key, so AddHash(Hash(k, seed), w) is
// Add(k, w). Needs exclusive access.
func (c *CountMin) AddHash(h, weight uint64) {
	mustWritable(c.ro, "CountMin.AddHash")
	must("CountMin.AddHash", cCountMinAddHash(c.img, h, weight))
}

// AddHashes adds many precomputed hashes (computed as for AddHash) in one
// call; weights as for AddStrings (nil: 1 each; another length than
// hashes: an error matching ErrInvalidArgument naming both lengths, and
// nothing is added). Needs exclusive access.
func (c *CountMin) AddHashes(hashes, weights []uint64) error {
	if c.ro {
		return readOnlyError("CountMin.AddHashes")
	}
	const op = "CountMin.AddHashes"
	if err := checkWeights(op, len(hashes), weights); err != nil {
		return err
	}
	return errorOf(op, cCountMinAddHashes(c.img, hashes, weights))
}

// EstimateHash is Estimate for a key given by its precomputed hash
// (computed as for AddHash). Safe for concurrent use with the other
// reading methods.
func (c *CountMin) EstimateHash(h uint64) uint64 {
	e, s := cCountMinEstimateHash(c.img, h)
	must("CountMin.EstimateHash", s)
	return e
}

// EstimateHashes estimates many precomputed hashes: results[i] for
// hashes[i], written into results when it has room for len(hashes) (nil
// allocates); results may be hashes itself or share memory with it, as
// for EstimateUint64s. Safe for concurrent use with the other reading
// methods.
func (c *CountMin) EstimateHashes(hashes []uint64, results []uint64) []uint64 {
	out := u64sFor(results, len(hashes))
	dst := out
	if overlapU64s(hashes, out) { // the library refuses an output over its input
		dst = make([]uint64, len(out))
	}
	must("CountMin.EstimateHashes", cCountMinEstimateHashes(c.img, hashes, dst))
	copy(out, dst)
	return out
}

// Estimate returns the estimated count of a byte key: never below the
// truth while the truth is below the counter maximum (an estimate equal to
// the maximum, math.MaxUint32 with 32-bit counters, may be below it).
func (c *CountMin) Estimate(key []byte) uint64 {
	e, s := cCountMinEstimate(c.img, bytesPtr(key), len(key))
	must("CountMin.Estimate", s)
	return e
}

// EstimateString is Estimate for a string key.
func (c *CountMin) EstimateString(key string) uint64 {
	e, s := cCountMinEstimate(c.img, strPtr(key), len(key))
	must("CountMin.EstimateString", s)
	return e
}

// EstimateUint64 is Estimate for an integer key.
func (c *CountMin) EstimateUint64(key uint64) uint64 {
	e, s := cCountMinEstimateU64(c.img, key)
	must("CountMin.EstimateUint64", s)
	return e
}

// EstimateStrings estimates many string keys: results[i] for keys[i],
// written into results when it has room for len(keys) (nil allocates).
func (c *CountMin) EstimateStrings(keys []string, results []uint64) []uint64 {
	out := u64sFor(results, len(keys))
	must("CountMin.EstimateStrings", countMinEstimate(c.img, keys, out))
	return out
}

// EstimateBytes estimates many byte keys (see EstimateStrings).
func (c *CountMin) EstimateBytes(keys [][]byte, results []uint64) []uint64 {
	out := u64sFor(results, len(keys))
	must("CountMin.EstimateBytes", countMinEstimate(c.img, keys, out))
	return out
}

// EstimateUint64s estimates many integer keys (see EstimateStrings).
// results may be keys itself (estimates written over the keys) or share
// memory with it: the answers are those of a separate slice.
func (c *CountMin) EstimateUint64s(keys []uint64, results []uint64) []uint64 {
	out := u64sFor(results, len(keys))
	dst := out
	if overlapU64s(keys, out) { // the library refuses an output over its input
		dst = make([]uint64, len(out))
	}
	must("CountMin.EstimateUint64s", cCountMinEstimateU64s(c.img, keys, dst))
	copy(out, dst) // a no-op when dst is out
	return out
}

func countMinEstimate[K keyList](b []byte, keys K, out []uint64) int32 {
	return packed(keys, func(start int, data []byte, offs []uint32) int32 {
		return cCountMinEstimatePacked(b, data, offs, out[start:start+len(offs)-1])
	})
}

// Total returns N, the total weight added (saturating).
func (c *CountMin) Total() uint64 { return c.Stats().Total }

// Merge adds other's counters into c (saturating): c then holds both
// streams. Width, depth, counter width and seed must be equal (else
// ErrIncompatible and c unchanged); the update modes may differ. other may
// be c itself: its counts then double (see Bloom.Union).
func (c *CountMin) Merge(other *CountMin) error {
	if c.ro {
		return readOnlyError("CountMin.Merge")
	}
	return errorOf("CountMin.Merge", cMerge(FamilyCountMin, c.img, mergeSource(c.img, other.image())))
}

// Stats returns the sketch's statistics, O(1).
func (c *CountMin) Stats() CountMinStats {
	st, s := cCountMinStats(c.img)
	must("CountMin.Stats", s)
	return st
}

// Clear resets every counter and the total.
func (c *CountMin) Clear() {
	mustWritable(c.ro, "CountMin.Clear")
	must("CountMin.Clear", cClear(FamilyCountMin, c.img))
}

// Size returns the image size in bytes.
func (c *CountMin) Size() int { return len(c.img) }

// String describes the sketch in one line for fmt and logs: its type, image
// size and seed ("<nil>" for a nil pointer), not the image bytes.
func (c *CountMin) String() string {
	if c == nil {
		return "<nil>"
	}
	return describe(FamilyCountMin, c.img)
}

// Format prints String's description under any verb, also for a CountMin
// held by value (see Bloom.Format).
func (c CountMin) Format(s fmt.State, verb rune) { formatSketch(s, verb, FamilyCountMin, c.img) }

// Clone returns an independent copy in new Go memory.
func (c *CountMin) Clone() *CountMin { return &CountMin{img: cloneImage(c.img)} }

// MarshalBinary returns the exported image (copy with checksum).
func (c CountMin) MarshalBinary() ([]byte, error) { return c.AppendBinary(nil) }

// AppendBinary appends the exported image to b.
func (c CountMin) AppendBinary(b []byte) ([]byte, error) {
	return appendExport("CountMin.MarshalBinary", FamilyCountMin, c.img, len(c.img), b)
}

// UnmarshalBinary replaces c with the checked sketch in data (see
// Bloom.UnmarshalBinary).
func (c *CountMin) UnmarshalBinary(data []byte) error {
	if c.ro {
		return readOnlyError("CountMin.UnmarshalBinary")
	}
	b, err := importImage("CountMin.UnmarshalBinary", data, FamilyCountMin)
	if err != nil {
		return err
	}
	c.img = b
	return nil
}

// MarshalText returns the text form of the sketch: the standard, padded base64
// of MarshalBinary's bytes, a string in JSON (see Bloom.MarshalText). It
// only reads c, like MarshalBinary.
func (c CountMin) MarshalText() ([]byte, error) { return c.AppendText(nil) }

// AppendText appends the text form of MarshalText to b.
func (c CountMin) AppendText(b []byte) ([]byte, error) {
	return appendText("CountMin.MarshalText", b, &c)
}

// UnmarshalText replaces c with the sketch whose text form is text, checked
// as UnmarshalBinary checks it: text that is not padded standard base64,
// and damaged or truncated images, give an error matching ErrCorrupt and
// c is then unchanged (see Bloom.UnmarshalText). It writes c.
func (c *CountMin) UnmarshalText(text []byte) error {
	if c.ro {
		return readOnlyError("CountMin.UnmarshalText")
	}
	return unmarshalText("CountMin.UnmarshalText", text, c)
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
// error. ReadCountMin reads the image back.
func (c CountMin) WriteTo(w io.Writer) (int64, error) {
	return writeImage("CountMin.WriteTo", FamilyCountMin, c.img, len(c.img), w)
}

// ReadCountMin reads exactly one CountMin image from r, such as one WriteTo or
// MarshalBinary wrote, and checks it as UnmarshalBinary does; the rules,
// memory bounds and errors are ReadBloom's (io.EOF at the end of the
// stream, ErrCorrupt with io.ErrUnexpectedEOF for a cut image,
// ErrWrongFamily for another family's image).
func ReadCountMin(r io.Reader) (*CountMin, error) {
	img, err := readLive("ReadCountMin", r, FamilyCountMin)
	if err != nil {
		return nil, err
	}
	return &CountMin{img: img}, nil
}
