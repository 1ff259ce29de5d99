package sketches

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

func TestErrors(t *testing.T) {
	var f Bloom
	err := f.UnmarshalBinary([]byte("not an image at all, but long enough to hold a header..........."))
	var e *Error
	if !errors.As(err, &e) || e.Code != StatusBadMagic || e.Op != "Bloom.UnmarshalBinary" {
		t.Fatalf("%#v", err)
	}
	if !strings.Contains(err.Error(), "Bloom.UnmarshalBinary") || !strings.Contains(err.Error(), e.Code.String()) {
		t.Fatalf("message %q", err)
	}
	if !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrFull) || errors.Is(err, ErrWrongFamily) {
		t.Fatal("sentinel matching")
	}
	wrapped := fmt.Errorf("loading filter: %w", err)
	if !errors.Is(wrapped, ErrCorrupt) || !errors.As(wrapped, &e) {
		t.Fatal("wrapped error")
	}
	for code, sentinel := range map[Status]*Error{
		StatusFull: ErrFull, StatusNotPresent: ErrNotPresent, StatusWrongFamily: ErrWrongFamily,
		StatusUnsupportedVersion: ErrUnsupportedVersion, StatusIncompatible: ErrIncompatible,
		StatusMisaligned: ErrMisaligned, StatusKeyTooLong: ErrKeyTooLong, StatusInvalidParameter: ErrInvalidParameter,
		StatusInvalidArgument: ErrInvalidArgument, StatusBuildFailed: ErrBuildFailed, StatusSmallMode: ErrSmallMode,
	} {
		if !errors.Is(&Error{Code: code, Op: "x"}, sentinel) || errors.Is(&Error{Code: code + 100}, sentinel) {
			t.Fatalf("%v", code)
		}
	}
	for _, code := range []Status{StatusBadMagic, StatusCorruptHeader, StatusChecksumMismatch, StatusLengthMismatch, StatusCorruptBody} {
		if !errors.Is(&Error{Code: code}, ErrCorrupt) {
			t.Fatalf("%v is not ErrCorrupt", code)
		}
	}
	if errors.Is(&Error{Code: StatusFull}, ErrCorrupt) || errors.Is(errors.New("x"), ErrFull) {
		t.Fatal("false match")
	}
	// Every status has the library's text; unknown numbers too.
	for s := StatusOK; s <= StatusSmallMode; s++ {
		if s.String() == "" || s.String() == Status(999).String() {
			t.Fatalf("status %d: %q", s, s.String())
		}
	}
	if !strings.Contains(Status(999).String(), "unknown") {
		t.Fatal(Status(999).String())
	}
	// An image from a newer format major version.
	img := readGolden(t, "bloom")
	img[4]++ // the format major version follows the 4-byte magic
	if err := f.UnmarshalBinary(img); !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatalf("newer major version: %v", err)
	}
	if _, err := Inspect(img); !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatalf("inspect of a newer major version: %v", err)
	}
}

