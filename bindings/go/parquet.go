package sketches

// Parquet bloom filter interop for SplitBlock: the value hashes Parquet
// writers use, their bitset sizing rules, loading a bitset read out of a
// Parquet file, and the fold writers apply before writing.

import "strconv"

// HashXXH64 returns XXH64 of key with seed. With seed 0 over a value's
// bytes as Parquet hashes them (the PLAIN encoding of a fixed-width value;
// a BYTE_ARRAY's raw bytes, without the PLAIN encoding's 4-byte length
// prefix) it is the hash a Parquet-mode SplitBlock takes in AddHash and
// ContainsHash (the ParquetHash functions compute it from typed values). A nil or empty key hashes as the empty key. Safe for
// concurrent use.
func HashXXH64(key []byte, seed uint64) uint64 {
	return cHashXXH64(bytesPtr(key), len(key), seed)
}

// Hash returns the canonical hash of key (XXH3-64 with seed): what every
// family hashes a byte key to, so Hash(key, seed), where seed is the
// sketch's, passed to the hash forms (AddHash, AddHashes, ContainsHash,
// ContainsHashes, RemoveHash, RemoveHashes, EstimateHash, EstimateHashes:
// every type but TopK, and SplitBlock in native mode) equals the key's
// form (Add(key), Contains(key), ...). Hash once, then add to or query
// several sketches of one seed. A nil or empty key hashes as the empty
// key. Safe for concurrent use.
func Hash(key []byte, seed uint64) uint64 {
	return cHash(bytesPtr(key), len(key), seed)
}

// HashUint64 returns the canonical hash of an integer key (its 8
// little-endian bytes, as AddUint64 hashes it) with seed: the hash the
// hash forms (see Hash) take for that integer key. Safe for concurrent use.
func HashUint64(key, seed uint64) uint64 { return cHashUint64(key, seed) }

// ParquetHashInt32 returns Parquet's bloom filter hash of an INT32 value
// (XXH64 seed 0 of its 4 little-endian bytes), for AddHash and ContainsHash
// of a Parquet-mode SplitBlock. Safe for concurrent use.
func ParquetHashInt32(v int32) uint64 { return cParquetHashInt32(v) }

// ParquetHashInt64 returns Parquet's bloom filter hash of an INT64 value
// (XXH64 seed 0 of its 8 little-endian bytes), for AddHash and ContainsHash
// of a Parquet-mode SplitBlock. Safe for concurrent use.
func ParquetHashInt64(v int64) uint64 { return cParquetHashInt64(v) }

// ParquetHashFloat32 returns Parquet's bloom filter hash of a FLOAT value:
// XXH64 seed 0 of its raw IEEE-754 bits (4 little-endian bytes), as writers
// hash it, with no normalization: -0.0 and +0.0 differ, and each NaN bit
// pattern is its own value (DuckDB's reader answers "maybe" for +0.0 when
// only -0.0 was written: probe both zeros to answer as it does; in Go
// source the constant -0.0 is +0, so write float32(math.Copysign(0, -1))
// for negative zero). For AddHash and ContainsHash of a Parquet-mode
// SplitBlock. Safe for concurrent use.
func ParquetHashFloat32(v float32) uint64 { return cParquetHashFloat32(v) }

// ParquetHashFloat64 returns Parquet's bloom filter hash of a DOUBLE value:
// XXH64 seed 0 of its raw IEEE-754 bits (8 little-endian bytes); zeros and
// NaNs as for ParquetHashFloat32 (negative zero is math.Copysign(0, -1),
// not the constant -0.0, which Go evaluates to +0). For AddHash and ContainsHash of a
// Parquet-mode SplitBlock. Safe for concurrent use.
func ParquetHashFloat64(v float64) uint64 { return cParquetHashFloat64(v) }

// ParquetHashBytes returns Parquet's bloom filter hash of a BYTE_ARRAY or
// FIXED_LEN_BYTE_ARRAY value (a string as its UTF-8 bytes): XXH64 seed 0
// of the raw bytes, without the 4-byte length prefix of the PLAIN
// encoding. For AddHash and ContainsHash of a Parquet-mode SplitBlock
// (Add(v) on such a filter adds the same hash). Safe for concurrent use.
func ParquetHashBytes(v []byte) uint64 { return cParquetHashBytes(bytesPtr(v), len(v)) }

