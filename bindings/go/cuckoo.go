package sketches

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Cuckoo is a cuckoo filter: buckets of 4 fingerprints of 8, 12 or 16
// bits (chosen from the target rate), membership with removal and counting,
// loads of 95% and more. An insert that cannot place its item within 500
// relocations reports ErrFull and leaves the filter byte-identical: nothing
// already stored is lost.
//
// Adds are a multiset, not a set: every add of a key stores one more copy
// of its fingerprint, in one of the key's two buckets, so a key holds at
// most 8 copies, and its 9th add (while 8 are stored) always fails with
// ErrFull, however empty the filter is (after trying the 500
// relocations). A growing filter does not help; for set semantics (every
// request's user id, say) test ContainsString before AddString, or use a
// Bloom filter.
//
// Its image lives in Go memory (or the caller's bytes for WrapCuckoo). The
// zero value holds no image; only UnmarshalBinary (or UnmarshalText) may be
// called on it.
//
// Concurrency: the reading methods (Contains*, Count*, Stats, OverCapacity,
// Size, Clone, MarshalBinary, AppendBinary, MarshalText, AppendText, WriteTo,
// ReadOnly) may run
// concurrently; the changing ones (Add*, Remove*, Merge, Clear,
// UnmarshalBinary, UnmarshalText) need exclusive access (the batch Add* and
// Remove* methods count their result from the item count before and after,
// which a concurrent writer would also change).
//
// Read-only: a sketch from WrapCuckooReadOnly (a file mapped PROT_READ, say)
// never writes its image. Its changing methods refuse before touching
// it, with an error matching ErrReadOnly: returned by those with an
// error result, the panic value of the others (recover catches it, where
// a write to the mapping would kill the process); its reading methods,
// Clone (a writable copy), MarshalBinary and WriteTo work as usual.
type Cuckoo struct {
	img []byte
	ro  bool // a read-only wrap: the changing methods refuse (see WrapCuckooReadOnly)
}

// CuckooParams are the parameters of a cuckoo filter.
type CuckooParams struct {
	Buckets         uint64  // number of 4-slot buckets (any count, not only powers of two)
	FingerprintBits uint32  // fingerprint width: 8, 12 or 16 bits
	PlannedItems    uint64  // items the filter is planned for
	PlannedFPR      float64 // false-positive rate planned at full load
}

// CuckooStats are the statistics of a cuckoo filter.
type CuckooStats struct {
	Params       CuckooParams  // parameters
	Seed         uint64        // hash seed
	Items        uint64        // stored items (fingerprints)
	Load         float64       // Items / (Buckets * 4)
	EstimatedFPR float64       // current false-positive rate bound at this load
	Capacity     CapacityFlags // over-capacity flags, 0 while within the plan
}

// PlanCuckoo plans from expected items and target rate: the narrowest
// fingerprint meeting fpr and ceil(items / 3.8) buckets (95% load). fpr
// must be in (1.2e-4, 1).
func PlanCuckoo(items uint64, fpr float64) (CuckooParams, error) {
	p, s := cCuckooPlan(items, fpr)
	return p, paramError("PlanCuckoo", s, "items "+utoa(items)+", fpr "+ftoa(fpr))
}

// PlanCuckooBuckets plans an explicit bucket count and fingerprint width
// (8, 12 or 16).
func PlanCuckooBuckets(buckets uint64, fingerprintBits uint32) (CuckooParams, error) {
	p, s := cCuckooPlanBuckets(buckets, fingerprintBits)
	return p, paramError("PlanCuckooBuckets", s, "buckets "+utoa(buckets)+", fingerprint bits "+utoa(uint64(fingerprintBits)))
}

// CuckooSize returns the image size in bytes of NewCuckoo(items, fpr)
// without building it. Errors as for PlanCuckoo.
func CuckooSize(items uint64, fpr float64) (uint64, error) {
	p, err := PlanCuckoo(items, fpr)
	if err != nil {
		return 0, err
	}
	return CuckooSizeWithParams(p)
}

// CuckooSizeWithParams returns the image size in bytes of
// NewCuckooWithParams(p) without building it.
func CuckooSizeWithParams(p CuckooParams) (uint64, error) {
	n, s := cCuckooSize(p)
	return n, paramError("CuckooSize", s, fmt.Sprintf("%+v", p))
}

// NewCuckoo returns an empty filter planned for items items at rate fpr.
func NewCuckoo(items uint64, fpr float64, opts ...Option) (*Cuckoo, error) {
	p, err := PlanCuckoo(items, fpr)
	if err != nil {
		return nil, err
	}
	return NewCuckooWithParams(p, opts...)
}

