package sketches_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"unsafe"

	sketches "example.invalid/sketches/bindings/go"
)

// Plan a filter from the items you expect and the false-positive rate you
// accept, add keys, query, and watch the over-capacity signal.
func Example() {
	f, err := sketches.NewBloom(1_000_000, 0.01)
	if err != nil {
		panic(err)
	}
	fmt.Println("alice new:", f.AddString("alice"))
	fmt.Println("alice new again:", f.AddString("alice"))
	fmt.Println("bob maybe present:", f.ContainsString("bob"))

	f.AddStrings([]string{"carol", "dave"}) // one C call per few thousand keys
	fmt.Println(f.ContainsStrings([]string{"carol", "erin"}, nil))
	fmt.Println("memory:", f.Size(), "bytes; capacity:", f.OverCapacity())

	img, _ := f.MarshalBinary() // the same bytes C, Java and Python read
	var g sketches.Bloom
	if err := g.UnmarshalBinary(img); err != nil {
		panic(err)
	}
	fmt.Println("round trip:", g.ContainsString("alice"))
	// Output:
	// alice new: true
	// alice new again: false
	// bob maybe present: false
	// [true false]
	// memory: 1198272 bytes; capacity: ok
	// round trip: true
}

// Damaged bytes give an error instead of wrong answers.
func ExampleBloom_UnmarshalBinary() {
	f, _ := sketches.NewBloom(1000, 0.01)
	img, _ := f.MarshalBinary()
	img[len(img)/2] ^= 1
	var g sketches.Bloom
	err := g.UnmarshalBinary(img)
	var e *sketches.Error
	fmt.Println(errors.Is(err, sketches.ErrCorrupt), errors.As(err, &e) && e.Code == sketches.StatusChecksumMismatch)
	// Output: true true
}

// A sketch inside a JSON document is a string: the standard base64 of
// its MarshalBinary image (what encoding/json writes for a []byte), which
// every binding imports once decoded.
func ExampleBloom_MarshalText() {
	type cacheEntry struct {
		Name string          `json:"name"`
		Seen *sketches.Bloom `json:"seen"` // a pointer: nil is null
		Hits *sketches.HLL   `json:"hits"`
	}
	f, _ := sketches.NewBloom(1000, 0.01)
	f.AddStrings([]string{"alice", "carol"})
	h, _ := sketches.NewHLL(12)
	h.AddStrings([]string{"alice", "carol", "alice"})
	doc, err := json.Marshal(cacheEntry{Name: "users", Seen: f, Hits: h})
	if err != nil {
		panic(err)
	}

	var back cacheEntry
	if err := json.Unmarshal(doc, &back); err != nil {
		panic(err)
	}
	fmt.Println(back.Name, back.Seen.ContainsString("alice"), back.Seen.ContainsString("bob"), back.Hits.Estimate())

	var raw struct {
		Seen []byte `json:"seen"` // encoding/json decodes the same string as base64
	}
	_ = json.Unmarshal(doc, &raw)
	img, _ := f.MarshalBinary()
	fmt.Println("base64 of MarshalBinary:", bytes.Equal(raw.Seen, img))

	// Damaged text is an error, and the filter already there is kept.
	err = json.Unmarshal([]byte(`{"seen":"bm90IGEgc2tldGNo"}`), &back)
	fmt.Println(errors.Is(err, sketches.ErrCorrupt), back.Seen.ContainsString("carol"))
	// Output:
	// users true false 2
	// base64 of MarshalBinary: true
	// true true
}

// The cuckoo filter reports a full table instead of losing items.
func ExampleCuckoo_Add() {
	p, _ := sketches.PlanCuckooBuckets(2, 8)
	f, _ := sketches.NewCuckooWithParams(p)
	var err error
	added := 0
	for i := uint64(0); err == nil; i++ {
		if err = f.AddUint64(i); err == nil {
			added++
		}
	}
	fmt.Println(errors.Is(err, sketches.ErrFull), added >= 6)
	// Output: true true
}

// Distinct counts that merge: count per shard, merge, estimate.
func ExampleHLL_Merge() {
	a, _ := sketches.NewHLL(14)
	b, _ := sketches.NewHLL(14)
	a.AddUint64s([]uint64{1, 2, 3})
	b.AddUint64s([]uint64{3, 4})
	_ = a.Merge(b)
	fmt.Println(a.Estimate()) // exact while small
	// Output: 4
}

// Heavy hitters with their error bounds.
func ExampleTopK_List() {
	t, _ := sketches.NewTopK(4, 16)
	_ = t.AddStrings([]string{"a", "b", "a", "c", "a", "b"}, nil)
	for _, it := range t.List() {
		fmt.Printf("%s %d (error <= %d)\n", it.Key, it.Count, it.Error)
	}
	// Output:
	// a 3 (error <= 0)
	// b 2 (error <= 0)
	// c 1 (error <= 0)
}