// ParquetSizing names the rule a Parquet writer sizes a column's bitset
// with from its distinct-value count (ndv) and false-positive rate (fpp),
// for PlanSplitBlockParquetSizing. The values are those of the C header's
// SKETCH_PARQUET_SIZING_*.
type ParquetSizing uint32

const (
	// ParquetSizingParquetRS is the parquet crate's (arrow-rs) rule, the one
	// PlanSplitBlockParquet uses: next_pow2(clamp(floor(m)/8, 32, 128 MiB))
	// bytes for m = -8 ndv / ln(1 - fpp^(1/8)) bits. The crate folds the
	// filter before writing (FoldToTargetFPP with the same fpp).
	ParquetSizingParquetRS ParquetSizing = 0
	// ParquetSizingDuckDB is DuckDB's rule: max(next_pow2(floor(m/8)), 32)
	// bytes, no upper clamp, with ndv the column chunk's dictionary size
	// (the exact distinct count). DuckDB does not fold.
	ParquetSizingDuckDB ParquetSizing = 1
	// ParquetSizingArrowCPP is Arrow C++'s (pyarrow's) rule: the bit count
	// rounded up to a power of two first, min(next_pow2(clamp(floor(m), 256,
	// 2^30)), 2^30) / 8 bytes, with ndv the writer's ndv option. Arrow C++
	// folds the filter before writing (FoldToTargetFPP with the same fpp).
	ParquetSizingArrowCPP ParquetSizing = 2
)

// String returns the writer's name ("parquet-rs", "duckdb", "arrow-cpp"),
// or "ParquetSizing(n)" for an unknown value.
func (s ParquetSizing) String() string {
	switch s {
	case ParquetSizingParquetRS:
		return "parquet-rs"
	case ParquetSizingDuckDB:
		return "duckdb"
	case ParquetSizingArrowCPP:
		return "arrow-cpp"
	}
	return "ParquetSizing(" + utoa(uint64(s)) + ")"
}

// PlanSplitBlockParquetSizing plans a Parquet-mode filter sized as the
// writer named by sizing sizes a column's bitset for ndv distinct values at
// false-positive rate fpp (Blocks is the bitset's length in bytes / 32).
// To reproduce the bytes of a writer that folds (parquet-rs, Arrow C++),
// add the values and call FoldToTargetFPP with the same fpp. Example: ndv
// 1693 at 0.01 plans 4096 bytes with ParquetSizingArrowCPP (folded once to
// 2048, as pyarrow writes it) and 2048 with the others.
//
// Errors: ErrInvalidParameter for ndv 0, fpp not in (0, 1) (NaN included),
// an unknown sizing or a filter too large. Safe for concurrent use.
func PlanSplitBlockParquetSizing(ndv uint64, fpp float64, sizing ParquetSizing) (SplitBlockParams, error) {
	p, s := cSplitBlockPlanParquetSizing(ndv, fpp, sizing)
	return p, paramError("PlanSplitBlockParquetSizing", s, "ndv "+utoa(ndv)+", fpp "+ftoa(fpp)+", sizing "+utoa(uint64(sizing)))
}

// PlanSplitBlockParquetBitset returns the Parquet-mode parameters of a
// bitset of bitsetLen bytes read out of a Parquet file: bitsetLen/32
// blocks, planned for the most items at which a filter of that size still
// meets rate fpr (0 < fpr < 1). NewSplitBlockFromParquetBitset uses it.
//
// Errors: ErrInvalidArgument when bitsetLen is 0, not a multiple of 32 or
// above 2^32 blocks; ErrInvalidParameter for fpr. Safe for concurrent use.
func PlanSplitBlockParquetBitset(bitsetLen int, fpr float64) (SplitBlockParams, error) {
	const op = "PlanSplitBlockParquetBitset"
	if bitsetLen < 0 {
		return SplitBlockParams{}, &Error{Code: StatusInvalidArgument, Op: op, Detail: "negative bitset length"}
	}
	p, s := cSplitBlockPlanParquetBitset(bitsetLen, fpr)
	return p, errorOf(op, s)
}

