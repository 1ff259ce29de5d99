package sketches

import "testing"

// The hot paths allocate nothing: single-key calls (the key and the
// outputs stay on the stack: #cgo noescape), and batches given a results
// slice (packing buffers come from a pool), the concurrent forms included.
func TestNoAllocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("coverage and race instrumentation allocate (and sync.Pool drops items under -race)")
	}
	ks := keys("k-", 0, 3000)
	bk := byteKeys(ks)
	ints := u64Keys(0, 3000)
	out := make([]bool, len(ks))
	est := make([]uint64, len(ks))
	f, _ := NewBloom(10000, 0.01)
	c, _ := NewCuckoo(10000, 0.01)
	h, _ := NewHLL(12)
	hd, _ := NewHLL(12)
	hd.Densify()
	cm, _ := NewCountMin(0.01, 0.01)
	fu, _ := NewBinaryFuseStrings(ks, 8)
	el, _ := NewELL(12, 20)
	key := []byte("some key")
	for name, fn := range map[string]func(){
		"Bloom.AddString":        func() { f.AddString("some key") },
		"Bloom.Contains":         func() { f.Contains(key) },
		"Bloom.ContainsUint64":   func() { f.ContainsUint64(42) },
		"Bloom.AddStrings":       func() { f.AddStrings(ks) },
		"Bloom.AddBytes":         func() { f.AddBytes(bk) },
		"Bloom.ContainsStrings":  func() { f.ContainsStrings(ks, out) },
		"Bloom.ContainsUint64s":  func() { f.ContainsUint64s(ints, out) },
		"Cuckoo.ContainsString":  func() { c.ContainsString("x") },
		"Cuckoo.ContainsStrings": func() { c.ContainsStrings(ks, out) },
		"Cuckoo.AddStrings+RemoveStrings": func() {
			_, _ = c.AddStrings(ks)
			_, _ = c.RemoveStrings(ks)
		},
		"Cuckoo.AddUint64s+RemoveUint64s": func() {
			_, _ = c.AddUint64s(ints)
			_, _ = c.RemoveUint64s(ints)
		},
		"BinaryFuse.ContainsString":  func() { fu.ContainsString("x") },
		"BinaryFuse.ContainsStrings": func() { fu.ContainsStrings(ks, out) },
		"BinaryFuse.ContainsUint64s": func() { fu.ContainsUint64s(ints, out) },
		"ELL.AddString":              func() { el.AddString("x") },
		"ELL.AddStrings":             func() { el.AddStrings(ks) },
		"ELL.Estimate":               func() { el.Estimate() },
		"HLL.AddString":              func() { h.AddString("x") },
		"HLL.AddStrings":             func() { h.AddStrings(ks) },
		"HLL.Estimate":               func() { h.Estimate() },
		"CountMin.AddString":         func() { cm.AddString("x", 2) },
		"CountMin.EstimateStrings":   func() { cm.EstimateStrings(ks, est) },

		// The concurrent forms (the HLL's need a dense sketch).
		"Bloom.AddConcurrentString":       func() { f.AddConcurrentString("some key") },
		"Bloom.AddConcurrentStrings":      func() { f.AddConcurrentStrings(ks) },
		"Bloom.ContainsConcurrentStrings": func() { f.ContainsConcurrentStrings(ks, out) },
		"HLL.AddConcurrentString":         func() { _, _ = hd.AddConcurrentString("x") },
		"HLL.AddConcurrentStrings":        func() { _ = hd.AddConcurrentStrings(ks) },
	} {
		fn()
		if a := testing.AllocsPerRun(20, fn); a != 0 {
			t.Errorf("%s: %.1f allocations per call", name, a)
		}
	}
}
