package sketches

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"sync"
	"testing"
)

// The Concurrent methods of Bloom, SplitBlock, HLL and ULL: 8 goroutines
// add at once through every form (single []byte, string and uint64 keys,
// each batch), each its own keys interleaved with keys every goroutine adds
// in the same order (so they race on them). After the join the image's
// body (bits, blocks, registers) must equal that of the same adds made one
// at a time with the plain methods, and so must the counters the library
// keeps exactly; queries and estimates made while the others still add
// must answer. Run under -race by make go-test (the detector sees the Go
// side: the packing pool, the key slices and the outputs; the C side uses
// atomics).

const (
	concGoroutines = 8
	concOwn        = 1500 // keys of one goroutine only
	concShared     = 1500 // keys every goroutine adds
)

// concKeys are one goroutine's keys in three shapes: the same strings as
// strs and bytes, and integers.
type concKeys struct {
	strs  []string
	bytes [][]byte
	ints  []uint64
}

// goroutineKeys returns goroutine g's keys: its own interleaved with the
// shared ones (the same shared keys, in the same order, in every
// goroutine). The shared strings include the empty key and keys longer
// than a packing chunk; each batch crosses the chunk boundary.
func goroutineKeys(g int) concKeys {
	own := keys("own"+strconv.Itoa(g)+"-", 0, concOwn)
	shared := mixedKeys("shared-", concShared)
	ownInts := u64Keys(1_000_000*(g+1), 1_000_000*(g+1)+concOwn)
	sharedInts := u64Keys(0, concShared)
	var k concKeys
	for i := range concOwn {
		k.strs = append(k.strs, own[i], shared[i])
		k.ints = append(k.ints, ownInts[i], sharedInts[i])
	}
	k.bytes = byteKeys(k.strs)
	return k
}