// NewSplitBlockFromParquetBitset returns a new Parquet-mode filter whose
// blocks are a copy of bitset, the bytes of a column chunk's bloom filter
// read out of a Parquet file (those after its BloomFilterHeader; the length
// is the header's numBytes). The filter answers exactly as the file's
// filter does (ContainsHash with the ParquetHash functions, or Contains
// with a BYTE_ARRAY value's bytes) and can be added to, merged, folded and
// marshaled; Bitset returns the bytes to write back. It is planned with
// PlanSplitBlockParquetBitset(len(bitset), fpr), fpr being the writer's
// rate (0.01, say). Its counters start at 0 and count only later adds, so
// Stats and OverCapacity follow the fill of the blocks instead: an
// all-ones bitset is reported over capacity. bitset is not retained.
//
// Errors: ErrInvalidArgument when bitset is empty, its length is not a
// multiple of 32 bytes or it holds more than 2^32 blocks;
// ErrInvalidParameter for fpr (0 < fpr < 1). Safe for concurrent use
// (bitset is only read).
func NewSplitBlockFromParquetBitset(bitset []byte, fpr float64) (*SplitBlock, error) {
	const op = "NewSplitBlockFromParquetBitset"
	p, s := cSplitBlockPlanParquetBitset(len(bitset), fpr)
	if s != 0 {
		return nil, errorOf(op, s)
	}
	n, s := cSplitBlockSize(p)
	if s != 0 {
		return nil, errorOf(op, s)
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cSplitBlockLoadParquetBitset(b, bitset, p); s != 0 {
		return nil, errorOf(op, s)
	}
	return splitBlockOf(b), nil
}

// Fold halves the filter's block count folds times in place, each time
// OR-ing adjacent pairs of blocks, as Parquet writers shrink an
// under-filled filter before writing it. Every added key stays present;
// the false-positive rate rises. Works in both modes; Fold(0) changes
// nothing. Afterwards the image is the shorter one: Size, Stats, Bitset
// and MarshalBinary reflect the new length (32 bytes per block); slices
// returned by Bitset before the call no longer describe the filter. For a
// wrapped image (WrapSplitBlock) the folded image occupies the first Size
// bytes of the caller's buffer: a file holding it verifies again only once
// MarshalBinary's bytes are copied over them and the file is cut to Size
// bytes (the bytes after them are the old blocks).
//
// Errors: ErrInvalidArgument when the block count is not divisible by
// 2^folds (the filter is then unchanged); an *Error for a zero value.
// Fold changes the filter: it needs exclusive access.
func (f *SplitBlock) Fold(folds uint32) error {
	if f.ro {
		return readOnlyError("SplitBlock.Fold")
	}
	n, s := cSplitBlockFold(f.img, folds)
	if s != 0 {
		return errorOf("SplitBlock.Fold", s)
	}
	f.shrink(n)
	return nil
}

// FoldToTargetFPP folds the filter in place as far as the parquet crate and
// Arrow C++ (pyarrow) fold a bloom filter before writing it with target
// false-positive rate fpp: the most halvings k whose estimated rate
// (1 - (1 - fill)^(2^k))^8 stays within fpp. It returns k (0 when the
// filter is already as small as the rate allows). Afterwards the filter is
// as after Fold(k).
//
// Errors: ErrInvalidParameter when fpp is not in (0, 1) (NaN included),
// as for the planners and the writers' own settings: the filter is then
// unchanged (a rate of 1 or more would fold it to one all-ones block,
// which answers true for every value); an *Error for a zero value.
// FoldToTargetFPP changes the filter: it needs exclusive access.
func (f *SplitBlock) FoldToTargetFPP(fpp float64) (folds uint32, err error) {
	if f.ro {
		return 0, readOnlyError("SplitBlock.FoldToTargetFPP")
	}
	const op = "SplitBlock.FoldToTargetFPP"
	k, n, s := cSplitBlockFoldToTargetFPP(f.img, fpp)
	if Status(s) == StatusInvalidParameter {
		// The library refuses a rate outside (0, 1), NaN included.
		return 0, &Error{Code: StatusInvalidParameter, Op: op,
			Detail: "target rate " + strconv.FormatFloat(fpp, 'g', -1, 64) + " is not in (0, 1)"}
	}
	if s != 0 {
		return 0, errorOf(op, s)
	}
	f.shrink(n)
	return k, nil
}

// shrink makes the first n bytes of the image the image after a fold, and
// refreshes the token (the header's block count and image length changed).
func (f *SplitBlock) shrink(n int) {
	f.img = f.img[:n:n]
	f.retoken()
}