// The Go status constants mirror the header's SKETCH_* numbers.
func TestStatusNumbersMatchHeader(t *testing.T) {
	h, err := os.ReadFile("../../include/sketches.h")
	check(t, err)
	re := regexp.MustCompile(`#define SKETCH_([A-Z_]+) (\d+)\n`)
	want := map[string]Status{
		"OK": StatusOK, "NULL_POINTER": StatusNullPointer, "BUFFER_TOO_SMALL": StatusBufferTooSmall,
		"MISALIGNED": StatusMisaligned, "INVALID_PARAMETER": StatusInvalidParameter,
		"INVALID_ARGUMENT": StatusInvalidArgument, "BAD_MAGIC": StatusBadMagic,
		"UNSUPPORTED_VERSION": StatusUnsupportedVersion, "WRONG_FAMILY": StatusWrongFamily,
		"CORRUPT_HEADER": StatusCorruptHeader, "CHECKSUM_MISMATCH": StatusChecksumMismatch,
		"LENGTH_MISMATCH": StatusLengthMismatch, "INCOMPATIBLE": StatusIncompatible,
		"UNSUPPORTED_HASH": StatusUnsupportedHash, "OVERLAP": StatusOverlap,
		"INTERNAL_ERROR": StatusInternalError, "NOT_PRESENT": StatusNotPresent, "FULL": StatusFull,
		"CORRUPT_BODY": StatusCorruptBody, "COMPACT_IMAGE": StatusCompactImage, "KEY_TOO_LONG": StatusKeyTooLong,
		"BUILD_FAILED": StatusBuildFailed, "SMALL_MODE": StatusSmallMode,
		"FAMILY_BLOOM": Status(FamilyBloom), "FAMILY_SPLIT_BLOCK_BLOOM": Status(FamilySplitBlock),
		"FAMILY_COUNTING_BLOOM": Status(FamilyCountingBloom), "FAMILY_CUCKOO": Status(FamilyCuckoo),
		"FAMILY_HYPERLOGLOG": Status(FamilyHLL), "FAMILY_ULTRALOGLOG": Status(FamilyULL),
		"FAMILY_COUNT_MIN": Status(FamilyCountMin), "FAMILY_TOPK": Status(FamilyTopK),
		"FAMILY_MINHASH": Status(FamilyMinHash), "FAMILY_BINARY_FUSE": Status(FamilyBinaryFuse),
		"FAMILY_EXALOGLOG":            Status(FamilyELL),
		"CAPACITY_OVER_PLANNED_ITEMS": Status(OverPlannedItems), "CAPACITY_FPR_ABOVE_TWICE_PLANNED": Status(FPRAboveTwicePlanned),
		"TOKEN_WORDS": Status(len(imageToken{})),
	}
	seen := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(string(h), -1) {
		if w, ok := want[m[1]]; ok {
			seen[m[1]] = true
			if fmt.Sprint(int(w)) != m[2] {
				t.Errorf("SKETCH_%s = %s, Go has %d", m[1], m[2], w)
			}
		}
	}
	var missing []string
	for k := range want {
		if !seen[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("not in the header: %v", missing)
	}
	// No status number of the header is unknown to Go.
	other := regexp.MustCompile(`^(FORMAT|FAMILY|CAPACITY|HASH|CARDINALITY|HLL_MODE|COMMON|IMAGE|SBBF|VERSION|ELL|FUSE|PARQUET_SIZING)_`)
	for _, m := range re.FindAllStringSubmatch(string(h), -1) {
		if _, ok := want[m[1]]; !ok && !other.MatchString(m[1]) {
			t.Errorf("SKETCH_%s has no Go status constant", m[1])
		}
	}
	// The run-time version in both forms (the Rust side checks it against Cargo.toml).
	v := VersionNumber()
	if Version() != fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100) {
		t.Fatalf("version %q vs %d", Version(), v)
	}
	if FamilyHLL.String() != "HLL" || FamilyBinaryFuse.String() != "BinaryFuse" || FamilyELL.String() != "ELL" ||
		Family(77).String() != "Family(77)" {
		t.Fatal("family names")
	}
	if (OverPlannedItems | FPRAboveTwicePlanned | 8).String() != "over-planned-items|fpr-above-twice-planned|0x8" {
		t.Fatal((OverPlannedItems | FPRAboveTwicePlanned | 8).String())
	}
}

