package sketches_test

// Benchmarks side by side with the seed stand's Go libraries on the stand
// workload: 1,000,000 keys "present-<i>" in a filter planned for 1% and
// 1,000,000 keys "absent-<i>" queried. Every benchmark runs the whole key
// set per iteration and reports ns/key and the sketch's bytes; ratios are
// between sub-benchmarks of one run:
//
//	go test -tags sketches_static -run '^$' -bench . -benchtime 5x
//
// Peers: bits-and-blooms/bloom/v3, axiomhq/hyperloglog,
// seiflotfy/cuckoofilter, and a Go map for the exact set.

import (
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/axiomhq/hyperloglog"
	"github.com/bits-and-blooms/bloom/v3"
	cuckoo "github.com/seiflotfy/cuckoofilter"

	sketches "example.invalid/sketches/bindings/go"
)

const benchN = 1_000_000

type keySet struct {
	strings []string
	bytes   [][]byte
}

func makeKeys(prefix string, n int) keySet {
	k := keySet{strings: make([]string, n), bytes: make([][]byte, n)}
	for i := range n {
		k.strings[i] = prefix + strconv.Itoa(i)
		k.bytes[i] = []byte(k.strings[i])
	}
	return k
}

var (
	benchOnce       sync.Once
	present, absent keySet
)

func benchKeys() {
	benchOnce.Do(func() {
		present = makeKeys("present-", benchN)
		absent = makeKeys("absent-", benchN)
	})
}

// cpuTime is the process's user+system CPU time: on a loaded machine it
// measures the work done where wall time also measures waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// perKey reports wall ns per key, millions of keys per second, and CPU ns
// per key (cpu0 = cpuTime() before the loop).
func perKey(b *testing.B, keysPerOp int, cpu0 time.Duration) {
	keys := float64(b.N * keysPerOp)
	ns := float64(b.Elapsed().Nanoseconds()) / keys
	b.ReportMetric(ns, "ns/key")
	b.ReportMetric(1e3/ns, "Mkeys/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/keys, "cpu-ns/key")
	b.ReportMetric(0, "ns/op")
}

func sink(v bool) {
	if v {
		sinkCount++
	}
}

var sinkCount int

func BenchmarkBloomAdd(b *testing.B) {
	benchKeys()
	b.Run("sketches-single", func(b *testing.B) {
		f, _ := sketches.NewBloom(benchN, 0.01)
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			for _, k := range present.strings {
				f.AddString(k)
			}
		}
		perKey(b, benchN, c0)
		b.ReportMetric(float64(f.Size()), "bytes")
	})
	b.Run("sketches-batch", func(b *testing.B) {
		f, _ := sketches.NewBloom(benchN, 0.01)
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			f.AddStrings(present.strings)
		}
		perKey(b, benchN, c0)
		b.ReportMetric(float64(f.Size()), "bytes")
	})
	b.Run("sketches-batch-bytes", func(b *testing.B) {
		f, _ := sketches.NewBloom(benchN, 0.01)
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			f.AddBytes(present.bytes)
		}
		perKey(b, benchN, c0)
	})
	b.Run("bits-and-blooms", func(b *testing.B) {
		f := bloom.NewWithEstimates(benchN, 0.01)
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			for _, k := range present.bytes {
				f.Add(k)
			}
		}
		perKey(b, benchN, c0)
		b.ReportMetric(float64(f.Cap()/8), "bytes")
	})
	b.Run("go-map", func(b *testing.B) {
		var m map[string]struct{}
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			m = make(map[string]struct{})
			for _, k := range present.strings {
				m[k] = struct{}{}
			}
		}
		perKey(b, benchN, c0)
		b.ReportMetric(float64(mapBytes(present.strings)), "bytes")
	})
}

