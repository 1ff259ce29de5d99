package sketches

import (
	"errors"
	"testing"
)

// A Wrap function given a truncated image (an mmap'ed file cut short by a
// crash during its write, say) reports it as UnmarshalBinary, Verify and
// Inspect report the same bytes: an error matching ErrCorrupt (a length
// mismatch). Wrap returned the library's StatusBufferTooSmall, which
// ErrCorrupt does not match, so a service that rebuilds corrupt files on
// errors.Is(err, ErrCorrupt) failed on this one.
func TestWrapTruncatedIsCorrupt(t *testing.T) {
	wraps := map[string]func([]byte) error{
		"bloom":        func(b []byte) error { _, err := WrapBloom(b); return err },
		"sbbf":         func(b []byte) error { _, err := WrapSplitBlock(b); return err },
		"sbbf_parquet": func(b []byte) error { _, err := WrapSplitBlock(b); return err },
		"counting":     func(b []byte) error { _, err := WrapCountingBloom(b); return err },
		"cuckoo":       func(b []byte) error { _, err := WrapCuckoo(b); return err },
		"fuse8":        func(b []byte) error { _, err := WrapBinaryFuse(b); return err },
		"fuse16":       func(b []byte) error { _, err := WrapBinaryFuse(b); return err },
		"hll_small":    func(b []byte) error { _, err := WrapHLL(b); return err },
		"hll_dense":    func(b []byte) error { _, err := WrapHLL(b); return err },
		"ull":          func(b []byte) error { _, err := WrapULL(b); return err },
		"ell":          func(b []byte) error { _, err := WrapELL(b); return err },
		"ell_d24":      func(b []byte) error { _, err := WrapELL(b); return err },
		"countmin":     func(b []byte) error { _, err := WrapCountMin(b); return err },
		"topk":         func(b []byte) error { _, err := WrapTopK(b); return err },
		"minhash":      func(b []byte) error { _, err := WrapMinHash(b); return err },
	}
	for name, wrap := range wraps {
		img := readGolden(t, name)
		for _, n := range []int{0, 1, 7, 8, 31, 32, 63, 64, len(img) / 2, len(img) - 8, len(img) - 1} {
			if n >= len(img) {
				continue
			}
			b := alignedCopy(img[:n], 0)
			if err := Verify(b); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s cut to %d bytes: Verify gave %v", name, n, err)
			}
			err := wrap(b)
			var e *Error
			if !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.Code != StatusLengthMismatch {
				t.Fatalf("%s cut to %d bytes: Wrap gave %v, want a length mismatch matching ErrCorrupt", name, n, err)
			}
		}
		if name != "hll_small" { // a compact image, which no Wrap takes
			if err := wrap(alignedCopy(img, 0)); err != nil {
				t.Fatalf("%s whole: %v", name, err)
			}
		}
	}
}
