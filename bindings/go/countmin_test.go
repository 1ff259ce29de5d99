package sketches

import (
	"errors"
	"testing"
)

func TestCountMin(t *testing.T) {
	const n = 4000
	ks := mixedKeys("cm-", n)
	ints := u64Keys(0, n)
	weights := make([]uint64, n)
	for i := range weights {
		weights[i] = 1 + uint64(i%5)
	}
	single, err := NewCountMin(0.001, 0.01, WithSeed(8))
	check(t, err)
	for i, k := range ks {
		single.AddString(k, weights[i])
	}
	for _, k := range ints {
		single.AddUint64(k, 1)
	}
	for _, form := range []string{"strings", "bytes"} {
		batch, _ := NewCountMin(0.001, 0.01, WithSeed(8))
		if form == "strings" {
			batch.AddStrings(ks, weights)
		} else {
			batch.AddBytes(byteKeys(ks), weights)
		}
		batch.AddUint64s(ints, nil)
		sameImage(t, "CountMin batch "+form, single, batch)
	}
	est := single.EstimateStrings(ks, nil)
	estB := single.EstimateBytes(byteKeys(ks), make([]uint64, n))
	estI := single.EstimateUint64s(ints, nil)
	st := single.Stats()
	over := 0
	for i, k := range ks {
		if est[i] != single.EstimateString(k) || estB[i] != single.Estimate([]byte(k)) {
			t.Fatal("batch and single estimates differ")
		}
		if est[i] < weights[i] {
			t.Fatalf("underestimate: %d < %d", est[i], weights[i])
		}
		if float64(est[i]-weights[i]) > st.ErrorBound {
			over++
		}
	}
	for i, k := range ints {
		if estI[i] < 1 || estI[i] != single.EstimateUint64(k) || single.Estimate(le8(k)) != estI[i] {
			t.Fatal("integer estimates")
		}
	}
	if float64(over) > 0.01*n+10 {
		t.Fatalf("%d estimates beyond epsilon*N", over)
	}
	var total uint64
	for _, w := range weights {
		total += w
	}
	if single.Total() != total+n || st.Params.Width != 2719 || st.Params.Depth != 5 || st.Seed != 8 {
		t.Fatalf("stats %+v", st)
	}

	// Merge == one sketch of both streams (plain update).
	a, _ := NewCountMin(0.001, 0.01, WithSeed(8))
	b, _ := NewCountMin(0.001, 0.01, WithSeed(8))
	a.AddStrings(ks, weights)
	b.AddUint64s(ints, nil)
	check(t, a.Merge(b))
	sameImage(t, "merge", a, single)
	p, _ := PlanCountMinSize(500, 3)
	p.Conservative, p.CounterBits = true, 64
	cons, err := NewCountMinWithParams(p)
	check(t, err)
	cons.AddStrings(ks, weights)
	if cons.Stats().Params != p || cons.EstimateString(ks[10]) < weights[10] {
		t.Fatal("conservative")
	}
	if err := a.Merge(cons); !errors.Is(err, ErrIncompatible) {
		t.Fatal(err)
	}
	if _, err := NewCountMin(0, 0.01); !errors.Is(err, ErrInvalidParameter) {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("mismatched weights did not panic")
			}
		}()
		single.AddStrings(ks, weights[:3])
	}()
	c := single.Clone()
	c.Clear()
	if c.Total() != 0 || c.EstimateString(ks[0]) != 0 {
		t.Fatal("clear")
	}
	checkImage(t, single, FamilyCountMin, WrapCountMin)
	mem := alignedCopy(marshal(t, single), 0)
	w, err := WrapCountMin(mem)
	check(t, err)
	wrapShares(t, mem, func() { w.Add([]byte("k"), 3) })
}