func BenchmarkBloomContains(b *testing.B) {
	benchKeys()
	ours, _ := sketches.NewBloom(benchN, 0.01)
	ours.AddStrings(present.strings)
	peer := bloom.NewWithEstimates(benchN, 0.01)
	for _, k := range present.bytes {
		peer.Add(k)
	}
	m := make(map[string]struct{}, benchN)
	for _, k := range present.strings {
		m[k] = struct{}{}
	}
	for _, set := range []struct {
		name string
		keys keySet
	}{{"absent", absent}, {"present", present}} {
		b.Run(set.name+"/sketches-single", func(b *testing.B) {
			runtime.GC() // setup garbage must not be collected on the clock
			c0 := cpuTime()
			for b.Loop() {
				for _, k := range set.keys.strings {
					sink(ours.ContainsString(k))
				}
			}
			perKey(b, benchN, c0)
		})
		b.Run(set.name+"/sketches-batch", func(b *testing.B) {
			out := make([]bool, benchN)
			runtime.GC() // setup garbage must not be collected on the clock
			c0 := cpuTime()
			for b.Loop() {
				ours.ContainsStrings(set.keys.strings, out)
			}
			perKey(b, benchN, c0)
		})
		b.Run(set.name+"/bits-and-blooms", func(b *testing.B) {
			runtime.GC() // setup garbage must not be collected on the clock
			c0 := cpuTime()
			for b.Loop() {
				for _, k := range set.keys.bytes {
					sink(peer.Test(k))
				}
			}
			perKey(b, benchN, c0)
		})
		b.Run(set.name+"/go-map", func(b *testing.B) {
			runtime.GC() // setup garbage must not be collected on the clock
			c0 := cpuTime()
			for b.Loop() {
				for _, k := range set.keys.strings {
					_, ok := m[k]
					sink(ok)
				}
			}
			perKey(b, benchN, c0)
		})
	}
}

func BenchmarkSplitBlock(b *testing.B) {
	benchKeys()
	f, _ := sketches.NewSplitBlock(benchN, 0.01)
	b.Run("add-batch", func(b *testing.B) {
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			f.AddStrings(present.strings)
		}
		perKey(b, benchN, c0)
		b.ReportMetric(float64(f.Size()), "bytes")
	})
	b.Run("contains-absent-batch", func(b *testing.B) {
		out := make([]bool, benchN)
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			f.ContainsStrings(absent.strings, out)
		}
		perKey(b, benchN, c0)
	})
	b.Run("contains-absent-single", func(b *testing.B) {
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			for _, k := range absent.strings {
				sink(f.ContainsString(k))
			}
		}
		perKey(b, benchN, c0)
	})
}

func BenchmarkCuckoo(b *testing.B) {
	benchKeys()
	// The article's kind: 8-bit fingerprints at ~95% load; and ours planned for 1%.
	p8, _ := sketches.PlanCuckooBuckets(benchN*100/380+1, 8)
	configs := []struct {
		name   string
		params func() sketches.CuckooParams
	}{
		{"sketches-8bit", func() sketches.CuckooParams { return p8 }},
		{"sketches-1pct", func() sketches.CuckooParams { p, _ := sketches.PlanCuckoo(benchN, 0.01); return p }},
	}
	for _, c := range configs {
		b.Run("add/"+c.name+"-single", func(b *testing.B) {
			f, _ := sketches.NewCuckooWithParams(c.params())
			runtime.GC() // setup garbage must not be collected on the clock
			c0 := cpuTime()
			for b.Loop() {
				f.Clear()
				for _, k := range present.strings {
					_ = f.AddString(k)
				}
			}
			perKey(b, benchN, c0)
			b.ReportMetric(float64(f.Size()), "bytes")
		})
		b.Run("add/"+c.name+"-batch", func(b *testing.B) {
			f, _ := sketches.NewCuckooWithParams(c.params())
			runtime.GC() // setup garbage must not be collected on the clock
			c0 := cpuTime()
			for b.Loop() {
				f.Clear()
				_, _ = f.AddStrings(present.strings)
			}
			perKey(b, benchN, c0)
		})
	}
	b.Run("add/seiflotfy", func(b *testing.B) {
		f := cuckoo.NewFilter(benchN)
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			f.Reset()
			for _, k := range present.bytes {
				f.Insert(k)
			}
		}
		perKey(b, benchN, c0)
		b.ReportMetric(float64(len(f.Encode())), "bytes")
	})
	ours, _ := sketches.NewCuckooWithParams(p8)
	_, _ = ours.AddStrings(present.strings)
	ours12, _ := sketches.NewCuckoo(benchN, 0.01)
	_, _ = ours12.AddStrings(present.strings)
	peer := cuckoo.NewFilter(benchN)
	for _, k := range present.bytes {
		peer.Insert(k)
	}
	for _, set := range []struct {
		name string
		keys keySet
	}{{"absent", absent}, {"present", present}} {
		for _, o := range []struct {
			name string
			f    *sketches.Cuckoo
		}{{"sketches-8bit", ours}, {"sketches-1pct", ours12}} {
			b.Run("contains-"+set.name+"/"+o.name+"-single", func(b *testing.B) {
				runtime.GC() // setup garbage must not be collected on the clock
				c0 := cpuTime()
				for b.Loop() {
					for _, k := range set.keys.strings {
						sink(o.f.ContainsString(k))
					}
				}
				perKey(b, benchN, c0)
			})
			b.Run("contains-"+set.name+"/"+o.name+"-batch", func(b *testing.B) {
				out := make([]bool, benchN)
				runtime.GC() // setup garbage must not be collected on the clock
				c0 := cpuTime()
				for b.Loop() {
					o.f.ContainsStrings(set.keys.strings, out)
				}
				perKey(b, benchN, c0)
			})
		}
		b.Run("contains-"+set.name+"/seiflotfy", func(b *testing.B) {
			runtime.GC() // setup garbage must not be collected on the clock
			c0 := cpuTime()
			for b.Loop() {
				for _, k := range set.keys.bytes {
					sink(peer.Lookup(k))
				}
			}
			perKey(b, benchN, c0)
		})
	}
}

