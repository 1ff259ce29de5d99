// Command stand rebuilds the Go stand of the seed article
// (shared/seeds/002_*.txt): its measured table, with the article's own Go
// libraries (bits-and-blooms/bloom/v3, axiomhq/hyperloglog,
// seiflotfy/cuckoofilter) measured live beside this binding in the same
// run, and the article's figures printed next to both.
//
//	go run -tags sketches_static ./cmd/stand            (1,000,000 keys)
//	go run -tags sketches_static ./cmd/stand -keys 200000
//
// Rows of this binding's families the article does not cover (the binary
// fuse filter beside Bloom and cuckoo, ExaLogLog beside HLL and ULL) show
// "-" in the article and peer columns.
//
// (make go-stand in the repository root builds the library first.)
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/axiomhq/hyperloglog"
	"github.com/bits-and-blooms/bloom/v3"
	cuckoo "github.com/seiflotfy/cuckoofilter"

	sketches "example.invalid/sketches/bindings/go"
)

var n int

// The ExaLogLog rows: p = 11, d = 20 (7 KB of registers, less than the
// ULL's 8 KB, and a lower standard error).
const (
	ellP = 11
	ellD = 20
)

func main() {
	flag.IntVar(&n, "keys", 1_000_000, "keys per set (the article's rows assume 1,000,000)")
	flag.Parse()
	if n < 1000 {
		n = 1000
	}
	full := n == 1_000_000
	art := func(s string) string {
		if full {
			return s
		}
		return "-"
	}
	fmt.Printf("sketches %s Go stand: %d keys \"present-<i>\", queried with %d keys \"absent-<i>\"\n", sketches.Version(), n, n)
	fmt.Printf("peers measured live in this run: bits-and-blooms/bloom/v3, axiomhq/hyperloglog, seiflotfy/cuckoofilter, Go map\n")
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("GOMAXPROCS %d, %d CPUs, %s, load average %s", runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.Version(), load)

	present, presentB := makeKeys("present-", n)
	absent, absentB := makeKeys("absent-", n)

	// 1. Planned vs measured FPR, and the 10x overfill.
	header("Bloom filter (n, p = 1%)", "article", "bits-and-blooms", "sketches")
	ours, err := sketches.NewBloom(uint64(n), 0.01)
	must(err)
	ours.AddStrings(present)
	peer := bloom.NewWithEstimates(uint(n), 0.01)
	for _, k := range presentB {
		peer.Add(k)
	}
	oursFP := countTrue(ours.ContainsStrings(absent, nil))
	oursTP := countTrue(ours.ContainsStrings(present, nil))
	peerFP, peerTP := 0, 0
	for i := range absentB {
		peerFP += b2i(peer.Test(absentB[i]))
		peerTP += b2i(peer.Test(presentB[i]))
	}
	st := ours.Stats()
	row("  planned FPR", "1.00%", "1.00%", pct(st.Params.PlannedFPR))
	row("  measured FPR on absent keys", art("1.01%"), pct(frac(peerFP)), pct(frac(oursFP)))
	row("  FPR the filter estimates for itself", "-", "-", pct(st.EstimatedFPR))
	row("  false negatives", "0", strconv.Itoa(n-peerTP), strconv.Itoa(n-oursTP))
	row("  bits m / probes k", art("9585059 / 7"), fmt.Sprintf("%d / %d", peer.Cap(), peer.K()),
		fmt.Sprintf("%d / %d", st.Params.Bits, st.Params.Hashes))

	under, err := sketches.NewBloom(uint64(n/10), 0.01)
	must(err)
	under.AddStrings(present[:n/10])
	flagsAtPlan := under.OverCapacity()
	under.AddStrings(present)
	flagsAfter := under.OverCapacity()
	peerUnder := bloom.NewWithEstimates(uint(n/10), 0.01)
	for _, k := range presentB {
		peerUnder.Add(k)
	}
	peerUnderFP := 0
	for _, k := range absentB {
		peerUnderFP += b2i(peerUnder.Test(k))
	}
	row("  planned for n/10, filled with n: measured FPR", art("99.53%"), pct(frac(peerUnderFP)),
		pct(frac(countTrue(under.ContainsStrings(absent, nil)))))
	row("  ... FPR the filter estimates for itself", "-", "-", pct(under.Stats().EstimatedFPR))
	row("  ... over-capacity signal after n/10 keys", "none", "none", flagsAtPlan.String())
	row("  ... over-capacity signal after n keys", "none", "none", flagsAfter.String())

	// 2. Memory against an exact set.
	mapBytes := measureMap(present)
	row("  memory: Bloom filter", art("1170 KB"), kb(int(peer.Cap()/8)), kb(ours.Size()))
	row("  memory: exact set, Go map[string]struct{} (measured)", art("62500 KB"), kb(mapBytes), "")
	row("  saving against the exact set", art("53x"), times(float64(mapBytes)/float64(peer.Cap()/8)),
		times(float64(mapBytes)/float64(ours.Size())))

	// 3. Cuckoo vs Bloom: memory, FPR, single-call speed ratios.
	header("Cuckoo filter vs Bloom (n keys, ~1%)", "article", "seiflotfy/bb", "sketches")
	cf := cuckoo.NewFilter(uint(n))
	p8, err := sketches.PlanCuckooBuckets(uint64(n)*100/380+1, 8)
	must(err)
	c8, err := sketches.NewCuckooWithParams(p8)
	must(err)
	c12, err := sketches.NewCuckoo(uint64(n), 0.01)
	must(err)
	peerCuckooAdd := rate(func() {
		for _, k := range presentB {
			cf.Insert(k)
		}
	}, cf.Reset)
	oursCuckooAdd := rate(func() {
		for _, k := range present {
			_ = c8.AddString(k)
		}
	}, c8.Clear)
	_, _ = c12.AddStrings(present)
	peerCuckooFP, oursCuckooFP := 0, 0
	peerCuckooQuery := rate(func() {
		for _, k := range absentB {
			peerCuckooFP += b2i(cf.Lookup(k))
		}
	})
	oursCuckooQuery := rate(func() {
		for _, k := range absent {
			oursCuckooFP += b2i(c8.ContainsString(k))
		}
	})
	row("  memory: cuckoo, 8-bit fingerprints", art("1024 KB"), kb(len(cf.Encode())), kb(c8.Size()))
	row("  ... measured FPR on absent keys", "-", pct(frac(peerCuckooFP)), pct(frac(oursCuckooFP)))
	row("  ... items stored / load", "-", fmt.Sprintf("%d", cf.Count()),
		fmt.Sprintf("%d / %.1f%%", c8.Stats().Items, 100*c8.Stats().Load))
	row("  memory: cuckoo planned for 1% (12-bit fingerprints)", "-", "-", kb(c12.Size()))
	row("  ... measured FPR on absent keys", "-", "-", pct(frac(countTrue(c12.ContainsStrings(absent, nil)))))
	row("  memory: Bloom at 1% (as above)", art("1170 KB"), kb(int(peer.Cap()/8)), kb(ours.Size()))
	fresh := bloom.NewWithEstimates(uint(n), 0.01)
	peerBloomAdd := rate(func() {
		for _, k := range presentB {
			fresh.Add(k)
		}
	})
	peerBloomQuery := rate(func() {
		for _, k := range absentB {
			sinkB(fresh.Test(k))
		}
	})
	ours.Clear()
	oursBloomAdd := rate(func() {
		for _, k := range present {
			ours.AddString(k)
		}
	})
	oursBloomQuery := rate(func() {
		for _, k := range absent {
			sinkB(ours.ContainsString(k))
		}
	})
	row("  insert speed, cuckoo 8-bit / Bloom (single calls)", "1.86x", times(peerCuckooAdd/peerBloomAdd), times(oursCuckooAdd/oursBloomAdd))
	row("  query speed, cuckoo 8-bit / Bloom (single calls)", "2.17x", times(peerCuckooQuery/peerBloomQuery), times(oursCuckooQuery/oursBloomQuery))

	// Binary fuse filters beside them: static, built once from the n keys.
	var fuse8, fuse16 *sketches.BinaryFuse
	fuse8Build := rate(func() {
		var err error
		fuse8, err = sketches.NewBinaryFuseStrings(present, 8)
		must(err)
	})
	fuse16, err = sketches.NewBinaryFuseStrings(present, 16)
	must(err)
	fuse8FP := 0
	fuse8Query := rate(func() {
		for _, k := range absent {
			fuse8FP += b2i(fuse8.ContainsString(k))
		}
	})
	for _, f := range []*sketches.BinaryFuse{fuse8, fuse16} {
		fst := f.Stats()
		label := fmt.Sprintf("  memory: binary fuse, %d-bit fingerprints (static)", fst.Params.FingerprintBits)
		row(label, "-", "-", kb(f.Size()))
		row("  ... bits per key (fingerprint array / whole image)", "-", "-",
			fmt.Sprintf("%.2f / %.2f", fst.BitsPerKey, 8*fst.ImageBytesPerKey))
		fineP := func(v float64) string { return fmt.Sprintf("%.4f%%", 100*v) }
		row("  ... measured FPR on absent keys (planned)", "-", "-",
			fineP(frac(countTrue(f.ContainsStrings(absent, nil))))+" ("+fineP(fst.FPR)+")")
		row("  ... false negatives", "-", "-", strconv.Itoa(n-countTrue(f.ContainsStrings(present, nil))))
	}
	row("  query speed, binary fuse 8-bit / Bloom (single calls)", "-", "-", times(fuse8Query/oursBloomQuery))
	row("  build speed, binary fuse 8-bit / Bloom inserts (batch)", "-", "-",
		times(fuse8Build/rate(func() { ours.AddStrings(present) }, ours.Clear)))

	// 4. HyperLogLog at n and 10n, merge of halves.
	section("HyperLogLog: axiomhq p=14 (8-bit registers); ours HLL p=14 (6-bit) / ULL p=13; ExaLogLog p=11, d=20 (28-bit)")
	header("", "article", "axiomhq", "sketches HLL / ULL")
	var ax *hyperloglog.Sketch
	axAdd := rate(func() {
		for _, k := range presentB {
			ax.Insert(k)
		}
	}, func() { ax = hyperloglog.New14() })
	hll, err := sketches.NewHLL(14)
	must(err)
	ull, err := sketches.NewULL(13)
	must(err)
	hllAdd := rate(func() { hll.AddStrings(present) }, hll.Reset)
	ull.AddStrings(present)
	ell, err := sketches.NewELL(ellP, ellD)
	must(err)
	ell.AddStrings(present)
	axImg, _ := ax.MarshalBinary()
	row("  memory (serialized image)", art("16 KB"), kb(len(axImg)), kb(hll.Size())+" / "+kb(ull.Size()))
	row("  ... ExaLogLog p=11, d=20", "-", "-", kb(ell.Size()))
	row("  error at n distinct", art("-0.08%"), signedPct(rel(float64(ax.Estimate()), n)),
		signedPct(rel(hll.Estimate(), n))+" / "+signedPct(rel(ull.Estimate(), n)))
	row("  ... ExaLogLog (martingale / maximum likelihood)", "-", "-",
		signedPct(rel(ell.Estimate(), n))+" / "+signedPct(rel(ell.MLEstimate(), n)))
	big := 10 * n
	addRange := func(from, to int, f func([]string), g func([]byte)) {
		const chunk = 1 << 16
		buf := make([]string, 0, chunk)
		for i := from; i < to; i++ {
			k := "present-" + strconv.Itoa(i)
			buf = append(buf, k)
			if g != nil {
				g([]byte(k))
			}
			if len(buf) == chunk || i == to-1 {
				if f != nil {
					f(buf)
				}
				buf = buf[:0]
			}
		}
	}
	addRange(n, big, func(k []string) { hll.AddStrings(k); ull.AddStrings(k); ell.AddStrings(k) }, ax.Insert)
	axImg, _ = ax.MarshalBinary()
	row("  memory at 10 n distinct", art("16 KB"), kb(len(axImg)), kb(hll.Size())+" / "+kb(ull.Size()))
	row("  error at 10 n distinct", art("-0.858%"), signedPct(rel(float64(ax.Estimate()), big)),
		signedPct(rel(hll.Estimate(), big))+" / "+signedPct(rel(ull.Estimate(), big)))
	row("  ... ExaLogLog (martingale / maximum likelihood)", "-", "-",
		signedPct(rel(ell.Estimate(), big))+" / "+signedPct(rel(ell.MLEstimate(), big)))
	axA, axB := hyperloglog.New14(), hyperloglog.New14()
	ha, _ := sketches.NewHLL(14)
	hb, _ := sketches.NewHLL(14)
	ua, _ := sketches.NewULL(13)
	ub, _ := sketches.NewULL(13)
	for _, k := range presentB[:n/2] {
		axA.Insert(k)
	}
	for _, k := range presentB[n/2:] {
		axB.Insert(k)
	}
	must(axA.Merge(axB))
	ha.AddStrings(present[:n/2])
	hb.AddStrings(present[n/2:])
	ua.AddStrings(present[:n/2])
	ub.AddStrings(present[n/2:])
	must(ha.Merge(hb))
	must(ua.Merge(ub))
	ea, _ := sketches.NewELL(ellP, ellD)
	eb, _ := sketches.NewELL(ellP, ellD)
	ea.AddStrings(present[:n/2])
	eb.AddStrings(present[n/2:])
	must(ea.Merge(eb))
	row("  merge of two n/2 halves: error", art("+0.239%"), signedPct(rel(float64(axA.Estimate()), n)),
		signedPct(rel(ha.Estimate(), n))+" / "+signedPct(rel(ua.Estimate(), n)))
	row("  ... ExaLogLog (maximum likelihood)", "-", "-", signedPct(rel(ea.Estimate(), n)))
	// One run's error is one draw; the RMSE over independent streams is the accuracy.
	const streams = 8
	var axSq, hllSq, ullSq, ellSq, ellMLSq float64
	for s := 0; s < streams; s++ {
		a := hyperloglog.New14()
		h, _ := sketches.NewHLL(14)
		u, _ := sketches.NewULL(13)
		e, _ := sketches.NewELL(ellP, ellD)
		prefix := "stream" + strconv.Itoa(s) + "-"
		addRange(0, n, func(k []string) {
			for i := range k {
				k[i] = prefix + k[i]
			}
			h.AddStrings(k)
			u.AddStrings(k)
			e.AddStrings(k)
		}, func(k []byte) { a.Insert(append([]byte(prefix), k...)) })
		axSq += sq(rel(float64(a.Estimate()), n))
		hllSq += sq(rel(h.Estimate(), n))
		ullSq += sq(rel(u.Estimate(), n))
		ellSq += sq(rel(e.Estimate(), n))
		ellMLSq += sq(rel(e.MLEstimate(), n))
	}
	row(fmt.Sprintf("  RMSE over %d independent streams of n keys", streams), "~1%",
		pct(math.Sqrt(axSq/streams)), pct(math.Sqrt(hllSq/streams))+" / "+pct(math.Sqrt(ullSq/streams)))
	row("  ... ExaLogLog (martingale / maximum likelihood)", "-", "-",
		pct(math.Sqrt(ellSq/streams))+" / "+pct(math.Sqrt(ellMLSq/streams)))
	row("  expected standard error", "-", pct(1.04/128), pct(0.833/128)+" / "+pct(0.658/math.Sqrt(8192)))
	row("  ... ExaLogLog (martingale / maximum likelihood)", "-", "-",
		pct(0.318/math.Sqrt(1<<ellP))+" / "+pct(0.362/math.Sqrt(1<<ellP)))

	// 5. Count-Min at the article's sizes.
	header("Count-Min (1000 control keys + hot key x 80000)", "article", "-", "sketches")
	for _, c := range []struct {
		w            uint64
		d            uint32
		conservative bool
		label        string
		over, worst  string
	}{
		{500, 3, false, "500 x 3", "756/1000", "500%"},
		{8000, 7, false, "8000 x 7", "0/1000", "-"},
		{500, 3, true, "500 x 3, conservative update", "-", "-"},
	} {
		p, err := sketches.PlanCountMinSize(c.w, c.d)
		must(err)
		p.Conservative = c.conservative
		cm, err := sketches.NewCountMinWithParams(p)
		must(err)
		control := make([]string, 1000)
		for j := range control {
			control[j] = "control-" + strconv.Itoa(j)
			cm.AddString(control[j], 1)
			for r := 0; r < 80; r++ {
				cm.AddString("hot", 1)
			}
		}
		over, worst := 0, uint64(0)
		for _, e := range cm.EstimateStrings(control, nil) {
			if e > 1 {
				over++
			}
			worst = max(worst, e-1)
		}
		fmt.Printf("  %s (%.1f KB)\n", c.label, float64(cm.Size())/1024)
		row("    control keys overestimated", c.over, "", fmt.Sprintf("%d/1000", over))
		row("    largest overestimate", c.worst, "", fmt.Sprintf("%d%%", worst*100))
		row("    hot key estimate (true 80000)", "80000", "", strconv.FormatUint(cm.EstimateString("hot"), 10))
	}

	// 6. Throughput, one goroutine, keys hashed inside the calls.
	fmt.Printf("\nThroughput, Mkeys/s (one goroutine; the article gives only ratios between structures):\n")
	fmt.Printf("  %-42s %11s %12s %11s %11s %11s\n", "", "peer", "ours single", "ours batch", "single/peer", "batch/peer")
	out := make([]bool, n)
	fresh2 := bloom.NewWithEstimates(uint(n), 0.01)
	peerAdd := rate(func() {
		for _, k := range presentB {
			fresh2.Add(k)
		}
	})
	ours.Clear()
	oursAdd := rate(func() {
		for _, k := range present {
			ours.AddString(k)
		}
	})
	oursAddBatch := rate(func() { ours.AddStrings(present) })
	through("Bloom add (bits-and-blooms)", peerAdd, oursAdd, oursAddBatch)
	peerQ := rate(func() {
		for _, k := range absentB {
			sinkB(fresh2.Test(k))
		}
	})
	oursQ := rate(func() {
		for _, k := range absent {
			sinkB(ours.ContainsString(k))
		}
	})
	oursQB := rate(func() { ours.ContainsStrings(absent, out) })
	through("Bloom contains, absent (bits-and-blooms)", peerQ, oursQ, oursQB)
	oursCQB := rate(func() { c8.ContainsStrings(absent, out) })
	through("Cuckoo contains, absent (seiflotfy)", peerCuckooQuery, oursCuckooQuery, oursCQB)
	oursCAB := rate(func() { _, _ = c8.AddStrings(present) }, c8.Clear)
	through("Cuckoo add (seiflotfy)", peerCuckooAdd, oursCuckooAdd, oursCAB)
	h2, _ := sketches.NewHLL(14)
	hllSingle := rate(func() {
		for _, k := range present {
			h2.AddString(k)
		}
	}, h2.Reset)
	through("HLL add (axiomhq)", axAdd, hllSingle, hllAdd)
	e2, _ := sketches.NewELL(ellP, ellD)
	ellSingle := rate(func() {
		for _, k := range present {
			e2.AddString(k)
		}
	}, e2.Reset)
	ellAdd := rate(func() { e2.AddStrings(present) }, e2.Reset)
	through("ExaLogLog p=11 d=20 add (vs axiomhq)", axAdd, ellSingle, ellAdd)
	sb, _ := sketches.NewSplitBlock(uint64(n), 0.01)
	sbAdd := rate(func() { sb.AddStrings(present) })
	sbQ := rate(func() { sb.ContainsStrings(absent, out) })
	through("Split-block add (vs bits-and-blooms)", peerAdd, math.NaN(), sbAdd)
	through("Split-block contains, absent (vs bb)", peerQ, math.NaN(), sbQ)
	fuseQB := rate(func() { fuse8.ContainsStrings(absent, out) })
	through("Binary fuse 8 contains, absent (vs bb)", peerQ, fuse8Query, fuseQB)
	through("Binary fuse 8 build (vs bb Bloom add)", peerAdd, math.NaN(), fuse8Build)
	m := make(map[string]struct{}, n)
	mapAdd := rate(func() {
		for _, k := range present {
			m[k] = struct{}{}
		}
	}, func() { m = make(map[string]struct{}, n) })
	mapQ := rate(func() {
		for _, k := range absent {
			_, ok := m[k]
			sinkB(ok)
		}
	})
	fmt.Printf("  %-42s %11.1f %12.1f   (add / lookup)\n", "Go map[string]struct{} (exact set)", mapAdd/1e6, mapQ/1e6)
	fmt.Printf("  (absolute figures vary between machines and runs; ratios within one run are the comparison)\n")
}

