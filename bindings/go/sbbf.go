package sketches

import (
	"fmt"
	"io"
)

// SplitBlock is a split-block Bloom filter: 256-bit blocks, one cache line
// per operation, the fastest filter of the library. Built with
// NewSplitBlockParquet it is byte-compatible with Parquet's split-block
// filters (XXH64 seed 0 of the value's bytes as Parquet hashes them: the
// PLAIN encoding of fixed-width values, the raw bytes of a BYTE_ARRAY
// without its length prefix; Bitset returns the bitset a Parquet writer
// stores).
//
// Its image lives in Go memory (a []uint64, 64-byte aligned so each block
// sits in one cache line, or the caller's bytes for WrapSplitBlock). The
// zero value holds no image; only UnmarshalBinary (or UnmarshalText) may be
// called on it.
//
// Concurrency: the reading methods (Contains*, Stats, OverCapacity, Bitset,
// Size, Clone, MarshalBinary, AppendBinary, MarshalText, AppendText, WriteTo,
// ReadOnly) may run
// concurrently; the changing ones (Add*, Union, Merge, Intersect, Clear, Fold,
// FoldToTargetFPP, UnmarshalBinary, UnmarshalText) need exclusive access.
//
// The Concurrent methods (AddConcurrent, AddConcurrentString,
// AddConcurrentUint64, AddConcurrentStrings, AddConcurrentBytes,
// AddConcurrentUint64s, AddConcurrentHash, AddConcurrentStringsReportNew
// the ContainsConcurrent forms, ContainsConcurrentHash(es) included, and
// OverCapacityConcurrent) are the exception: any number of goroutines
// may call them at once on one filter, with no lock (the library sets and
// tests a block's bits with atomic operations on its 64-bit words), in
// both modes. While any of them runs, no other method may be called on the
// filter, the reading ones included (they read without atomics; nor may
// the slice Bitset returned be read). Once those goroutines are done
// (joined, for example with sync.WaitGroup.Wait), every method may be used
// again: the blocks, AddCalls and SetBits (and Fill, EstimatedItems and
// EstimatedFPR, measured from the blocks) equal those of the same adds
// made one at a time, while Inserted (adds that set a new bit) depends on
// the order of the adds, and so may OverCapacity's flags, which are
// computed from it.
//
// Read-only: a sketch from WrapSplitBlockReadOnly (a file mapped PROT_READ, say)
// never writes its image. Its changing methods refuse before touching
// it, with an error matching ErrReadOnly: returned by those with an
// error result, the panic value of the others (recover catches it, where
// a write to the mapping would kill the process); its reading methods,
// Clone (a writable copy), MarshalBinary and WriteTo work as usual.
type SplitBlock struct {
	img []byte
	ro  bool       // a read-only wrap: the changing methods refuse (see WrapSplitBlockReadOnly)
	tok imageToken // img's token for the single-key calls (see imageToken)
}

// splitBlockOf returns the filter of the live image b, with its token.
func splitBlockOf(b []byte) *SplitBlock {
	return &SplitBlock{img: b, tok: tokenOf(FamilySplitBlock, b)}
}

// retoken refreshes the token after the image was replaced or rewritten
// (only where the image is written under exclusive access).
func (f *SplitBlock) retoken() { f.tok = tokenOf(FamilySplitBlock, f.img) }

// SplitBlockParams are the parameters of a split-block filter.
type SplitBlockParams struct {
	Blocks       uint64  // number of 32-byte (256-bit) blocks
	PlannedItems uint64  // items the filter is planned for (drives the over-capacity signal)
	PlannedFPR   float64 // false-positive rate planned at PlannedItems
	Parquet      bool    // Parquet mode: XXH64 seed 0, Parquet's block selection
}

// SplitBlockStats are the statistics of a split-block filter (Stats).
type SplitBlockStats struct {
	Params         SplitBlockParams // the filter's parameters
	Seed           uint64           // hash seed (0 in Parquet mode)
	AddCalls       uint64           // number of add calls, duplicates included
	Inserted       uint64           // add calls that set at least one new bit
	SetBits        uint64           // number of set bits (scanned)
	Fill           float64          // fraction of bits set, 0..1
	EstimatedItems float64          // distinct items estimated from the set bits
	EstimatedFPR   float64          // current false-positive rate measured from the blocks
	Capacity       CapacityFlags    // over-capacity flags, 0 while within the plan
}