// The binary fuse filter is static: its "add" is one build of the whole set.
func BenchmarkBinaryFuse(b *testing.B) {
	benchKeys()
	for _, bits := range []uint32{8, 16} {
		name := "sketches-fuse" + strconv.Itoa(int(bits))
		var f *sketches.BinaryFuse
		b.Run("build/"+name, func(b *testing.B) {
			runtime.GC() // setup garbage must not be collected on the clock
			c0 := cpuTime()
			for b.Loop() {
				f, _ = sketches.NewBinaryFuseStrings(present.strings, bits)
			}
			perKey(b, benchN, c0)
			b.ReportMetric(float64(f.Size()), "bytes")
		})
		if f == nil {
			f, _ = sketches.NewBinaryFuseStrings(present.strings, bits)
		}
		b.Run("contains-absent/"+name+"-single", func(b *testing.B) {
			runtime.GC() // setup garbage must not be collected on the clock
			c0 := cpuTime()
			for b.Loop() {
				for _, k := range absent.strings {
					sink(f.ContainsString(k))
				}
			}
			perKey(b, benchN, c0)
		})
		b.Run("contains-absent/"+name+"-batch", func(b *testing.B) {
			out := make([]bool, benchN)
			runtime.GC() // setup garbage must not be collected on the clock
			c0 := cpuTime()
			for b.Loop() {
				f.ContainsStrings(absent.strings, out)
			}
			perKey(b, benchN, c0)
		})
	}
}

