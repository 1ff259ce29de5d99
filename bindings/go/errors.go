package sketches

import "strconv"

// Status is a status code of the C library (sketch_status): stable numbers,
// never reused, StatusOK = 0. Its text is the library's own
// (sketch_status_str). One negative code is the binding's own:
// StatusReadOnly.
type Status int32

// The status codes of include/sketches.h (SKETCH_*).
const (
	StatusOK                 Status = 0  // success
	StatusNullPointer        Status = 1  // a required pointer was NULL
	StatusBufferTooSmall     Status = 2  // the buffer is shorter than the image needs
	StatusMisaligned         Status = 3  // the buffer does not start on an 8-byte boundary
	StatusInvalidParameter   Status = 4  // a sketch parameter is out of range
	StatusInvalidArgument    Status = 5  // a call argument is inconsistent
	StatusBadMagic           Status = 6  // the bytes are not a sketch image
	StatusUnsupportedVersion Status = 7  // the image was written by a newer format version
	StatusWrongFamily        Status = 8  // the image holds a different sketch family
	StatusCorruptHeader      Status = 9  // the image header is inconsistent
	StatusChecksumMismatch   Status = 10 // the checksum does not match: the bytes were damaged
	StatusLengthMismatch     Status = 11 // the byte count differs from the recorded image length
	StatusIncompatible       Status = 12 // the sketches differ in parameters, seed or hash
	StatusUnsupportedHash    Status = 13 // the image names a hash this family cannot use
	StatusOverlap            Status = 14 // written memory overlaps another argument; nothing changed (the Go merges read a copy of a sketch merged with itself, and a key inside the image is copied before an add)
	StatusInternalError      Status = 15 // reserved, no longer produced
	StatusNotPresent         Status = 16 // a removal found the item absent; nothing changed
	StatusFull               Status = 17 // the filter has no room for the item; nothing changed
	StatusCorruptBody        Status = 18 // the image body holds values its format forbids
	StatusCompactImage       Status = 19 // a compact exported image: unmarshal it, do not wrap it
	StatusKeyTooLong         Status = 20 // the key is longer than the sketch's maximum; nothing changed
	StatusBuildFailed        Status = 21 // a static filter could not be built within its attempt bound; nothing written
	StatusSmallMode          Status = 22 // an HLL in its exact small mode was given to a concurrent add: densify it first
)

// StatusReadOnly is the binding's own status, not the C library's (its
// codes are never negative): a changing method was called on a read-only
// wrap (WrapBloomReadOnly, ...), and nothing was written. ErrReadOnly
// matches it.
const StatusReadOnly Status = -2

// String returns the library's text for the status ("unknown status code"
// for numbers it does not know), and the binding's for StatusReadOnly.
func (s Status) String() string {
	if s == StatusReadOnly {
		return "the sketch is a read-only wrap: changing methods refuse"
	}
	return statusText(int32(s))
}

// Error is the error type of this package: the C status code, its text, and
// the operation that failed. Use errors.As to read the code, and errors.Is
// with the sentinel values (ErrFull, ErrNotPresent, ErrCorrupt, ...) to test
// for the common cases.
type Error struct {
	// Code is the C library's status code.
	Code Status
	// Op names the Go operation, for example "Bloom.UnmarshalBinary".
	Op string
	// Detail is extra context added by the binding (may be empty).
	Detail string
	// cause is the error of the io.Reader behind the status, if any
	// (io.ErrUnexpectedEOF for a stream cut inside an image): Unwrap
	// returns it.
	cause error
}

// Unwrap returns the reader error behind the status (io.ErrUnexpectedEOF
// for a truncated stream, see ReadBloom), or nil: errors.Is(err,
// io.ErrUnexpectedEOF) then holds as well as errors.Is(err, ErrCorrupt).
func (e *Error) Unwrap() error { return e.cause }