// NewCuckooWithParams returns an empty filter with explicit parameters.
func NewCuckooWithParams(p CuckooParams, opts ...Option) (*Cuckoo, error) {
	const op = "NewCuckoo"
	o := applyOptions(opts)
	n, s := cCuckooSize(p)
	if s != 0 {
		return nil, paramError(op, s, fmt.Sprintf("%+v", p))
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cCuckooInit(b, p, o.seed); s != 0 {
		return nil, paramError(op, s, fmt.Sprintf("%+v", p))
	}
	return &Cuckoo{img: b}, nil
}

// WrapCuckoo uses b, a cuckoo image in caller memory, without copying (see
// WrapBloom for the rules).
func WrapCuckoo(b []byte) (*Cuckoo, error) {
	img, err := wrapImage("WrapCuckoo", b, FamilyCuckoo, func(b []byte) int32 {
		_, s := cFilterCapacity(FamilyCuckoo, b)
		return s
	})
	if err != nil {
		return nil, err
	}
	return &Cuckoo{img: img}, nil
}

// WrapCuckooReadOnly is WrapCuckoo for memory that must never be written, such as
// a file mapped with PROT_READ: b is used in place as WrapCuckoo uses it
// (the same alignment, header and family checks and errors, with Op
// "WrapCuckooReadOnly"), and every method that would change the sketch
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
// WrapCuckoo: a read-only sketch only reads, so any number of goroutines may
// query it at once, while nothing else writes b.
func WrapCuckooReadOnly(b []byte) (*Cuckoo, error) {
	s, err := WrapCuckoo(b)
	if err != nil {
		return nil, withOp(err, "WrapCuckooReadOnly")
	}
	s.ro = true
	return s, nil
}

// ReadOnly reports whether the sketch is a read-only wrap (WrapCuckooReadOnly),
// whose changing methods refuse with ErrReadOnly. Safe for concurrent use.
func (f *Cuckoo) ReadOnly() bool { return f.ro }

// Add inserts a byte key. When it cannot be placed the error matches
// ErrFull and the filter is unchanged. Adding a key twice stores two copies
// (see Count); a 9th copy never fits (see the type's doc).
func (f *Cuckoo) Add(key []byte) error {
	if f.ro {
		return readOnlyError("Cuckoo.Add")
	}
	return errorOf("Cuckoo.Add", cCuckooAdd(f.img, keyApart(key, f.img), len(key)))
}

// AddString is Add for a string key.
func (f *Cuckoo) AddString(key string) error {
	if f.ro {
		return readOnlyError("Cuckoo.AddString")
	}
	return errorOf("Cuckoo.AddString", cCuckooAdd(f.img, strPtr(key), len(key)))
}

// AddUint64 is Add for an integer key.
func (f *Cuckoo) AddUint64(key uint64) error {
	if f.ro {
		return readOnlyError("Cuckoo.AddUint64")
	}
	return errorOf("Cuckoo.AddUint64", cCuckooAddU64(f.img, key))
}

// Contains reports false when key is certainly not in the filter.
func (f *Cuckoo) Contains(key []byte) bool {
	r, s := cCuckooContains(f.img, bytesPtr(key), len(key))
	must("Cuckoo.Contains", s)
	return r
}

// ContainsString is Contains for a string key.
func (f *Cuckoo) ContainsString(key string) bool {
	r, s := cCuckooContains(f.img, strPtr(key), len(key))
	must("Cuckoo.ContainsString", s)
	return r
}

// ContainsUint64 is Contains for an integer key.
func (f *Cuckoo) ContainsUint64(key uint64) bool {
	r, s := cCuckooContainsU64(f.img, key)
	must("Cuckoo.ContainsUint64", s)
	return r
}

// Count returns how many copies of key's fingerprint are stored (0..8): at
// least the times key was added and not removed.
func (f *Cuckoo) Count(key []byte) int {
	c, s := cCuckooCount(f.img, bytesPtr(key), len(key))
	must("Cuckoo.Count", s)
	return int(c)
}

// CountString is Count for a string key.
func (f *Cuckoo) CountString(key string) int {
	c, s := cCuckooCount(f.img, strPtr(key), len(key))
	must("Cuckoo.CountString", s)
	return int(c)
}

// CountUint64 is Count for an integer key.
func (f *Cuckoo) CountUint64(key uint64) int {
	var k [8]byte
	binary.LittleEndian.PutUint64(k[:], key)
	return f.Count(k[:])
}

// Remove removes one copy of a byte key; an absent key gives an error
// matching ErrNotPresent and nothing changes. Only remove keys that were
// added: removing a false positive deletes another key's fingerprint.
func (f *Cuckoo) Remove(key []byte) error {
	if f.ro {
		return readOnlyError("Cuckoo.Remove")
	}
	return errorOf("Cuckoo.Remove", cCuckooRemove(f.img, keyApart(key, f.img), len(key)))
}

// RemoveString is Remove for a string key.
func (f *Cuckoo) RemoveString(key string) error {
	if f.ro {
		return readOnlyError("Cuckoo.RemoveString")
	}
	return errorOf("Cuckoo.RemoveString", cCuckooRemove(f.img, strPtr(key), len(key)))
}

// RemoveUint64 is Remove for an integer key.
func (f *Cuckoo) RemoveUint64(key uint64) error {
	if f.ro {
		return readOnlyError("Cuckoo.RemoveUint64")
	}
	return errorOf("Cuckoo.RemoveUint64", cCuckooRemoveU64(f.img, key))
}

// AddHash inserts a key by its precomputed hash: Hash(key, seed) of a
// byte or string key, HashUint64(key, seed) of an integer key, with seed
// the sketch's (Stats().Seed), the XXH3-64 hash every binding computes
// for that key, so AddHash(Hash(k, seed)) is Add(k).
// When it cannot be placed the error matches ErrFull and the filter is
// unchanged. Needs exclusive access.
func (f *Cuckoo) AddHash(h uint64) error {
	if f.ro {
		return readOnlyError("Cuckoo.AddHash")
	}
	return errorOf("Cuckoo.AddHash", cCuckooAddHash(f.img, h))
}

// ContainsHash is Contains for a key given by its precomputed hash
// (computed as for AddHash). Safe for concurrent use with the other
// reading methods.
func (f *Cuckoo) ContainsHash(h uint64) bool {
	r, s := cContainsHash(FamilyCuckoo, f.img, nil, h)
	must("Cuckoo.ContainsHash", s)
	return r
}

// RemoveHash is Remove for a key given by its precomputed hash (computed
// as for AddHash): an absent one gives an error matching ErrNotPresent and
// nothing changes. Needs exclusive access.
func (f *Cuckoo) RemoveHash(h uint64) error {
	if f.ro {
		return readOnlyError("Cuckoo.RemoveHash")
	}
	return errorOf("Cuckoo.RemoveHash", cRemoveHash(FamilyCuckoo, f.img, h))
}

// AddHashes inserts many precomputed hashes (computed as for AddHash) in
// one call and returns how many were placed; when some did not fit
// (nothing changed for them) the error matches ErrFull. Needs exclusive
// access.
func (f *Cuckoo) AddHashes(hashes []uint64) (int, error) {
	if f.ro {
		return 0, readOnlyError("Cuckoo.AddHashes")
	}
	return cuckooBatch(f.img, "Cuckoo.AddHashes", len(hashes), false, func() int32 {
		return cFilterAddHashes(FamilyCuckoo, f.img, hashes, nil)
	})
}

// RemoveHashes removes one stored copy of each of many precomputed hashes
// and returns how many were removed; when some had no stored copy the
// error matches ErrNotPresent (see RemoveStrings). Needs exclusive access.
func (f *Cuckoo) RemoveHashes(hashes []uint64) (int, error) {
	if f.ro {
		return 0, readOnlyError("Cuckoo.RemoveHashes")
	}
	return cuckooBatch(f.img, "Cuckoo.RemoveHashes", len(hashes), true, func() int32 {
		return cRemoveHashes(FamilyCuckoo, f.img, hashes, nil)
	})
}

// ContainsHashes answers ContainsHash for many precomputed hashes into
// results (see Bloom.ContainsHashes). Safe for concurrent use with the
// other reading methods.
func (f *Cuckoo) ContainsHashes(hashes []uint64, results []bool) []bool {
	out := boolsFor(results, len(hashes))
	must("Cuckoo.ContainsHashes", cFilterContainsHashes(FamilyCuckoo, f.img, hashes, out))
	return out
}

// AddStrings inserts many string keys (packed batches) and returns how
// many were placed; when some did not fit (nothing changed for them) the
// error matches ErrFull.
func (f *Cuckoo) AddStrings(keys []string) (int, error) {
	if f.ro {
		return 0, readOnlyError("Cuckoo.AddStrings")
	}
	return cuckooBatch(f.img, "Cuckoo.AddStrings", len(keys), false, func() int32 {
		return filterAdd(FamilyCuckoo, f.img, keys, nil)
	})
}

// AddBytes inserts many byte keys (see AddStrings).
func (f *Cuckoo) AddBytes(keys [][]byte) (int, error) {
	if f.ro {
		return 0, readOnlyError("Cuckoo.AddBytes")
	}
	return cuckooBatch(f.img, "Cuckoo.AddBytes", len(keys), false, func() int32 {
		return filterAdd(FamilyCuckoo, f.img, keys, nil)
	})
}

// AddUint64s inserts many integer keys in one call (see AddStrings).
func (f *Cuckoo) AddUint64s(keys []uint64) (int, error) {
	if f.ro {
		return 0, readOnlyError("Cuckoo.AddUint64s")
	}
	return cuckooBatch(f.img, "Cuckoo.AddUint64s", len(keys), false, func() int32 {
		return cFilterAddU64s(FamilyCuckoo, f.img, keys, nil)
	})
}

// RemoveStrings removes one stored copy of each of many string keys
// (packed batches) and returns how many were removed; when some had no
// stored copy (nothing changed for them, the others are still removed) the
// error matches ErrNotPresent. As with Remove, only remove keys that were
// added.
func (f *Cuckoo) RemoveStrings(keys []string) (int, error) {
	if f.ro {
		return 0, readOnlyError("Cuckoo.RemoveStrings")
	}
	return cuckooBatch(f.img, "Cuckoo.RemoveStrings", len(keys), true, func() int32 {
		return packed(keys, func(_ int, data []byte, offs []uint32) int32 {
			return cCuckooRemovePacked(f.img, data, offs, nil)
		})
	})
}

// RemoveBytes removes many byte keys (see RemoveStrings).
func (f *Cuckoo) RemoveBytes(keys [][]byte) (int, error) {
	if f.ro {
		return 0, readOnlyError("Cuckoo.RemoveBytes")
	}
	return cuckooBatch(f.img, "Cuckoo.RemoveBytes", len(keys), true, func() int32 {
		return packed(keys, func(_ int, data []byte, offs []uint32) int32 {
			return cCuckooRemovePacked(f.img, data, offs, nil)
		})
	})
}

// RemoveUint64s removes many integer keys in one call (see RemoveStrings).
func (f *Cuckoo) RemoveUint64s(keys []uint64) (int, error) {
	if f.ro {
		return 0, readOnlyError("Cuckoo.RemoveUint64s")
	}
	return cuckooBatch(f.img, "Cuckoo.RemoveUint64s", len(keys), true, func() int32 {
		return cCuckooRemoveU64s(f.img, keys, nil)
	})
}

// cuckooBatch runs a batch add (or removal, remove = true) of n keys that
// asks the library for no per-key flags (the batch goes on past a key that
// does not fit or is absent) and counts the keys placed (removed) from the
// stored-item count before and after, an O(1) read: no per-key output to
// allocate. An image error (a zero value's, for example) is returned as is.
func cuckooBatch(b []byte, op string, n int, remove bool, run func() int32) (int, error) {
	before, s := cCuckooStats(b)
	if s != 0 {
		return 0, errorOf(op, s)
	}
	rs := run()
	after, s := cCuckooStats(b)
	if s != 0 {
		return 0, errorOf(op, s)
	}
	done, code, what := int(after.Items-before.Items), StatusFull, " did not fit"
	if remove {
		done, code, what = int(before.Items-after.Items), StatusNotPresent, " were not present"
	}
	if rs != 0 {
		return done, errorOf(op, rs)
	}
	if done < n {
		return done, &Error{Code: code, Op: op, Detail: itoa(n-done) + " of " + itoa(n) + " keys" + what}
	}
	return done, nil
}

// ContainsStrings answers Contains for many string keys into results (see
// Bloom.ContainsStrings).
func (f *Cuckoo) ContainsStrings(keys []string, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("Cuckoo.ContainsStrings", filterContains(FamilyCuckoo, f.img, keys, out))
	return out
}

// ContainsBytes answers Contains for many byte keys.
func (f *Cuckoo) ContainsBytes(keys [][]byte, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("Cuckoo.ContainsBytes", filterContains(FamilyCuckoo, f.img, keys, out))
	return out
}

// ContainsUint64s answers Contains for many integer keys.
func (f *Cuckoo) ContainsUint64s(keys []uint64, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("Cuckoo.ContainsUint64s", cFilterContainsU64s(FamilyCuckoo, f.img, keys, out))
	return out
}

// Merge inserts every fingerprint of other into f, all or nothing: when
// they do not all fit the error matches ErrFull and f is unchanged. Same
// buckets, width and seed required (else ErrIncompatible). It uses a
// temporary buffer of f's size. other may be f itself: every fingerprint
// is then stored twice, if they fit (see Bloom.Union).
func (f *Cuckoo) Merge(other *Cuckoo) error {
	if f.ro {
		return readOnlyError("Cuckoo.Merge")
	}
	const op = "Cuckoo.Merge"
	scratch, err := newImage(op, uint64(len(f.img)))
	if err != nil {
		return err
	}
	return errorOf(op, cCuckooMerge(f.img, mergeSource(f.img, other.image()), scratch))
}

// Stats returns the filter's statistics, O(1).
func (f *Cuckoo) Stats() CuckooStats {
	st, s := cCuckooStats(f.img)
	must("Cuckoo.Stats", s)
	return st
}

// OverCapacity returns the over-capacity signal, O(1): 0 while within the plan.
func (f *Cuckoo) OverCapacity() CapacityFlags {
	c, s := cFilterCapacity(FamilyCuckoo, f.img)
	must("Cuckoo.OverCapacity", s)
	return c
}

// Clear removes every item.
func (f *Cuckoo) Clear() {
	mustWritable(f.ro, "Cuckoo.Clear")
	must("Cuckoo.Clear", cClear(FamilyCuckoo, f.img))
}

// Size returns the image size in bytes.
func (f *Cuckoo) Size() int { return len(f.img) }

// String describes the filter in one line for fmt and logs: its type, image
// size and seed ("<nil>" for a nil pointer), not the image bytes.
func (f *Cuckoo) String() string {
	if f == nil {
		return "<nil>"
	}
	return describe(FamilyCuckoo, f.img)
}

// Format prints String's description under any verb, also for a Cuckoo
// held by value (see Bloom.Format).
func (f Cuckoo) Format(s fmt.State, verb rune) { formatSketch(s, verb, FamilyCuckoo, f.img) }

// Clone returns an independent copy in new Go memory.
func (f *Cuckoo) Clone() *Cuckoo { return &Cuckoo{img: cloneImage(f.img)} }

// MarshalBinary returns the exported image (copy with checksum).
func (f Cuckoo) MarshalBinary() ([]byte, error) { return f.AppendBinary(nil) }

// AppendBinary appends the exported image to b.
func (f Cuckoo) AppendBinary(b []byte) ([]byte, error) {
	return appendExport("Cuckoo.MarshalBinary", FamilyCuckoo, f.img, len(f.img), b)
}

// UnmarshalBinary replaces f with the checked filter in data (see
// Bloom.UnmarshalBinary).
func (f *Cuckoo) UnmarshalBinary(data []byte) error {
	if f.ro {
		return readOnlyError("Cuckoo.UnmarshalBinary")
	}
	b, err := importImage("Cuckoo.UnmarshalBinary", data, FamilyCuckoo)
	if err != nil {
		return err
	}
	f.img = b
	return nil
}

// MarshalText returns the text form of the filter: the standard, padded base64
// of MarshalBinary's bytes, a string in JSON (see Bloom.MarshalText). It
// only reads f, like MarshalBinary.
func (f Cuckoo) MarshalText() ([]byte, error) { return f.AppendText(nil) }

// AppendText appends the text form of MarshalText to b.
func (f Cuckoo) AppendText(b []byte) ([]byte, error) { return appendText("Cuckoo.MarshalText", b, &f) }

// UnmarshalText replaces f with the filter whose text form is text, checked
// as UnmarshalBinary checks it: text that is not padded standard base64,
// and damaged or truncated images, give an error matching ErrCorrupt and
// f is then unchanged (see Bloom.UnmarshalText). It writes f.
func (f *Cuckoo) UnmarshalText(text []byte) error {
	if f.ro {
		return readOnlyError("Cuckoo.UnmarshalText")
	}
	return unmarshalText("Cuckoo.UnmarshalText", text, f)
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
// error. ReadCuckoo reads the image back.
func (f Cuckoo) WriteTo(w io.Writer) (int64, error) {
	return writeImage("Cuckoo.WriteTo", FamilyCuckoo, f.img, len(f.img), w)
}

// ReadCuckoo reads exactly one Cuckoo image from r, such as one WriteTo or
// MarshalBinary wrote, and checks it as UnmarshalBinary does; the rules,
// memory bounds and errors are ReadBloom's (io.EOF at the end of the
// stream, ErrCorrupt with io.ErrUnexpectedEOF for a cut image,
// ErrWrongFamily for another family's image).
func ReadCuckoo(r io.Reader) (*Cuckoo, error) {
	img, err := readLive("ReadCuckoo", r, FamilyCuckoo)
	if err != nil {
		return nil, err
	}
	return &Cuckoo{img: img}, nil
}