// Printing a sketch with fmt (%v, %s, %+v: a log line) describes it in one
// short line instead of dumping its image, which is megabytes for a large
// filter; zero values and nil pointers print too.
func TestSketchString(t *testing.T) {
	bloom, _ := NewBloom(1_000_000, 0.01, WithSeed(7))
	sbbf, _ := NewSplitBlock(1000, 0.01)
	counting, _ := NewCountingBloom(1000, 0.01)
	cuckoo, _ := NewCuckoo(1000, 0.01)
	fuse, _ := NewBinaryFuseStrings(keys("k", 0, 100), 8)
	hll, _ := NewHLL(14)
	ull, _ := NewULL(12)
	ell, _ := NewELL(12, 24)
	cms, _ := NewCountMin(0.001, 0.01)
	topk, _ := NewTopK(100, 64)
	minhash, _ := NewMinHash(128)
	for _, c := range []struct {
		name       string
		live, zero fmt.Stringer
		size       int
		null       fmt.Stringer
	}{
		{"Bloom", bloom, &Bloom{}, bloom.Size(), (*Bloom)(nil)},
		{"SplitBlock", sbbf, &SplitBlock{}, sbbf.Size(), (*SplitBlock)(nil)},
		{"CountingBloom", counting, &CountingBloom{}, counting.Size(), (*CountingBloom)(nil)},
		{"Cuckoo", cuckoo, &Cuckoo{}, cuckoo.Size(), (*Cuckoo)(nil)},
		{"BinaryFuse", fuse, &BinaryFuse{}, fuse.Size(), (*BinaryFuse)(nil)},
		{"HLL", hll, &HLL{}, hll.Size(), (*HLL)(nil)},
		{"ULL", ull, &ULL{}, ull.Size(), (*ULL)(nil)},
		{"ELL", ell, &ELL{}, ell.Size(), (*ELL)(nil)},
		{"CountMin", cms, &CountMin{}, cms.Size(), (*CountMin)(nil)},
		{"TopK", topk, &TopK{}, topk.Size(), (*TopK)(nil)},
		{"MinHash", minhash, &MinHash{}, minhash.Size(), (*MinHash)(nil)},
	} {
		for _, verb := range []string{"%v", "%s", "%+v"} {
			got := fmt.Sprintf(verb, c.live)
			if len(got) > 100 || !strings.HasPrefix(got, "sketches."+c.name+"(") ||
				!strings.Contains(got, fmt.Sprint(c.size)+" bytes") {
				t.Fatalf("%s %s: %.200q", c.name, verb, got)
			}
		}
		if got := fmt.Sprint(c.zero); got != "sketches."+c.name+"(zero value)" {
			t.Fatalf("%s zero value: %q", c.name, got)
		}
		if got := fmt.Sprint(c.null); got != "<nil>" {
			t.Fatalf("%s nil: %q", c.name, got)
		}
	}
	if got := bloom.String(); !strings.Contains(got, "seed 7") {
		t.Fatalf("seed: %q", got)
	}
}