func BenchmarkHLLAdd(b *testing.B) {
	benchKeys()
	relErr := func(e float64) float64 { return 100 * math.Abs(e-benchN) / benchN }
	b.Run("sketches-hll14-batch", func(b *testing.B) {
		h, _ := sketches.NewHLL(14)
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			h.Reset()
			h.AddStrings(present.strings)
		}
		perKey(b, benchN, c0)
		b.ReportMetric(float64(h.Size()), "bytes")
		b.ReportMetric(relErr(h.Estimate()), "%err")
	})
	b.Run("sketches-hll14-single", func(b *testing.B) {
		h, _ := sketches.NewHLL(14)
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			h.Reset()
			for _, k := range present.strings {
				h.AddString(k)
			}
		}
		perKey(b, benchN, c0)
	})
	b.Run("sketches-ull13-batch", func(b *testing.B) {
		u, _ := sketches.NewULL(13)
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			u.Reset()
			u.AddStrings(present.strings)
		}
		perKey(b, benchN, c0)
		b.ReportMetric(float64(u.Size()), "bytes")
		b.ReportMetric(relErr(u.Estimate()), "%err")
	})
	b.Run("sketches-ell11d20-batch", func(b *testing.B) {
		e, _ := sketches.NewELL(11, 20)
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			e.Reset()
			e.AddStrings(present.strings)
		}
		perKey(b, benchN, c0)
		b.ReportMetric(float64(e.Size()), "bytes")
		b.ReportMetric(relErr(e.Estimate()), "%err")
	})
	b.Run("axiomhq-14", func(b *testing.B) {
		var h *hyperloglog.Sketch
		runtime.GC() // setup garbage must not be collected on the clock
		c0 := cpuTime()
		for b.Loop() {
			h = hyperloglog.New14()
			for _, k := range present.bytes {
				h.Insert(k)
			}
		}
		perKey(b, benchN, c0)
		img, _ := h.MarshalBinary()
		b.ReportMetric(float64(len(img)), "bytes")
		b.ReportMetric(relErr(float64(h.Estimate())), "%err")
	})
}

// BenchmarkConcurrentAdd: GOMAXPROCS goroutines (b.RunParallel) add the
// present keys to one sketch at once, each taking the next batch of 1024
// keys: through the Concurrent methods (no lock), and, for comparison,
// through the plain batch adds under a sync.Mutex. ns/key is wall time
// over all goroutines; cpu-ns/key the CPU time they spent.
func BenchmarkConcurrentAdd(b *testing.B) {
	benchKeys()
	const batch = 1024
	const full = benchN - benchN%batch // whole batches only
	run := func(b *testing.B, size int, add func(keys []string)) {
		var next atomic.Int64
		runtime.GC() // setup garbage must not be collected on the clock
		b.ResetTimer()
		c0 := cpuTime()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				lo := int((next.Add(batch) - batch) % full)
				add(present.strings[lo : lo+batch])
			}
		})
		perKey(b, batch, c0)
		b.ReportMetric(float64(size), "bytes")
	}
	b.Run("bloom-single", func(b *testing.B) {
		f, _ := sketches.NewBloom(benchN, 0.01)
		run(b, f.Size(), func(keys []string) {
			for _, k := range keys {
				f.AddConcurrentString(k)
			}
		})
	})
	b.Run("bloom-batch", func(b *testing.B) {
		f, _ := sketches.NewBloom(benchN, 0.01)
		run(b, f.Size(), f.AddConcurrentStrings)
	})
	b.Run("bloom-batch-mutex", func(b *testing.B) {
		f, _ := sketches.NewBloom(benchN, 0.01)
		var mu sync.Mutex
		run(b, f.Size(), func(keys []string) {
			mu.Lock()
			f.AddStrings(keys)
			mu.Unlock()
		})
	})
	b.Run("sbbf-batch", func(b *testing.B) {
		f, _ := sketches.NewSplitBlock(benchN, 0.01)
		run(b, f.Size(), f.AddConcurrentStrings)
	})
	b.Run("hll14-batch", func(b *testing.B) {
		h, _ := sketches.NewHLL(14)
		h.Densify()
		run(b, h.Size(), func(keys []string) {
			if err := h.AddConcurrentStrings(keys); err != nil {
				b.Error(err)
			}
		})
	})
	b.Run("hll14-batch-mutex", func(b *testing.B) {
		h, _ := sketches.NewHLL(14)
		var mu sync.Mutex
		run(b, h.Size(), func(keys []string) {
			mu.Lock()
			h.AddStrings(keys)
			mu.Unlock()
		})
	})
	b.Run("ull13-batch", func(b *testing.B) {
		u, _ := sketches.NewULL(13)
		run(b, u.Size(), u.AddConcurrentStrings)
	})
}

// mapBytes measures the heap a map[string]struct{} of the keys takes,
// key strings included.
func mapBytes(keys []string) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := make(map[string]struct{})
	for _, k := range keys {
		m[string([]byte(k))] = struct{}{}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(m)
	return after.HeapAlloc - before.HeapAlloc
}