// Error returns "sketches: <op>: <status text> [(<detail>)]".
func (e *Error) Error() string {
	msg := "sketches: "
	if e.Op != "" {
		msg += e.Op + ": "
	}
	msg += e.Code.String()
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

// Is reports whether target is a sentinel (or any *Error) this error
// matches: the same status code, or, for ErrCorrupt, any code that means the
// bytes are not a sound image (bad magic, corrupt header or body, checksum
// or length mismatch). A target with an Op (another *Error this package
// returned, say) matches only errors of that operation; the sentinels have
// none, and Detail is never compared. A nil *Error target matches nothing.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok || t == nil {
		return false
	}
	if t == ErrCorrupt {
		return e.Code.corrupt()
	}
	return t.Code == e.Code && (t.Op == "" || t.Op == e.Op)
}

func (s Status) corrupt() bool {
	switch s {
	case StatusBadMagic, StatusCorruptHeader, StatusChecksumMismatch, StatusLengthMismatch, StatusCorruptBody:
		return true
	}
	return false
}

// Sentinel errors for errors.Is. Every error this package returns is an
// *Error; these match by status code.
var (
	// ErrFull: a cuckoo filter could not place an item (nothing changed),
	// or a merge did not fit.
	ErrFull = &Error{Code: StatusFull}
	// ErrNotPresent: a removal found the item absent (nothing changed).
	ErrNotPresent = &Error{Code: StatusNotPresent}
	// ErrCorrupt: the bytes are not a sound image: bad magic, corrupt
	// header or body, checksum or length mismatch. Matches all of those codes
	// (UnmarshalBinary, Verify, Inspect and the Wrap functions report
	// truncated bytes as a length mismatch).
	ErrCorrupt = &Error{Code: StatusCorruptBody, Detail: "corrupt image"}
	// ErrWrongFamily: the image holds another sketch family.
	ErrWrongFamily = &Error{Code: StatusWrongFamily}
	// ErrUnsupportedVersion: the image was written by a newer format major version.
	ErrUnsupportedVersion = &Error{Code: StatusUnsupportedVersion}
	// ErrIncompatible: a merge (or comparison) of sketches with different
	// parameters, seed or hash.
	ErrIncompatible = &Error{Code: StatusIncompatible}
	// ErrMisaligned: a buffer given to a Wrap function does not start on an
	// 8-byte boundary.
	ErrMisaligned = &Error{Code: StatusMisaligned}
	// ErrKeyTooLong: a Top-k key is longer than the sketch's maximum key length.
	ErrKeyTooLong = &Error{Code: StatusKeyTooLong}
	// ErrInvalidParameter: a planning or sizing parameter is out of range.
	ErrInvalidParameter = &Error{Code: StatusInvalidParameter}
	// ErrInvalidArgument: call arguments are inconsistent, for example a
	// Parquet bitset whose length is 0 or not a multiple of 32 bytes, or a
	// SplitBlock.Fold count that does not divide the block count (nothing
	// changed).
	ErrInvalidArgument = &Error{Code: StatusInvalidArgument}
	// ErrBuildFailed: a binary fuse filter could not be built within the
	// library's attempt bound (practically only for keys whose hashes are
	// not uniformly distributed); nothing was built.
	ErrBuildFailed = &Error{Code: StatusBuildFailed}
	// ErrNoImage: the sketch has no image: a zero value (sketches come
	// from a constructor, a Wrap function or UnmarshalBinary) used as a
	// receiver, or a zero value or nil pointer passed as the other sketch
	// of Merge, Union, Intersect or Jaccard (StatusBufferTooSmall; nothing
	// changed). The methods without an error result panic with it.
	ErrNoImage = &Error{Code: StatusBufferTooSmall}
	// ErrSmallMode: a concurrent HLL method (AddConcurrent*,
	// EstimateConcurrent) was called on a sketch still in its exact small
	// mode; nothing changed. Call HLL.Densify first (exclusive access).
	ErrSmallMode = &Error{Code: StatusSmallMode}
	// ErrCompactImage: a Wrap function (WrapHLL, WrapHLLReadOnly) was
	// given the compact export of an HLL in its exact small mode (what
	// MarshalBinary and WriteTo write for a sketch that saw few distinct
	// keys), which is not a live image and cannot be used in
	// place. UnmarshalBinary (or a stream reader) imports it; to keep HLLs
	// in files that are mapped and wrapped, call Densify before exporting
	// them (the export is then the whole live image).
	ErrCompactImage = &Error{Code: StatusCompactImage}
	// ErrReadOnly: a changing method (Add, Merge, Clear, Remove, the
	// batches, Fold, UnmarshalBinary, ...) was called on a read-only wrap
	// (WrapBloomReadOnly, ...); nothing was written. Methods with an error
	// result return it, the others panic with it (StatusReadOnly).
	ErrReadOnly = &Error{Code: StatusReadOnly}
)

