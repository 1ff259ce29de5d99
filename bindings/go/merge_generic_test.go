package sketches

import (
	"bytes"
	"errors"
	"testing"
)

// mergeable is what a caller's aggregator of per-shard sketches needs:
// every mergeable family's type has Merge(*T) error (Bloom and SplitBlock
// under Union too).
type mergeable[T any] interface {
	*T
	imageCodec
	Merge(*T) error
}

// mergeShards merges shards into a fresh sketch made by newT.
func mergeShards[T any, P mergeable[T]](t *testing.T, newT func() P, shards ...P) P {
	t.Helper()
	acc := newT()
	for _, s := range shards {
		check(t, acc.Merge((*T)(s)))
	}
	return acc
}

func TestMergeIsGenericOverFamilies(t *testing.T) {
	a, b := keys("shard-a-", 0, 300), keys("shard-b-", 0, 300)
	newBloom := func() *Bloom { f, _ := NewBloom(1000, 0.01); return f }
	fa, fb := newBloom(), newBloom()
	fa.AddStrings(a)
	fb.AddStrings(b)
	m := mergeShards(t, newBloom, fa, fb)
	u := newBloom()
	check(t, u.Union(fa))
	check(t, u.Union(fb))
	if !bytes.Equal(marshal(t, m), marshal(t, u)) {
		t.Fatal("Bloom.Merge is not Union")
	}
	newSBBF := func() *SplitBlock { f, _ := NewSplitBlock(1000, 0.01); return f }
	sa, sb := newSBBF(), newSBBF()
	sa.AddStrings(a)
	sb.AddStrings(b)
	sm := mergeShards(t, newSBBF, sa, sb)
	if countTrue(sm.ContainsStrings(append(a, b...), nil)) != 600 {
		t.Fatal("SplitBlock.Merge lost keys")
	}
	other, _ := NewBloom(1000, 0.01, WithSeed(1))
	err := m.Merge(other)
	var e *Error
	if !errors.Is(err, ErrIncompatible) || !errors.As(err, &e) || e.Op != "Bloom.Merge" {
		t.Fatalf("Bloom.Merge of another seed: %v", err)
	}
	// The other families, through the same generic code.
	newHLL := func() *HLL { h, _ := NewHLL(10); return h }
	ha, hb := newHLL(), newHLL()
	ha.AddStrings(a)
	hb.AddStrings(b)
	if est := mergeShards(t, newHLL, ha, hb).Estimate(); est < 550 || est > 650 {
		t.Fatal("HLL through the generic merge:", est)
	}
	newCM := func() *CountMin { c, _ := NewCountMin(0.01, 0.01); return c }
	ca, cb := newCM(), newCM()
	ca.AddStrings(a, nil)
	cb.AddStrings(a, nil)
	if got := mergeShards(t, newCM, ca, cb).EstimateString(a[0]); got < 2 {
		t.Fatal("CountMin through the generic merge:", got)
	}
	_ = mergeShards[CountingBloom, *CountingBloom]
	_ = mergeShards[Cuckoo, *Cuckoo]
	_ = mergeShards[ULL, *ULL]
	_ = mergeShards[ELL, *ELL]
	_ = mergeShards[TopK, *TopK]
	_ = mergeShards[MinHash, *MinHash]
}
