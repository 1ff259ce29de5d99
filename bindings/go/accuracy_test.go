package sketches

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// Accuracy smoke tests: sizes small enough for every CI run, bounds from
// the math (binomial 4 sigma for false-positive rates, RMSE envelopes for
// cardinality), fixed seeds. The full characterizations run in the Rust
// core's tests.

// keyShapes are the key shapes of SPEC section 7, as (present, absent) pairs.
func keyShapes(n int) map[string][2][][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func() []byte {
		b := make([]byte, 8+rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	shapes := map[string][2][][]byte{}
	var sp, sa, up, ua, rp, ra, ip, ia [][]byte
	for i := 0; i < n; i++ {
		sp = append(sp, []byte("present-"+strconv.Itoa(i)))
		sa = append(sa, []byte("absent-"+strconv.Itoa(i)))
		up = append(up, []byte("https://example.com/a/"+strconv.Itoa(i)+"/index.html"))
		ua = append(ua, []byte("https://example.com/b/"+strconv.Itoa(i)+"/index.html"))
		rp, ra = append(rp, random()), append(ra, random())
		ip, ia = append(ip, le8(uint64(i))), append(ia, le8(uint64(n+i)))
	}
	shapes["strings"] = [2][][]byte{sp, sa}
	shapes["urls"] = [2][][]byte{up, ua}
	shapes["random"] = [2][][]byte{rp, ra}
	shapes["sequential integers"] = [2][][]byte{ip, ia}
	return shapes
}

// withinBinomial checks hits/q against rate p within 4 standard deviations.
func withinBinomial(t *testing.T, what string, hits, q int, p float64) {
	t.Helper()
	got := float64(hits) / float64(q)
	sigma := math.Sqrt(p * (1 - p) / float64(q))
	if math.Abs(got-p) > 4*sigma {
		t.Errorf("%s: measured FPR %.5f, expected %.5f +- %.5f", what, got, p, 4*sigma)
	}
}

func TestFalsePositiveRates(t *testing.T) {
	const n, q = 50000, 100000
	for name, sh := range keyShapes(q) {
		present, absent := sh[0][:n], sh[1]

		b, _ := NewBloom(n, 0.01)
		b.AddBytes(present)
		hits := countTrue(b.ContainsBytes(absent, nil))
		// The rate of this filter given its set bits, and the plan.
		withinBinomial(t, "Bloom "+name, hits, q, b.Stats().EstimatedFPR)
		if p := b.Stats().EstimatedFPR; math.Abs(p-0.01) > 0.001 {
			t.Errorf("Bloom %s: fill gives rate %v for a 1%% plan", name, p)
		}

		s, _ := NewSplitBlock(n, 0.01)
		s.AddBytes(present)
		withinBinomial(t, "SplitBlock "+name, countTrue(s.ContainsBytes(absent, nil)), q, s.Stats().EstimatedFPR)

		c, _ := NewCountingBloom(n, 0.01)
		c.AddBytes(present)
		withinBinomial(t, "CountingBloom "+name, countTrue(c.ContainsBytes(absent, nil)), q, c.Stats().EstimatedFPR)

		k, _ := NewCuckoo(n, 0.01)
		if _, err := k.AddBytes(present); err != nil {
			t.Fatal(err)
		}
		got := float64(countTrue(k.ContainsBytes(absent, nil))) / q
		bound := k.Stats().EstimatedFPR
		if got > bound+4*math.Sqrt(bound/q) {
			t.Errorf("Cuckoo %s: measured FPR %.5f above its bound %.5f", name, got, bound)
		}

		// Binary fuse: no false negative ever, and 2^-bits of absent keys pass.
		for _, bits := range []uint32{8, 16} {
			fu, err := NewBinaryFuseBytes(present, bits)
			if err != nil {
				t.Fatal(err)
			}
			if countTrue(fu.ContainsBytes(present, nil)) != n {
				t.Fatalf("BinaryFuse%d %s: false negative", bits, name)
			}
			withinBinomial(t, "BinaryFuse"+strconv.Itoa(int(bits))+" "+name, countTrue(fu.ContainsBytes(absent, nil)), q,
				math.Ldexp(1, -int(bits)))
		}
	}
}

// Relative RMSE of the estimates over trials (seeds) at several
// cardinalities, against the estimator's standard error.
func TestCardinalityError(t *testing.T) {
	const trials = 24
	keys := u64Keys(0, 200000)
	for _, n := range []int{1000, 20000, 200000} {
		var hll, hllReg, ull, ullML, ell, ellML, ell24ML float64
		for s := 0; s < trials; s++ {
			h, _ := NewHLL(10, WithSeed(uint64(s)))
			u, _ := NewULL(10, WithSeed(uint64(s)))
			e, _ := NewELL(10, 20, WithSeed(uint64(s)))
			e24, _ := NewELL(10, 24, WithSeed(uint64(s)))
			h.AddUint64s(keys[:n])
			u.AddUint64s(keys[:n])
			e.AddUint64s(keys[:n])
			e24.AddUint64s(keys[:n])
			sq := func(e float64) float64 { r := e/float64(n) - 1; return r * r }
			hll += sq(h.Estimate())
			hllReg += sq(h.RegisterEstimate())
			ull += sq(u.Estimate())
			ullML += sq(u.MLEstimate())
			ell += sq(e.Estimate())
			ellML += sq(e.MLEstimate())
			ell24ML += sq(e24.MLEstimate())
		}
		m := 1024.0
		for _, c := range []struct {
			what string
			sum  float64
			se   float64
		}{
			{"HLL martingale", hll, 0.83 / math.Sqrt(m)},
			{"HLL registers", hllReg, 1.04 / math.Sqrt(m)},
			{"ULL martingale", ull, 0.658 / math.Sqrt(m)},
			{"ULL maximum likelihood", ullML, 0.761 / math.Sqrt(m)},
			{"ELL d=20 martingale", ell, 0.318 / math.Sqrt(m)},
			{"ELL d=20 maximum likelihood", ellML, 0.362 / math.Sqrt(m)},
			{"ELL d=24 maximum likelihood", ell24ML, 0.344 / math.Sqrt(m)},
		} {
			// With 24 trials the RMSE is within 1.6x the standard error with
			// overwhelming probability; below the small-mode limit HLL is exact.
			if rmse := math.Sqrt(c.sum / trials); rmse > 1.6*c.se {
				t.Errorf("%s at n=%d: relative RMSE %.4f, standard error %.4f", c.what, n, rmse, c.se)
			}
		}
	}
}
