package sketches

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// Concurrent queries on one sketch are safe: many goroutines query every
// family at once, single-key and batch (the batches share pooled packing
// buffers), while the answers must equal the sequential ones. Run under
// -race by make go-test. (The race detector sees the Go side only; the C
// side only reads the image in these calls.)
func TestConcurrentQueries(t *testing.T) {
	const n = 20000
	ks := keys("c-", 0, n)
	q := append(keys("c-", 0, n/2), keys("absent-", 0, n/2)...)
	bl, _ := NewBloom(n, 0.01)
	sb, _ := NewSplitBlock(n, 0.01)
	cb, _ := NewCountingBloom(n, 0.01)
	ck, _ := NewCuckoo(n, 0.01)
	hl, _ := NewHLL(12)
	ul, _ := NewULL(12)
	cm, _ := NewCountMin(0.001, 0.01)
	tk, _ := NewTopK(64, 16)
	mh, _ := NewMinHash(128)
	fu, err := NewBinaryFuseStrings(ks, 8)
	check(t, err)
	el, _ := NewELL(12, 20)
	bl.AddStrings(ks)
	sb.AddStrings(ks)
	cb.AddStrings(ks)
	_, _ = ck.AddStrings(ks)
	hl.AddStrings(ks)
	ul.AddStrings(ks)
	cm.AddStrings(ks, nil)
	check(t, tk.AddStrings(ks[:500], nil))
	mh.AddStrings(ks)
	el.AddStrings(ks)

	type answers struct {
		bl, sb, cb, ck, fu []bool
		cm                 []uint64
		hll, ull, ell, ml  float64
		top                []TopKItem
		img, txt, written  []byte
		sig                []uint64
		line               string
	}
	ask := func(single bool) answers {
		var a answers
		if single {
			for _, k := range q {
				a.bl = append(a.bl, bl.ContainsString(k))
				a.sb = append(a.sb, sb.ContainsString(k))
				a.cb = append(a.cb, cb.Contains([]byte(k)))
				a.ck = append(a.ck, ck.ContainsString(k))
				a.fu = append(a.fu, fu.ContainsString(k))
				a.cm = append(a.cm, cm.EstimateString(k))
			}
		} else {
			a.bl = bl.ContainsStrings(q, nil)
			a.sb = sb.ContainsBytes(byteKeys(q), nil)
			a.cb = cb.ContainsStrings(q, nil)
			a.ck = ck.ContainsStrings(q, nil)
			a.fu = fu.ContainsBytes(byteKeys(q), nil)
			a.cm = cm.EstimateStrings(q, nil)
		}
		a.hll, a.ull = hl.Estimate(), ul.Estimate()
		a.ell, a.ml = el.Estimate(), el.MLEstimate()
		a.top = tk.List()
		a.img = marshal(t, bl)
		a.txt, _ = hl.MarshalText() // a reading method too
		a.sig = mh.Signature()
		var w bytes.Buffer // WriteTo, String and LogValue read too
		if _, err := sb.WriteTo(&w); err != nil {
			t.Error(err)
		}
		a.written = w.Bytes()
		a.line = ck.String() + el.LogValue().String() + fmt.Sprint(*bl)
		return a
	}
	want := ask(false)
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(single bool) {
			defer wg.Done()
			for r := 0; r < 3; r++ {
				got := ask(single)
				if !slices.Equal(got.bl, want.bl) || !slices.Equal(got.sb, want.sb) || !slices.Equal(got.cb, want.cb) ||
					!slices.Equal(got.ck, want.ck) || !slices.Equal(got.cm, want.cm) || got.hll != want.hll ||
					got.ull != want.ull || !slices.Equal(got.fu, want.fu) || got.ell != want.ell || got.ml != want.ml || len(got.top) != len(want.top) || !bytes.Equal(got.img, want.img) || !bytes.Equal(got.txt, want.txt) ||
					!slices.Equal(got.sig, want.sig) || !bytes.Equal(got.written, want.written) || got.line != want.line {
					errs <- "concurrent answers differ from the sequential ones"
					return
				}
			}
		}(g%2 == 0)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// Writers need exclusive access: with a sync.RWMutex, concurrent adds and
// queries are race-free and no added key is lost.
func TestWritersWithMutex(t *testing.T) {
	f, _ := NewBloom(40000, 0.01)
	var mu sync.RWMutex
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(2)
		go func(g int) {
			defer wg.Done()
			ks := keys("w"+string(rune('a'+g))+"-", 0, 5000)
			for i := 0; i < len(ks); i += 500 {
				mu.Lock()
				f.AddStrings(ks[i : i+500])
				mu.Unlock()
			}
		}(g)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				mu.RLock()
				f.ContainsStrings(keys("x-", 0, 100), nil)
				mu.RUnlock()
			}
		}()
	}
	wg.Wait()
	for g := 0; g < 4; g++ {
		if countTrue(f.ContainsStrings(keys("w"+string(rune('a'+g))+"-", 0, 5000), nil)) != 5000 {
			t.Fatal("a key added under the lock is missing")
		}
	}
}

// The token the single-key calls read is written only with the image, by
// methods that need exclusive access: under a sync.RWMutex, readers making
// single-key queries and a writer replacing or rewriting the image (which
// remakes the token) are race-free, and every answer is one of a whole
// image (run under -race by make go-test).
func TestTokenWritesUnderMutex(t *testing.T) {
	ks := keys("tw-", 0, 2000)
	a, _ := NewSplitBlock(4000, 0.01)
	a.AddStrings(ks)
	other, _ := NewSplitBlockParquet(4000, 0.01)
	other.AddStrings(ks)
	images := [][]byte{marshal(t, a), marshal(t, other)}
	h, _ := NewHLL(12)
	var mu sync.RWMutex
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 40; i++ {
			mu.Lock()
			if err := a.UnmarshalBinary(images[i%2]); err != nil {
				errs <- err.Error()
			}
			if i%5 == 4 {
				a.Clear()
				a.AddStrings(ks)
			}
			h.Reset()
			h.AddString(ks[i])
			mu.Unlock()
		}
	}()
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 20; r++ {
				mu.RLock()
				for _, k := range ks[:200] {
					if !a.ContainsString(k) {
						errs <- "a key of every image is missing"
						break
					}
				}
				mu.RUnlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if h.Estimate() != 1 {
		t.Fatal("HLL after the last Reset and add")
	}
}
