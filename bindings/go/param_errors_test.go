package sketches

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// A parameter the library refuses gives an error naming the function (the
// family) and the value given, not only "sketch parameter out of range":
// a service reading its sketch sizes from configuration can tell which
// setting is wrong. Before, the Detail was empty for every one of these.
func TestParameterErrorsNameTheValue(t *testing.T) {
	for _, c := range []struct {
		want string // in the message, beside the function's name
		call func() error
	}{
		{"NewHLL: sketch parameter out of range (precision 25)", func() error { _, err := NewHLL(25); return err }},
		{"HLLSize: sketch parameter out of range (precision 3)", func() error { _, err := HLLSize(3); return err }},
		{"NewULL: sketch parameter out of range (precision 255)", func() error { _, err := NewULL(255); return err }},
		{"ULLSize: sketch parameter out of range (precision 0)", func() error { _, err := ULLSize(0); return err }},
		{"D:21", func() error { _, err := NewELL(12, 21); return err }},
		{"relative error NaN, d 20", func() error { _, err := PlanELL(math.NaN(), 20); return err }},
		{"NewMinHash: sketch parameter out of range (k 0)", func() error { _, err := NewMinHash(0); return err }},
		{"(capacity 0, max key length 16)", func() error { _, err := NewTopK(0, 16); return err }},
		{"TopKSize: sketch parameter out of range (capacity 4294967295, max key length 4294967295)",
			func() error { _, err := TopKSize(math.MaxUint32, math.MaxUint32); return err }},
		{"PlanBloom: sketch parameter out of range (items 0, fpr 0.01)", func() error { _, err := NewBloom(0, 0.01); return err }},
		{"(items 18446744073709551615, fpr 1e-10)", func() error { _, err := NewBloom(math.MaxUint64, 1e-10); return err }},
		{"PlanBloomBits: sketch parameter out of range (bits 0, hashes 7)", func() error { _, err := PlanBloomBits(0, 7); return err }},
		{"Hashes:0", func() error {
			_, err := NewBloomWithParams(BloomParams{Bits: 64, Hashes: 0, PlannedItems: 1, PlannedFPR: 0.1})
			return err
		}},
		{"(items 1000, fpr 1.5)", func() error { _, err := NewCountingBloom(1000, 1.5); return err }},
		{"(items 1000, fpr -1)", func() error { _, err := NewCuckoo(1000, -1); return err }},
		{"(buckets 8, fingerprint bits 9)", func() error { _, err := PlanCuckooBuckets(8, 9); return err }},
		{"(items 1000, fpr 0)", func() error { _, err := NewSplitBlock(1000, 0); return err }},
		{"(ndv 0, fpp 0.01)", func() error { _, err := NewSplitBlockParquet(0, 0.01); return err }},
		{"(blocks 0)", func() error { _, err := PlanSplitBlockBlocks(0, false); return err }},
		{"(epsilon NaN, delta 0.1)", func() error { _, err := NewCountMin(math.NaN(), 0.1); return err }},
		{"(width 0, depth 4)", func() error { _, err := PlanCountMinSize(0, 4); return err }},
		{"CounterBits:16", func() error {
			_, err := NewCountMinWithParams(CountMinParams{Width: 8, Depth: 2, CounterBits: 16})
			return err
		}},
		{"(keys 3, fingerprint bits 12)", func() error { _, err := NewBinaryFuseStrings([]string{"a", "b", "c"}, 12); return err }},
		{"(keys 1, fingerprint bits 0)", func() error { _, err := NewBinaryFuseUint64s([]uint64{1}, 0); return err }},
		{"(keys 10, fingerprint bits 4)", func() error { _, err := BinaryFuseSize(10, 4); return err }},
		{"HLL.Downsize: sketch parameter out of range (precision 2)", func() error {
			h, _ := NewHLL(10)
			_, err := h.Downsize(2)
			return err
		}},
		{"(to precision 14, d 20: both must be at most the source's)", func() error {
			e, _ := NewELL(12, 20)
			_, err := e.Downsize(14, 20)
			return err
		}},
	} {
		err := c.call()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v does not contain %q", err, c.want)
		}
		if !errors.Is(err, ErrInvalidParameter) && !errors.Is(err, ErrIncompatible) {
			t.Errorf("%v matches neither ErrInvalidParameter nor ErrIncompatible", err)
		}
	}
}