func makeKeys(prefix string, n int) ([]string, [][]byte) {
	s, b := make([]string, n), make([][]byte, n)
	for i := range n {
		s[i] = prefix + strconv.Itoa(i)
		b[i] = []byte(s[i])
	}
	return s, b
}

// measureMap returns the heap bytes a map[string]struct{} of keys takes,
// the key strings included (what an exact set of them costs in Go).
func measureMap(keys []string) int {
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
	return int(after.HeapAlloc - before.HeapAlloc)
}

// rate runs f (one pass over n keys) three times and returns keys per
// second of the fastest pass: on a shared machine the slower passes
// measure waiting for a core. An optional reset runs before each pass.
func rate(f func(), reset ...func()) float64 {
	best := math.Inf(1)
	for range 3 {
		for _, r := range reset {
			r()
		}
		t := time.Now()
		f()
		best = min(best, time.Since(t).Seconds())
	}
	return float64(n) / best
}

func through(what string, peer, single, batch float64) {
	cell := func(v float64) string {
		if math.IsNaN(v) {
			return "-"
		}
		return fmt.Sprintf("%.1f", v/1e6)
	}
	ratio := func(v float64) string {
		if math.IsNaN(v) {
			return "-"
		}
		return fmt.Sprintf("%.2fx", v/peer)
	}
	fmt.Printf("  %-42s %11s %12s %11s %11s %11s\n", what, cell(peer), cell(single), cell(batch), ratio(single), ratio(batch))
}

func header(title, a, b, c string) { fmt.Printf("\n%-56s %12s %16s %22s\n", title, a, b, c) }

func section(title string) { fmt.Printf("\n%s\n", title) }

func row(label, article, peer, ours string) {
	fmt.Printf("%-56s %12s %16s %22s\n", label, article, peer, ours)
}

func frac(count int) float64 { return float64(count) / float64(n) }
func pct(v float64) string   { return fmt.Sprintf("%.2f%%", 100*v) }
func signedPct(v float64) string {
	return fmt.Sprintf("%+.3f%%", 100*v)
}
func rel(est float64, truth int) float64 { return (est - float64(truth)) / float64(truth) }
func sq(v float64) float64               { return v * v }
func kb(bytes int) string                { return fmt.Sprintf("%.0f KB", float64(bytes)/1024) }
func times(v float64) string             { return fmt.Sprintf("%.2fx", v) }
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func countTrue(v []bool) int {
	c := 0
	for _, b := range v {
		c += b2i(b)
	}
	return c
}

var sinkCount int

func sinkB(b bool) { sinkCount += b2i(b) }

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "stand:", err)
		os.Exit(1)
	}
}