// errorOf returns nil for StatusOK and an *Error otherwise. The binding
// sizes every buffer it passes, so StatusBufferTooSmall from a method means
// an image shorter than its header: the empty image of a zero value
// (receiver or argument), which the Detail says, since the library's text
// alone reads like a key or output problem.
func errorOf(op string, s int32) error {
	if s == 0 {
		return nil
	}
	if s == statusBatchKeyTooLong {
		return &Error{Code: StatusInvalidArgument, Op: op, Detail: batchKeyTooLongDetail}
	}
	if Status(s) == StatusBufferTooSmall {
		return &Error{Code: Status(s), Op: op, Detail: zeroValueDetail}
	}
	return &Error{Code: Status(s), Op: op}
}

// statusBatchKeyTooLong is the binding's own status (never a C one: those
// are not negative) for a batch holding a key of 4 GiB or more, which the
// packed layout's 32-bit offsets cannot address; the keys before it (in
// earlier chunks) were processed. errorOf and must report it as
// StatusInvalidArgument with batchKeyTooLongDetail.
const statusBatchKeyTooLong int32 = -1

const batchKeyTooLongDetail = "a key in the batch is 4 GiB or longer (packed offsets are 32-bit); the keys before it were processed, the rest not"

// zeroValueDetail explains StatusBufferTooSmall from a method.
const zeroValueDetail = "no image: a zero value (sketches come from a constructor, a Wrap function or UnmarshalBinary), as receiver or argument, or a nil argument"

// must panics with an *Error when s is not StatusOK. The operations that use
// it cannot fail on an image this package created or imported (checked
// bytes); they can fail on a zero value, on a wrapped buffer rewritten by
// other code, or on wrapped bytes never checked with Verify whose body
// holds values the format forbids (the library stays memory-safe, but may
// then find its header inconsistent after an update).
func must(op string, s int32) {
	if s == statusBatchKeyTooLong {
		panic(errorOf(op, s))
	}
	if s != 0 {
		panic(&Error{Code: Status(s), Op: op, Detail: "a zero value, or a wrapped image changed behind the sketch or never verified"})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// ftoa formats a rate or error argument for a message (NaN, +Inf included).
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// paramError is errorOf for the planning, sizing and constructing
// functions: a parameter the library refuses (StatusInvalidParameter, or
// StatusInvalidArgument) names the arguments given in its Detail
// ("precision 25"), since the library's text does not say which value was
// out of range.
func paramError(op string, s int32, args string) error {
	err := errorOf(op, s)
	if e, ok := err.(*Error); ok && e.Detail == "" && (e.Code == StatusInvalidParameter || e.Code == StatusInvalidArgument) {
		e.Detail = args
	}
	return err
}

// readOnlyDetail explains StatusReadOnly.
const readOnlyDetail = "a read-only wrap (Wrap...ReadOnly) is never written; Clone it for a writable copy"

// readOnlyError is the error of the changing method op called on a
// read-only wrap: it matches ErrReadOnly.
func readOnlyError(op string) error {
	return &Error{Code: StatusReadOnly, Op: op, Detail: readOnlyDetail}
}

// mustWritable panics with readOnlyError(op) when ro is set: the guard of
// the changing methods without an error result, run before anything is
// written, so a stray add on a read-only mapping is a panic recover
// catches instead of a fault that kills the process.
func mustWritable(ro bool, op string) {
	if ro {
		panic(readOnlyError(op))
	}
}
