package sketches

import (
	"fmt"
	"io"
)

// Bloom is a classic Bloom filter: k probes per key into m bits, enhanced
// double hashing with 64-bit indexes (filters above 2^32 bits keep their
// rate), add-and-report-new for dedup, union and intersection, and an O(1)
// over-capacity signal (OverCapacity) for the "planned for 100k, got 1M"
// failure.
//
// Its image lives in Go memory (a []uint64, or the caller's bytes for
// WrapBloom): nothing to free, no finalizer. The zero value holds no image;
// only UnmarshalBinary (or UnmarshalText) may be called on it.
//
// Concurrency: the methods that only read (Contains*, Stats, OverCapacity,
// Size, Clone, MarshalBinary, AppendBinary, MarshalText, AppendText, WriteTo,
// ReadOnly) may run
// concurrently on one filter; the methods that change it (Add*, Union, Merge,
// Intersect, Clear, UnmarshalBinary, UnmarshalText) need exclusive access,
// for example under a sync.RWMutex.
//
// The Concurrent methods (AddConcurrent, AddConcurrentString,
// AddConcurrentUint64, AddConcurrentStrings, AddConcurrentBytes,
// AddConcurrentUint64s, AddConcurrentHash, AddConcurrentStringsReportNew
// the ContainsConcurrent forms, ContainsConcurrentHash(es) included, and
// OverCapacityConcurrent) are the exception: any number of goroutines
// may call them at once on one filter, with no lock (the library sets and
// tests bits with atomic operations on the image's 64-bit words). While
// any of them runs, no other method may be called on the filter, the
// reading ones included (Contains, Stats, MarshalBinary, Clone, ...: they
// read without atomics). Once those goroutines are done (joined, for
// example with sync.WaitGroup.Wait), every method may be used again: the
// bits, AddCalls and SetBits (and Fill, EstimatedItems and EstimatedFPR,
// computed from the bits) equal those of the same adds made one at a time,
// while Inserted (adds that set a new bit) depends on the order of the
// adds, and so may the OverPlannedItems flag computed from it.
//
// Read-only: a sketch from WrapBloomReadOnly (a file mapped PROT_READ, say)
// never writes its image. Its changing methods refuse before touching
// it, with an error matching ErrReadOnly: returned by those with an
// error result, the panic value of the others (recover catches it, where
// a write to the mapping would kill the process); its reading methods,
// Clone (a writable copy), MarshalBinary and WriteTo work as usual.
type Bloom struct {
	img []byte
	ro  bool       // a read-only wrap: the changing methods refuse (see WrapBloomReadOnly)
	tok imageToken // img's token for the single-key calls (see imageToken)
}

// bloomOf returns the filter of the live image b, with its token.
func bloomOf(b []byte) *Bloom { return &Bloom{img: b, tok: tokenOf(FamilyBloom, b)} }

// retoken refreshes the token after the image was replaced or rewritten
// (only where the image is written under exclusive access).
func (f *Bloom) retoken() { f.tok = tokenOf(FamilyBloom, f.img) }

// BloomParams are the parameters of a Bloom filter (and of a counting
// Bloom filter, where Bits counts 4-bit counters).
type BloomParams struct {
	Bits         uint64  // number of bits m (1 ..= 2^56)
	Hashes       uint32  // probes per key k (1 ..= 64)
	PlannedItems uint64  // items the filter is planned for (drives the over-capacity signal)
	PlannedFPR   float64 // false-positive rate planned at PlannedItems, in (0, 1)
}

// BloomStats are the statistics of a Bloom filter (Stats).
type BloomStats struct {
	Params         BloomParams   // the filter's parameters
	Seed           uint64        // hash seed
	AddCalls       uint64        // number of add calls, duplicates included
	Inserted       uint64        // add calls that set at least one new bit (about the distinct items)
	SetBits        uint64        // number of set bits
	Fill           float64       // fraction of bits set, 0..1
	EstimatedItems float64       // distinct items estimated from the set bits (+Inf when all are set)
	EstimatedFPR   float64       // current false-positive rate estimated from the set bits, (set/m)^k
	Capacity       CapacityFlags // over-capacity flags, 0 while within the plan
}

