package sketches

import (
	"encoding"
	"fmt"
	"log/slog"
)

// Family identifies a sketch family: the family id of the image format
// (SKETCH_FAMILY_*).
type Family uint16

// The sketch families.
const (
	FamilyBloom         Family = 1  // classic Bloom filter (Bloom)
	FamilySplitBlock    Family = 2  // split-block Bloom filter (SplitBlock)
	FamilyCountingBloom Family = 3  // counting Bloom filter (CountingBloom)
	FamilyCuckoo        Family = 4  // cuckoo filter (Cuckoo)
	FamilyHLL           Family = 5  // HyperLogLog (HLL)
	FamilyULL           Family = 6  // UltraLogLog (ULL)
	FamilyCountMin      Family = 7  // Count-Min sketch (CountMin)
	FamilyTopK          Family = 8  // Top-k heavy hitters, Space-Saving (TopK)
	FamilyMinHash       Family = 9  // MinHash (MinHash)
	FamilyBinaryFuse    Family = 10 // binary fuse filter (BinaryFuse)
	FamilyELL           Family = 11 // ExaLogLog (ELL)
)

var familyNames = [...]string{"", "Bloom", "SplitBlock", "CountingBloom", "Cuckoo", "HLL", "ULL", "CountMin", "TopK", "MinHash",
	"BinaryFuse", "ELL"}

// String returns the Go type name of the family ("Bloom", "HLL", ...).
func (f Family) String() string {
	if int(f) < len(familyNames) && f != 0 {
		return familyNames[f]
	}
	return "Family(" + itoa(int(f)) + ")"
}

// ImageInfo is what the common header of an image says (Inspect).
type ImageInfo struct {
	Family      Family // sketch family
	Hash        uint16 // hash id: 1 = XXH3-64 with Seed, 2 = XXH64 (Parquet split-block filters)
	FormatMajor uint8  // format major version
	FormatMinor uint8  // format minor version
	Flags       uint32 // family-specific flags
	HeaderBytes uint32 // header length in bytes
	Seed        uint64 // hash seed
	ImageBytes  uint64 // total image length in bytes
}

// imageCodec is the standard encoding interfaces every family type
// implements through its exported image: MarshalBinary, UnmarshalBinary
// and AppendBinary, and their text forms (standard base64 of the same
// bytes), which encoding/json, encoding/xml and YAML libraries use.
type imageCodec interface {
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
	encoding.BinaryAppender
	encoding.TextMarshaler
	encoding.TextUnmarshaler
	encoding.TextAppender
}

var (
	_ imageCodec = (*Bloom)(nil)
	_ imageCodec = (*SplitBlock)(nil)
	_ imageCodec = (*CountingBloom)(nil)
	_ imageCodec = (*Cuckoo)(nil)
	_ imageCodec = (*BinaryFuse)(nil)
	_ imageCodec = (*HLL)(nil)
	_ imageCodec = (*ULL)(nil)
	_ imageCodec = (*ELL)(nil)
	_ imageCodec = (*CountMin)(nil)
	_ imageCodec = (*TopK)(nil)
	_ imageCodec = (*MinHash)(nil)
)

// Inspect reads the common header of any image, for example to dispatch on
// the family of bytes received from elsewhere. It checks magic, version,
// ids and lengths, not the family header or the checksum (use Verify for
// that), and needs no alignment. Errors are *Error (ErrCorrupt, truncated
// bytes included, ErrUnsupportedVersion, ...).
func Inspect(b []byte) (ImageInfo, error) {
	info, s := cInspect(b)
	if s != 0 {
		return ImageInfo{}, untrustedError("Inspect", s, b)
	}
	return info, nil
}

// InspectHeader reads the common header from the first 48 bytes of b alone
// (sketch_image_inspect_header): what a reader of a file or socket holds
// before the rest of the image has arrived. It checks what Inspect checks
// of the header (magic, version, ids, reserved field, lengths) but not
// that the image fits b: ImageBytes is the length the header records,
// which a damaged or hostile header may make huge (bound it before reading
// that much). Bytes after the first 48 are not read. Errors are *Error:
// fewer than 48 bytes match ErrCorrupt (StatusLengthMismatch, truncated),
// and the header errors are Inspect's.
func InspectHeader(b []byte) (ImageInfo, error) {
	info, s := cInspectHeader(b)
	if s != 0 {
		return ImageInfo{}, untrustedError("InspectHeader", s, b)
	}
	return info, nil
}

