package sketches

import (
	"encoding/binary"
	"fmt"
	"io"
)

// TopK is a Space-Saving heavy-hitters sketch with a fixed number of
// counters and keys stored inline up to a maximum length set at
// construction (a longer key is refused with ErrKeyTooLong, never
// truncated). Every key whose count exceeds N/capacity is listed, and every
// listed count overestimates by at most N/capacity (N = total weight), also
// after merges.
//
// Its image lives in Go memory (or the caller's bytes for WrapTopK). The
// zero value holds no image; only UnmarshalBinary (or UnmarshalText) may be
// called on it.
//
// Concurrency: the reading methods (Estimate*, List, Stats, Size, Clone,
// MarshalBinary, AppendBinary, MarshalText, AppendText, WriteTo,
// ReadOnly) may run
// concurrently; the changing ones (Add*, Merge, Clear, UnmarshalBinary,
// UnmarshalText) need exclusive access.
//
// Read-only: a sketch from WrapTopKReadOnly (a file mapped PROT_READ, say)
// never writes its image. Its changing methods refuse before touching
// it, with an error matching ErrReadOnly: returned by those with an
// error result, the panic value of the others (recover catches it, where
// a write to the mapping would kill the process); its reading methods,
// Clone (a writable copy), MarshalBinary and WriteTo work as usual.
type TopK struct {
	img []byte
	ro  bool // a read-only wrap: the changing methods refuse (see WrapTopKReadOnly)
}

// TopKItem is one listed key.
type TopKItem struct {
	Key   []byte // the key's bytes (a copy; 8 little-endian bytes for integer keys)
	Count uint64 // estimated count: at least the true count
	Error uint64 // maximum overestimation: the true count is at least Count - Error
}

// TopKEstimate is the estimate for one key.
type TopKEstimate struct {
	Count  uint64 // upper bound of the true count
	Error  uint64 // maximum overestimation
	Listed bool   // the key has a counter
}

// TopKStats are the statistics of a Top-k sketch.
type TopKStats struct {
	Capacity  uint32 // counters
	MaxKeyLen uint32 // longest key in bytes
	Used      uint32 // counters in use
	Seed      uint64 // hash seed
	Total     uint64 // total weight N
	MinCount  uint64 // smallest count when full (every estimate's overestimation bound), else 0
}

// TopKSize returns the image size in bytes of NewTopK(capacity, maxKeyLen)
// without building it (errors as for NewTopK).
func TopKSize(capacity, maxKeyLen uint32) (uint64, error) {
	n, s := cTopKSize(capacity, maxKeyLen)
	return n, paramError("TopKSize", s, "capacity "+utoa(uint64(capacity))+", max key length "+utoa(uint64(maxKeyLen)))
}