// runConcurrent starts concGoroutines goroutines at once, each running
// work(g), and while they run calls during (when not nil) in a loop from
// one more goroutine (at least once). It returns after joining them all,
// with the first error any of them reported.
func runConcurrent(work func(g int) error, during func() error) error {
	var wg, readers sync.WaitGroup
	start := make(chan struct{})
	done := make(chan struct{})
	errs := make(chan error, concGoroutines+1)
	for g := range concGoroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if err := work(g); err != nil {
				errs <- err
			}
		}()
	}
	if during != nil {
		readers.Add(1)
		go func() {
			defer readers.Done()
			<-start
			for {
				if err := during(); err != nil {
					errs <- err
					return
				}
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(done)
	readers.Wait()
	close(errs)
	return <-errs // nil when none
}

// body returns the image after its headers (bits, blocks or registers).
func body(t *testing.T, img []byte) []byte {
	t.Helper()
	info, err := Inspect(img)
	check(t, err)
	return img[info.HeaderBytes:]
}

// allTrue reports an error naming what when some answer is false.
func allTrue(what string, v []bool) error {
	for i, b := range v {
		if !b {
			return errors.New(what + ": key " + strconv.Itoa(i) + " added by this goroutine is missing")
		}
	}
	return nil
}

// concurrentFilter is what Bloom and SplitBlock share.
type concurrentFilter interface {
	AddStrings([]string)
	AddUint64s([]uint64)
	ContainsStrings([]string, []bool) []bool
	ContainsUint64(uint64) bool
	ContainsUint64s([]uint64, []bool) []bool
	AddConcurrent([]byte) bool
	AddConcurrentString(string) bool
	AddConcurrentUint64(uint64) bool
	AddConcurrentStrings([]string)
	AddConcurrentBytes([][]byte)
	AddConcurrentUint64s([]uint64)
	AddConcurrentStringsReportNew([]string, []bool) []bool
	ContainsConcurrent([]byte) bool
	ContainsConcurrentString(string) bool
	ContainsConcurrentUint64(uint64) bool
	ContainsConcurrentStrings([]string, []bool) []bool
	ContainsConcurrentBytes([][]byte, []bool) []bool
	ContainsConcurrentUint64s([]uint64, []bool) []bool
	OverCapacity() CapacityFlags
	OverCapacityConcurrent() CapacityFlags
}

// filterForm adds goroutine g's keys k to f through one concurrent form,
// checks after each add returns that ContainsConcurrent (of the matching
// shape) finds the keys, and returns how many adds reported a key new (-1
// when the form does not report).
type filterForm struct {
	name  string
	ints  bool // the form adds k.ints (else the strings)
	add   func(f concurrentFilter, k concKeys) (int, error)
	flags bool // the count is that of the "new" flags
}

// batchSplit splits a goroutine's 3000 keys into two batches: the first
// crosses the packing chunk (2048 keys), the second runs while other
// goroutines still add.
const batchSplit = 2100

var filterForms = []filterForm{
	{"AddConcurrent", false, func(f concurrentFilter, k concKeys) (int, error) {
		n := 0
		for _, key := range k.bytes {
			if f.AddConcurrent(key) {
				n++
			}
			if !f.ContainsConcurrent(key) {
				return 0, errors.New("ContainsConcurrent misses a key this goroutine added")
			}
		}
		return n, nil
	}, true},
	{"AddConcurrentString", false, func(f concurrentFilter, k concKeys) (int, error) {
		n := 0
		for _, key := range k.strs {
			if f.AddConcurrentString(key) {
				n++
			}
			if !f.ContainsConcurrentString(key) {
				return 0, errors.New("ContainsConcurrentString misses a key this goroutine added")
			}
		}
		return n, nil
	}, true},
	{"AddConcurrentUint64", true, func(f concurrentFilter, k concKeys) (int, error) {
		n := 0
		for _, key := range k.ints {
			if f.AddConcurrentUint64(key) {
				n++
			}
			if !f.ContainsConcurrentUint64(key) {
				return 0, errors.New("ContainsConcurrentUint64 misses a key this goroutine added")
			}
		}
		return n, nil
	}, true},
	{"AddConcurrentStrings", false, func(f concurrentFilter, k concKeys) (int, error) {
		for _, part := range [][]string{k.strs[:batchSplit], k.strs[batchSplit:]} {
			f.AddConcurrentStrings(part)
			if err := allTrue("ContainsConcurrentStrings", f.ContainsConcurrentStrings(part, nil)); err != nil {
				return 0, err
			}
		}
		return -1, nil
	}, false},
	{"AddConcurrentBytes", false, func(f concurrentFilter, k concKeys) (int, error) {
		for _, part := range [][][]byte{k.bytes[:batchSplit], k.bytes[batchSplit:]} {
			f.AddConcurrentBytes(part)
			if err := allTrue("ContainsConcurrentBytes", f.ContainsConcurrentBytes(part, nil)); err != nil {
				return 0, err
			}
		}
		return -1, nil
	}, false},
	{"AddConcurrentUint64s", true, func(f concurrentFilter, k concKeys) (int, error) {
		for _, part := range [][]uint64{k.ints[:batchSplit], k.ints[batchSplit:]} {
			f.AddConcurrentUint64s(part)
			if err := allTrue("ContainsConcurrentUint64s", f.ContainsConcurrentUint64s(part, nil)); err != nil {
				return 0, err
			}
		}
		return -1, nil
	}, false},
	{"AddConcurrentStringsReportNew", false, func(f concurrentFilter, k concKeys) (int, error) {
		n := 0
		out := make([]bool, len(k.strs))
		for _, r := range [][2]int{{0, batchSplit}, {batchSplit, len(k.strs)}} {
			part := k.strs[r[0]:r[1]]
			got := f.AddConcurrentStringsReportNew(part, out[r[0]:r[1]])
			if &got[0] != &out[r[0]] {
				return 0, errors.New("AddConcurrentStringsReportNew did not answer into the slice given")
			}
			n += countTrue(got)
			if err := allTrue("ContainsConcurrentStrings", f.ContainsConcurrentStrings(part, nil)); err != nil {
				return 0, err
			}
		}
		return n, nil
	}, true},
}

// filterCounters are the statistics of a filter split into those the
// library keeps exactly under concurrent adds (exact: a Stats value with
// Inserted and Capacity cleared) and the order-dependent inserted count.
type filterCounters struct {
	exact    any
	addCalls uint64
	inserted uint64
}

// checkConcurrentFilter runs every form of filterForms on a new filter
// from mk and compares it, after the join, with a filter from mk given the
// same keys one at a time through the plain batch adds.
func checkConcurrentFilter[F concurrentFilter](t *testing.T, mk func() F, image func(F) []byte,
	counters func(F) filterCounters) {
	ks := make([]concKeys, concGoroutines)
	for g := range ks {
		ks[g] = goroutineKeys(g)
	}
	absent := keys("absent-", 0, 5000)
	for _, form := range filterForms {
		t.Run(form.name, func(t *testing.T) {
			f, ref := mk(), mk()
			reported := make([]int, concGoroutines)
			err := runConcurrent(func(g int) error {
				n, err := form.add(f, ks[g])
				reported[g] = n
				return err
			}, func() error {
				// The over-capacity signal, read while the adds run. It
				// may rise: Inserted counts a shared key once per
				// goroutine that found one of its bits new, so it can pass
				// the plan of one per distinct key.
				if c := f.OverCapacityConcurrent(); c&^(OverPlannedItems|FPRAboveTwicePlanned) != 0 {
					return errors.New("OverCapacityConcurrent: unknown flags " + c.String())
				}
				return nil
			})
			check(t, err)
			if f.OverCapacityConcurrent() != f.OverCapacity() {
				t.Fatal("OverCapacityConcurrent differs from OverCapacity after the join")
			}
			for g := range ks { // the reference: the same adds, one at a time
				if form.ints {
					ref.AddUint64s(ks[g].ints)
				} else {
					ref.AddStrings(ks[g].strs)
				}
			}
			if !bytes.Equal(body(t, image(f)), body(t, image(ref))) {
				t.Fatal("the bits after concurrent adds differ from those of the same adds made one at a time")
			}
			got, want := counters(f), counters(ref)
			if got.exact != want.exact {
				t.Fatalf("exact statistics after concurrent adds:\n got %+v\nwant %+v", got.exact, want.exact)
			}
			if got.addCalls != uint64(concGoroutines*2*concOwn) {
				t.Fatalf("add calls %d", got.addCalls)
			}
			if got.inserted == 0 || got.inserted > got.addCalls {
				t.Fatalf("inserted %d of %d add calls", got.inserted, got.addCalls)
			}
			if form.flags {
				n := 0
				for _, r := range reported {
					n += r
				}
				if uint64(n) != got.inserted {
					t.Fatalf("%d adds reported a new key, the inserted counter says %d", n, got.inserted)
				}
			}
			// Absent keys: the concurrent and plain queries give the answers of the reference.
			wantAbsent := ref.ContainsStrings(absent, nil)
			if c := countTrue(wantAbsent); c == len(absent) {
				t.Fatal("every absent key found: the reference filter is saturated")
			}
			for name, got := range map[string][]bool{
				"ContainsConcurrentStrings": f.ContainsConcurrentStrings(absent, nil),
				"ContainsConcurrentBytes":   f.ContainsConcurrentBytes(byteKeys(absent), nil),
				"ContainsStrings":           f.ContainsStrings(absent, nil),
			} {
				for i := range absent {
					if got[i] != wantAbsent[i] {
						t.Fatalf("%s of absent keys differs from the reference at %d", name, i)
					}
				}
			}
			for i, k := range absent[:500] {
				if f.ContainsConcurrentString(k) != wantAbsent[i] || f.ContainsConcurrent([]byte(k)) != wantAbsent[i] {
					t.Fatalf("single ContainsConcurrent of absent key %d differs from the reference", i)
				}
			}
			absentInts := u64Keys(1<<40, 1<<40+2000)
			if !equalBools(f.ContainsConcurrentUint64s(absentInts, nil), ref.ContainsUint64s(absentInts, nil)) {
				t.Fatal("ContainsConcurrentUint64s of absent keys differs from the reference")
			}
			for _, k := range absentInts[:500] {
				if f.ContainsConcurrentUint64(k) != ref.ContainsUint64(k) {
					t.Fatal("ContainsConcurrentUint64 of an absent key differs from the reference")
				}
			}
			// After the join the image is an ordinary one again.
			check(t, Verify(exported(t, f)))
		})
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func exported(t *testing.T, s any) []byte {
	t.Helper()
	m, ok := s.(interface{ MarshalBinary() ([]byte, error) })
	if !ok {
		t.Fatal("not a sketch")
	}
	return marshal(t, m)
}

func TestBloomConcurrentAdds(t *testing.T) {
	checkConcurrentFilter(t, func() *Bloom {
		f, err := NewBloom(concGoroutines*concOwn+concShared, 0.01)
		check(t, err)
		return f
	}, func(f *Bloom) []byte { return f.img }, func(f *Bloom) filterCounters {
		st := f.Stats()
		c := filterCounters{addCalls: st.AddCalls, inserted: st.Inserted}
		st.Inserted, st.Capacity = 0, 0
		c.exact = st
		return c
	})
}

func TestSplitBlockConcurrentAdds(t *testing.T) {
	for _, parquet := range []bool{false, true} {
		t.Run("parquet="+strconv.FormatBool(parquet), func(t *testing.T) {
			checkConcurrentFilter(t, func() *SplitBlock {
				n := uint64(concGoroutines*concOwn + concShared)
				f, err := NewSplitBlock(n, 0.01)
				if parquet {
					f, err = NewSplitBlockParquet(n, 0.01)
				}
				check(t, err)
				return f
			}, func(f *SplitBlock) []byte { return f.img }, func(f *SplitBlock) filterCounters {
				st := f.Stats()
				c := filterCounters{addCalls: st.AddCalls, inserted: st.Inserted}
				st.Inserted, st.Capacity = 0, 0
				c.exact = st
				return c
			})
		})
	}
}

// concurrentCounter is what HLL and ULL share, with the HLL's error
// results folded in (ULL's never fail).
type concurrentCounter interface {
	AddStrings([]string)
	AddUint64s([]uint64)
	Estimate() float64
	RegisterEstimate() float64
}

// counterForms add goroutine g's keys through one concurrent form.
type counterForm struct {
	name string
	ints bool
	add  func(k concKeys) error
}

// checkConcurrentCounter runs every form on a new sketch from mk while
// another goroutine calls estimate (EstimateConcurrent), and compares the
// registers after the join with those of a sketch from mk given the same
// keys one at a time through the plain batch adds. forms binds the forms
// to a sketch; stats returns RegistersSet and whether the martingale
// estimate still holds.
//
// The whole image is compared too, with the reference's martingale ended
// the documented way (merging an empty sketch into it): the registers'
// bookkeeping in the header (HLL: the register histogram and sum) must
// match; ignore is a byte range of the image left out (HLL: the
// martingale value, which a merge keeps and concurrent adds zero).
func checkConcurrentCounter[S concurrentCounter](t *testing.T, mk func() S, image func(S) []byte,
	forms func(S) []counterForm, estimate func(S) (float64, error), stats func(S) (uint32, bool),
	endMartingale func(dst, empty S) error, ignore [2]int) {
	ks := make([]concKeys, concGoroutines)
	for g := range ks {
		ks[g] = goroutineKeys(g)
	}
	for i := range forms(mk()) {
		s, ref := mk(), mk()
		form := forms(s)[i]
		t.Run(form.name, func(t *testing.T) {
			calls := 0
			err := runConcurrent(func(g int) error { return form.add(ks[g]) }, func() error {
				calls++
				e, err := estimate(s)
				if err != nil {
					return err
				}
				if math.IsNaN(e) || math.IsInf(e, 0) || e < 0 {
					return errors.New("EstimateConcurrent while adding: " + strconv.FormatFloat(e, 'g', -1, 64))
				}
				return nil
			})
			check(t, err)
			if calls == 0 {
				t.Fatal("EstimateConcurrent never ran")
			}
			for g := range ks {
				if form.ints {
					ref.AddUint64s(ks[g].ints)
				} else {
					ref.AddStrings(ks[g].strs)
				}
			}
			if !bytes.Equal(body(t, image(s)), body(t, image(ref))) {
				t.Fatal("the registers after concurrent adds differ from those of the same adds made one at a time")
			}
			set, martingale := stats(s)
			refSet, refMartingale := stats(ref)
			if set != refSet || set == 0 {
				t.Fatalf("registers set: %d, one at a time %d", set, refSet)
			}
			if martingale || !refMartingale {
				t.Fatalf("martingale after concurrent adds %v, after plain adds %v", martingale, refMartingale)
			}
			empty := mk()
			check(t, endMartingale(ref, empty))
			if _, m := stats(ref); m {
				t.Fatal("a merge did not end the reference's martingale estimate")
			}
			got, want := bytes.Clone(image(s)), bytes.Clone(image(ref))
			clear(got[ignore[0]:ignore[1]])
			clear(want[ignore[0]:ignore[1]])
			if !bytes.Equal(got, want) {
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("the image after concurrent adds differs at byte %d from the same adds made one at a time", i)
					}
				}
			}
			e, err := estimate(s)
			check(t, err)
			if e != s.RegisterEstimate() || e != ref.RegisterEstimate() || e != s.Estimate() {
				t.Fatalf("after the join: EstimateConcurrent %v, RegisterEstimate %v (one at a time %v), Estimate %v",
					e, s.RegisterEstimate(), ref.RegisterEstimate(), s.Estimate())
			}
			distinct := float64(concGoroutines*concOwn + concShared)
			if math.Abs(e-distinct) > 0.1*distinct {
				t.Fatalf("estimate %v for %v distinct keys", e, distinct)
			}
			check(t, Verify(exported(t, s)))
		})
	}
}

func TestHLLConcurrentAdds(t *testing.T) {
	checkConcurrentCounter(t, func() *HLL {
		h, err := NewHLL(12)
		check(t, err)
		h.Densify()
		return h
	}, func(h *HLL) []byte { return h.img }, func(h *HLL) []counterForm {
		single := func(add func(*HLL, int, concKeys) (bool, error)) func(concKeys) error {
			return func(k concKeys) error {
				for i := range k.strs {
					if _, err := add(h, i, k); err != nil {
						return err
					}
				}
				return nil
			}
		}
		return []counterForm{
			{"AddConcurrent", false, single(func(h *HLL, i int, k concKeys) (bool, error) { return h.AddConcurrent(k.bytes[i]) })},
			{"AddConcurrentString", false, single(func(h *HLL, i int, k concKeys) (bool, error) { return h.AddConcurrentString(k.strs[i]) })},
			{"AddConcurrentUint64", true, single(func(h *HLL, i int, k concKeys) (bool, error) { return h.AddConcurrentUint64(k.ints[i]) })},
			{"AddConcurrentStrings", false, func(k concKeys) error {
				if err := h.AddConcurrentStrings(k.strs[:batchSplit]); err != nil {
					return err
				}
				return h.AddConcurrentStrings(k.strs[batchSplit:])
			}},
			{"AddConcurrentBytes", false, func(k concKeys) error {
				if err := h.AddConcurrentBytes(k.bytes[:batchSplit]); err != nil {
					return err
				}
				return h.AddConcurrentBytes(k.bytes[batchSplit:])
			}},
			{"AddConcurrentUint64s", true, func(k concKeys) error {
				if err := h.AddConcurrentUint64s(k.ints[:batchSplit]); err != nil {
					return err
				}
				return h.AddConcurrentUint64s(k.ints[batchSplit:])
			}},
		}
	}, (*HLL).EstimateConcurrent, func(h *HLL) (uint32, bool) {
		st := h.Stats()
		return st.RegistersSet, st.Martingale
	}, (*HLL).Merge, [2]int{336, 344}) // the martingale estimate, an f64 at byte 336 (core/src/hll.rs)
}

func TestULLConcurrentAdds(t *testing.T) {
	checkConcurrentCounter(t, func() *ULL {
		u, err := NewULL(12)
		check(t, err)
		return u
	}, func(u *ULL) []byte { return u.img }, func(u *ULL) []counterForm {
		single := func(add func(*ULL, int, concKeys)) func(concKeys) error {
			return func(k concKeys) error {
				for i := range k.strs {
					add(u, i, k)
				}
				return nil
			}
		}
		return []counterForm{
			{"AddConcurrent", false, single(func(u *ULL, i int, k concKeys) { u.AddConcurrent(k.bytes[i]) })},
			{"AddConcurrentString", false, single(func(u *ULL, i int, k concKeys) { u.AddConcurrentString(k.strs[i]) })},
			{"AddConcurrentUint64", true, single(func(u *ULL, i int, k concKeys) { u.AddConcurrentUint64(k.ints[i]) })},
			{"AddConcurrentStrings", false, func(k concKeys) error {
				u.AddConcurrentStrings(k.strs[:batchSplit])
				u.AddConcurrentStrings(k.strs[batchSplit:])
				return nil
			}},
			{"AddConcurrentBytes", false, func(k concKeys) error {
				u.AddConcurrentBytes(k.bytes[:batchSplit])
				u.AddConcurrentBytes(k.bytes[batchSplit:])
				return nil
			}},
			{"AddConcurrentUint64s", true, func(k concKeys) error {
				u.AddConcurrentUint64s(k.ints[:batchSplit])
				u.AddConcurrentUint64s(k.ints[batchSplit:])
				return nil
			}},
		}
	}, func(u *ULL) (float64, error) { return u.EstimateConcurrent(), nil }, func(u *ULL) (uint32, bool) {
		st := u.Stats()
		return st.RegistersSet, st.Martingale
	}, (*ULL).Merge, [2]int{})
}

// An HLL in its exact small mode refuses every concurrent call with an
// error matching ErrSmallMode and stays unchanged; Densify (exclusive)
// converts it with the same estimate, after which the concurrent calls
// work; Reset returns it to small mode.
func TestHLLConcurrentSmallMode(t *testing.T) {
	h, err := NewHLL(12)
	check(t, err)
	ks := keys("small-", 0, 100)
	h.AddStrings(ks)
	if h.Stats().Dense {
		t.Fatal("100 keys made the sketch dense: the test needs small mode")
	}
	est := h.Estimate()
	refuses := func(when string) {
		t.Helper()
		before := bytes.Clone(h.img)
		for op, call := range map[string]func() (bool, error){
			"HLL.AddConcurrent":       func() (bool, error) { return h.AddConcurrent([]byte("new key")) },
			"HLL.AddConcurrentString": func() (bool, error) { return h.AddConcurrentString("new key") },
			"HLL.AddConcurrentUint64": func() (bool, error) { return h.AddConcurrentUint64(7) },
			"HLL.AddConcurrentStrings": func() (bool, error) {
				return false, h.AddConcurrentStrings(keys("more-", 0, 3000))
			},
			"HLL.AddConcurrentBytes": func() (bool, error) {
				return false, h.AddConcurrentBytes(byteKeys(keys("more-", 0, 3000)))
			},
			"HLL.AddConcurrentUint64s": func() (bool, error) { return false, h.AddConcurrentUint64s(u64Keys(0, 3000)) },
			"HLL.EstimateConcurrent": func() (bool, error) {
				_, err := h.EstimateConcurrent()
				return false, err
			},
		} {
			changed, err := call()
			var e *Error
			if !errors.Is(err, ErrSmallMode) || !errors.As(err, &e) || e.Code != StatusSmallMode || e.Op != op || changed {
				t.Fatalf("%s: %s on a small-mode sketch: %v (changed %v)", when, op, err, changed)
			}
		}
		if !bytes.Equal(before, h.img) {
			t.Fatalf("%s: a refused concurrent call changed the image", when)
		}
	}
	refuses("new sketch")
	// An empty batch answers as a full one does, in every key form.
	for op, err := range map[string]error{
		"HLL.AddConcurrentStrings": h.AddConcurrentStrings(nil),
		"HLL.AddConcurrentBytes":   h.AddConcurrentBytes([][]byte{}),
		"HLL.AddConcurrentUint64s": h.AddConcurrentUint64s(nil),
	} {
		if !errors.Is(err, ErrSmallMode) {
			t.Fatalf("%s of no keys on a small-mode sketch: %v", op, err)
		}
	}

	h.Densify()
	st := h.Stats()
	if !st.Dense || h.Estimate() != est {
		t.Fatalf("after Densify: dense %v, estimate %v (was %v)", st.Dense, h.Estimate(), est)
	}
	dense := bytes.Clone(h.img)
	h.Densify() // a no-op when dense
	if !bytes.Equal(dense, h.img) {
		t.Fatal("Densify changed a dense sketch")
	}
	// The keys already added raise no register; new ones do.
	for _, k := range ks {
		if changed, err := h.AddConcurrentString(k); err != nil || changed {
			t.Fatalf("re-adding %q: changed %v, %v", k, changed, err)
		}
	}
	check(t, h.AddConcurrentStrings(ks))
	if !bytes.Equal(dense, h.img) {
		t.Fatal("re-adding the keys of a densified sketch changed it")
	}
	if e, err := h.EstimateConcurrent(); err != nil || e != h.RegisterEstimate() {
		t.Fatalf("EstimateConcurrent after Densify: %v, %v (RegisterEstimate %v)", e, err, h.RegisterEstimate())
	}
	err = runConcurrent(func(g int) error {
		_, err := h.AddConcurrentString("after densify " + strconv.Itoa(g))
		return err
	}, nil)
	check(t, err)
	if h.Estimate() <= est {
		t.Fatalf("estimate %v after 8 new keys (was %v)", h.Estimate(), est)
	}
	// The densified sketch exports and imports whole, and stays dense.
	var back HLL
	check(t, back.UnmarshalBinary(marshal(t, h)))
	if !back.Stats().Dense || back.RegisterEstimate() != h.RegisterEstimate() {
		t.Fatal("round trip of a densified sketch")
	}

	h.Reset()
	refuses("after Reset")

	// The zero value returns an error (no panic); Densify, like Reset, panics.
	var z HLL
	if _, err := z.AddConcurrentString("x"); err == nil {
		t.Fatal("zero value: AddConcurrentString succeeded")
	}
	if err := z.AddConcurrentUint64s([]uint64{1}); err == nil {
		t.Fatal("zero value: AddConcurrentUint64s succeeded")
	}
	if _, err := z.EstimateConcurrent(); err == nil {
		t.Fatal("zero value: EstimateConcurrent succeeded")
	}
	expectPanic(t, "zero HLL Densify", func() { z.Densify() })
}

// The filters' and ULL's concurrent methods panic with an *Error only on a
// zero value, like the plain ones.
// TestOverCapacityConcurrent: filters planned for 1,000 keys get 20,000
// from 8 goroutines through the Concurrent adds while another goroutine
// read OverCapacityConcurrent (under -race: with no data race), and
// after the join it has both flags, as OverCapacity does.
func TestOverCapacityConcurrent(t *testing.T) {
	bloom, err := NewBloom(1000, 0.01)
	check(t, err)
	sbbf, err := NewSplitBlock(1000, 0.01)
	check(t, err)
	for name, f := range map[string]concurrentFilter{"Bloom": bloom, "SplitBlock": sbbf} {
		t.Run(name, func(t *testing.T) {
			if f.OverCapacityConcurrent() != 0 {
				t.Fatal("an empty filter is over capacity")
			}
			err := runConcurrent(func(g int) error {
				for i := range 5 {
					f.AddConcurrentUint64s(u64Keys(g*2500+i*500, g*2500+(i+1)*500))
				}
				return nil
			}, func() error {
				if c := f.OverCapacityConcurrent(); c&^(OverPlannedItems|FPRAboveTwicePlanned) != 0 {
					return errors.New("OverCapacityConcurrent: unknown flags " + c.String())
				}
				return nil
			})
			check(t, err)
			want := OverPlannedItems | FPRAboveTwicePlanned
			if got := f.OverCapacityConcurrent(); got != want || f.OverCapacity() != got {
				t.Fatalf("OverCapacityConcurrent %v, OverCapacity %v, want %v", got, f.OverCapacity(), want)
			}
		})
	}
}

func TestConcurrentZeroValues(t *testing.T) {
	var f Bloom
	var s SplitBlock
	var u ULL
	for what, call := range map[string]func(){
		"Bloom.AddConcurrentString":           func() { f.AddConcurrentString("x") },
		"Bloom.ContainsConcurrentUint64s":     func() { f.ContainsConcurrentUint64s([]uint64{1}, nil) },
		"SplitBlock.AddConcurrentStrings":     func() { s.AddConcurrentStrings([]string{"x"}) },
		"SplitBlock.ContainsConcurrentString": func() { s.ContainsConcurrentString("x") },
		"ULL.AddConcurrentUint64":             func() { u.AddConcurrentUint64(1) },
		"ULL.EstimateConcurrent":              func() { u.EstimateConcurrent() },
		"Bloom.OverCapacityConcurrent":        func() { f.OverCapacityConcurrent() },
		"SplitBlock.OverCapacityConcurrent":   func() { s.OverCapacityConcurrent() },
	} {
		expectPanic(t, what, call)
	}
}
