// Package sketches is the Go binding of libsketches: probabilistic sketches
// whose state is one contiguous image in Go memory, byte for byte the image
// the C, C++, Java and Python bindings read and write.
//
// # Families
//
// One type per family, each with constructors from the parameters users
// plan with:
//
//	Bloom          NewBloom(items, fpr)                  membership, add-and-report-new, union/intersection
//	SplitBlock     NewSplitBlock(items, fpr)             fastest membership; Parquet-compatible mode
//	CountingBloom  NewCountingBloom(items, fpr)          membership with removal
//	Cuckoo         NewCuckoo(items, fpr)                 membership with removal and counts, compact
//	BinaryFuse     NewBinaryFuseStrings(keys, 8 or 16)   static membership, built once: fewest bits per key
//	HLL            NewHLL(precision)                     distinct count (HyperLogLog)
//	ULL            NewULL(precision)                     distinct count in less memory (UltraLogLog)
//	ELL            NewELL(precision, 20 or 24)           distinct count in the least memory (ExaLogLog)
//	CountMin       NewCountMin(epsilon, delta)           frequencies, never below the truth (below the counter maximum)
//	TopK           NewTopK(capacity, maxKeyLen)          heavy hitters (Space-Saving)
//	MinHash        NewMinHash(k)                         Jaccard similarity
//
// Every type has methods for []byte, string and uint64 keys, batch methods
// (AddStrings, AddBytes, AddUint64s, ContainsStrings, EstimateStrings, ...)
// that cross into C once per few thousand keys, statistics,
// MarshalBinary/UnmarshalBinary/AppendBinary and their text forms
// (MarshalText/UnmarshalText/AppendText, for encoding/json), and a
// zero-copy Wrap function; all but the binary fuse filter merge. The binary fuse filter
// is static: its constructors (NewBinaryFuseStrings, NewBinaryFuseBytes,
// NewBinaryFuseUint64s) build it from the whole key set in one C call, and
// it has no Add or Remove methods (NewBinaryFuseHashes builds it from
// precomputed hashes).
//
// # Memory
//
// A sketch's image lives in Go memory: a []uint64 allocated by the
// constructor (8-byte alignment is what the library requires; images are
// placed on 64-byte boundaries), or the caller's bytes for the Wrap
// functions. There is nothing to free, no finalizer and no C allocation;
// the garbage collector reclaims a sketch like any slice. Size reports the
// image length: the whole memory of the sketch. A size function per
// family (BloomSize, SplitBlockSize, SplitBlockParquetSize,
// CountingBloomSize, CuckooSize, BinaryFuseSize, HLLSize, ULLSize, ELLSize,
// CountMinSize, TopKSize, MinHashSize; the WithParams forms for explicit
// parameters) gives that length from the constructor's arguments without
// building the sketch, for a memory budget.
//
// A sketch value refers to its image as a slice refers to its array:
// copying the struct (g := *f, or passing a Bloom by value) copies the
// reference, not the image, so both values add to and read one image and
// need one lock between them. Use Clone for an independent sketch. The
// methods that give a sketch a new or shorter image (UnmarshalBinary,
// UnmarshalText, SplitBlock.Fold and FoldToTargetFPP) update only the value they are
// called on: a copy made before keeps the old image, or, after a fold,
// the old length (its Size no longer matches its Bitset); copy after them,
// or keep one *T per sketch.
//
// # Hashing
//
// Keys hash by one rule in every language: string keys are their UTF-8
// bytes, []byte keys their bytes, uint64 keys their 8 little-endian bytes
// (so AddUint64(k) and Add(le8(k)) are the same key), hashed with XXH3-64
// and the image's seed (WithSeed; default 0). A sketch built in Go answers
// a query made from C, Java or Python for the same key, and the reverse.
// Hash(key, seed) and HashUint64(key, seed) compute that hash once; every
// type but TopK (which stores its keys) takes it in its hash forms
// (AddHash, AddHashes, and ContainsHash, ContainsHashes, RemoveHash,
// RemoveHashes, EstimateHash, EstimateHashes where the family has the key
// form), which act exactly as the key would: the same image bytes and
// answers.
// A nil []byte is the empty key (zero bytes), in batches too: a nil
// element of AddBytes adds the empty key, where Python skips None keys and
// Spark NULL rows, and Java refuses a null key; drop such elements first
// when they stand for missing values.
//
// # Parquet bloom filters
//
// A SplitBlock in Parquet mode (NewSplitBlockParquet) holds the bitset a
// Parquet writer stores for a column chunk, byte for byte. Its keys are
// hashed as Parquet hashes values, XXH64 seed 0 of the PLAIN encoding for
// fixed-width types and of the raw bytes for BYTE_ARRAY (strings: no
// 4-byte length prefix, so AddString(s) is the string value s):
// ParquetHashInt32, ParquetHashInt64, ParquetHashFloat32,
// ParquetHashFloat64 and ParquetHashBytes compute that hash from typed
// values (floats by their raw bits) for AddHash and ContainsHash, and
// HashXXH64 from any bytes. PlanSplitBlockParquetSizing sizes the bitset
// as a given writer does (ParquetSizingParquetRS, ParquetSizingDuckDB,
// ParquetSizingArrowCPP), and FoldToTargetFPP (or Fold) shrinks it in
// place as the parquet crate and Arrow C++ do before writing, so a filter
// built here equals the writer's and Bitset returns the bytes to write.
// NewSplitBlockFromParquetBitset copies a bitset read out of a Parquet
// file into a new filter that answers as the file's filter does. Bad
// bitset lengths and fold counts give errors matching ErrInvalidArgument.
//
// # Images and errors
//
// MarshalBinary returns the exported image (a copy with its checksum
// written); UnmarshalBinary checks untrusted bytes (headers, exact length,
// checksum and, where the format has them, body rules) before using them,
// so damaged bytes give an error instead of wrong answers. The Wrap
// functions (WrapBloom, ...) use an image in place, for example an mmap'ed
// file: they check the 8-byte alignment (ErrMisaligned) and the header, not
// the checksum; call Verify first for untrusted bytes. A wrapped image
// changed in place no longer matches its checksum until the export is
// copied back over it (see WrapBloom). Inspect tells the family of any
// image.
//
// # Files and streams
//
// Every type is an io.WriterTo: WriteTo writes exactly MarshalBinary's
// bytes to a file or socket without copying the image (only its 48-byte
// common header is copied, to carry the checksum). An image's common
// header records its total length, so a reader knows from the first 48
// bytes how many follow: ReadBloom, ReadSplitBlock, ReadCountingBloom,
// ReadCuckoo, ReadBinaryFuse, ReadHLL, ReadULL, ReadELL, ReadCountMin,
// ReadTopK and ReadMinHash read exactly one image of their family from an
// io.Reader (no byte past it), and ReadSketch one of any family, returned
// as its type. Images written one after another read back one call each,
// until io.EOF. What is read is checked as UnmarshalBinary checks it, and
// memory grows only as bytes arrive (a 64 KiB buffer first, then doubling
// when it is full: at most twice the bytes received, or 64 KiB), so a
// forged length cannot make a reader allocate it; wrap the reader in an
// io.LimitReader to cap one image's size. A stream cut inside an image
// gives an error matching both ErrCorrupt and io.ErrUnexpectedEOF; another
// family's image ErrWrongFamily and a newer format ErrUnsupportedVersion,
// from the header alone. Errors of the caller's reader or writer come back
// wrapped with the operation's name (errors.Is finds them), not as *Error;
// a writer that takes fewer bytes than it is given without an error gives
// io.ErrShortWrite, as io.Copy reports it, never a cut image and no error,
// and a reader reporting a count outside 0..len(p), or returning nothing
// and no error 100 times in a row (io.ErrNoProgress), an error rather than
// a panic or an endless loop.
//
// # Read-only mappings
//
// A file mapped read-only (PROT_READ) cannot be written: a changing method
// (Add, a batch add, Merge, Union, Intersect, Clear, Reset, Remove, Densify,
// Fold, ...) on a Wrap of it faults inside the library, and that SIGSEGV
// kills the process; no recover catches it. Wrap such memory with the
// ReadOnly form of the family's Wrap function (WrapBloomReadOnly,
// WrapSplitBlockReadOnly, WrapCountingBloomReadOnly, WrapCuckooReadOnly,
// WrapBinaryFuseReadOnly, WrapHLLReadOnly, WrapULLReadOnly, WrapELLReadOnly,
// WrapCountMinReadOnly, WrapTopKReadOnly, WrapMinHashReadOnly): the same
// checks and zero-copy queries, and every changing method, UnmarshalBinary
// and UnmarshalText included, refuses before anything is written, with an
// *Error matching ErrReadOnly (StatusReadOnly). The methods with an error
// result return it; the others (Add, AddStrings, Clear, ...: they have no
// error result) panic with it, a panic recover catches (net/http's
// handlers recover it too), where the fault would end the service. The
// sketch and the mapping are unchanged either way. Every reading method
// works, MarshalBinary, WriteTo and the text forms included, and a read-only
// sketch may be the argument of another sketch's Merge (or Jaccard);
// Clone gives a writable copy in Go memory, and ReadOnly reports the mode.
// Each family is a separate function, not an option of Wrap, so that the
// read-only choice is visible where the memory is wrapped and the Wrap
// functions keep their signatures (function values of type
// func([]byte) (*Bloom, error) stay valid).
//
// Every type is also an encoding.TextMarshaler, TextUnmarshaler and
// TextAppender, which encoding/json, encoding/xml and YAML libraries use:
// MarshalText returns the standard, padded base64
// (encoding/base64.StdEncoding) of exactly the bytes MarshalBinary returns,
// so in a JSON document a sketch is a string, as a []byte is, and
// `base64 -d` of that string is an image C, Java and Python import.
// UnmarshalText decodes the text and imports it through UnmarshalBinary's
// checks: text that is not padded standard base64 gives an *Error with
// StatusBadMagic, and damaged or truncated images UnmarshalBinary's errors,
// all matching ErrCorrupt, and the receiver is then unchanged. MarshalText,
// AppendText, MarshalBinary and AppendBinary have value receivers (as
// time.Time's do), so a sketch held by value in a document marshals the
// same whether the document is passed by value or by pointer, with
// encoding/json (the text form) and with encoding/gob (the binary form);
// UnmarshalText and UnmarshalBinary have pointer receivers, which
// json.Unmarshal and gob's Decode reach through the document's pointer. A pointer field
// (*Bloom, ...) may be nil: written as null, and null read back as nil; a
// zero-value field has no image to export and makes json.Marshal fail
// rather than write an empty sketch.
//
// A text marshaler is also what log/slog's handlers print a value with, so
// every *T is a slog.LogValuer: slog.Info("rotated", "filter", f) logs
// String's one line ("sketches.Bloom(1198272 bytes, seed 0)"; "<nil>" for
// a nil pointer), not the image in base64. Log the pointer: a sketch held
// by value and logged directly is written through MarshalText.
//
// Every error is an *Error carrying the C status code (use errors.As), and
// matches the sentinels ErrFull, ErrNotPresent, ErrCorrupt, ErrWrongFamily,
// ErrIncompatible, ErrKeyTooLong, ... with errors.Is; the one exception is
// an error of the caller's io.Reader or io.Writer (see Files and streams),
// returned wrapped with the operation's name. Operations that cannot
// fail on a sound image (Add, Contains, Estimate, Stats, ...) return no
// error; they panic with an *Error only when called on a zero value, or on
// a wrapped image that other code rewrote or that was never verified and
// holds a body its format forbids, or (the batches) given a key of 4 GiB or
// more, which the packed layout's 32-bit offsets cannot hold
// (ErrInvalidArgument; the keys before it were processed; the batches
// with an error result return it), or (the changing ones) on a read-only
// wrap, before writing anything (ErrReadOnly; see Read-only mappings).
// HLL's concurrent methods return an error
// instead: a sketch in its exact small mode refuses them (ErrSmallMode; see
// Concurrency).
//
// # Concurrency
//
// Concurrent queries on one sketch are safe (the C library only reads the
// image; a built BinaryFuse is never written, so it needs no lock at all);
// writes need exclusive access (for example a sync.RWMutex: RLock
// around queries, Lock around adds and merges). Each type's documentation
// lists which methods read and which write (String, Format and LogValue
// read too).
// Distinct sketches are independent. A merge (Merge, Union, Intersect) and
// MinHash.Jaccard read their argument as a query does: a shard being
// merged into a total may be queried meanwhile, but no goroutine may add
// to it until the merge returns (hold its read lock while merging it, or
// merge a Clone taken under that lock). A nil or zero-value argument is
// an error, not a panic.
//
// There is no Close: a sketch's image is Go memory the garbage collector
// reclaims once no value refers to it (a call in progress keeps it alive),
// so no method can use freed memory. The one exception is memory the
// caller manages: a Wrap function's buffer (an mmap'ed file, say) must
// stay mapped, and writable for the changing methods (or be wrapped with a
// ReadOnly form, which refuses them: see Read-only mappings), while any
// value wrapping it is used; unmapping it first makes the next call fault,
// as any access to unmapped memory does.
//
// Bloom, SplitBlock, HLL and ULL also have Concurrent methods, which any
// number of goroutines may call at once on one sketch without a lock (the
// library updates and reads the image with atomic operations on its 64-bit
// words): AddConcurrent, AddConcurrentString, AddConcurrentUint64,
// AddConcurrentHash and the batches AddConcurrentStrings,
// AddConcurrentBytes and AddConcurrentUint64s
// on all four; AddConcurrentStringsReportNew and the ContainsConcurrent
// forms on the filters; EstimateConcurrent on the distinct counters. While
// any of them runs on a sketch, no other method may be called on it, the
// reading ones included (they read without atomics). Once the goroutines
// are done (joined, for example with sync.WaitGroup.Wait), every method
// may be used again, and the bits or registers equal those of the same
// adds made one at a time. What differs is documented on each type: a
// filter's Inserted count (adds that set a new bit) depends on the order,
// and so may its over-capacity flags; HLL's and ULL's martingale estimate
// ends, as after a merge, and Estimate returns the register estimate. An
// HLL starts in an exact small mode, where the concurrent methods return
// an error matching ErrSmallMode: call HLL.Densify (exclusive access)
// before sharing it.
//
// # Building and linking
//
// The package links libsketches through cgo with
//
//	#cgo pkg-config: sketches
//
// so a Go program outside the repository builds once libsketches is
// installed: run `make install PREFIX=/usr/local` (or any prefix) in the
// repository, and when the prefix is not a system one point pkg-config at
// it with PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig. By default the program
// links libsketches.so and finds libsketches.so.0 at run time (through the
// loader's path: ldconfig for a system prefix, LD_LIBRARY_PATH or an rpath
// otherwise). Build with -tags sketches_static to link libsketches.a
// instead (pkg-config's "sketches-static", installed alongside): the binary
// then needs nothing at run time. Go's build cache does not notice a
// reinstalled libsketches; run `go clean -cache` after upgrading it.
//
// Inside the repository, `make go-test` builds the library, installs it
// into target/go-prefix, and runs vet, the tests (also under -race and
// GOEXPERIMENT=cgocheck2, statically linked) and a bounded fuzz run.
//
// # Boundary
//
// All cgo calls live in one file. Batches of strings or byte slices are
// packed into one data buffer and count+1 uint32 offsets (the library's
// _packed forms, the Arrow Binary layout): no per-key Go pointer is passed
// to C, which the cgo pointer rules forbid for a slice of key descriptors,
// and the calls are legal under GOEXPERIMENT=cgocheck2. A binary fuse build
// needs every key at once: its keys are packed into one buffer for one
// call, with the scratch memory the library asks for
// (sketch_fuse_scratch_size) allocated in Go memory. Integer batches use
// the _u64_batch forms directly. Every C function is declared
// #cgo nocallback and, where legal, #cgo noescape.
//
// The single-key methods of Bloom, SplitBlock and HLL (Add, AddString,
// AddUint64, SplitBlock's AddHash, and the filters' Contains forms) pass the image's token (the
// library's sketch_token: the header words that passed validation, kept
// next to the image): the library compares those words instead of
// validating the headers again on every call, the larger part of a
// single-key call's cost. The token is made when the sketch gets its image
// (constructors, Wrap, UnmarshalBinary, Clone, Downsize, ToHLL) and made
// again by the methods that rewrite the image (Clear, Reset, Union,
// Intersect, Merge, Fold, FoldToTargetFPP); a token that no longer matches only makes the call
// validate in full, with the same answers and errors. What a token does not
// cover, the counters and modes that adds update, is then trusted as the
// body is: on a wrapped image that other code rewrote there (breaking the
// Wrap rule), these calls can give wrong answers instead of panicking,
// while the batch and statistics calls still check it.
package sketches