// Methods with an error result report a zero value's missing image as an
// error, as their single-key forms do, instead of panicking.
func TestZeroValueErrorResults(t *testing.T) {
	var (
		cuckoo   Cuckoo
		counting CountingBloom
		topk     TopK
		ull      ULL
		countMin CountMin
	)
	ks := []string{"a", "b"}
	for name, call := range map[string]func() (int, error){
		"Cuckoo.AddString":            func() (int, error) { return 0, cuckoo.AddString("a") },
		"Cuckoo.AddStrings":           func() (int, error) { return cuckoo.AddStrings(ks) },
		"Cuckoo.AddBytes":             func() (int, error) { return cuckoo.AddBytes(byteKeys(ks)) },
		"Cuckoo.AddUint64s":           func() (int, error) { return cuckoo.AddUint64s([]uint64{1}) },
		"Cuckoo.RemoveStrings":        func() (int, error) { return cuckoo.RemoveStrings(ks) },
		"Cuckoo.RemoveBytes":          func() (int, error) { return cuckoo.RemoveBytes(byteKeys(ks)) },
		"Cuckoo.RemoveUint64s":        func() (int, error) { return cuckoo.RemoveUint64s([]uint64{1}) },
		"CountingBloom.RemoveString":  func() (int, error) { return 0, counting.RemoveString("a") },
		"CountingBloom.RemoveStrings": func() (int, error) { return counting.RemoveStrings(ks) },
		"CountingBloom.RemoveBytes":   func() (int, error) { return counting.RemoveBytes(byteKeys(ks)) },
		"CountingBloom.RemoveUint64s": func() (int, error) { return counting.RemoveUint64s([]uint64{1}) },
		"TopK.AddString":              func() (int, error) { return 0, topk.AddString("a", 1) },
		"TopK.AddStrings":             func() (int, error) { return 0, topk.AddStrings(ks, nil) },
		"TopK.AddBytes":               func() (int, error) { return 0, topk.AddBytes(byteKeys(ks), nil) },
		"ULL.ToHLL":                   func() (int, error) { _, err := ull.ToHLL(); return 0, err },
		"Cuckoo.AddHash":              func() (int, error) { return 0, cuckoo.AddHash(1) },
		"Cuckoo.RemoveHash":           func() (int, error) { return 0, cuckoo.RemoveHash(1) },
		"Cuckoo.AddHashes":            func() (int, error) { return cuckoo.AddHashes([]uint64{1}) },
		"Cuckoo.RemoveHashes":         func() (int, error) { return cuckoo.RemoveHashes([]uint64{1}) },
		"CountingBloom.RemoveHash":    func() (int, error) { return 0, counting.RemoveHash(1) },
		"CountingBloom.RemoveHashes":  func() (int, error) { return counting.RemoveHashes([]uint64{1}) },
		"TopK.AddUint64s":             func() (int, error) { return 0, topk.AddUint64s([]uint64{1}, nil) },
		"CountMin.AddStrings":         func() (int, error) { return 0, countMin.AddStrings(ks, nil) },
		"CountMin.AddBytes":           func() (int, error) { return 0, countMin.AddBytes(byteKeys(ks), nil) },
		"CountMin.AddUint64s":         func() (int, error) { return 0, countMin.AddUint64s([]uint64{1}, nil) },
		"CountMin.AddHashes":          func() (int, error) { return 0, countMin.AddHashes([]uint64{1}, nil) },
	} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s on a zero value panicked: %v", name, p)
				}
			}()
			n, err := call()
			var e *Error
			if !errors.As(err, &e) || e.Op != name || n != 0 {
				t.Errorf("%s on a zero value: %d, %v", name, n, err)
			}
			// The message names the cause: "buffer too small for the
			// sketch image" alone read as a key or output buffer problem.
			if !strings.Contains(err.Error(), "zero value") {
				t.Errorf("%s on a zero value: %q does not say so", name, err)
			}
			if !errors.Is(err, ErrNoImage) {
				t.Errorf("%s on a zero value: %v does not match ErrNoImage", name, err)
			}
		}()
	}
	// A zero-value argument to a merge, likewise.
	b, _ := NewBloom(100, 0.01)
	if err := b.Union(&Bloom{}); err == nil || !strings.Contains(err.Error(), "zero value") {
		t.Errorf("Union with a zero value: %v", err)
	}
	h, _ := NewHLL(10)
	if err := h.Merge(&HLL{}); err == nil || !strings.Contains(err.Error(), "zero value") {
		t.Errorf("Merge with a zero value: %v", err)
	}
}

// errors.Is with a nil *Error target (a table-driven test's "no error"
// column typed *Error, say) answers false instead of panicking in Is.
func TestErrorIsNilTarget(t *testing.T) {
	var want *Error
	_, err := NewBloom(0, 0.01)
	if err == nil {
		t.Fatal("NewBloom(0, ...) did not fail")
	}
	matched, panicked := func() (m bool, p any) {
		defer func() { p = recover() }()
		return errors.Is(err, want), nil
	}()
	if panicked != nil || matched {
		t.Fatalf("errors.Is(err, (*Error)(nil)) = %v, panic %v", matched, panicked)
	}
	if errors.Is(fmt.Errorf("wrapped: %w", err), want) {
		t.Fatal("a wrapped error matched a nil *Error")
	}
}