// describe is the String form of a sketch of family f with live image b:
// its type, image size and seed, read from the common header, never the
// image bytes themselves. It reads as the other reading methods do: the
// methods that replace or shorten the image (UnmarshalBinary,
// SplitBlock.Fold) rewrite the slice and the header's length, so String
// needs the same exclusion from them as any query.
func describe(f Family, b []byte) string {
	name := "sketches." + f.String()
	if len(b) == 0 {
		return name + "(zero value)"
	}
	info, s := cInspect(b)
	if s != 0 {
		return name + "(" + Status(s).String() + ")"
	}
	return name + "(" + itoa(len(b)) + " bytes, seed " + utoa(info.Seed) + ")"
}

// formatSketch is every type's Format method: String's one-line
// description under the caller's verb, flags and width (%v, %s and %+v
// print it as is, %q quoted, %-40v padded), never the image bytes. Format
// has a value receiver, so fmt reaches it from a sketch held by value (a
// struct field printed with %+v, or *f), which String, with its pointer
// receiver, is not; through a nil pointer fmt prints "<nil>".
func formatSketch(s fmt.State, verb rune, f Family, b []byte) {
	fmt.Fprintf(s, fmt.FormatString(s, verb), describe(f, b))
}

// Verify checks untrusted bytes holding one exported image of any family
// in place, without copying: headers, exact length, checksum and (for HLL,
// ULL, ELL, Top-k and the binary fuse filter) body rules. Use it before wrapping an mmap'ed file with a
// Wrap function, which checks only the header. Damaged bytes, truncated
// ones included, give an error matching ErrCorrupt.
func Verify(b []byte) error {
	info, s := cInspect(b)
	if s != 0 {
		return untrustedError("Verify", s, b)
	}
	return errorOf("Verify", cVerify(info.Family, b))
}

// Version returns the run-time version of libsketches as text ("0.1.0").
func Version() string { return cVersionString() }

// VersionNumber returns the run-time version of libsketches as
// major*10000 + minor*100 + patch.
func VersionNumber() uint32 { return cVersion() }

// CapacityFlags is the over-capacity signal of the membership filters: 0
// while a filter is within its plan.
type CapacityFlags uint32

// The over-capacity flags (SKETCH_CAPACITY_*).
const (
	// OverPlannedItems: more items were inserted than planned.
	OverPlannedItems CapacityFlags = 1
	// FPRAboveTwicePlanned: the estimated false-positive rate exceeds twice
	// the planned rate.
	FPRAboveTwicePlanned CapacityFlags = 2
)

// String lists the raised flags ("ok" when none).
func (c CapacityFlags) String() string {
	if c == 0 {
		return "ok"
	}
	s := ""
	add := func(t string) {
		if s != "" {
			s += "|"
		}
		s += t
	}
	if c&OverPlannedItems != 0 {
		add("over-planned-items")
	}
	if c&FPRAboveTwicePlanned != 0 {
		add("fpr-above-twice-planned")
	}
	if rest := c &^ (OverPlannedItems | FPRAboveTwicePlanned); rest != 0 {
		add("0x" + hex(uint64(rest)))
	}
	return s
}

func hex(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var b [16]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[i:])
}

// Option configures a sketch at construction. A nil Option is ignored.
type Option func(*options)

type options struct {
	seed uint64
}

// WithSeed sets the hash seed (default 0). Sketches merge and compare only
// with equal seeds; images carry their seed, so readers never need it.
func WithSeed(seed uint64) Option { return func(o *options) { o.seed = seed } }