// PlanSplitBlock plans a native filter for items distinct items at rate
// fpr with the split-block formula (about 10.5 bits per key at 1%).
// Errors (ErrInvalidParameter): items 0, fpr outside (0, 1) (NaN
// included) or so small or items so many that the filter would exceed the
// format's block count. Safe for concurrent use.
func PlanSplitBlock(items uint64, fpr float64) (SplitBlockParams, error) {
	p, s := cSplitBlockPlan(items, fpr, false)
	return p, paramError("PlanSplitBlock", s, "items "+utoa(items)+", fpr "+ftoa(fpr))
}

// PlanSplitBlockParquet plans a Parquet-mode filter the way Parquet writers
// size a column's bitset from its distinct-value count and fpp
// (power-of-two bytes, 32 B to 128 MiB: the parquet crate's rule, see
// PlanSplitBlockParquetSizing for the others). Errors
// (ErrInvalidParameter): ndv 0, fpp outside (0, 1) (NaN included) or too
// small to size. Safe for concurrent use.
func PlanSplitBlockParquet(ndv uint64, fpp float64) (SplitBlockParams, error) {
	p, s := cSplitBlockPlan(ndv, fpp, true)
	return p, paramError("PlanSplitBlockParquet", s, "ndv "+utoa(ndv)+", fpp "+ftoa(fpp))
}

// PlanSplitBlockBlocks plans a filter of an explicit block count, for
// example to rebuild a Parquet bitset of blocks*32 bytes. Errors
// (ErrInvalidParameter): blocks 0, or above 2^32 in Parquet mode. A native
// count the format allows may still be more memory than Go can allocate:
// NewSplitBlockWithParams then reports ErrInvalidParameter. Safe for
// concurrent use.
func PlanSplitBlockBlocks(blocks uint64, parquet bool) (SplitBlockParams, error) {
	p, s := cSplitBlockPlanBlocks(blocks, parquet)
	return p, paramError("PlanSplitBlockBlocks", s, "blocks "+utoa(blocks))
}

// SplitBlockSize returns the image size in bytes of NewSplitBlock(items,
// fpr) without building it. Errors as for PlanSplitBlock.
func SplitBlockSize(items uint64, fpr float64) (uint64, error) {
	p, err := PlanSplitBlock(items, fpr)
	if err != nil {
		return 0, err
	}
	return SplitBlockSizeWithParams(p)
}

// SplitBlockParquetSize returns the image size in bytes of
// NewSplitBlockParquet(ndv, fpp) without building it. Errors as for
// PlanSplitBlockParquet.
func SplitBlockParquetSize(ndv uint64, fpp float64) (uint64, error) {
	p, err := PlanSplitBlockParquet(ndv, fpp)
	if err != nil {
		return 0, err
	}
	return SplitBlockSizeWithParams(p)
}

// SplitBlockSizeWithParams returns the image size in bytes of
// NewSplitBlockWithParams(p) without building it.
func SplitBlockSizeWithParams(p SplitBlockParams) (uint64, error) {
	n, s := cSplitBlockSize(p)
	return n, paramError("SplitBlockSize", s, fmt.Sprintf("%+v", p))
}

// NewSplitBlock returns an empty native filter planned for items distinct
// items at false-positive rate fpr. Errors as for PlanSplitBlock and
// NewSplitBlockWithParams.
func NewSplitBlock(items uint64, fpr float64, opts ...Option) (*SplitBlock, error) {
	p, err := PlanSplitBlock(items, fpr)
	if err != nil {
		return nil, err
	}
	return NewSplitBlockWithParams(p, opts...)
}

