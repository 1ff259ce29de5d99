package sketches

import (
	"errors"
	"testing"
)

// Every family sizes without building, from its constructor's arguments
// (as Java's imageBytes, Python's size_for and C++'s image_size do): the
// size is the Size() of the sketch the constructor makes, and arguments
// the constructor refuses give the same ErrInvalidParameter.
func TestSizingWithoutBuilding(t *testing.T) {
	sized := func(n uint64, err error) func() (uint64, error) {
		return func() (uint64, error) { return n, err }
	}
	built := func(s interface{ Size() int }, err error) func() (int, error) {
		return func() (int, error) {
			if err != nil {
				return 0, err
			}
			return s.Size(), nil
		}
	}
	fuseKeys := keys("size-", 0, 1000)
	cases := []struct {
		name  string
		size  func() (uint64, error)
		build func() (int, error)
	}{
		{"Bloom", sized(BloomSize(10000, 0.01)), built(NewBloom(10000, 0.01))},
		{"BloomWithParams", sized(BloomSizeWithParams(BloomParams{Bits: 4096, Hashes: 3, PlannedItems: 100, PlannedFPR: 0.01})),
			built(NewBloomWithParams(BloomParams{Bits: 4096, Hashes: 3, PlannedItems: 100, PlannedFPR: 0.01}))},
		{"CountingBloom", sized(CountingBloomSize(10000, 0.01)), built(NewCountingBloom(10000, 0.01))},
		{"SplitBlock", sized(SplitBlockSize(10000, 0.01)), built(NewSplitBlock(10000, 0.01))},
		{"SplitBlockParquet", sized(SplitBlockParquetSize(10000, 0.01)), built(NewSplitBlockParquet(10000, 0.01))},
		{"Cuckoo", sized(CuckooSize(10000, 0.01)), built(NewCuckoo(10000, 0.01))},
		{"HLL", sized(HLLSize(12)), built(NewHLL(12))},
		{"ULL", sized(ULLSize(12)), built(NewULL(12))},
		{"ELL", sized(ELLSize(12, 24)), built(NewELL(12, 24))},
		{"CountMin", sized(CountMinSize(0.001, 0.01)), built(NewCountMin(0.001, 0.01))},
		{"TopK", sized(TopKSize(100, 32)), built(NewTopK(100, 32))},
		{"MinHash", sized(MinHashSize(128)), built(NewMinHash(128))},
		{"BinaryFuse", sized(BinaryFuseSize(uint64(len(fuseKeys)), 16)), built(NewBinaryFuseStrings(fuseKeys, 16))},
	}
	for _, c := range cases {
		n, err := c.size()
		check(t, err)
		want, err := c.build()
		check(t, err)
		if n != uint64(want) {
			t.Errorf("%s: sized %d bytes, the constructor made %d", c.name, n, want)
		}
	}
	refused := []struct {
		name string
		err  error
	}{
		{"Bloom", second(BloomSize(0, 0.01))},
		{"CountingBloom", second(CountingBloomSize(100, 1))},
		{"SplitBlock", second(SplitBlockSize(100, 0))},
		{"SplitBlockParquet", second(SplitBlockParquetSize(0, 0.01))},
		{"Cuckoo", second(CuckooSize(100, 1e-9))},
		{"HLL", second(HLLSize(3))},
		{"ULL", second(ULLSize(19))},
		{"ELL", second(ELLSize(12, 21))},
		{"CountMin", second(CountMinSize(0, 0.01))},
		{"TopK", second(TopKSize(0, 8))},
		{"MinHash", second(MinHashSize(0))},
		{"BinaryFuse", second(BinaryFuseSize(100, 7))},
	}
	for _, r := range refused {
		if !errors.Is(r.err, ErrInvalidParameter) {
			t.Errorf("%s: out-of-range arguments gave %v, not ErrInvalidParameter", r.name, r.err)
		}
	}
}

func second(_ uint64, err error) error { return err }
