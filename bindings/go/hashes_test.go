package sketches

import (
	"bytes"
	"encoding"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// hashSeed is a seed other than the default, so a hash computed with the
// wrong seed would not reproduce the key adds.
const hashSeed = 0x5eed

// keyHashes returns Hash(k, seed) of every string key, then
// HashUint64(k, seed) of every integer key: the hashes AddHash takes.
func keyHashes(strs []string, ints []uint64, seed uint64) []uint64 {
	h := make([]uint64, 0, len(strs)+len(ints))
	for _, k := range strs {
		h = append(h, Hash([]byte(k), seed))
	}
	for _, k := range ints {
		h = append(h, HashUint64(k, seed))
	}
	return h
}

// hashAdds checks that a sketch built by AddHash, one hash at a time, and
// one built by AddHashes, one batch, are byte for byte the sketch built by
// adding the keys (AddString, AddUint64), and that AddHash answers as the
// key's add did, add by add.
func hashAdds[S encoding.BinaryMarshaler](t *testing.T, name string, mk func() S,
	addString func(S, string) any, addUint64 func(S, uint64) any,
	addHash func(S, uint64) any, addHashes func(S, []uint64)) (byKey S, hashes []uint64) {
	t.Helper()
	strs := keys("hash-", 0, 600)
	strs[7] = "" // the empty key
	ints := u64Keys(0, 300)
	hashes = keyHashes(strs, ints, hashSeed)
	byKey, one, batch := mk(), mk(), mk()
	var keyAnswers, hashAnswers []any
	for _, k := range strs {
		keyAnswers = append(keyAnswers, addString(byKey, k))
	}
	for _, k := range ints {
		keyAnswers = append(keyAnswers, addUint64(byKey, k))
	}
	for _, h := range hashes {
		hashAnswers = append(hashAnswers, addHash(one, h))
	}
	addHashes(batch, hashes)
	if !reflect.DeepEqual(keyAnswers, hashAnswers) {
		t.Fatalf("%s.AddHash answered otherwise than the key adds", name)
	}
	sameImage(t, name+".AddHash", byKey, one)
	sameImage(t, name+".AddHashes", byKey, batch)
	return byKey, hashes
}

// Every family with precomputed-hash functions in the C ABI has AddHash
// and AddHashes in Go (and ContainsHash, ContainsHashes, RemoveHash,
// RemoveHashes, EstimateHash, EstimateHashes where the family queries or
// removes), named as SplitBlock's, and a hash of Hash(k, seed) acts as the
// key k: the same image bytes and the same answers. Only SplitBlock had
// them before (the test did not compile).
func TestHashFormsEqualKeyForms(t *testing.T) {
	seed := WithSeed(hashSeed)
	absent := keyHashes(keys("absent-", 0, 400), nil, hashSeed)

	t.Run("Bloom", func(t *testing.T) {
		f, hs := hashAdds(t, "Bloom", func() *Bloom { f, err := NewBloom(2000, 0.01, seed); check(t, err); return f },
			func(f *Bloom, k string) any { return f.AddString(k) }, func(f *Bloom, k uint64) any { return f.AddUint64(k) },
			func(f *Bloom, h uint64) any { return f.AddHash(h) }, func(f *Bloom, h []uint64) { f.AddHashes(h) })
		filterQueries(t, "Bloom", hs, absent, f.ContainsHash, f.ContainsHashes)
	})
	t.Run("CountingBloom", func(t *testing.T) {
		mk := func() *CountingBloom { f, err := NewCountingBloom(2000, 0.01, seed); check(t, err); return f }
		f, hs := hashAdds(t, "CountingBloom", mk,
			func(f *CountingBloom, k string) any { return f.AddString(k) }, func(f *CountingBloom, k uint64) any { return f.AddUint64(k) },
			func(f *CountingBloom, h uint64) any { return f.AddHash(h) }, func(f *CountingBloom, h []uint64) { f.AddHashes(h) })
		filterQueries(t, "CountingBloom", hs, absent, f.ContainsHash, f.ContainsHashes)
		removals(t, "CountingBloom", f, hs,
			func(f *CountingBloom) *CountingBloom { return f.Clone() },
			func(f *CountingBloom, k string) error { return f.RemoveString(k) },
			func(f *CountingBloom, h uint64) error { return f.RemoveHash(h) },
			func(f *CountingBloom, h []uint64) (int, error) { return f.RemoveHashes(h) })
	})
	t.Run("Cuckoo", func(t *testing.T) {
		mk := func() *Cuckoo { f, err := NewCuckoo(2000, 0.01, seed); check(t, err); return f }
		f, hs := hashAdds(t, "Cuckoo", mk,
			func(f *Cuckoo, k string) any { return f.AddString(k) }, func(f *Cuckoo, k uint64) any { return f.AddUint64(k) },
			func(f *Cuckoo, h uint64) any { return f.AddHash(h) },
			func(f *Cuckoo, h []uint64) {
				if n, err := f.AddHashes(h); n != len(h) || err != nil {
					t.Fatalf("Cuckoo.AddHashes: %d of %d, %v", n, len(h), err)
				}
			})
		filterQueries(t, "Cuckoo", hs, absent, f.ContainsHash, f.ContainsHashes)
		removals(t, "Cuckoo", f, hs,
			func(f *Cuckoo) *Cuckoo { return f.Clone() },
			func(f *Cuckoo, k string) error { return f.RemoveString(k) },
			func(f *Cuckoo, h uint64) error { return f.RemoveHash(h) },
			func(f *Cuckoo, h []uint64) (int, error) { return f.RemoveHashes(h) })
		// A full filter refuses a hash as it refuses a key.
		tiny, err := NewCuckooWithParams(CuckooParams{Buckets: 1, FingerprintBits: 8, PlannedItems: 1, PlannedFPR: 0.5}, seed)
		if err != nil {
			t.Skip(err) // the planner refuses one bucket: nothing to fill
		}
		h := HashUint64(1, hashSeed)
		for i := 0; i < 64 && tiny.AddHash(h) == nil; i++ {
		}
		if err := tiny.AddHash(h); !errors.Is(err, ErrFull) {
			t.Fatalf("Cuckoo.AddHash on a full filter: %v", err)
		}
	})
	t.Run("HLL", func(t *testing.T) {
		for _, dense := range []bool{false, true} {
			mk := func() *HLL {
				h, err := NewHLL(12, seed)
				check(t, err)
				if dense {
					h.Densify()
				}
				return h
			}
			hashAdds(t, "HLL", mk,
				func(h *HLL, k string) any { return h.AddString(k) }, func(h *HLL, k uint64) any { return h.AddUint64(k) },
				func(h *HLL, x uint64) any { return h.AddHash(x) }, func(h *HLL, x []uint64) { h.AddHashes(x) })
		}
	})
	t.Run("ULL", func(t *testing.T) {
		hashAdds(t, "ULL", func() *ULL { u, err := NewULL(12, seed); check(t, err); return u },
			func(u *ULL, k string) any { return u.AddString(k) }, func(u *ULL, k uint64) any { return u.AddUint64(k) },
			func(u *ULL, h uint64) any { return u.AddHash(h) }, func(u *ULL, h []uint64) { u.AddHashes(h) })
	})
	t.Run("ELL", func(t *testing.T) {
		hashAdds(t, "ELL", func() *ELL { e, err := NewELL(12, 20, seed); check(t, err); return e },
			func(e *ELL, k string) any { return e.AddString(k) }, func(e *ELL, k uint64) any { return e.AddUint64(k) },
			func(e *ELL, h uint64) any { return e.AddHash(h) }, func(e *ELL, h []uint64) { e.AddHashes(h) })
	})
	t.Run("MinHash", func(t *testing.T) {
		hashAdds(t, "MinHash", func() *MinHash { m, err := NewMinHash(128, seed); check(t, err); return m },
			func(m *MinHash, k string) any { return m.AddString(k) }, func(m *MinHash, k uint64) any { return m.AddUint64(k) },
			func(m *MinHash, h uint64) any { return m.AddHash(h) }, func(m *MinHash, h []uint64) { m.AddHashes(h) })
	})
	t.Run("CountMin", func(t *testing.T) {
		mk := func() *CountMin { c, err := NewCountMin(0.01, 0.01, seed); check(t, err); return c }
		strs := keys("hash-", 0, 600)
		strs[7] = ""
		ints := u64Keys(0, 300)
		hs := keyHashes(strs, ints, hashSeed)
		weights := make([]uint64, len(hs))
		c := mk()
		for i := range weights {
			weights[i] = 1
			if i < len(strs) {
				weights[i] = uint64(len(strs[i]) + 1)
				c.AddString(strs[i], weights[i])
			} else {
				c.AddUint64(ints[i-len(strs)], 1)
			}
		}
		one, batch := mk(), mk()
		for i, h := range hs {
			one.AddHash(h, weights[i])
		}
		check(t, batch.AddHashes(hs, weights))
		sameImage(t, "CountMin.AddHash", c, one)
		sameImage(t, "CountMin.AddHashes", c, batch)
		ones := mk()
		check(t, ones.AddHashes(hs, nil)) // nil weights: one each
		byKeys := mk()
		check(t, byKeys.AddStrings(strs, nil))
		check(t, byKeys.AddUint64s(ints, nil))
		sameImage(t, "CountMin.AddHashes(nil weights)", byKeys, ones)
		want := append(c.EstimateStrings(strs, nil), c.EstimateUint64s(ints, nil)...)
		got := make([]uint64, 0, len(hs))
		for _, h := range hs {
			got = append(got, c.EstimateHash(h))
		}
		if !slices.Equal(want, got) || !slices.Equal(want, c.EstimateHashes(hs, nil)) {
			t.Fatal("CountMin.EstimateHash(es) answer otherwise than the key estimates")
		}
		inPlace := slices.Clone(hs) // estimates written over the hashes
		if !slices.Equal(want, c.EstimateHashes(inPlace, inPlace)) {
			t.Fatal("CountMin.EstimateHashes(h, h) differs")
		}
	})
	t.Run("BinaryFuse", func(t *testing.T) {
		strs := keys("hash-", 0, 600)
		f, err := NewBinaryFuseStrings(strs, 8, seed)
		check(t, err)
		hs := keyHashes(strs, nil, f.Stats().Seed)
		for i, k := range strs {
			if !f.ContainsHash(hs[i]) || !f.ContainsString(k) {
				t.Fatalf("BinaryFuse.ContainsHash of key %d: false", i)
			}
		}
		filterQueries(t, "BinaryFuse", hs, absent, f.ContainsHash, f.ContainsHashes)
		want := f.ContainsStrings(keys("absent-", 0, 400), nil)
		if !slices.Equal(want, f.ContainsHashes(absent, nil)) {
			t.Fatal("BinaryFuse.ContainsHashes differ from ContainsStrings for absent keys")
		}
	})
}

// filterQueries checks ContainsHash and ContainsHashes: true for every
// added hash, and the same answers one by one and in a batch for absent ones.
func filterQueries(t *testing.T, name string, added, absent []uint64, one func(uint64) bool, batch func([]uint64, []bool) []bool) {
	t.Helper()
	for i, h := range added {
		if !one(h) {
			t.Fatalf("%s.ContainsHash of added hash %d: false", name, i)
		}
	}
	if got := batch(added, nil); slices.Contains(got, false) {
		t.Fatalf("%s.ContainsHashes: an added hash is absent", name)
	}
	got := batch(absent, make([]bool, len(absent)))
	for i, h := range absent {
		if got[i] != one(h) {
			t.Fatalf("%s.ContainsHashes[%d] differs from ContainsHash", name, i)
		}
	}
	if slices.Index(got, false) < 0 {
		t.Fatalf("%s: every absent hash is reported present", name)
	}
}

// removals checks RemoveHash and RemoveHashes against RemoveString on the
// string keys (the first 600 hashes), and ErrNotPresent for a hash never added.
func removals[S encoding.BinaryMarshaler](t *testing.T, name string, full S, hs []uint64, clone func(S) S,
	removeString func(S, string) error, removeHash func(S, uint64) error, removeHashes func(S, []uint64) (int, error)) {
	t.Helper()
	strs := keys("hash-", 0, 600)
	strs[7] = ""
	byKey, one, batch := clone(full), clone(full), clone(full)
	for i, k := range strs[:300] {
		check(t, removeString(byKey, k))
		check(t, removeHash(one, hs[i]))
	}
	n, err := removeHashes(batch, hs[:300])
	if n != 300 || err != nil {
		t.Fatalf("%s.RemoveHashes: %d of 300, %v", name, n, err)
	}
	sameImage(t, name+".RemoveHash", byKey, one)
	sameImage(t, name+".RemoveHashes", byKey, batch)
	// A hash never added (whose probes are not all set) is refused and
	// nothing changes; in a batch the others are still removed.
	never := HashUint64(1<<60, hashSeed^1)
	before := marshal(t, one)
	if err := removeHash(one, never); !errors.Is(err, ErrNotPresent) {
		t.Fatalf("%s.RemoveHash of an absent hash: %v", name, err)
	}
	if !bytes.Equal(before, marshal(t, one)) {
		t.Fatalf("%s.RemoveHash of an absent hash changed the image", name)
	}
	if n, err := removeHashes(one, []uint64{hs[400], never}); n != 1 || !errors.Is(err, ErrNotPresent) {
		t.Fatalf("%s.RemoveHashes with an absent hash: %d, %v", name, n, err)
	}
}

// The hash forms on a zero value panic with an *Error, as the key forms
// do (the token forms included: a zero token and no image), and those with
// an error result return it (TestZeroValueErrorResults).
func TestHashFormsZeroValues(t *testing.T) {
	var (
		bl Bloom
		cb CountingBloom
		ck Cuckoo
		fu BinaryFuse
		hl HLL
		ul ULL
		el ELL
		mh MinHash
		cm CountMin
		sb SplitBlock
	)
	hs := []uint64{1, 2}
	for name, call := range map[string]func(){
		"Bloom.AddHash":                       func() { bl.AddHash(1) },
		"Bloom.ContainsHash":                  func() { bl.ContainsHash(1) },
		"Bloom.AddHashes":                     func() { bl.AddHashes(hs) },
		"Bloom.ContainsHashes":                func() { bl.ContainsHashes(hs, nil) },
		"CountingBloom.AddHash":               func() { cb.AddHash(1) },
		"CountingBloom.ContainsHash":          func() { cb.ContainsHash(1) },
		"CountingBloom.AddHashes":             func() { cb.AddHashes(hs) },
		"CountingBloom.ContainsHashes":        func() { cb.ContainsHashes(hs, nil) },
		"Cuckoo.ContainsHash":                 func() { ck.ContainsHash(1) },
		"Cuckoo.ContainsHashes":               func() { ck.ContainsHashes(hs, nil) },
		"BinaryFuse.ContainsHash":             func() { fu.ContainsHash(1) },
		"BinaryFuse.ContainsHashes":           func() { fu.ContainsHashes(hs, nil) },
		"HLL.AddHash":                         func() { hl.AddHash(1) },
		"HLL.AddHashes":                       func() { hl.AddHashes(hs) },
		"ULL.AddHash":                         func() { ul.AddHash(1) },
		"ULL.AddHashes":                       func() { ul.AddHashes(hs) },
		"ELL.AddHash":                         func() { el.AddHash(1) },
		"ELL.AddHashes":                       func() { el.AddHashes(hs) },
		"MinHash.AddHash":                     func() { mh.AddHash(1) },
		"MinHash.AddHashes":                   func() { mh.AddHashes(hs) },
		"CountMin.AddHash":                    func() { cm.AddHash(1, 1) },
		"CountMin.EstimateHash":               func() { cm.EstimateHash(1) },
		"CountMin.EstimateHashes":             func() { cm.EstimateHashes(hs, nil) },
		"Bloom.AddConcurrentHash":             func() { bl.AddConcurrentHash(1) },
		"Bloom.ContainsConcurrentHash":        func() { bl.ContainsConcurrentHash(1) },
		"Bloom.ContainsConcurrentHashes":      func() { bl.ContainsConcurrentHashes(hs, nil) },
		"SplitBlock.AddConcurrentHash":        func() { sb.AddConcurrentHash(1) },
		"SplitBlock.ContainsConcurrentHash":   func() { sb.ContainsConcurrentHash(1) },
		"SplitBlock.ContainsConcurrentHashes": func() { sb.ContainsConcurrentHashes(hs, nil) },
		"ULL.AddConcurrentHash":               func() { ul.AddConcurrentHash(1) },
	} {
		expectPanic(t, name+" on a zero value", call)
	}
	if _, err := hl.AddConcurrentHash(1); err == nil || !strings.Contains(err.Error(), "zero value") {
		t.Fatalf("HLL.AddConcurrentHash on a zero value: %v", err)
	}
	if _, err := NewBinaryFuseHashes([]uint64{1}, 0); !errors.Is(err, ErrInvalidParameter) {
		t.Fatalf("NewBinaryFuseHashes with 0-bit fingerprints: %v", err)
	}
}

// Empty and nil hash batches are no-ops on a live sketch (the library
// takes NULL with a count of 0), with empty results.
func TestHashFormsEmptyBatches(t *testing.T) {
	bl, _ := NewBloom(100, 0.01)
	cb, _ := NewCountingBloom(100, 0.01)
	ck, _ := NewCuckoo(100, 0.01)
	fu, err := NewBinaryFuseStrings([]string{"a"}, 8)
	check(t, err)
	hl, _ := NewHLL(10)
	ul, _ := NewULL(10)
	el, _ := NewELL(10, 20)
	mh, _ := NewMinHash(16)
	cm, _ := NewCountMin(0.1, 0.1)
	for _, hs := range [][]uint64{nil, {}} {
		before := [][]byte{marshal(t, bl), marshal(t, cb), marshal(t, ck), marshal(t, hl), marshal(t, ul), marshal(t, el), marshal(t, mh), marshal(t, cm)}
		bl.AddHashes(hs)
		cb.AddHashes(hs)
		hl.AddHashes(hs)
		ul.AddHashes(hs)
		el.AddHashes(hs)
		mh.AddHashes(hs)
		check(t, cm.AddHashes(hs, nil))
		check(t, cm.AddHashes(hs, []uint64{}))
		if n, err := ck.AddHashes(hs); n != 0 || err != nil {
			t.Fatal(n, err)
		}
		if n, err := ck.RemoveHashes(hs); n != 0 || err != nil {
			t.Fatal(n, err)
		}
		if n, err := cb.RemoveHashes(hs); n != 0 || err != nil {
			t.Fatal(n, err)
		}
		if len(bl.ContainsHashes(hs, nil))+len(cb.ContainsHashes(hs, nil))+len(ck.ContainsHashes(hs, nil))+
			len(fu.ContainsHashes(hs, nil))+len(cm.EstimateHashes(hs, nil)) != 0 {
			t.Fatal("results for no hashes")
		}
		after := [][]byte{marshal(t, bl), marshal(t, cb), marshal(t, ck), marshal(t, hl), marshal(t, ul), marshal(t, el), marshal(t, mh), marshal(t, cm)}
		for i := range before {
			if !bytes.Equal(before[i], after[i]) {
				t.Fatalf("sketch %d changed by an empty batch", i)
			}
		}
	}
}

// The concurrent hash forms (AddConcurrentHash on Bloom, SplitBlock, HLL
// and ULL; ContainsConcurrentHash and ContainsConcurrentHashes on the
// filters) act as the concurrent key forms: one goroutine's adds give the
// same image byte for byte, and adds from many goroutines at once the same
// bits or registers, every hash then reported present. The binary fuse
// filter built from the hashes (NewBinaryFuseHashes) is the one built from
// the keys. None of these existed in Go before (the test did not compile).
func TestConcurrentHashFormsEqualKeyForms(t *testing.T) {
	strs := keys("conc-hash-", 0, 4000)
	hs := keyHashes(strs, nil, hashSeed)
	seed := WithSeed(hashSeed)
	parts := 4
	spread := func(add func(i int)) {
		var wg sync.WaitGroup
		for g := 0; g < parts; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := g; i < len(hs); i += parts {
					add(i)
				}
			}(g)
		}
		wg.Wait()
	}

	bl := func() *Bloom { f, _ := NewBloom(4000, 0.01, seed); return f }
	sb := func() *SplitBlock { f, _ := NewSplitBlock(4000, 0.01, seed); return f }
	byKey, byHash, shared := bl(), bl(), bl()
	for i := range hs {
		if byKey.AddConcurrentString(strs[i]) != byHash.AddConcurrentHash(hs[i]) {
			t.Fatalf("Bloom.AddConcurrentHash %d answered otherwise", i)
		}
	}
	sameImage(t, "Bloom.AddConcurrentHash", byKey, byHash)
	spread(func(i int) { shared.AddConcurrentHash(hs[i]) })
	if shared.Stats().SetBits != byKey.Stats().SetBits || slices.Contains(shared.ContainsConcurrentHashes(hs, nil), false) {
		t.Fatal("Bloom: concurrent hash adds differ from the key adds")
	}
	for i, h := range hs {
		if !shared.ContainsConcurrentHash(h) {
			t.Fatalf("Bloom.ContainsConcurrentHash %d: false", i)
		}
	}
	absent := keyHashes(keys("nope-", 0, 2000), nil, hashSeed)
	if !slices.Equal(shared.ContainsConcurrentHashes(absent, nil), shared.ContainsHashes(absent, nil)) {
		t.Fatal("Bloom.ContainsConcurrentHashes differs from ContainsHashes")
	}

	sByKey, sByHash, sShared := sb(), sb(), sb()
	for i := range hs {
		if sByKey.AddConcurrentString(strs[i]) != sByHash.AddConcurrentHash(hs[i]) {
			t.Fatalf("SplitBlock.AddConcurrentHash %d answered otherwise", i)
		}
	}
	sameImage(t, "SplitBlock.AddConcurrentHash", sByKey, sByHash)
	spread(func(i int) { sShared.AddConcurrentHash(hs[i]) })
	if !bytes.Equal(sShared.Bitset(), sByKey.Bitset()) || slices.Contains(sShared.ContainsConcurrentHashes(hs, nil), false) {
		t.Fatal("SplitBlock: concurrent hash adds differ from the key adds")
	}
	for i, h := range hs {
		if !sShared.ContainsConcurrentHash(h) {
			t.Fatalf("SplitBlock.ContainsConcurrentHash %d: false", i)
		}
	}

	hl := func() *HLL { h, _ := NewHLL(12, seed); h.Densify(); return h }
	hByKey, hByHash, hShared := hl(), hl(), hl()
	for i := range hs {
		a, err1 := hByKey.AddConcurrentString(strs[i])
		b, err2 := hByHash.AddConcurrentHash(hs[i])
		if a != b || err1 != nil || err2 != nil {
			t.Fatalf("HLL.AddConcurrentHash %d: %v %v, %v %v", i, a, b, err1, err2)
		}
	}
	sameImage(t, "HLL.AddConcurrentHash", hByKey, hByHash)
	spread(func(i int) {
		if _, err := hShared.AddConcurrentHash(hs[i]); err != nil {
			t.Error(err)
		}
	})
	if hShared.RegisterEstimate() != hByKey.RegisterEstimate() {
		t.Fatal("HLL: concurrent hash adds differ from the key adds")
	}
	small, _ := NewHLL(12, seed)
	if _, err := small.AddConcurrentHash(hs[0]); !errors.Is(err, ErrSmallMode) {
		t.Fatalf("HLL.AddConcurrentHash in small mode: %v", err)
	}

	ul := func() *ULL { u, _ := NewULL(12, seed); return u }
	uByKey, uByHash, uShared := ul(), ul(), ul()
	for i := range hs {
		if uByKey.AddConcurrentString(strs[i]) != uByHash.AddConcurrentHash(hs[i]) {
			t.Fatalf("ULL.AddConcurrentHash %d answered otherwise", i)
		}
	}
	sameImage(t, "ULL.AddConcurrentHash", uByKey, uByHash)
	spread(func(i int) { uShared.AddConcurrentHash(hs[i]) })
	if uShared.RegisterEstimate() != uByKey.RegisterEstimate() {
		t.Fatal("ULL: concurrent hash adds differ from the key adds")
	}

	ints := u64Keys(0, 500)
	fromKeys, err := NewBinaryFuseStrings(strs, 16, seed)
	check(t, err)
	fromHashes, err := NewBinaryFuseHashes(hs, 16, seed)
	check(t, err)
	sameImage(t, "NewBinaryFuseHashes", fromKeys, fromHashes)
	// Repeated hashes are stored once, as repeated keys are (the plan is
	// for the list's length, so the image is that of the keys with repeats).
	repeated := append(slices.Clone(strs), strs[:10]...)
	fromRepeatedKeys, err := NewBinaryFuseStrings(repeated, 16, seed)
	check(t, err)
	fromRepeatedHashes, err := NewBinaryFuseHashes(keyHashes(repeated, nil, hashSeed), 16, seed)
	check(t, err)
	sameImage(t, "NewBinaryFuseHashes with repeats", fromRepeatedKeys, fromRepeatedHashes)
	if slices.Contains(fromRepeatedHashes.ContainsStrings(strs, nil), false) {
		t.Fatal("NewBinaryFuseHashes with repeats lost a key")
	}
	intsByKey, err := NewBinaryFuseUint64s(ints, 8, seed)
	check(t, err)
	intsByHash, err := NewBinaryFuseHashes(keyHashes(nil, ints, hashSeed), 8, seed)
	check(t, err)
	sameImage(t, "NewBinaryFuseHashes of integer keys", intsByKey, intsByHash)
	if _, err := NewBinaryFuseHashes(hs, 9); !errors.Is(err, ErrInvalidParameter) {
		t.Fatalf("NewBinaryFuseHashes with 9-bit fingerprints: %v", err)
	}
}