func applyOptions(opts []Option) options {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// image returns the image of a sketch passed as an argument (the other
// sketch of Merge, Union, Intersect and Jaccard): nil for a nil pointer, so
// a nil argument gives the zero value's error (StatusBufferTooSmall, saying
// so) instead of a nil-pointer panic, and the receiver is unchanged.
func (f *Bloom) image() []byte {
	if f == nil {
		return nil
	}
	return f.img
}

func (f *SplitBlock) image() []byte {
	if f == nil {
		return nil
	}
	return f.img
}

func (f *CountingBloom) image() []byte {
	if f == nil {
		return nil
	}
	return f.img
}

func (f *Cuckoo) image() []byte {
	if f == nil {
		return nil
	}
	return f.img
}

func (f *BinaryFuse) image() []byte {
	if f == nil {
		return nil
	}
	return f.img
}

func (h *HLL) image() []byte {
	if h == nil {
		return nil
	}
	return h.img
}

func (u *ULL) image() []byte {
	if u == nil {
		return nil
	}
	return u.img
}

func (e *ELL) image() []byte {
	if e == nil {
		return nil
	}
	return e.img
}

func (c *CountMin) image() []byte {
	if c == nil {
		return nil
	}
	return c.img
}

func (t *TopK) image() []byte {
	if t == nil {
		return nil
	}
	return t.img
}

func (m *MinHash) image() []byte {
	if m == nil {
		return nil
	}
	return m.img
}

// The LogValue methods make every type a slog.LogValuer: log/slog's
// handlers write a value that is an encoding.TextMarshaler through
// MarshalText, which for a sketch is its whole image in base64 (1.6 MB for
// a Bloom filter of a million keys) in every log line; LogValue gives them
// String's one line instead. They have pointer receivers so that a nil
// pointer logs as "<nil>": a sketch held by value and logged directly
// (slog.Any("f", *f)) is still written through MarshalText, so log the
// pointer. A struct holding sketches, logged whole, prints its fields
// through Format with the text handler (one line each) and is marshalled
// as JSON, images included, by the JSON handler.

// LogValue is the filter's value in log/slog records: String's one line
// (type, image size, seed; "<nil>" for a nil pointer), never the image.
// It only reads, like String.
func (f *Bloom) LogValue() slog.Value { return slog.StringValue(f.String()) }

// LogValue is the filter's value in log/slog records: String's one line
// (type, image size, seed; "<nil>" for a nil pointer), never the image.
// It only reads, like String.
func (f *SplitBlock) LogValue() slog.Value { return slog.StringValue(f.String()) }

// LogValue is the filter's value in log/slog records: String's one line
// (type, image size, seed; "<nil>" for a nil pointer), never the image.
// It only reads, like String.
func (f *CountingBloom) LogValue() slog.Value { return slog.StringValue(f.String()) }

// LogValue is the filter's value in log/slog records: String's one line
// (type, image size, seed; "<nil>" for a nil pointer), never the image.
// It only reads, like String.
func (f *Cuckoo) LogValue() slog.Value { return slog.StringValue(f.String()) }

// LogValue is the filter's value in log/slog records: String's one line
// (type, image size, seed; "<nil>" for a nil pointer), never the image.
// It only reads, like String.
func (f *BinaryFuse) LogValue() slog.Value { return slog.StringValue(f.String()) }

// LogValue is the sketch's value in log/slog records: String's one line
// (type, image size, seed; "<nil>" for a nil pointer), never the image.
// It only reads, like String.
func (h *HLL) LogValue() slog.Value { return slog.StringValue(h.String()) }

// LogValue is the sketch's value in log/slog records: String's one line
// (type, image size, seed; "<nil>" for a nil pointer), never the image.
// It only reads, like String.
func (u *ULL) LogValue() slog.Value { return slog.StringValue(u.String()) }

// LogValue is the sketch's value in log/slog records: String's one line
// (type, image size, seed; "<nil>" for a nil pointer), never the image.
// It only reads, like String.
func (e *ELL) LogValue() slog.Value { return slog.StringValue(e.String()) }

// LogValue is the sketch's value in log/slog records: String's one line
// (type, image size, seed; "<nil>" for a nil pointer), never the image.
// It only reads, like String.
func (c *CountMin) LogValue() slog.Value { return slog.StringValue(c.String()) }

// LogValue is the sketch's value in log/slog records: String's one line
// (type, image size, seed; "<nil>" for a nil pointer), never the image.
// It only reads, like String.
func (t *TopK) LogValue() slog.Value { return slog.StringValue(t.String()) }

// LogValue is the sketch's value in log/slog records: String's one line
// (type, image size, seed; "<nil>" for a nil pointer), never the image.
// It only reads, like String.
func (m *MinHash) LogValue() slog.Value { return slog.StringValue(m.String()) }