// PlanBloom plans a filter for items expected distinct items at
// false-positive rate fpr: m = ceil(-n ln p / ln^2 2) bits and
// k = round(m/n ln 2) probes. Errors (ErrInvalidParameter): items 0, fpr
// outside (0, 1), m above 2^56.
func PlanBloom(items uint64, fpr float64) (BloomParams, error) {
	p, s := cBloomPlan(items, fpr)
	return p, paramError("PlanBloom", s, "items "+utoa(items)+", fpr "+ftoa(fpr))
}

// PlanBloomBits plans a filter of explicit bits and hashes; the planned
// items are floor(m ln 2 / k) and the planned rate the classic formula at
// that count.
func PlanBloomBits(bits uint64, hashes uint32) (BloomParams, error) {
	p, s := cBloomPlanBits(bits, hashes)
	return p, paramError("PlanBloomBits", s, "bits "+utoa(bits)+", hashes "+utoa(uint64(hashes)))
}

// BloomSize returns the image size in bytes of NewBloom(items, fpr) without
// building it (the Size() of that filter). Errors as for PlanBloom.
func BloomSize(items uint64, fpr float64) (uint64, error) {
	p, err := PlanBloom(items, fpr)
	if err != nil {
		return 0, err
	}
	return BloomSizeWithParams(p)
}

// BloomSizeWithParams returns the image size in bytes of
// NewBloomWithParams(p) without building it.
func BloomSizeWithParams(p BloomParams) (uint64, error) {
	n, s := cBloomSize(p, false)
	return n, paramError("BloomSize", s, fmt.Sprintf("%+v", p))
}

// NewBloom returns an empty filter planned for items distinct items at
// false-positive rate fpr (see PlanBloom). Its memory is Size() bytes,
// about 1.2 bytes per item at 1%.
func NewBloom(items uint64, fpr float64, opts ...Option) (*Bloom, error) {
	p, err := PlanBloom(items, fpr)
	if err != nil {
		return nil, err
	}
	return NewBloomWithParams(p, opts...)
}