// The hash queries are reading methods: many goroutines may call them at
// once on one sketch (Bloom's token is only read), with the sequential
// answers. Run under -race by make go-test.
func TestConcurrentHashQueries(t *testing.T) {
	strs := keys("q-hash-", 0, 3000)
	hs := keyHashes(strs, nil, 0)
	q := append(slices.Clone(hs[:1500]), keyHashes(keys("q-absent-", 0, 1500), nil, 0)...)
	bl, _ := NewBloom(3000, 0.01)
	cb, _ := NewCountingBloom(3000, 0.01)
	ck, _ := NewCuckoo(3000, 0.01)
	cm, _ := NewCountMin(0.01, 0.01)
	bl.AddHashes(hs)
	cb.AddHashes(hs)
	if _, err := ck.AddHashes(hs); err != nil {
		t.Fatal(err)
	}
	check(t, cm.AddHashes(hs, nil))
	fu, err := NewBinaryFuseHashes(hs, 8)
	check(t, err)
	type answers struct {
		bl, cb, ck, fu []bool
		cm             []uint64
	}
	ask := func(single bool) answers {
		var a answers
		if !single {
			return answers{bl.ContainsHashes(q, nil), cb.ContainsHashes(q, nil), ck.ContainsHashes(q, nil),
				fu.ContainsHashes(q, nil), cm.EstimateHashes(q, nil)}
		}
		for _, h := range q {
			a.bl = append(a.bl, bl.ContainsHash(h))
			a.cb = append(a.cb, cb.ContainsHash(h))
			a.ck = append(a.ck, ck.ContainsHash(h))
			a.fu = append(a.fu, fu.ContainsHash(h))
			a.cm = append(a.cm, cm.EstimateHash(h))
		}
		return a
	}
	want := ask(false)
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(single bool) {
			defer wg.Done()
			got := ask(single)
			if !slices.Equal(got.bl, want.bl) || !slices.Equal(got.cb, want.cb) || !slices.Equal(got.ck, want.ck) ||
				!slices.Equal(got.fu, want.fu) || !slices.Equal(got.cm, want.cm) {
				t.Error("concurrent hash answers differ from the sequential ones")
			}
		}(g%2 == 0)
	}
	wg.Wait()
}