// A sketch held by value (a field of a config or server struct logged whole
// with %v or %+v, or *f printed) prints the same one-line description as
// through a pointer, not its image: the value has a Format method (String
// alone has a pointer receiver, which fmt cannot reach from a value, and
// fmt then dumped the whole image as decimal bytes: 2.4 MB of log line for
// a 1M-key Bloom filter).
func TestSketchStringByValue(t *testing.T) {
	bloom, _ := NewBloom(1_000_000, 0.01, WithSeed(7))
	sbbf, _ := NewSplitBlock(1000, 0.01)
	counting, _ := NewCountingBloom(1000, 0.01)
	cuckoo, _ := NewCuckoo(1000, 0.01)
	fuse, _ := NewBinaryFuseStrings(keys("k", 0, 100), 8)
	hll, _ := NewHLL(14)
	ull, _ := NewULL(12)
	ell, _ := NewELL(12, 24)
	cms, _ := NewCountMin(0.001, 0.01)
	topk, _ := NewTopK(100, 64)
	minhash, _ := NewMinHash(128)
	type logged struct {
		Name   string
		Sketch any
	}
	for _, c := range []struct {
		name        string
		ptr         fmt.Stringer
		value, zero any
	}{
		{"Bloom", bloom, *bloom, Bloom{}},
		{"SplitBlock", sbbf, *sbbf, SplitBlock{}},
		{"CountingBloom", counting, *counting, CountingBloom{}},
		{"Cuckoo", cuckoo, *cuckoo, Cuckoo{}},
		{"BinaryFuse", fuse, *fuse, BinaryFuse{}},
		{"HLL", hll, *hll, HLL{}},
		{"ULL", ull, *ull, ULL{}},
		{"ELL", ell, *ell, ELL{}},
		{"CountMin", cms, *cms, CountMin{}},
		{"TopK", topk, *topk, TopK{}},
		{"MinHash", minhash, *minhash, MinHash{}},
	} {
		want := c.ptr.String()
		for _, verb := range []string{"%v", "%s", "%+v"} {
			if got := fmt.Sprintf(verb, c.value); got != want {
				t.Fatalf("%s by value, %s: %.120q (%d bytes), want %q", c.name, verb, got, len(got), want)
			}
			if got := fmt.Sprintf(verb, c.ptr); got != want {
				t.Fatalf("%s by pointer, %s: %.120q, want %q", c.name, verb, got, want)
			}
		}
		// A struct field by value (the sketch's dynamic type in an any
		// field, and as a typed field through reflection below).
		if got := fmt.Sprintf("%+v", logged{"svc", c.value}); got != "{Name:svc Sketch:"+want+"}" {
			t.Fatalf("%s in a struct: %.120q (%d bytes)", c.name, got, len(got))
		}
		if got := fmt.Sprint(c.zero); got != "sketches."+c.name+"(zero value)" {
			t.Fatalf("%s zero value by value: %.120q", c.name, got)
		}
	}
	type server struct {
		Name string
		Seen Bloom
		Uniq HLL
	}
	s := server{Name: "api", Seen: *bloom, Uniq: *hll}
	got := fmt.Sprintf("%+v", s)
	if want := "{Name:api Seen:" + bloom.String() + " Uniq:" + hll.String() + "}"; got != want {
		t.Fatalf("typed fields by value: %.200q (%d bytes), want %q", got, len(got), want)
	}
}

// errors.Is with an *Error target compares the status code and, when the
// target names one, the operation; Detail never counts.
func TestErrorIsComparesOpWhenGiven(t *testing.T) {
	err := &Error{Code: StatusFull, Op: "Cuckoo.Add", Detail: "x"}
	for _, c := range []struct {
		target *Error
		want   bool
	}{
		{ErrFull, true},
		{&Error{Code: StatusFull, Detail: "other"}, true},
		{&Error{Code: StatusFull, Op: "Cuckoo.Add"}, true},
		{&Error{Code: StatusFull, Op: "Cuckoo.Merge"}, false},
		{&Error{Code: StatusNotPresent, Op: "Cuckoo.Add"}, false},
	} {
		if got := errors.Is(err, c.target); got != c.want {
			t.Errorf("errors.Is(%v, %+v) = %v, want %v", err, *c.target, got, c.want)
		}
	}
}