// NewBloomWithParams returns an empty filter with explicit parameters.
func NewBloomWithParams(p BloomParams, opts ...Option) (*Bloom, error) {
	const op = "NewBloom"
	o := applyOptions(opts)
	n, s := cBloomSize(p, false)
	if s != 0 {
		return nil, paramError(op, s, fmt.Sprintf("%+v", p))
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cBloomInit(b, p, o.seed, false); s != 0 {
		return nil, paramError(op, s, fmt.Sprintf("%+v", p))
	}
	return bloomOf(b), nil
}

// WrapBloom uses b, a Bloom image in memory the caller owns (for example an
// mmap'ed file written from MarshalBinary), without copying: the filter
// reads and writes b itself, which must stay valid and unchanged by others
// while the filter is in use. A read-only mapping allows only the reading
// methods: a changing one writes b, which faults and kills the process;
// wrap such memory with WrapBloomReadOnly instead, whose changing methods
// refuse with ErrReadOnly (the same holds for every Wrap function). b must start on an 8-byte boundary (else an error matching
// ErrMisaligned) and hold a sound header (bytes that are not an image, or
// fewer than the header or the length it records, such as a file cut short,
// give an error matching ErrCorrupt; another family's image
// ErrWrongFamily). b must be memory of its own (an
// mmap'ed file, a []byte or []uint64 allocation), not a field of a Go
// object that also holds pointers: cgo's run-time check of the image
// argument scans the whole object and would panic on such a filter's
// calls (UnmarshalBinary, which copies, takes such bytes). The body and
// checksum are not checked: every operation stays memory-safe whatever the
// body holds, but a body the format forbids can give wrong answers, and
// can make a later call panic with an *Error matching ErrCorrupt (the
// library may find its header inconsistent after updating such a body).
// Call Verify first for bytes you did not write.
//
// The changing methods update b in place but not its checksum (only an
// export writes one), so after them b no longer verifies: Verify,
// UnmarshalBinary and a later process's checks report a checksum mismatch
// (matching ErrCorrupt) although nothing is damaged. To leave a file that
// verifies (a read-write mapping kept as the filter's storage), write the
// export back over the buffer when done, copy(b, img) with img from
// MarshalBinary (the same length as the live image for every family but a
// small HLL, whose export is compact), before unmapping. The same holds
// for every Wrap function.
//
// UnmarshalBinary and UnmarshalText on a wrapped filter replace its image
// with a checked copy in Go memory: from then on the filter neither reads
// nor writes b, and the file behind a mapping keeps its old bytes. To load
// an image into b, Verify it, copy it over b (the lengths must match) and
// wrap b again. The same holds for every Wrap function.
func WrapBloom(b []byte) (*Bloom, error) {
	img, err := wrapImage("WrapBloom", b, FamilyBloom, func(b []byte) int32 {
		_, s := cFilterCapacity(FamilyBloom, b)
		return s
	})
	if err != nil {
		return nil, err
	}
	return bloomOf(img), nil
}

// WrapBloomReadOnly is WrapBloom for memory that must never be written, such as
// a file mapped with PROT_READ: b is used in place as WrapBloom uses it
// (the same alignment, header and family checks and errors, with Op
// "WrapBloomReadOnly"), and every method that would change the sketch
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
// WrapBloom: a read-only sketch only reads, so any number of goroutines may
// query it at once, while nothing else writes b.
func WrapBloomReadOnly(b []byte) (*Bloom, error) {
	s, err := WrapBloom(b)
	if err != nil {
		return nil, withOp(err, "WrapBloomReadOnly")
	}
	s.ro = true
	return s, nil
}

// ReadOnly reports whether the sketch is a read-only wrap (WrapBloomReadOnly),
// whose changing methods refuse with ErrReadOnly. Safe for concurrent use.
func (f *Bloom) ReadOnly() bool { return f.ro }

// Add adds a byte key and reports whether it was new to the filter (some
// probed bit was unset): test-and-insert for dedup in one call.
func (f *Bloom) Add(key []byte) bool {
	mustWritable(f.ro, "Bloom.Add")
	n, s := cBloomAdd(f.img, &f.tok, keyApart(key, f.img), len(key))
	must("Bloom.Add", s)
	return n
}

// AddString adds a string key (its UTF-8 bytes) and reports whether it was new.
func (f *Bloom) AddString(key string) bool {
	mustWritable(f.ro, "Bloom.AddString")
	n, s := cBloomAdd(f.img, &f.tok, strPtr(key), len(key))
	must("Bloom.AddString", s)
	return n
}

// AddUint64 adds an integer key (hashed as its 8 little-endian bytes) and
// reports whether it was new.
func (f *Bloom) AddUint64(key uint64) bool {
	mustWritable(f.ro, "Bloom.AddUint64")
	n, s := cBloomAddU64(f.img, &f.tok, key)
	must("Bloom.AddUint64", s)
	return n
}

// Contains reports false when key was certainly never added, true when it
// may have been.
func (f *Bloom) Contains(key []byte) bool {
	r, s := cBloomContains(f.img, &f.tok, bytesPtr(key), len(key))
	must("Bloom.Contains", s)
	return r
}

// ContainsString is Contains for a string key.
func (f *Bloom) ContainsString(key string) bool {
	r, s := cBloomContains(f.img, &f.tok, strPtr(key), len(key))
	must("Bloom.ContainsString", s)
	return r
}

// ContainsUint64 is Contains for an integer key.
func (f *Bloom) ContainsUint64(key uint64) bool {
	r, s := cBloomContainsU64(f.img, &f.tok, key)
	must("Bloom.ContainsUint64", s)
	return r
}

// AddHash adds a key by its precomputed hash: Hash(key, seed) of a byte
// or string key, HashUint64(key, seed) of an integer key, with seed the
// sketch's (Stats().Seed), the XXH3-64 hash every binding computes for
// that key, so AddHash(Hash(k, seed)) is Add(k),
// and reports whether it was new (as Add). For keys hashed once and used
// with several sketches. Needs exclusive access.
func (f *Bloom) AddHash(h uint64) bool {
	mustWritable(f.ro, "Bloom.AddHash")
	n, s := cAddHash(FamilyBloom, f.img, &f.tok, h)
	must("Bloom.AddHash", s)
	return n
}

// ContainsHash is Contains for a key given by its precomputed hash
// (computed as for AddHash). Safe for concurrent use with the other
// reading methods.
func (f *Bloom) ContainsHash(h uint64) bool {
	r, s := cContainsHash(FamilyBloom, f.img, &f.tok, h)
	must("Bloom.ContainsHash", s)
	return r
}

// AddHashes adds many precomputed hashes (computed as for AddHash) in one
// call, as AddHash does one by one. Needs exclusive access.
func (f *Bloom) AddHashes(hashes []uint64) {
	mustWritable(f.ro, "Bloom.AddHashes")
	must("Bloom.AddHashes", cFilterAddHashes(FamilyBloom, f.img, hashes, nil))
}

// ContainsHashes answers ContainsHash for many precomputed hashes:
// results[i] for hashes[i], written into results when it has room for
// len(hashes) (pass nil to allocate). Returns the results slice. Safe for
// concurrent use with the other reading methods.
func (f *Bloom) ContainsHashes(hashes []uint64, results []bool) []bool {
	out := boolsFor(results, len(hashes))
	must("Bloom.ContainsHashes", cFilterContainsHashes(FamilyBloom, f.img, hashes, out))
	return out
}

// AddStrings adds many string keys, crossing into C once per few thousand
// keys (packed batches).
func (f *Bloom) AddStrings(keys []string) {
	mustWritable(f.ro, "Bloom.AddStrings")
	must("Bloom.AddStrings", filterAdd(FamilyBloom, f.img, keys, nil))
}

// AddBytes adds many byte keys (packed batches).
func (f *Bloom) AddBytes(keys [][]byte) {
	mustWritable(f.ro, "Bloom.AddBytes")
	must("Bloom.AddBytes", filterAdd(FamilyBloom, f.img, keys, nil))
}

// AddUint64s adds many integer keys in one call.
func (f *Bloom) AddUint64s(keys []uint64) {
	mustWritable(f.ro, "Bloom.AddUint64s")
	must("Bloom.AddUint64s", cFilterAddU64s(FamilyBloom, f.img, keys, nil))
}

// AddStringsReportNew adds many string keys and reports per key whether it
// was new (dedup of a batch): the answers go to results when it has room
// for len(keys), else to a new slice, which is returned.
func (f *Bloom) AddStringsReportNew(keys []string, results []bool) []bool {
	mustWritable(f.ro, "Bloom.AddStringsReportNew")
	out := boolsFor(results, len(keys))
	must("Bloom.AddStringsReportNew", filterAdd(FamilyBloom, f.img, keys, out))
	return out
}

// ContainsStrings answers Contains for many string keys: results[i] for
// keys[i], written into results when it has room for len(keys) (pass nil to
// allocate). Returns the results slice.
func (f *Bloom) ContainsStrings(keys []string, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("Bloom.ContainsStrings", filterContains(FamilyBloom, f.img, keys, out))
	return out
}

// ContainsBytes answers Contains for many byte keys (see ContainsStrings).
func (f *Bloom) ContainsBytes(keys [][]byte, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("Bloom.ContainsBytes", filterContains(FamilyBloom, f.img, keys, out))
	return out
}

// ContainsUint64s answers Contains for many integer keys (see ContainsStrings).
func (f *Bloom) ContainsUint64s(keys []uint64, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("Bloom.ContainsUint64s", cFilterContainsU64s(FamilyBloom, f.img, keys, out))
	return out
}

// AddConcurrent adds a byte key and reports whether it was new (this call
// set a probed bit no earlier add had set), like Add, with atomic
// operations: any number of goroutines may call it, and the other
// Concurrent methods, at once on one filter, while no other method runs on
// it (see the type's Concurrency paragraph). Of racing adds of one key,
// more than one may report it new (each set one of its bits first).
func (f *Bloom) AddConcurrent(key []byte) bool {
	mustWritable(f.ro, "Bloom.AddConcurrent")
	n, s := cBloomAddConcurrent(f.img, keyApart(key, f.img), len(key))
	must("Bloom.AddConcurrent", s)
	return n
}

// AddConcurrentString is AddConcurrent for a string key (its UTF-8
// bytes): safe for any number of goroutines at once on one filter while
// only Concurrent methods run on it.
func (f *Bloom) AddConcurrentString(key string) bool {
	mustWritable(f.ro, "Bloom.AddConcurrentString")
	n, s := cBloomAddConcurrent(f.img, strPtr(key), len(key))
	must("Bloom.AddConcurrentString", s)
	return n
}

// AddConcurrentUint64 is AddConcurrent for an integer key (its 8
// little-endian bytes): safe for any number of goroutines at once on one
// filter while only Concurrent methods run on it.
func (f *Bloom) AddConcurrentUint64(key uint64) bool {
	mustWritable(f.ro, "Bloom.AddConcurrentUint64")
	n, s := cBloomAddConcurrentU64(f.img, key)
	must("Bloom.AddConcurrentUint64", s)
	return n
}

// AddConcurrentStrings is AddStrings (packed batches, one C call per few
// thousand keys) with atomic operations: safe for any number of goroutines
// at once on one filter while only Concurrent methods run on it. The
// header counters are updated once per C call.
func (f *Bloom) AddConcurrentStrings(keys []string) {
	mustWritable(f.ro, "Bloom.AddConcurrentStrings")
	must("Bloom.AddConcurrentStrings", filterAddConcurrent(FamilyBloom, f.img, keys, nil))
}

// AddConcurrentBytes is AddBytes with atomic operations: safe for any
// number of goroutines at once on one filter while only Concurrent methods
// run on it.
func (f *Bloom) AddConcurrentBytes(keys [][]byte) {
	mustWritable(f.ro, "Bloom.AddConcurrentBytes")
	must("Bloom.AddConcurrentBytes", filterAddConcurrent(FamilyBloom, f.img, keys, nil))
}

// AddConcurrentUint64s is AddUint64s with atomic operations: safe for any
// number of goroutines at once on one filter while only Concurrent methods
// run on it.
func (f *Bloom) AddConcurrentUint64s(keys []uint64) {
	mustWritable(f.ro, "Bloom.AddConcurrentUint64s")
	must("Bloom.AddConcurrentUint64s", cFilterAddConcurrentU64s(FamilyBloom, f.img, keys, nil))
}

// AddConcurrentStringsReportNew is AddStringsReportNew with atomic
// operations: safe for any number of goroutines at once on one filter
// while only Concurrent methods run on it. A key is reported new when its
// add set a bit no earlier add had set: of racing adds of one key (across
// goroutines), more than one may report it new. The answers go to results
// when it has room for len(keys), else to a new slice, which is returned.
func (f *Bloom) AddConcurrentStringsReportNew(keys []string, results []bool) []bool {
	mustWritable(f.ro, "Bloom.AddConcurrentStringsReportNew")
	out := boolsFor(results, len(keys))
	must("Bloom.AddConcurrentStringsReportNew", filterAddConcurrent(FamilyBloom, f.img, keys, out))
	return out
}

// ContainsConcurrent is Contains with atomic loads: any number of
// goroutines may call it while others add through the Concurrent methods
// (and no other method runs on the filter). It sees every add that
// returned before it started; an add still running may or may not be seen.
func (f *Bloom) ContainsConcurrent(key []byte) bool {
	r, s := cBloomContainsConcurrent(f.img, keyApart(key, f.img), len(key))
	must("Bloom.ContainsConcurrent", s)
	return r
}

// ContainsConcurrentString is ContainsConcurrent for a string key: safe
// while other goroutines add through the Concurrent methods.
func (f *Bloom) ContainsConcurrentString(key string) bool {
	r, s := cBloomContainsConcurrent(f.img, strPtr(key), len(key))
	must("Bloom.ContainsConcurrentString", s)
	return r
}

// ContainsConcurrentUint64 is ContainsConcurrent for an integer key: safe
// while other goroutines add through the Concurrent methods.
func (f *Bloom) ContainsConcurrentUint64(key uint64) bool {
	r, s := cBloomContainsConcurrentU64(f.img, key)
	must("Bloom.ContainsConcurrentUint64", s)
	return r
}

// ContainsConcurrentStrings is ContainsStrings with atomic loads: safe
// while other goroutines add through the Concurrent methods (see
// ContainsConcurrent for which adds it sees). results[i] answers keys[i],
// written into results when it has room for len(keys) (nil allocates).
func (f *Bloom) ContainsConcurrentStrings(keys []string, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("Bloom.ContainsConcurrentStrings", filterContainsConcurrent(FamilyBloom, f.img, keys, out))
	return out
}

// ContainsConcurrentBytes is ContainsBytes with atomic loads: safe while
// other goroutines add through the Concurrent methods.
func (f *Bloom) ContainsConcurrentBytes(keys [][]byte, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("Bloom.ContainsConcurrentBytes", filterContainsConcurrent(FamilyBloom, f.img, keys, out))
	return out
}

// ContainsConcurrentUint64s is ContainsUint64s with atomic loads: safe
// while other goroutines add through the Concurrent methods.
func (f *Bloom) ContainsConcurrentUint64s(keys []uint64, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("Bloom.ContainsConcurrentUint64s", cFilterContainsConcurrentU64s(FamilyBloom, f.img, keys, out))
	return out
}

// AddConcurrentHash is AddHash (a precomputed hash, computed as for
// AddHash) with atomic operations: safe for any number of goroutines at
// once on one filter while only Concurrent methods run on it, and reports
// whether it was new as AddConcurrent does.
func (f *Bloom) AddConcurrentHash(h uint64) bool {
	mustWritable(f.ro, "Bloom.AddConcurrentHash")
	n, s := cAddConcurrentHash(FamilyBloom, f.img, h)
	must("Bloom.AddConcurrentHash", s)
	return n
}

// ContainsConcurrentHash is ContainsHash with atomic loads: safe while
// other goroutines add through the Concurrent methods (see
// ContainsConcurrent).
func (f *Bloom) ContainsConcurrentHash(h uint64) bool {
	r, s := cContainsConcurrentHash(FamilyBloom, f.img, h)
	must("Bloom.ContainsConcurrentHash", s)
	return r
}

// ContainsConcurrentHashes is ContainsHashes with atomic loads: safe while
// other goroutines add through the Concurrent methods.
func (f *Bloom) ContainsConcurrentHashes(hashes []uint64, results []bool) []bool {
	out := boolsFor(results, len(hashes))
	must("Bloom.ContainsConcurrentHashes", cContainsConcurrentHashes(FamilyBloom, f.img, hashes, out))
	return out
}

// Union sets f to the union of f and other (bitwise OR): f then answers
// true for every key added to either. Both need equal bits, hashes and seed
// (else an error matching ErrIncompatible, and f is unchanged). other may
// be f itself, or a struct copy sharing its image (an accumulator that is
// also one of the parts it loops over): the merge then reads a temporary
// copy, as f.Union(f.Clone()) does. A nil or zero-value other gives an
// *Error matching ErrNoImage and f is unchanged. The same
// holds for every type's Merge, Union and Intersect, and MinHash.Jaccard.
func (f *Bloom) Union(other *Bloom) error {
	if f.ro {
		return readOnlyError("Bloom.Union")
	}
	s := cMerge(FamilyBloom, f.img, mergeSource(f.img, other.image()))
	f.retoken()
	return errorOf("Bloom.Union", s)
}

// Merge is Union under the name every other family's merge has, so code
// generic over sketches (an aggregator of per-shard sketches constrained by
// interface{ Merge(*T) error }) takes Bloom filters too.
func (f *Bloom) Merge(other *Bloom) error {
	if f.ro {
		return readOnlyError("Bloom.Merge")
	}
	return withOp(f.Union(other), "Bloom.Merge")
}

// Intersect sets f to the intersection of f and other (bitwise AND). Same
// rules as Union.
func (f *Bloom) Intersect(other *Bloom) error {
	if f.ro {
		return readOnlyError("Bloom.Intersect")
	}
	s := cIntersect(FamilyBloom, f.img, mergeSource(f.img, other.image()))
	f.retoken()
	return errorOf("Bloom.Intersect", s)
}

// Stats returns the filter's statistics, O(1).
func (f *Bloom) Stats() BloomStats {
	st, s := cBloomStats(f.img)
	must("Bloom.Stats", s)
	return st
}

// OverCapacity returns the over-capacity signal, O(1): 0 while the filter
// is within its plan, else which limit it is past. Cheap enough to call
// after every batch.
func (f *Bloom) OverCapacity() CapacityFlags {
	c, s := cFilterCapacity(FamilyBloom, f.img)
	must("Bloom.OverCapacity", s)
	return c
}

// OverCapacityConcurrent is OverCapacity read with atomic loads: any number
// of goroutines may call it while others add through the Concurrent
// methods, so a service can watch for "planned for 100k, got 1M" and
// rotate the filter without stopping its writers. Its cost is
// OverCapacity's. Exact once the adding goroutines are done; while they
// run, each counter reads as a value it passed through, so a flag can show
// an add or two late. It panics with an *Error on a zero-value Bloom, as
// OverCapacity does.
func (f *Bloom) OverCapacityConcurrent() CapacityFlags {
	c, s := cFilterCapacityConcurrent(FamilyBloom, f.img)
	must("Bloom.OverCapacityConcurrent", s)
	return c
}

// Clear removes every key; parameters and seed stay.
func (f *Bloom) Clear() {
	mustWritable(f.ro, "Bloom.Clear")
	must("Bloom.Clear", cClear(FamilyBloom, f.img))
	f.retoken()
}

// Size returns the image size in bytes: the memory the filter uses, and the
// length of MarshalBinary's output.
func (f *Bloom) Size() int { return len(f.img) }

// String describes the filter in one line for fmt and logs: its type, image
// size and seed ("<nil>" for a nil pointer), not the image bytes.
func (f *Bloom) String() string {
	if f == nil {
		return "<nil>"
	}
	return describe(FamilyBloom, f.img)
}

// Format prints String's description (fmt.Formatter) under any verb, with
// a value receiver: a Bloom held by value, a field of a struct logged with
// %v or %+v or *f, prints that one line too, not its image bytes (fmt
// cannot reach String's pointer receiver from a value). A nil *Bloom prints
// "<nil>".
func (f Bloom) Format(s fmt.State, verb rune) { formatSketch(s, verb, FamilyBloom, f.img) }

// Clone returns an independent copy in new Go memory.
func (f *Bloom) Clone() *Bloom { return bloomOf(cloneImage(f.img)) }

// MarshalBinary returns the exported image (a copy with its checksum
// written): the bytes every binding reads, byte for byte. Like MarshalText
// it has a value receiver (every type's does), so encoding/gob writes a
// filter held by value in a record encoded by value.
func (f Bloom) MarshalBinary() ([]byte, error) { return f.AppendBinary(nil) }

// AppendBinary appends the exported image to b (encoding.BinaryAppender).
func (f Bloom) AppendBinary(b []byte) ([]byte, error) {
	return appendExport("Bloom.MarshalBinary", FamilyBloom, f.img, len(f.img), b)
}

// UnmarshalBinary replaces f with the filter in data, an exported image
// (from MarshalBinary or any binding), after checking headers, exact
// length and checksum: damaged bytes give an error matching ErrCorrupt
// (another family: ErrWrongFamily), and f is then unchanged. data is copied.
func (f *Bloom) UnmarshalBinary(data []byte) error {
	if f.ro {
		return readOnlyError("Bloom.UnmarshalBinary")
	}
	b, err := importImage("Bloom.UnmarshalBinary", data, FamilyBloom)
	if err != nil {
		return err
	}
	f.img = b
	f.retoken()
	return nil
}

// MarshalText returns the text form of the filter (encoding.TextMarshaler):
// the standard, padded base64 (encoding/base64.StdEncoding) of exactly the
// bytes MarshalBinary returns. encoding/json, encoding/xml and YAML
// libraries then write the filter as a string, the way they write a []byte,
// and base64-decoding that string gives an image every binding imports.
// Errors are MarshalBinary's (an *Error; the zero value has no image to
// export); like MarshalBinary it only reads f, so it may run concurrently
// with the other reading methods.
func (f Bloom) MarshalText() ([]byte, error) { return f.AppendText(nil) }

// AppendText appends the text form of MarshalText to b
// (encoding.TextAppender); on error it returns b unchanged.
func (f Bloom) AppendText(b []byte) ([]byte, error) { return appendText("Bloom.MarshalText", b, &f) }

// UnmarshalText replaces f with the filter whose text form (MarshalText's
// base64) is text (encoding.TextUnmarshaler): the text is decoded and the
// image checked as UnmarshalBinary checks it. Text that is not padded
// standard base64 gives an *Error matching ErrCorrupt (StatusBadMagic,
// the base64 error in its Detail); a damaged or truncated image the
// errors of UnmarshalBinary (ErrCorrupt; another family: ErrWrongFamily).
// On any error f is unchanged. It writes f, so it needs exclusive access,
// like UnmarshalBinary.
func (f *Bloom) UnmarshalText(text []byte) error {
	if f.ro {
		return readOnlyError("Bloom.UnmarshalText")
	}
	return unmarshalText("Bloom.UnmarshalText", text, f)
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
// error. ReadBloom reads the image back.
func (f Bloom) WriteTo(w io.Writer) (int64, error) {
	return writeImage("Bloom.WriteTo", FamilyBloom, f.img, len(f.img), w)
}

// ReadBloom reads exactly one Bloom image from r, such as one WriteTo or
// MarshalBinary wrote, and returns the filter: the 48-byte common header,
// then the rest of the length it records, and no byte more, so images
// written one after another into a file or a socket read back one call
// each (with a bufio.Reader for small reads). The image is then checked
// as UnmarshalBinary checks it (headers, exact length, checksum; damaged
// bytes give an error matching ErrCorrupt) and becomes the filter's image
// without another copy.
//
// Memory grows as bytes arrive: at most 64 KiB before they do, then
// doubling, so a header announcing a huge image on a short stream fails
// without allocating it. To cap what one image may take, pass an
// io.LimitReader: a longer image then fails as truncated.
//
// Errors: io.EOF itself when r ends before the first byte (the end of a
// stream of images); an error matching ErrCorrupt and io.ErrUnexpectedEOF
// (StatusLengthMismatch) when it ends inside the image; ErrCorrupt for
// bytes that are not an image (StatusBadMagic) or whose header records
// impossible lengths; ErrUnsupportedVersion for a newer format major
// version and ErrWrongFamily for another family, both from the header
// alone, before the body is read; r's own errors wrapped with the
// operation, and so are those of a reader that breaks io.Reader's
// contract: a Read reporting a count outside 0..len(p) (an "invalid read
// result" error) or 100 Reads in a row returning nothing and no error
// (io.ErrNoProgress, where io.ReadFull would call it forever). After an
// error the stream's position is inside the image.
// Safe for concurrent use on distinct readers.
func ReadBloom(r io.Reader) (*Bloom, error) {
	img, err := readLive("ReadBloom", r, FamilyBloom)
	if err != nil {
		return nil, err
	}
	return bloomOf(img), nil
}