// A static set built once, queried many times: the binary fuse filter
// takes about 9 bits per key at a 0.39% false-positive rate.
func ExampleNewBinaryFuseStrings() {
	allowed := []string{"alice", "bob", "carol"}
	f, err := sketches.NewBinaryFuseStrings(allowed, 8)
	if err != nil {
		panic(err)
	}
	fmt.Println(f.ContainsString("bob"), f.ContainsStrings([]string{"alice", "carol"}, nil))
	st := f.Stats()
	fmt.Println(st.Keys, st.Params.FingerprintBits, st.FPR)
	// Output:
	// true [true true]
	// 3 8 0.00390625
}

// ExaLogLog per shard: the martingale estimate while a sketch saw only its
// own stream, maximum likelihood after a merge (a higher precision folds down).
func ExampleELL_Merge() {
	a, _ := sketches.NewELL(12, 20)
	b, _ := sketches.NewELL(14, 20)
	a.AddUint64s([]uint64{1, 2, 3})
	b.AddUint64s([]uint64{3, 4})
	_, ok := a.MartingaleEstimate()
	fmt.Println("martingale before the merge:", ok)
	_ = a.Merge(b)
	_, ok = a.MartingaleEstimate()
	fmt.Printf("%.0f distinct; martingale after the merge: %v\n", a.Estimate(), ok)
	// Output:
	// martingale before the merge: true
	// 4 distinct; martingale after the merge: false
}

// Goroutines add to one filter at once, with no lock; after they are
// joined, the filter is an ordinary one again.
func ExampleBloom_AddConcurrentStrings() {
	f, _ := sketches.NewBloom(100_000, 0.01)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := make([]string, 0, 1000)
			for i := range 1000 {
				batch = append(batch, "user-"+strconv.Itoa(g*1000+i))
			}
			f.AddConcurrentStrings(batch)            // any number of goroutines at once
			_ = f.ContainsConcurrentString(batch[0]) // queries may run while others add
		}()
	}
	wg.Wait() // only Concurrent methods until here
	fmt.Println(f.ContainsString("user-3999"), f.Stats().AddCalls)
	// Output: true 4000
}

// An HLL must be dense before concurrent adds: a new one is in its exact
// small mode and refuses them.
func ExampleHLL_Densify() {
	h, _ := sketches.NewHLL(14)
	_, err := h.AddConcurrentString("x")
	fmt.Println(errors.Is(err, sketches.ErrSmallMode))
	h.Densify() // exclusive access, before sharing h
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2500 {
				if _, err := h.AddConcurrentUint64(uint64(g*2500 + i)); err != nil {
					panic(err)
				}
			}
		}()
	}
	wg.Wait()
	e, _ := h.EstimateConcurrent()
	fmt.Println(e == h.Estimate(), e > 9_800 && e < 10_200)
	// Output:
	// true
	// true true
}

// Write a column's bloom filter as pyarrow does (Arrow C++ sizing from the
// ndv option, then the fold it applies before writing), and read a bitset
// out of a Parquet file back into a filter that answers as the file's.
func ExampleNewSplitBlockFromParquetBitset() {
	p, err := sketches.PlanSplitBlockParquetSizing(8192, 0.01, sketches.ParquetSizingArrowCPP)
	if err != nil {
		panic(err)
	}
	w, err := sketches.NewSplitBlockWithParams(p)
	if err != nil {
		panic(err)
	}
	for id := int64(0); id < 129; id++ {
		w.AddHash(sketches.ParquetHashInt64(id)) // an INT64 column's values
	}
	folds, _ := w.FoldToTargetFPP(0.01)
	fmt.Println("planned:", p.Blocks*32, "bytes; folded", folds, "times to", len(w.Bitset()))

	bitset := w.Bitset() // the bytes after a column chunk's BloomFilterHeader
	r, err := sketches.NewSplitBlockFromParquetBitset(bitset, 0.01)
	if err != nil {
		panic(err)
	}
	fmt.Println("42 maybe present:", r.ContainsHash(sketches.ParquetHashInt64(42)))
	fmt.Println("-7 maybe present:", r.ContainsHash(sketches.ParquetHashInt64(-7)))

	_, err = sketches.NewSplitBlockFromParquetBitset(bitset[:40], 0.01)
	fmt.Println("40 bytes:", errors.Is(err, sketches.ErrInvalidArgument))
	// Output:
	// planned: 16384 bytes; folded 6 times to 256
	// 42 maybe present: true
	// -7 maybe present: false
	// 40 bytes: true
}