// NewSplitBlockParquet returns an empty Parquet-mode filter sized for ndv
// distinct values at fpp (seed 0, XXH64). A key is a value's bytes as
// Parquet hashes them: for INT32, INT64, FLOAT and DOUBLE the 4 or 8
// little-endian bytes of the PLAIN encoding (AddUint64(uint64(v)) is an
// INT64 value v, never an INT32 one); for BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY the raw bytes, without the 4-byte length prefix the
// PLAIN encoding of a BYTE_ARRAY carries (AddString(s) for a string
// column). The ParquetHash functions with AddHash and ContainsHash hash
// typed values this way. Errors as for PlanSplitBlockParquet.
func NewSplitBlockParquet(ndv uint64, fpp float64) (*SplitBlock, error) {
	p, err := PlanSplitBlockParquet(ndv, fpp)
	if err != nil {
		return nil, err
	}
	return NewSplitBlockWithParams(p)
}

// NewSplitBlockWithParams returns an empty filter with explicit parameters
// (from a Plan function, or edited). Errors (ErrInvalidParameter):
// parameters the format refuses (Blocks 0, PlannedItems 0, PlannedFPR
// outside (0, 1), more than 2^32 blocks in Parquet mode), a seed other
// than 0 (WithSeed) in Parquet mode, whose hash has no seed, or an image
// larger than Go can allocate.
func NewSplitBlockWithParams(p SplitBlockParams, opts ...Option) (*SplitBlock, error) {
	const op = "NewSplitBlock"
	o := applyOptions(opts)
	n, s := cSplitBlockSize(p)
	if s != 0 {
		return nil, paramError(op, s, fmt.Sprintf("%+v", p))
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cSplitBlockInit(b, p, o.seed); s != 0 {
		return nil, paramError(op, s, fmt.Sprintf("%+v", p))
	}
	return splitBlockOf(b), nil
}

// WrapSplitBlock uses b, a split-block image in caller memory, without
// copying (see WrapBloom for the rules: 8-byte alignment, header checked,
// body not).
func WrapSplitBlock(b []byte) (*SplitBlock, error) {
	img, err := wrapImage("WrapSplitBlock", b, FamilySplitBlock, func(b []byte) int32 {
		_, s := cFilterCapacity(FamilySplitBlock, b)
		return s
	})
	if err != nil {
		return nil, err
	}
	return splitBlockOf(img), nil
}

// WrapSplitBlockReadOnly is WrapSplitBlock for memory that must never be written, such as
// a file mapped with PROT_READ: b is used in place as WrapSplitBlock uses it
// (the same alignment, header and family checks and errors, with Op
// "WrapSplitBlockReadOnly"), and every method that would change the sketch
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
// WrapSplitBlock: a read-only sketch only reads, so any number of goroutines may
// query it at once, while nothing else writes b.
func WrapSplitBlockReadOnly(b []byte) (*SplitBlock, error) {
	s, err := WrapSplitBlock(b)
	if err != nil {
		return nil, withOp(err, "WrapSplitBlockReadOnly")
	}
	s.ro = true
	return s, nil
}

// ReadOnly reports whether the sketch is a read-only wrap (WrapSplitBlockReadOnly),
// whose changing methods refuse with ErrReadOnly. Safe for concurrent use.
func (f *SplitBlock) ReadOnly() bool { return f.ro }

// Add adds a byte key and reports whether it was new to the filter.
func (f *SplitBlock) Add(key []byte) bool {
	mustWritable(f.ro, "SplitBlock.Add")
	n, s := cSplitBlockAdd(f.img, &f.tok, keyApart(key, f.img), len(key))
	must("SplitBlock.Add", s)
	return n
}

// AddString adds a string key (its UTF-8 bytes) and reports whether it was new.
func (f *SplitBlock) AddString(key string) bool {
	mustWritable(f.ro, "SplitBlock.AddString")
	n, s := cSplitBlockAdd(f.img, &f.tok, strPtr(key), len(key))
	must("SplitBlock.AddString", s)
	return n
}

// AddUint64 adds an integer key (its 8 little-endian bytes) and reports
// whether it was new. In Parquet mode that is an INT64 (or UINT64) value:
// for an INT32 column use AddHash(ParquetHashInt32(v)), since the 8 bytes
// of uint64(v) are not the 4 a writer hashes (see ContainsUint64).
func (f *SplitBlock) AddUint64(key uint64) bool {
	mustWritable(f.ro, "SplitBlock.AddUint64")
	n, s := cSplitBlockAddU64(f.img, &f.tok, key)
	must("SplitBlock.AddUint64", s)
	return n
}

// AddHash adds a precomputed hash and reports whether it was new to the
// filter. The hash depends on the mode: in Parquet mode XXH64 seed 0 of
// the value's bytes as Parquet hashes them (ParquetHashInt32,
// ParquetHashInt64, ParquetHashFloat32, ParquetHashFloat64,
// ParquetHashBytes, or HashXXH64 of the PLAIN encoding of a fixed-width
// value or of a BYTE_ARRAY's raw bytes without its length prefix, seed
// 0), the hash Parquet writers insert; in native mode
// the canonical XXH3-64 hash with the filter's seed. Needs exclusive access.
func (f *SplitBlock) AddHash(h uint64) bool {
	mustWritable(f.ro, "SplitBlock.AddHash")
	n, s := cSplitBlockAddHash(f.img, &f.tok, h)
	must("SplitBlock.AddHash", s)
	return n
}

// ContainsHash reports false when the value of hash h (computed as for
// AddHash) was certainly never added. On a filter loaded with
// NewSplitBlockFromParquetBitset it answers as the Parquet file's filter.
// Safe for concurrent use with the other reading methods.
func (f *SplitBlock) ContainsHash(h uint64) bool {
	r, s := cSplitBlockContainsHash(f.img, &f.tok, h)
	must("SplitBlock.ContainsHash", s)
	return r
}

// AddHashes adds many precomputed hashes (computed as for AddHash) in one
// call, as AddHash does one by one. Needs exclusive access.
func (f *SplitBlock) AddHashes(hashes []uint64) {
	mustWritable(f.ro, "SplitBlock.AddHashes")
	must("SplitBlock.AddHashes", cSplitBlockAddHashes(f.img, hashes, nil))
}

// ContainsHashes answers ContainsHash for many precomputed hashes into
// results (a new slice when its capacity is below len(hashes)) and returns
// it. Safe for
// concurrent use with the other reading methods.
func (f *SplitBlock) ContainsHashes(hashes []uint64, results []bool) []bool {
	out := boolsFor(results, len(hashes))
	must("SplitBlock.ContainsHashes", cSplitBlockContainsHashes(f.img, hashes, out))
	return out
}

// Contains reports false when key was certainly never added.
func (f *SplitBlock) Contains(key []byte) bool {
	r, s := cSplitBlockContains(f.img, &f.tok, bytesPtr(key), len(key))
	must("SplitBlock.Contains", s)
	return r
}

// ContainsString is Contains for a string key.
func (f *SplitBlock) ContainsString(key string) bool {
	r, s := cSplitBlockContains(f.img, &f.tok, strPtr(key), len(key))
	must("SplitBlock.ContainsString", s)
	return r
}

// ContainsUint64 is Contains for an integer key (its 8 little-endian
// bytes). In Parquet mode that is an INT64 (or UINT64) value. A filter of
// an INT32 (or DATE, INT16, ...) column holds the hashes of 4-byte values:
// ContainsUint64(uint64(v)) then answers false for values the column holds,
// and a reader skipping row groups on it would drop their rows; query
// those with ContainsHash(ParquetHashInt32(v)).
func (f *SplitBlock) ContainsUint64(key uint64) bool {
	r, s := cSplitBlockContainsU64(f.img, &f.tok, key)
	must("SplitBlock.ContainsUint64", s)
	return r
}

// AddStrings adds many string keys (packed batches).
func (f *SplitBlock) AddStrings(keys []string) {
	mustWritable(f.ro, "SplitBlock.AddStrings")
	must("SplitBlock.AddStrings", filterAdd(FamilySplitBlock, f.img, keys, nil))
}

// AddBytes adds many byte keys (packed batches).
func (f *SplitBlock) AddBytes(keys [][]byte) {
	mustWritable(f.ro, "SplitBlock.AddBytes")
	must("SplitBlock.AddBytes", filterAdd(FamilySplitBlock, f.img, keys, nil))
}

// AddUint64s adds many integer keys in one call (INT64 values in Parquet
// mode: see AddUint64).
func (f *SplitBlock) AddUint64s(keys []uint64) {
	mustWritable(f.ro, "SplitBlock.AddUint64s")
	must("SplitBlock.AddUint64s", cFilterAddU64s(FamilySplitBlock, f.img, keys, nil))
}

// AddStringsReportNew adds many string keys and reports per key whether it
// was new (see Bloom.AddStringsReportNew).
func (f *SplitBlock) AddStringsReportNew(keys []string, results []bool) []bool {
	mustWritable(f.ro, "SplitBlock.AddStringsReportNew")
	out := boolsFor(results, len(keys))
	must("SplitBlock.AddStringsReportNew", filterAdd(FamilySplitBlock, f.img, keys, out))
	return out
}

// ContainsStrings answers Contains for many string keys into results (see
// Bloom.ContainsStrings).
func (f *SplitBlock) ContainsStrings(keys []string, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("SplitBlock.ContainsStrings", filterContains(FamilySplitBlock, f.img, keys, out))
	return out
}

// ContainsBytes answers Contains for many byte keys.
func (f *SplitBlock) ContainsBytes(keys [][]byte, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("SplitBlock.ContainsBytes", filterContains(FamilySplitBlock, f.img, keys, out))
	return out
}

// ContainsUint64s answers Contains for many integer keys (INT64 values in
// Parquet mode: see ContainsUint64).
func (f *SplitBlock) ContainsUint64s(keys []uint64, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("SplitBlock.ContainsUint64s", cFilterContainsU64s(FamilySplitBlock, f.img, keys, out))
	return out
}

// AddConcurrent adds a byte key and reports whether it was new (this call
// set a bit no earlier add had set), like Add, with atomic operations: any
// number of goroutines may call it, and the other Concurrent methods, at
// once on one filter, while no other method runs on it (see the type's
// Concurrency paragraph). Of racing adds of one key, more than one may
// report it new (each set one of its bits first).
func (f *SplitBlock) AddConcurrent(key []byte) bool {
	mustWritable(f.ro, "SplitBlock.AddConcurrent")
	n, s := cSplitBlockAddConcurrent(f.img, keyApart(key, f.img), len(key))
	must("SplitBlock.AddConcurrent", s)
	return n
}

// AddConcurrentString is AddConcurrent for a string key (its UTF-8
// bytes): safe for any number of goroutines at once on one filter while
// only Concurrent methods run on it.
func (f *SplitBlock) AddConcurrentString(key string) bool {
	mustWritable(f.ro, "SplitBlock.AddConcurrentString")
	n, s := cSplitBlockAddConcurrent(f.img, strPtr(key), len(key))
	must("SplitBlock.AddConcurrentString", s)
	return n
}

// AddConcurrentUint64 is AddConcurrent for an integer key (its 8
// little-endian bytes): safe for any number of goroutines at once on one
// filter while only Concurrent methods run on it.
func (f *SplitBlock) AddConcurrentUint64(key uint64) bool {
	mustWritable(f.ro, "SplitBlock.AddConcurrentUint64")
	n, s := cSplitBlockAddConcurrentU64(f.img, key)
	must("SplitBlock.AddConcurrentUint64", s)
	return n
}

// AddConcurrentStrings is AddStrings (packed batches) with atomic
// operations: safe for any number of goroutines at once on one filter
// while only Concurrent methods run on it.
func (f *SplitBlock) AddConcurrentStrings(keys []string) {
	mustWritable(f.ro, "SplitBlock.AddConcurrentStrings")
	must("SplitBlock.AddConcurrentStrings", filterAddConcurrent(FamilySplitBlock, f.img, keys, nil))
}

// AddConcurrentBytes is AddBytes with atomic operations: safe for any
// number of goroutines at once on one filter while only Concurrent methods
// run on it.
func (f *SplitBlock) AddConcurrentBytes(keys [][]byte) {
	mustWritable(f.ro, "SplitBlock.AddConcurrentBytes")
	must("SplitBlock.AddConcurrentBytes", filterAddConcurrent(FamilySplitBlock, f.img, keys, nil))
}

// AddConcurrentUint64s is AddUint64s with atomic operations: safe for any
// number of goroutines at once on one filter while only Concurrent methods
// run on it.
func (f *SplitBlock) AddConcurrentUint64s(keys []uint64) {
	mustWritable(f.ro, "SplitBlock.AddConcurrentUint64s")
	must("SplitBlock.AddConcurrentUint64s", cFilterAddConcurrentU64s(FamilySplitBlock, f.img, keys, nil))
}

// AddConcurrentStringsReportNew is AddStringsReportNew with atomic
// operations: safe for any number of goroutines at once on one filter
// while only Concurrent methods run on it. Of racing adds of one key
// (across goroutines), more than one may report it new.
func (f *SplitBlock) AddConcurrentStringsReportNew(keys []string, results []bool) []bool {
	mustWritable(f.ro, "SplitBlock.AddConcurrentStringsReportNew")
	out := boolsFor(results, len(keys))
	must("SplitBlock.AddConcurrentStringsReportNew", filterAddConcurrent(FamilySplitBlock, f.img, keys, out))
	return out
}

// ContainsConcurrent is Contains with atomic loads: any number of
// goroutines may call it while others add through the Concurrent methods
// (and no other method runs on the filter). It sees every add that
// returned before it started; an add still running may or may not be seen.
func (f *SplitBlock) ContainsConcurrent(key []byte) bool {
	r, s := cSplitBlockContainsConcurrent(f.img, keyApart(key, f.img), len(key))
	must("SplitBlock.ContainsConcurrent", s)
	return r
}

// ContainsConcurrentString is ContainsConcurrent for a string key: safe
// while other goroutines add through the Concurrent methods.
func (f *SplitBlock) ContainsConcurrentString(key string) bool {
	r, s := cSplitBlockContainsConcurrent(f.img, strPtr(key), len(key))
	must("SplitBlock.ContainsConcurrentString", s)
	return r
}

// ContainsConcurrentUint64 is ContainsConcurrent for an integer key: safe
// while other goroutines add through the Concurrent methods.
func (f *SplitBlock) ContainsConcurrentUint64(key uint64) bool {
	r, s := cSplitBlockContainsConcurrentU64(f.img, key)
	must("SplitBlock.ContainsConcurrentUint64", s)
	return r
}

// ContainsConcurrentStrings is ContainsStrings with atomic loads: safe
// while other goroutines add through the Concurrent methods (see
// ContainsConcurrent for which adds it sees).
func (f *SplitBlock) ContainsConcurrentStrings(keys []string, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("SplitBlock.ContainsConcurrentStrings", filterContainsConcurrent(FamilySplitBlock, f.img, keys, out))
	return out
}

// ContainsConcurrentBytes is ContainsBytes with atomic loads: safe while
// other goroutines add through the Concurrent methods.
func (f *SplitBlock) ContainsConcurrentBytes(keys [][]byte, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("SplitBlock.ContainsConcurrentBytes", filterContainsConcurrent(FamilySplitBlock, f.img, keys, out))
	return out
}

// ContainsConcurrentUint64s is ContainsUint64s with atomic loads: safe
// while other goroutines add through the Concurrent methods.
func (f *SplitBlock) ContainsConcurrentUint64s(keys []uint64, results []bool) []bool {
	out := boolsFor(results, len(keys))
	must("SplitBlock.ContainsConcurrentUint64s", cFilterContainsConcurrentU64s(FamilySplitBlock, f.img, keys, out))
	return out
}

// AddConcurrentHash is AddHash (a precomputed hash, computed as for
// AddHash) with atomic operations: safe for any number of goroutines at
// once on one filter while only Concurrent methods run on it, and reports
// whether it was new as AddConcurrent does.
func (f *SplitBlock) AddConcurrentHash(h uint64) bool {
	mustWritable(f.ro, "SplitBlock.AddConcurrentHash")
	n, s := cAddConcurrentHash(FamilySplitBlock, f.img, h)
	must("SplitBlock.AddConcurrentHash", s)
	return n
}

// ContainsConcurrentHash is ContainsHash with atomic loads: safe while
// other goroutines add through the Concurrent methods (see
// ContainsConcurrent).
func (f *SplitBlock) ContainsConcurrentHash(h uint64) bool {
	r, s := cContainsConcurrentHash(FamilySplitBlock, f.img, h)
	must("SplitBlock.ContainsConcurrentHash", s)
	return r
}

// ContainsConcurrentHashes is ContainsHashes with atomic loads: safe while
// other goroutines add through the Concurrent methods.
func (f *SplitBlock) ContainsConcurrentHashes(hashes []uint64, results []bool) []bool {
	out := boolsFor(results, len(hashes))
	must("SplitBlock.ContainsConcurrentHashes", cContainsConcurrentHashes(FamilySplitBlock, f.img, hashes, out))
	return out
}

// Union sets f to the union of f and other (same blocks, mode and seed,
// else ErrIncompatible and f unchanged). other may be f itself (see
// Bloom.Union).
func (f *SplitBlock) Union(other *SplitBlock) error {
	if f.ro {
		return readOnlyError("SplitBlock.Union")
	}
	s := cMerge(FamilySplitBlock, f.img, mergeSource(f.img, other.image()))
	f.retoken()
	return errorOf("SplitBlock.Union", s)
}

// Merge is Union under the name every other family's merge has (see
// Bloom.Merge).
func (f *SplitBlock) Merge(other *SplitBlock) error {
	if f.ro {
		return readOnlyError("SplitBlock.Merge")
	}
	return withOp(f.Union(other), "SplitBlock.Merge")
}

// Intersect sets f to the intersection of f and other (rules of Union).
func (f *SplitBlock) Intersect(other *SplitBlock) error {
	if f.ro {
		return readOnlyError("SplitBlock.Intersect")
	}
	s := cIntersect(FamilySplitBlock, f.img, mergeSource(f.img, other.image()))
	f.retoken()
	return errorOf("SplitBlock.Intersect", s)
}

// Stats returns the filter's statistics (scans the blocks for the set bits).
func (f *SplitBlock) Stats() SplitBlockStats {
	st, s := cSplitBlockStats(f.img)
	must("SplitBlock.Stats", s)
	return st
}

// OverCapacity returns the over-capacity signal: 0 while within the plan.
// Its cost is not Bloom's O(1): it sums a short Poisson series (about
// 12*sqrt(load per block) + 30 terms), and on a filter loaded with
// NewSplitBlockFromParquetBitset, whose counters did not count the file's
// values, it scans every block (O(size): a 128 MiB bitset is read whole
// on each call), so call it once per loaded filter, not per query.
func (f *SplitBlock) OverCapacity() CapacityFlags {
	c, s := cFilterCapacity(FamilySplitBlock, f.img)
	must("SplitBlock.OverCapacity", s)
	return c
}

// OverCapacityConcurrent is OverCapacity read with atomic loads: any number
// of goroutines may call it while others add through the Concurrent
// methods, so a service can watch for "planned for 100k, got 1M" and
// rotate the filter without stopping its writers. Its cost is
// OverCapacity's. Exact once the adding goroutines are done; while they
// run, each counter reads as a value it passed through, so a flag can show
// an add or two late. It panics with an *Error on a zero-value SplitBlock, as
// OverCapacity does.
func (f *SplitBlock) OverCapacityConcurrent() CapacityFlags {
	c, s := cFilterCapacityConcurrent(FamilySplitBlock, f.img)
	must("SplitBlock.OverCapacityConcurrent", s)
	return c
}

// Bitset returns the filter's blocks, a view into the image (not a copy):
// in Parquet mode, exactly the bitset a Parquet writer stores. It changes
// as keys are added. Do not write to it: on a read-only wrap it is the
// read-only memory itself (a write faults), and on any filter a write
// bypasses the filter's counters; bytes.Clone it for a copy to change.
func (f *SplitBlock) Bitset() []byte {
	off, n, s := cSplitBlockBitset(f.img)
	must("SplitBlock.Bitset", s)
	return f.img[off : off+n : off+n]
}

// Clear removes every key; parameters and seed stay.
func (f *SplitBlock) Clear() {
	mustWritable(f.ro, "SplitBlock.Clear")
	must("SplitBlock.Clear", cClear(FamilySplitBlock, f.img))
	f.retoken()
}

// Size returns the image size in bytes.
func (f *SplitBlock) Size() int { return len(f.img) }

// String describes the filter in one line for fmt and logs: its type, image
// size and seed ("<nil>" for a nil pointer), not the image bytes.
func (f *SplitBlock) String() string {
	if f == nil {
		return "<nil>"
	}
	return describe(FamilySplitBlock, f.img)
}

// Format prints String's description under any verb, also for a SplitBlock
// held by value (see Bloom.Format).
func (f SplitBlock) Format(s fmt.State, verb rune) { formatSketch(s, verb, FamilySplitBlock, f.img) }

// Clone returns an independent copy in new Go memory.
func (f *SplitBlock) Clone() *SplitBlock { return splitBlockOf(cloneImage(f.img)) }

// MarshalBinary returns the exported image (copy with checksum).
func (f SplitBlock) MarshalBinary() ([]byte, error) { return f.AppendBinary(nil) }

// AppendBinary appends the exported image to b.
func (f SplitBlock) AppendBinary(b []byte) ([]byte, error) {
	return appendExport("SplitBlock.MarshalBinary", FamilySplitBlock, f.img, len(f.img), b)
}

// UnmarshalBinary replaces f with the checked filter in data (see
// Bloom.UnmarshalBinary).
func (f *SplitBlock) UnmarshalBinary(data []byte) error {
	if f.ro {
		return readOnlyError("SplitBlock.UnmarshalBinary")
	}
	b, err := importImage("SplitBlock.UnmarshalBinary", data, FamilySplitBlock)
	if err != nil {
		return err
	}
	f.img = b
	f.retoken()
	return nil
}

// MarshalText returns the text form of the filter: the standard, padded base64
// of MarshalBinary's bytes, a string in JSON (see Bloom.MarshalText). It
// only reads f, like MarshalBinary.
func (f SplitBlock) MarshalText() ([]byte, error) { return f.AppendText(nil) }

// AppendText appends the text form of MarshalText to b.
func (f SplitBlock) AppendText(b []byte) ([]byte, error) {
	return appendText("SplitBlock.MarshalText", b, &f)
}

// UnmarshalText replaces f with the filter whose text form is text, checked
// as UnmarshalBinary checks it: text that is not padded standard base64,
// and damaged or truncated images, give an error matching ErrCorrupt and
// f is then unchanged (see Bloom.UnmarshalText). It writes f.
func (f *SplitBlock) UnmarshalText(text []byte) error {
	if f.ro {
		return readOnlyError("SplitBlock.UnmarshalText")
	}
	return unmarshalText("SplitBlock.UnmarshalText", text, f)
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
// error. ReadSplitBlock reads the image back.
func (f SplitBlock) WriteTo(w io.Writer) (int64, error) {
	return writeImage("SplitBlock.WriteTo", FamilySplitBlock, f.img, len(f.img), w)
}

// ReadSplitBlock reads exactly one SplitBlock image from r, such as one WriteTo or
// MarshalBinary wrote, and checks it as UnmarshalBinary does; the rules,
// memory bounds and errors are ReadBloom's (io.EOF at the end of the
// stream, ErrCorrupt with io.ErrUnexpectedEOF for a cut image,
// ErrWrongFamily for another family's image).
func ReadSplitBlock(r io.Reader) (*SplitBlock, error) {
	img, err := readLive("ReadSplitBlock", r, FamilySplitBlock)
	if err != nil {
		return nil, err
	}
	return splitBlockOf(img), nil
}