// NewTopK returns an empty sketch of capacity counters (1 ..= 2^20) holding
// keys of up to maxKeyLen bytes (1 ..= 4096; integer keys need 8).
func NewTopK(capacity, maxKeyLen uint32, opts ...Option) (*TopK, error) {
	const op = "NewTopK"
	o := applyOptions(opts)
	n, s := cTopKSize(capacity, maxKeyLen)
	if s != 0 {
		return nil, paramError(op, s, "capacity "+utoa(uint64(capacity))+", max key length "+utoa(uint64(maxKeyLen)))
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cTopKInit(b, capacity, maxKeyLen, o.seed); s != 0 {
		return nil, paramError(op, s, "capacity "+utoa(uint64(capacity))+", max key length "+utoa(uint64(maxKeyLen)))
	}
	return &TopK{img: b}, nil
}

// WrapTopK uses b, a Top-k image in caller memory, without copying (see
// WrapBloom for the rules).
func WrapTopK(b []byte) (*TopK, error) {
	img, err := wrapImage("WrapTopK", b, FamilyTopK, func(b []byte) int32 {
		_, s := cTopKStats(b)
		return s
	})
	if err != nil {
		return nil, err
	}
	return &TopK{img: img}, nil
}

// WrapTopKReadOnly is WrapTopK for memory that must never be written, such as
// a file mapped with PROT_READ: b is used in place as WrapTopK uses it
// (the same alignment, header and family checks and errors, with Op
// "WrapTopKReadOnly"), and every method that would change the sketch
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
// WrapTopK: a read-only sketch only reads, so any number of goroutines may
// query it at once, while nothing else writes b.
func WrapTopKReadOnly(b []byte) (*TopK, error) {
	s, err := WrapTopK(b)
	if err != nil {
		return nil, withOp(err, "WrapTopKReadOnly")
	}
	s.ro = true
	return s, nil
}

// ReadOnly reports whether the sketch is a read-only wrap (WrapTopKReadOnly),
// whose changing methods refuse with ErrReadOnly. Safe for concurrent use.
func (t *TopK) ReadOnly() bool { return t.ro }

// Add adds weight occurrences of a byte key; a key longer than the maximum
// gives an error matching ErrKeyTooLong and nothing changes. A weight of 0
// is no occurrence and changes nothing: it takes no counter and evicts no
// key (the bytes of an empty response do not push out a heavy hitter).
func (t *TopK) Add(key []byte, weight uint64) error {
	if t.ro {
		return readOnlyError("TopK.Add")
	}
	return errorOf("TopK.Add", cTopKAdd(t.img, keyApart(key, t.img), len(key), weight))
}

// AddString is Add for a string key (its UTF-8 bytes).
func (t *TopK) AddString(key string, weight uint64) error {
	if t.ro {
		return readOnlyError("TopK.AddString")
	}
	return errorOf("TopK.AddString", cTopKAdd(t.img, strPtr(key), len(key), weight))
}

// AddUint64 is Add for an integer key, stored as its 8 little-endian bytes.
func (t *TopK) AddUint64(key, weight uint64) error {
	if t.ro {
		return readOnlyError("TopK.AddUint64")
	}
	return errorOf("TopK.AddUint64", cTopKAddU64(t.img, key, weight))
}

// AddStrings adds many string keys (packed batches); weights is nil (1
// each) or one per key. All or nothing: a weights slice of another length
// gives an error matching ErrInvalidArgument that names both lengths, and
// a key longer than the maximum one matching ErrKeyTooLong, before
// anything changes.
func (t *TopK) AddStrings(keys []string, weights []uint64) error {
	if t.ro {
		return readOnlyError("TopK.AddStrings")
	}
	return topkAdd(t, keys, weights, "TopK.AddStrings")
}

// AddBytes adds many byte keys (see AddStrings).
func (t *TopK) AddBytes(keys [][]byte, weights []uint64) error {
	if t.ro {
		return readOnlyError("TopK.AddBytes")
	}
	return topkAdd(t, keys, weights, "TopK.AddBytes")
}

// AddUint64s adds many integer keys in one call (see AddStrings).
func (t *TopK) AddUint64s(keys, weights []uint64) error {
	if t.ro {
		return readOnlyError("TopK.AddUint64s")
	}
	if err := checkWeights("TopK.AddUint64s", len(keys), weights); err != nil {
		return err
	}
	return errorOf("TopK.AddUint64s", cTopKAddU64s(t.img, keys, weights))
}

func topkAdd[K keyList](t *TopK, keys K, weights []uint64, op string) error {
	if err := checkWeights(op, len(keys), weights); err != nil {
		return err
	}
	st, s := cTopKStats(t.img)
	if s != 0 {
		return errorOf(op, s)
	}
	limit := int(st.MaxKeyLen)
	if i, n := longestKey(keys); n > limit {
		return &Error{Code: StatusKeyTooLong, Op: op, Detail: "key " + itoa(i) + " has " + itoa(n) + " bytes, the maximum is " + itoa(limit)}
	}
	return errorOf(op, packed(keys, func(start int, data []byte, offs []uint32) int32 {
		return cTopKAddPacked(t.img, data, offs, chunkWeights(weights, start, len(offs)-1))
	}))
}

// Estimate returns the estimate for a byte key. A key longer than the
// sketch's maximum key length was never added (Add refuses it): its
// estimate is zero.
func (t *TopK) Estimate(key []byte) TopKEstimate {
	e, s := cTopKEstimate(t.img, bytesPtr(key), len(key))
	return topkEstimate("TopK.Estimate", e, s)
}

// EstimateString is Estimate for a string key.
func (t *TopK) EstimateString(key string) TopKEstimate {
	e, s := cTopKEstimate(t.img, strPtr(key), len(key))
	return topkEstimate("TopK.EstimateString", e, s)
}

// EstimateUint64 is Estimate for an integer key (its 8 little-endian
// bytes; zero when the maximum key length is below 8).
func (t *TopK) EstimateUint64(key uint64) TopKEstimate {
	var k [8]byte
	binary.LittleEndian.PutUint64(k[:], key)
	return t.Estimate(k[:])
}

// topkEstimate turns the library's refusal of a key longer than the
// maximum (StatusKeyTooLong: such a key cannot have been added) into its
// exact estimate, zero; other failures panic as in every query.
func topkEstimate(op string, e TopKEstimate, s int32) TopKEstimate {
	if Status(s) == StatusKeyTooLong {
		return TopKEstimate{}
	}
	must(op, s)
	return e
}

// List returns the listed keys, largest count first (at most the capacity).
// The keys are copies: the list stays valid after later changes.
func (t *TopK) List() []TopKItem {
	st := t.Stats()
	raw := make([]topkItem, st.Used)
	n, s := cTopKList(t.img, raw)
	must("TopK.List", s)
	items := make([]TopKItem, n)
	for i, r := range raw[:n] {
		items[i] = TopKItem{Key: append([]byte(nil), t.img[r.key:r.key+r.keyLen]...), Count: r.count, Error: r.err}
	}
	return items
}

// Merge adds other's stream to t (same capacity, maximum key length and
// seed, else ErrIncompatible and t unchanged), keeping both guarantees.
// other may be t itself: its stream then counts twice (see Bloom.Union).
func (t *TopK) Merge(other *TopK) error {
	if t.ro {
		return readOnlyError("TopK.Merge")
	}
	return errorOf("TopK.Merge", cMerge(FamilyTopK, t.img, mergeSource(t.img, other.image())))
}

// Stats returns the sketch's statistics, O(1).
func (t *TopK) Stats() TopKStats {
	st, s := cTopKStats(t.img)
	must("TopK.Stats", s)
	return st
}

// Clear removes every key.
func (t *TopK) Clear() {
	mustWritable(t.ro, "TopK.Clear")
	must("TopK.Clear", cClear(FamilyTopK, t.img))
}

// Size returns the image size in bytes.
func (t *TopK) Size() int { return len(t.img) }

// String describes the sketch in one line for fmt and logs: its type, image
// size and seed ("<nil>" for a nil pointer), not the image bytes.
func (t *TopK) String() string {
	if t == nil {
		return "<nil>"
	}
	return describe(FamilyTopK, t.img)
}

// Format prints String's description under any verb, also for a TopK
// held by value (see Bloom.Format).
func (t TopK) Format(s fmt.State, verb rune) { formatSketch(s, verb, FamilyTopK, t.img) }

// Clone returns an independent copy in new Go memory.
func (t *TopK) Clone() *TopK { return &TopK{img: cloneImage(t.img)} }

// MarshalBinary returns the exported image (copy with checksum).
func (t TopK) MarshalBinary() ([]byte, error) { return t.AppendBinary(nil) }

// AppendBinary appends the exported image to b.
func (t TopK) AppendBinary(b []byte) ([]byte, error) {
	return appendExport("TopK.MarshalBinary", FamilyTopK, t.img, len(t.img), b)
}

// UnmarshalBinary replaces t with the sketch in data after checking
// headers, length, checksum and every counter, index slot and heap entry:
// damaged bytes give an error matching ErrCorrupt and t is unchanged.
func (t *TopK) UnmarshalBinary(data []byte) error {
	if t.ro {
		return readOnlyError("TopK.UnmarshalBinary")
	}
	b, err := importImage("TopK.UnmarshalBinary", data, FamilyTopK)
	if err != nil {
		return err
	}
	t.img = b
	return nil
}

// MarshalText returns the text form of the sketch: the standard, padded base64
// of MarshalBinary's bytes, a string in JSON (see Bloom.MarshalText). It
// only reads t, like MarshalBinary.
func (t TopK) MarshalText() ([]byte, error) { return t.AppendText(nil) }

// AppendText appends the text form of MarshalText to b.
func (t TopK) AppendText(b []byte) ([]byte, error) { return appendText("TopK.MarshalText", b, &t) }

// UnmarshalText replaces t with the sketch whose text form is text, checked
// as UnmarshalBinary checks it: text that is not padded standard base64,
// and damaged or truncated images, give an error matching ErrCorrupt and
// t is then unchanged (see Bloom.UnmarshalText). It writes t.
func (t *TopK) UnmarshalText(text []byte) error {
	if t.ro {
		return readOnlyError("TopK.UnmarshalText")
	}
	return unmarshalText("TopK.UnmarshalText", text, t)
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
// error. ReadTopK reads the image back.
func (t TopK) WriteTo(w io.Writer) (int64, error) {
	return writeImage("TopK.WriteTo", FamilyTopK, t.img, len(t.img), w)
}

// ReadTopK reads exactly one TopK image from r, such as one WriteTo or
// MarshalBinary wrote, and checks it as UnmarshalBinary does; the rules,
// memory bounds and errors are ReadBloom's (io.EOF at the end of the
// stream, ErrCorrupt with io.ErrUnexpectedEOF for a cut image,
// ErrWrongFamily for another family's image).
func ReadTopK(r io.Reader) (*TopK, error) {
	img, err := readLive("ReadTopK", r, FamilyTopK)
	if err != nil {
		return nil, err
	}
	return &TopK{img: img}, nil
}
