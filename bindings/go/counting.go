package sketches

import (
	"fmt"
	"io"
)

// CountingBloom is a counting Bloom filter: 4-bit saturating counters
// instead of bits, so keys can be removed. A counter at 15 is never
// decremented, so there is never a false negative; removing a key that is
// absent reports ErrNotPresent and changes nothing.
//
// Its image lives in Go memory (or the caller's bytes for
// WrapCountingBloom). The zero value holds no image; only UnmarshalBinary
// may be called on it.
//
// Concurrency: the reading methods (Contains*, Stats, OverCapacity, Size,
// Clone, MarshalBinary, AppendBinary, MarshalText, AppendText, WriteTo,
// ReadOnly) may run
// concurrently; the changing ones (Add*, Remove*, Merge, Clear,
// UnmarshalBinary, UnmarshalText) need exclusive access.
//
// Read-only: a sketch from WrapCountingBloomReadOnly (a file mapped PROT_READ, say)
// never writes its image. Its changing methods refuse before touching
// it, with an error matching ErrReadOnly: returned by those with an
// error result, the panic value of the others (recover catches it, where
// a write to the mapping would kill the process); its reading methods,
// Clone (a writable copy), MarshalBinary and WriteTo work as usual.
type CountingBloom struct {
	img []byte
	ro  bool // a read-only wrap: the changing methods refuse (see WrapCountingBloomReadOnly)
}

// CountingBloomStats are the statistics of a counting Bloom filter.
type CountingBloomStats struct {
	Params            BloomParams   // parameters (Bits = counters)
	Seed              uint64        // hash seed
	AddCalls          uint64        // add calls
	Removes           uint64        // successful removals
	Items             uint64        // items stored: add calls minus successful removals
	NonzeroCounters   uint64        // counters above zero
	SaturatedCounters uint64        // counters stuck at 15
	EstimatedFPR      float64       // current false-positive rate from the non-zero counters
	Capacity          CapacityFlags // over-capacity flags, 0 while within the plan
}

// CountingBloomSize returns the image size in bytes of
// NewCountingBloom(items, fpr) without building it. Errors as for PlanBloom.
func CountingBloomSize(items uint64, fpr float64) (uint64, error) {
	p, err := PlanBloom(items, fpr)
	if err != nil {
		return 0, err
	}
	return CountingBloomSizeWithParams(p)
}

// CountingBloomSizeWithParams returns the image size in bytes of
// NewCountingBloomWithParams(p) without building it.
func CountingBloomSizeWithParams(p BloomParams) (uint64, error) {
	n, s := cBloomSize(p, true)
	return n, paramError("CountingBloomSize", s, fmt.Sprintf("%+v", p))
}

// NewCountingBloom returns an empty counting filter planned for items
// distinct items at false-positive rate fpr (planned like a Bloom filter,
// one 4-bit counter per bit: four times its memory).
func NewCountingBloom(items uint64, fpr float64, opts ...Option) (*CountingBloom, error) {
	p, err := PlanBloom(items, fpr)
	if err != nil {
		return nil, err
	}
	return NewCountingBloomWithParams(p, opts...)
}

