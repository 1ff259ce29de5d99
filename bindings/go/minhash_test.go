package sketches

import (
	"errors"
	"testing"
)

func TestMinHash(t *testing.T) {
	const n = 4000
	ks := mixedKeys("mh-", n)
	ints := u64Keys(0, n)
	single, err := NewMinHash(256, WithSeed(2))
	check(t, err)
	for _, k := range ks {
		single.AddString(k)
	}
	for _, k := range ints {
		single.AddUint64(k)
	}
	for _, form := range []string{"strings", "bytes"} {
		batch, _ := NewMinHash(256, WithSeed(2))
		if form == "strings" {
			batch.AddStrings(ks)
		} else {
			batch.AddBytes(byteKeys(ks))
		}
		batch.AddUint64s(ints)
		sameImage(t, "MinHash batch "+form, single, batch)
	}
	// Merge == one sketch of the union.
	a, _ := NewMinHash(256, WithSeed(2))
	b, _ := NewMinHash(256, WithSeed(2))
	for _, k := range ks {
		a.Add([]byte(k))
	}
	b.AddUint64s(ints)
	check(t, a.Merge(b))
	sameImage(t, "merge", a, single)
	// Jaccard of overlapping sets within 4 standard errors.
	x, _ := NewMinHash(1024)
	y, _ := NewMinHash(1024)
	x.AddStrings(keys("j-", 0, 20000))
	y.AddStrings(keys("j-", 5000, 25000))
	exact := 15000.0 / 25000.0
	j, err := x.Jaccard(y)
	check(t, err)
	if d := j - exact; d*d > 16*exact*(1-exact)/1024 {
		t.Fatalf("jaccard %v, exact %v", j, exact)
	}
	if sig := x.Signature(); len(sig) != 1024 || x.K() != 1024 {
		t.Fatal("signature")
	}
	if st := x.Stats(); st.K != 1024 || st.Filled != 1024 || st.Seed != 0 {
		t.Fatalf("%+v", st)
	}
	if _, err := x.Jaccard(single); !errors.Is(err, ErrIncompatible) {
		t.Fatal(err)
	}
	if err := x.Merge(single); !errors.Is(err, ErrIncompatible) {
		t.Fatal(err)
	}
	if _, err := NewMinHash(0); !errors.Is(err, ErrInvalidParameter) {
		t.Fatal(err)
	}
	c := single.Clone()
	c.Clear()
	if c.Stats().Filled != 0 {
		t.Fatal("clear")
	}
	checkImage(t, single, FamilyMinHash, WrapMinHash)
	mem := alignedCopy(marshal(t, single), 0)
	w, err := WrapMinHash(mem)
	check(t, err)
	wrapShares(t, mem, func() {
		for i := 0; !w.AddUint64(uint64(i) + 1<<50); i++ {
		}
	})
}

// The guard the Signature doc offers against its quadratic cost: Stats
// reports how few registers a sparse sketch filled (one item fills one),
// and such a sketch's signature is still k values (densified from the one
// filled register) that Jaccard compares as equal sets.
func TestMinHashSparseSignature(t *testing.T) {
	m, err := NewMinHash(2048)
	check(t, err)
	m.AddString("only")
	if st := m.Stats(); st.Filled != 1 || st.K != 2048 {
		t.Fatalf("one item: %+v", st)
	}
	sig := m.Signature()
	for i, v := range sig {
		if v != sig[0] {
			t.Fatalf("register %d densified to %d, register 0 to %d", i, v, sig[0])
		}
	}
	j, err := m.Jaccard(m.Clone())
	if err != nil || j != 1 {
		t.Fatal(j, err)
	}
}