// A Parquet-mode filter hashes a string value's raw bytes (not the PLAIN
// encoding of a BYTE_ARRAY, which carries a 4-byte length prefix) and an
// integer value's little-endian bytes at its physical width: AddUint64 is
// an INT64 value, an INT32 column needs ParquetHashInt32.
func ExampleNewSplitBlockParquet() {
	f, err := sketches.NewSplitBlockParquet(1000, 0.01)
	if err != nil {
		panic(err)
	}
	f.AddString("alice") // a BYTE_ARRAY (string) column's value
	fmt.Println("as writers hash it:", f.ContainsHash(sketches.ParquetHashBytes([]byte("alice"))))
	plain := append([]byte{5, 0, 0, 0}, "alice"...) // PLAIN encoding: length prefix, then the bytes
	fmt.Println("length-prefixed:", f.Contains(plain))

	f.AddUint64(42) // the INT64 value 42
	fmt.Println("INT64 42:", f.ContainsHash(sketches.ParquetHashInt64(42)))
	fmt.Println("INT32 42:", f.ContainsHash(sketches.ParquetHashInt32(42)))
	// Output:
	// as writers hash it: true
	// length-prefixed: false
	// INT64 42: true
	// INT32 42: false
}

// Hash a key once and use the hash with every sketch of that seed: the
// hash forms act exactly as the key would, so a pipeline that fans each
// event out to a filter, a distinct counter and a frequency sketch hashes
// it once instead of three times.
func ExampleHash() {
	const seed = 42
	seen, _ := sketches.NewBloom(10_000, 0.01, sketches.WithSeed(seed))
	users, _ := sketches.NewHLL(12, sketches.WithSeed(seed))
	hits, _ := sketches.NewCountMin(0.001, 0.01, sketches.WithSeed(seed))
	for _, user := range []string{"alice", "bob", "alice"} {
		h := sketches.Hash([]byte(user), seed)
		seen.AddHash(h)
		users.AddHash(h)
		hits.AddHash(h, 1)
	}
	fmt.Println("alice seen:", seen.ContainsString("alice"))
	fmt.Printf("distinct users: %.0f\n", users.Estimate())
	fmt.Println("alice hits:", hits.EstimateString("alice"))
	// A weights slice that does not match the keys is an error, not a panic.
	err := hits.AddHashes([]uint64{sketches.Hash([]byte("carol"), seed)}, []uint64{1, 2})
	fmt.Println(errors.Is(err, sketches.ErrInvalidArgument), err)
	// Output:
	// alice seen: true
	// distinct users: 2
	// alice hits: 2
	// true sketches: CountMin.AddHashes: invalid call argument (2 weights for 1 keys: pass nil (weight 1 each) or one weight per key)
}

// Sketches written one after another into a file or a socket read back one
// call each, with their own types, until io.EOF.
func ExampleReadSketch() {
	f, _ := sketches.NewBloom(1000, 0.01)
	f.AddString("alice")
	h, _ := sketches.NewHLL(12)
	h.AddStrings([]string{"a", "b", "c"})

	var stream bytes.Buffer // an *os.File or a net.Conn alike
	f.WriteTo(&stream)      // the image itself, no copy
	h.WriteTo(&stream)

	for {
		s, err := sketches.ReadSketch(&stream)
		if err == io.EOF {
			break
		}
		if err != nil { // errors.Is(err, sketches.ErrCorrupt), io.ErrUnexpectedEOF, ...
			panic(err)
		}
		switch s := s.(type) {
		case *sketches.Bloom:
			fmt.Println("bloom has alice:", s.ContainsString("alice"))
		case *sketches.HLL:
			fmt.Println("hll estimate:", s.Estimate())
		}
	}
	// Output:
	// bloom has alice: true
	// hll estimate: 3
}

// A filter file mapped read-only is wrapped with the ReadOnly form: a stray
// change is an error (or, for methods without an error result, a panic
// recover catches) instead of a fault that kills the process.
func ExampleWrapBloomReadOnly() {
	f, _ := sketches.NewBloom(1000, 0.01)
	f.AddString("alice")
	img, _ := f.MarshalBinary()
	// In a service: mem, _ := syscall.Mmap(fd, 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	// (here: 8-byte aligned Go memory holding the same bytes).
	words := make([]uint64, (len(img)+7)/8)
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(img))
	copy(mem, img)
	if err := sketches.Verify(mem); err != nil {
		panic(err)
	}
	r, err := sketches.WrapBloomReadOnly(mem)
	if err != nil {
		panic(err)
	}
	fmt.Println("alice:", r.ContainsString("alice"))
	fmt.Println("merge refused:", errors.Is(r.Merge(f), sketches.ErrReadOnly))
	func() {
		defer func() { fmt.Println("add refused:", errors.Is(recover().(error), sketches.ErrReadOnly)) }()
		r.AddString("bob")
	}()
	// Output:
	// alice: true
	// merge refused: true
	// add refused: true
}

// A sketch logged with log/slog is its one-line description, not its image
// (slog would otherwise write the MarshalText base64 of every byte).
func ExampleBloom_LogValue() {
	f, _ := sketches.NewBloom(1_000_000, 0.01)
	var missing *sketches.HLL
	noTime := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: noTime}))
	logger.Info("rotated", "filter", f, "users", missing)
	// Output:
	// level=INFO msg=rotated filter="sketches.Bloom(1198272 bytes, seed 0)" users=<nil>
}