// NewCountingBloomWithParams returns an empty counting filter with explicit
// parameters (Bits = number of counters).
func NewCountingBloomWithParams(p BloomParams, opts ...Option) (*CountingBloom, error) {
	const op = "NewCountingBloom"
	o := applyOptions(opts)
	n, s := cBloomSize(p, true)
	if s != 0 {
		return nil, paramError(op, s, fmt.Sprintf("%+v", p))
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cBloomInit(b, p, o.seed, true); s != 0 {
		return nil, paramError(op, s, fmt.Sprintf("%+v", p))
	}
	return &CountingBloom{img: b}, nil
}

// WrapCountingBloom uses b, a counting Bloom image in caller memory,
// without copying (see WrapBloom for the rules).
func WrapCountingBloom(b []byte) (*CountingBloom, error) {
	img, err := wrapImage("WrapCountingBloom", b, FamilyCountingBloom, func(b []byte) int32 {
		_, s := cFilterCapacity(FamilyCountingBloom, b)
		return s
	})
	if err != nil {
		return nil, err
	}
	return &CountingBloom{img: img}, nil
}

// WrapCountingBloomReadOnly is WrapCountingBloom for memory that must never be written, such as
// a file mapped with PROT_READ: b is used in place as WrapCountingBloom uses it
// (the same alignment, header and family checks and errors, with Op
// "WrapCountingBloomReadOnly"), and every method that would change the sketch
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
// WrapCountingBloom: a read-only sketch only reads, so any number of goroutines may
// query it at once, while nothing else writes b.
func WrapCountingBloomReadOnly(b []byte) (*CountingBloom, error) {
	s, err := WrapCountingBloom(b)
	if err != nil {
		return nil, withOp(err, "WrapCountingBloomReadOnly")
	}
	s.ro = true
	return s, nil
}

// ReadOnly reports whether the sketch is a read-only wrap (WrapCountingBloomReadOnly),
// whose changing methods refuse with ErrReadOnly. Safe for concurrent use.
func (f *CountingBloom) ReadOnly() bool { return f.ro }

// Add adds a byte key (increments its counters, saturating at 15) and
// reports whether it was new (some counter was 0).
func (f *CountingBloom) Add(key []byte) bool {
	mustWritable(f.ro, "CountingBloom.Add")
	n, s := cCountingAdd(f.img, keyApart(key, f.img), len(key))
	must("CountingBloom.Add", s)
	return n
}

// AddString adds a string key and reports whether it was new.
func (f *CountingBloom) AddString(key string) bool {
	mustWritable(f.ro, "CountingBloom.AddString")
	n, s := cCountingAdd(f.img, strPtr(key), len(key))
	must("CountingBloom.AddString", s)
	return n
}

// AddUint64 adds an integer key and reports whether it was new.
func (f *CountingBloom) AddUint64(key uint64) bool {
	mustWritable(f.ro, "CountingBloom.AddUint64")
	n, s := cCountingAddU64(f.img, key)
	must("CountingBloom.AddUint64", s)
	return n
}

// Contains reports false when key is certainly not in the filter.
func (f *CountingBloom) Contains(key []byte) bool {
	r, s := cCountingContains(f.img, bytesPtr(key), len(key))
	must("CountingBloom.Contains", s)
	return r
}

// ContainsString is Contains for a string key.
func (f *CountingBloom) ContainsString(key string) bool {
	r, s := cCountingContains(f.img, strPtr(key), len(key))
	must("CountingBloom.ContainsString", s)
	return r
}

// ContainsUint64 is Contains for an integer key.
func (f *CountingBloom) ContainsUint64(key uint64) bool {
	r, s := cCountingContainsU64(f.img, key)
	must("CountingBloom.ContainsUint64", s)
	return r
}

// Remove removes one occurrence of a byte key (decrements its counters;
// saturated counters stay 15). A key with some counter at 0 gives an error
// matching ErrNotPresent and nothing changes. Only remove keys that were
// added: removing a false positive can cause false negatives for others.
func (f *CountingBloom) Remove(key []byte) error {
	if f.ro {
		return readOnlyError("CountingBloom.Remove")
	}
	return errorOf("CountingBloom.Remove", cCountingRemove(f.img, keyApart(key, f.img), len(key)))
}

// RemoveString is Remove for a string key.
func (f *CountingBloom) RemoveString(key string) error {
	if f.ro {
		return readOnlyError("CountingBloom.RemoveString")
	}
	return errorOf("CountingBloom.RemoveString", cCountingRemove(f.img, strPtr(key), len(key)))
}

// RemoveUint64 is Remove for an integer key.
func (f *CountingBloom) RemoveUint64(key uint64) error {
	if f.ro {
		return readOnlyError("CountingBloom.RemoveUint64")
	}
	return errorOf("CountingBloom.RemoveUint64", cCountingRemoveU64(f.img, key))
}

// AddHash adds a key by its precomputed hash: Hash(key, seed) of a byte
// or string key, HashUint64(key, seed) of an integer key, with seed the
// sketch's (Stats().Seed), the XXH3-64 hash every binding computes for
// that key, so AddHash(Hash(k, seed)) is Add(k),
// and reports whether it was new (as Add). Needs exclusive access.
func (f *CountingBloom) AddHash(h uint64) bool {
	mustWritable(f.ro, "CountingBloom.AddHash")
	n, s := cAddHash(FamilyCountingBloom, f.img, nil, h)
	must("CountingBloom.AddHash", s)
	return n
}

// ContainsHash is Contains for a key given by its precomputed hash
// (computed as for AddHash). Safe for concurrent use with the other
// reading methods.
func (f *CountingBloom) ContainsHash(h uint64) bool {
	r, s := cContainsHash(FamilyCountingBloom, f.img, nil, h)
	must("CountingBloom.ContainsHash", s)
	return r
}

// RemoveHash is Remove for a key given by its precomputed hash (computed
// as for AddHash): an absent one gives an error matching ErrNotPresent and
// nothing changes. Needs exclusive access.
func (f *CountingBloom) RemoveHash(h uint64) error {
	if f.ro {
		return readOnlyError("CountingBloom.RemoveHash")
	}
	return errorOf("CountingBloom.RemoveHash", cRemoveHash(FamilyCountingBloom, f.img, h))
}

// AddHashes adds many precomputed hashes (computed as for AddHash) in one
// call. Needs exclusive access.
func (f *CountingBloom) AddHashes(hashes []uint64) {
	mustWritable(f.ro, "CountingBloom.AddHashes")
	must("CountingBloom.AddHashes", cFilterAddHashes(FamilyCountingBloom, f.img, hashes, nil))
}

// ContainsHashes answers ContainsHash for many precomputed hashes into
// results (see Bloom.ContainsHashes). Safe for concurrent use with the
// other reading methods.
func (f *CountingBloom) ContainsHashes(hashes []uint64, results []bool) []bool {
	out := boolsFor(results, len(hashes))
	must("CountingBloom.ContainsHashes", cFilterContainsHashes(FamilyCountingBloom, f.img, hashes, out))
	return out
}

// RemoveHashes removes many precomputed hashes and returns how many were
// removed; when some were not present (nothing changed for them) the error
// matches ErrNotPresent (see RemoveStrings). Needs exclusive access.
func (f *CountingBloom) RemoveHashes(hashes []uint64) (int, error) {
	if f.ro {
		return 0, readOnlyError("CountingBloom.RemoveHashes")
	}
	out := make([]bool, len(hashes))
	return removedResult("CountingBloom.RemoveHashes", out, cRemoveHashes(FamilyCountingBloom, f.img, hashes, out))
}

// AddStrings adds many string keys (packed batches).
func (f *CountingBloom) AddStrings(keys []string) {
	mustWritable(f.ro, "CountingBloom.AddStrings")
	must("CountingBloom.AddStrings", filterAdd(FamilyCountingBloom, f.img, keys, nil))
}

// AddBytes adds many byte keys (packed batches).
func (f *CountingBloom) AddBytes(keys [][]byte) {
	mustWritable(f.ro, "CountingBloom.AddBytes")
	must("CountingBloom.AddBytes", filterAdd(FamilyCountingBloom, f.img, keys, nil))
}

// AddUint64s adds many integer keys in one call.
func (f *CountingBloom) AddUint64s(keys []uint64) {
	mustWritable(f.ro, "CountingBloom.AddUint64s")
	must("CountingBloom.AddUint64s", cFilterAddU64s(FamilyCountingBloom, f.img, keys, nil))
}

// ContainsStrings answers Contains for many string keys into results (see
// Bloom.ContainsStrings).
func (f *CountingBloom) ContainsStrings(keys []string, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("CountingBloom.ContainsStrings", filterContains(FamilyCountingBloom, f.img, keys, out))
	return out
}

// ContainsBytes answers Contains for many byte keys.
func (f *CountingBloom) ContainsBytes(keys [][]byte, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("CountingBloom.ContainsBytes", filterContains(FamilyCountingBloom, f.img, keys, out))
	return out
}

// ContainsUint64s answers Contains for many integer keys.
func (f *CountingBloom) ContainsUint64s(keys []uint64, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("CountingBloom.ContainsUint64s", cFilterContainsU64s(FamilyCountingBloom, f.img, keys, out))
	return out
}

// RemoveStrings removes many string keys and returns how many were
// removed; when some were not present (nothing changed for them) the error
// matches ErrNotPresent.
func (f *CountingBloom) RemoveStrings(keys []string) (int, error) {
	if f.ro {
		return 0, readOnlyError("CountingBloom.RemoveStrings")
	}
	return removeKeys(f.img, keys, "CountingBloom.RemoveStrings")
}

// RemoveBytes removes many byte keys (see RemoveStrings).
func (f *CountingBloom) RemoveBytes(keys [][]byte) (int, error) {
	if f.ro {
		return 0, readOnlyError("CountingBloom.RemoveBytes")
	}
	return removeKeys(f.img, keys, "CountingBloom.RemoveBytes")
}

// RemoveUint64s removes many integer keys (see RemoveStrings).
func (f *CountingBloom) RemoveUint64s(keys []uint64) (int, error) {
	if f.ro {
		return 0, readOnlyError("CountingBloom.RemoveUint64s")
	}
	const op = "CountingBloom.RemoveUint64s"
	out := make([]bool, len(keys))
	return removedResult(op, out, cCountingRemoveU64s(f.img, keys, out))
}

func removeKeys[K keyList](b []byte, keys K, op string) (int, error) {
	out := make([]bool, len(keys))
	return removedResult(op, out, packed(keys, func(start int, data []byte, offs []uint32) int32 {
		return cCountingRemovePacked(b, data, offs, out[start:start+len(offs)-1])
	}))
}

// removedResult counts the removed flags; s is the status of the batch's C
// calls (an image error, for example a zero value's, is returned as is).
func removedResult(op string, removed []bool, s int32) (int, error) {
	n := countTrue(removed)
	if s != 0 {
		return n, errorOf(op, s)
	}
	if n < len(removed) {
		return n, &Error{Code: StatusNotPresent, Op: op, Detail: itoa(len(removed)-n) + " of " + itoa(len(removed)) + " keys were not present"}
	}
	return n, nil
}

// Merge adds other's counters into f (saturating): f then holds both
// multisets. Equal counters, probes and seed required (else ErrIncompatible
// and f unchanged). other may be f itself: its counters then double (see
// Bloom.Union).
func (f *CountingBloom) Merge(other *CountingBloom) error {
	if f.ro {
		return readOnlyError("CountingBloom.Merge")
	}
	return errorOf("CountingBloom.Merge", cMerge(FamilyCountingBloom, f.img, mergeSource(f.img, other.image())))
}

// Stats returns the filter's statistics, O(1).
func (f *CountingBloom) Stats() CountingBloomStats {
	st, s := cCountingStats(f.img)
	must("CountingBloom.Stats", s)
	return st
}

// OverCapacity returns the over-capacity signal, O(1): 0 while within the plan.
func (f *CountingBloom) OverCapacity() CapacityFlags {
	c, s := cFilterCapacity(FamilyCountingBloom, f.img)
	must("CountingBloom.OverCapacity", s)
	return c
}

// Clear removes every key; parameters and seed stay.
func (f *CountingBloom) Clear() {
	mustWritable(f.ro, "CountingBloom.Clear")
	must("CountingBloom.Clear", cClear(FamilyCountingBloom, f.img))
}

// Size returns the image size in bytes.
func (f *CountingBloom) Size() int { return len(f.img) }

// String describes the filter in one line for fmt and logs: its type, image
// size and seed ("<nil>" for a nil pointer), not the image bytes.
func (f *CountingBloom) String() string {
	if f == nil {
		return "<nil>"
	}
	return describe(FamilyCountingBloom, f.img)
}

// Format prints String's description under any verb, also for a CountingBloom
// held by value (see Bloom.Format).
func (f CountingBloom) Format(s fmt.State, verb rune) {
	formatSketch(s, verb, FamilyCountingBloom, f.img)
}

// Clone returns an independent copy in new Go memory.
func (f *CountingBloom) Clone() *CountingBloom { return &CountingBloom{img: cloneImage(f.img)} }

// MarshalBinary returns the exported image (copy with checksum).
func (f CountingBloom) MarshalBinary() ([]byte, error) { return f.AppendBinary(nil) }

// AppendBinary appends the exported image to b.
func (f CountingBloom) AppendBinary(b []byte) ([]byte, error) {
	return appendExport("CountingBloom.MarshalBinary", FamilyCountingBloom, f.img, len(f.img), b)
}

// UnmarshalBinary replaces f with the checked filter in data (see
// Bloom.UnmarshalBinary).
func (f *CountingBloom) UnmarshalBinary(data []byte) error {
	if f.ro {
		return readOnlyError("CountingBloom.UnmarshalBinary")
	}
	b, err := importImage("CountingBloom.UnmarshalBinary", data, FamilyCountingBloom)
	if err != nil {
		return err
	}
	f.img = b
	return nil
}

// MarshalText returns the text form of the filter: the standard, padded base64
// of MarshalBinary's bytes, a string in JSON (see Bloom.MarshalText). It
// only reads f, like MarshalBinary.
func (f CountingBloom) MarshalText() ([]byte, error) { return f.AppendText(nil) }

// AppendText appends the text form of MarshalText to b.
func (f CountingBloom) AppendText(b []byte) ([]byte, error) {
	return appendText("CountingBloom.MarshalText", b, &f)
}

// UnmarshalText replaces f with the filter whose text form is text, checked
// as UnmarshalBinary checks it: text that is not padded standard base64,
// and damaged or truncated images, give an error matching ErrCorrupt and
// f is then unchanged (see Bloom.UnmarshalText). It writes f.
func (f *CountingBloom) UnmarshalText(text []byte) error {
	if f.ro {
		return readOnlyError("CountingBloom.UnmarshalText")
	}
	return unmarshalText("CountingBloom.UnmarshalText", text, f)
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
// error. ReadCountingBloom reads the image back.
func (f CountingBloom) WriteTo(w io.Writer) (int64, error) {
	return writeImage("CountingBloom.WriteTo", FamilyCountingBloom, f.img, len(f.img), w)
}

// ReadCountingBloom reads exactly one CountingBloom image from r, such as one WriteTo or
// MarshalBinary wrote, and checks it as UnmarshalBinary does; the rules,
// memory bounds and errors are ReadBloom's (io.EOF at the end of the
// stream, ErrCorrupt with io.ErrUnexpectedEOF for a cut image,
// ErrWrongFamily for another family's image).
func ReadCountingBloom(r io.Reader) (*CountingBloom, error) {
	img, err := readLive("ReadCountingBloom", r, FamilyCountingBloom)
	if err != nil {
		return nil, err
	}
	return &CountingBloom{img: img}, nil
}
