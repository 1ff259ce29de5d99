package sketches

import (
	"bytes"
	"slices"
	"testing"
)

// tokenFor is what the type's token must be: the library's token of its
// current image (never the zero token for a sound image).
func tokenFor(t *testing.T, what string, f Family, img []byte, tok imageToken) {
	t.Helper()
	want, s := cToken(f, img)
	if s != 0 {
		t.Fatalf("%s: the image has no token: %v", what, Status(s))
	}
	if tok != want || tok == (imageToken{}) {
		t.Fatalf("%s: the token was not made for the current image", what)
	}
}

// filterAnswers queries every single-key form and returns the answers.
func filterAnswers(contains func([]byte) bool, containsString func(string) bool, containsUint64 func(uint64) bool,
	q []string, ints []uint64) []bool {
	var a []bool
	for _, k := range q {
		a = append(a, containsString(k), contains([]byte(k)))
	}
	for _, k := range ints {
		a = append(a, containsUint64(k))
	}
	return a
}

// The single-key calls of Bloom go through the image's token: a few
// thousand single adds (every key form) build the image the batches build,
// single queries answer as the batches do, and every path that gives the
// filter a new or rewritten image leaves it the token of that image. A
// zero or stale token (validated in full) changes nothing.
func TestBloomTokens(t *testing.T) {
	const n = 4000
	ks := mixedKeys("tok-", n)
	ints := u64Keys(0, n)
	q := append(keys("tok-", 0, n), keys("tok-absent-", 0, n)...)
	qi := u64Keys(0, 2*n)

	single, err := NewBloom(2*n, 0.01, WithSeed(3))
	check(t, err)
	tokenFor(t, "NewBloom", FamilyBloom, single.img, single.tok)
	zero, _ := NewBloom(2*n, 0.01, WithSeed(3))
	zero.tok = imageToken{}
	batch, _ := NewBloom(2*n, 0.01, WithSeed(3))
	var newSingle, newZero []bool
	for i, k := range ks {
		if i%2 == 0 {
			newSingle = append(newSingle, single.AddString(k))
			newZero = append(newZero, zero.AddString(k))
		} else {
			newSingle = append(newSingle, single.Add([]byte(k)))
			newZero = append(newZero, zero.Add([]byte(k)))
		}
	}
	for _, k := range ints {
		newSingle = append(newSingle, single.AddUint64(k))
		newZero = append(newZero, zero.AddUint64(k))
	}
	newBatch := batch.AddStringsReportNew(ks, nil)
	batch.AddUint64s(ints)
	sameImage(t, "Bloom single adds with the token", single, batch)
	sameImage(t, "Bloom single adds with the zero token", zero, batch)
	if !slices.Equal(newSingle[:n], newBatch) || !slices.Equal(newSingle, newZero) {
		t.Fatal("Bloom: single adds report other new keys than the batch or the zero token")
	}

	want := batchBloomAnswers(batch, q, qi)
	if got := filterAnswers(single.Contains, single.ContainsString, single.ContainsUint64, q, qi); !slices.Equal(got, want) {
		t.Fatal("Bloom: single queries with the token differ from the batch")
	}
	if got := filterAnswers(zero.Contains, zero.ContainsString, zero.ContainsUint64, q, qi); !slices.Equal(got, want) {
		t.Fatal("Bloom: single queries with the zero token differ from the batch")
	}

	// Another image imported into the same filter (other bits, hashes and
	// seed): the token follows; the old one, now stale, still answers right.
	other, _ := NewBloom(n/2, 0.001, WithSeed(4))
	other.AddStrings(ks[:n/2])
	old := single.tok
	check(t, single.UnmarshalBinary(marshal(t, other)))
	tokenFor(t, "Bloom.UnmarshalBinary", FamilyBloom, single.img, single.tok)
	if single.tok == old {
		t.Fatal("Bloom: images of other parameters have one token")
	}
	want = batchBloomAnswers(other, q, qi)
	if got := filterAnswers(single.Contains, single.ContainsString, single.ContainsUint64, q, qi); !slices.Equal(got, want) {
		t.Fatal("Bloom: answers after a new image was imported")
	}
	single.tok = old
	if got := filterAnswers(single.Contains, single.ContainsString, single.ContainsUint64, q, qi); !slices.Equal(got, want) {
		t.Fatal("Bloom: answers with a stale token")
	}
	if single.AddString("after") != other.AddString("after") {
		t.Fatal("Bloom: add with a stale token")
	}
	sameImage(t, "Bloom add with a stale token", single, other)

	// Every other path that gives or rewrites the image.
	c := batch.Clone()
	tokenFor(t, "Bloom.Clone", FamilyBloom, c.img, c.tok)
	c.Clear()
	tokenFor(t, "Bloom.Clear", FamilyBloom, c.img, c.tok)
	if c.ContainsString(ks[0]) || !c.AddString(ks[0]) || !c.ContainsString(ks[0]) {
		t.Fatal("Bloom: single calls after Clear")
	}
	check(t, c.Union(batch))
	tokenFor(t, "Bloom.Union", FamilyBloom, c.img, c.tok)
	check(t, c.Intersect(batch))
	tokenFor(t, "Bloom.Intersect", FamilyBloom, c.img, c.tok)
	sameImage(t, "Bloom (cleared + one key) OR b AND b", c, batch)
	mem := alignedCopy(marshal(t, batch), 0)
	w, err := WrapBloom(mem)
	check(t, err)
	tokenFor(t, "WrapBloom", FamilyBloom, w.img, w.tok)
	if got := filterAnswers(w.Contains, w.ContainsString, w.ContainsUint64, q, qi); !slices.Equal(got, batchBloomAnswers(batch, q, qi)) {
		t.Fatal("Bloom: single queries on a wrapped image")
	}
	checkStaleTokenErrors(t, FamilyBloom, mem, func() { w.Stats() },
		func() { w.ContainsString("x") }, func() { w.Contains(nil) }, func() { w.ContainsUint64(1) },
		func() { w.AddString("x") }, func() { w.Add(nil) }, func() { w.AddUint64(1) })
}

func batchBloomAnswers(f *Bloom, q []string, qi []uint64) []bool {
	s, b, i := f.ContainsStrings(q, nil), f.ContainsBytes(byteKeys(q), nil), f.ContainsUint64s(qi, nil)
	var a []bool
	for j := range q {
		a = append(a, s[j], b[j])
	}
	return append(a, i...)
}

// TestBloomTokens for the split-block filter, native and Parquet mode.
func TestSplitBlockTokens(t *testing.T) {
	const n = 4000
	ks := mixedKeys("tok-", n)
	ints := u64Keys(0, n)
	q := append(keys("tok-", 0, n), keys("tok-absent-", 0, n)...)
	qi := u64Keys(0, 2*n)

	native, err := NewSplitBlock(2*n, 0.01, WithSeed(3))
	check(t, err)
	parquet, err := NewSplitBlockParquet(2*n, 0.01)
	check(t, err)
	for _, single := range []*SplitBlock{native, parquet} {
		mode := "native"
		if single == parquet {
			mode = "Parquet"
		}
		tokenFor(t, "NewSplitBlock "+mode, FamilySplitBlock, single.img, single.tok)
		zero, batch := single.Clone(), single.Clone()
		zero.tok = imageToken{}
		var newSingle, newZero []bool
		for i, k := range ks {
			if i%2 == 0 {
				newSingle = append(newSingle, single.AddString(k))
				newZero = append(newZero, zero.AddString(k))
			} else {
				newSingle = append(newSingle, single.Add([]byte(k)))
				newZero = append(newZero, zero.Add([]byte(k)))
			}
		}
		for _, k := range ints {
			newSingle = append(newSingle, single.AddUint64(k))
			newZero = append(newZero, zero.AddUint64(k))
		}
		newBatch := batch.AddStringsReportNew(ks, nil)
		batch.AddUint64s(ints)
		sameImage(t, "SplitBlock single adds with the token, "+mode, single, batch)
		sameImage(t, "SplitBlock single adds with the zero token, "+mode, zero, batch)
		if !slices.Equal(newSingle[:n], newBatch) || !slices.Equal(newSingle, newZero) {
			t.Fatal("SplitBlock: single adds report other new keys than the batch or the zero token, " + mode)
		}
		want := batchSplitBlockAnswers(batch, q, qi)
		for _, f := range []*SplitBlock{single, zero} {
			if got := filterAnswers(f.Contains, f.ContainsString, f.ContainsUint64, q, qi); !slices.Equal(got, want) {
				t.Fatal("SplitBlock: single queries differ from the batch, " + mode)
			}
		}
	}

	// The Parquet filter's image imported into the native one: the token
	// follows (mode, hash and blocks differ); the stale one still works.
	old := native.tok
	check(t, native.UnmarshalBinary(marshal(t, parquet)))
	tokenFor(t, "SplitBlock.UnmarshalBinary", FamilySplitBlock, native.img, native.tok)
	if native.tok == old {
		t.Fatal("SplitBlock: native and Parquet images have one token")
	}
	want := batchSplitBlockAnswers(parquet, q, qi)
	if got := filterAnswers(native.Contains, native.ContainsString, native.ContainsUint64, q, qi); !slices.Equal(got, want) {
		t.Fatal("SplitBlock: answers after a new image was imported")
	}
	native.tok = old
	if got := filterAnswers(native.Contains, native.ContainsString, native.ContainsUint64, q, qi); !slices.Equal(got, want) {
		t.Fatal("SplitBlock: answers with a stale token")
	}
	if native.AddString("after") != parquet.AddString("after") {
		t.Fatal("SplitBlock: add with a stale token")
	}
	sameImage(t, "SplitBlock add with a stale token", native, parquet)

	c := parquet.Clone()
	tokenFor(t, "SplitBlock.Clone", FamilySplitBlock, c.img, c.tok)
	c.Clear()
	tokenFor(t, "SplitBlock.Clear", FamilySplitBlock, c.img, c.tok)
	if c.ContainsString(ks[0]) || !c.AddString(ks[0]) || !c.ContainsString(ks[0]) {
		t.Fatal("SplitBlock: single calls after Clear")
	}
	check(t, c.Union(parquet))
	tokenFor(t, "SplitBlock.Union", FamilySplitBlock, c.img, c.tok)
	check(t, c.Intersect(parquet))
	tokenFor(t, "SplitBlock.Intersect", FamilySplitBlock, c.img, c.tok)
	sameImage(t, "SplitBlock (cleared + one key) OR p AND p", c, parquet)
	mem := alignedCopy(marshal(t, parquet), 0)
	w, err := WrapSplitBlock(mem)
	check(t, err)
	tokenFor(t, "WrapSplitBlock", FamilySplitBlock, w.img, w.tok)
	if got := filterAnswers(w.Contains, w.ContainsString, w.ContainsUint64, q, qi); !slices.Equal(got, want) {
		t.Fatal("SplitBlock: single queries on a wrapped image")
	}
	checkStaleTokenErrors(t, FamilySplitBlock, mem, func() { w.OverCapacity() },
		func() { w.ContainsString("x") }, func() { w.Contains(nil) }, func() { w.ContainsUint64(1) },
		func() { w.AddString("x") }, func() { w.Add(nil) }, func() { w.AddUint64(1) })
}

func batchSplitBlockAnswers(f *SplitBlock, q []string, qi []uint64) []bool {
	s, b, i := f.ContainsStrings(q, nil), f.ContainsBytes(byteKeys(q), nil), f.ContainsUint64s(qi, nil)
	var a []bool
	for j := range q {
		a = append(a, s[j], b[j])
	}
	return append(a, i...)
}

// HLL single adds go through the token, through the exact small mode and
// its conversion to registers (the mode is not part of the token), and
// after every path that gives or rewrites the image.
func TestHLLTokens(t *testing.T) {
	const n = 6000
	ks := mixedKeys("tok-", n)
	ints := u64Keys(0, n)

	single, err := NewHLL(14, WithSeed(5))
	check(t, err)
	tokenFor(t, "NewHLL", FamilyHLL, single.img, single.tok)
	if c := single.Stats().SmallCapacity; c == 0 || c >= 2*n {
		t.Fatalf("small mode holds %d hashes: the test no longer crosses into dense mode", c)
	}
	zero, batch := single.Clone(), single.Clone()
	zero.tok = imageToken{}
	for i, k := range ks {
		var a, b bool
		if i%2 == 0 {
			a, b = single.AddString(k), zero.AddString(k)
		} else {
			a, b = single.Add([]byte(k)), zero.Add([]byte(k))
		}
		if a != b {
			t.Fatalf("HLL: key %d changed the sketch with one token only", i)
		}
	}
	for _, k := range ints {
		if single.AddUint64(k) != zero.AddUint64(k) {
			t.Fatal("HLL: an integer key changed the sketch with one token only")
		}
	}
	batch.AddStrings(ks)
	batch.AddUint64s(ints)
	if !single.Stats().Dense {
		t.Fatal("HLL: still in small mode")
	}
	sameImage(t, "HLL single adds with the token", single, batch)
	sameImage(t, "HLL single adds with the zero token", zero, batch)
	if single.AddString(ks[5]) || single.AddUint64(ints[5]) {
		t.Fatal("HLL: a present key changed the sketch")
	}

	// Another precision imported into the same sketch: the token follows.
	other, _ := NewHLL(10, WithSeed(6))
	other.AddStrings(ks[:100]) // small mode: a compact export
	old := single.tok
	check(t, single.UnmarshalBinary(marshal(t, other)))
	tokenFor(t, "HLL.UnmarshalBinary", FamilyHLL, single.img, single.tok)
	if single.tok == old {
		t.Fatal("HLL: precisions 14 and 10 have one token")
	}
	ref := other.Clone()
	for i, k := range ks {
		if single.AddString(k) != ref.AddString(k) {
			t.Fatalf("HLL: key %d after a new image was imported", i)
		}
		if i == n/2 {
			single.tok = old // stale from here on: validated in full, same results
		}
	}
	sameImage(t, "HLL adds after import and with a stale token", single, ref)

	c := batch.Clone()
	tokenFor(t, "HLL.Clone", FamilyHLL, c.img, c.tok)
	c.Reset()
	tokenFor(t, "HLL.Reset", FamilyHLL, c.img, c.tok)
	if !c.AddString("first") || c.Estimate() != 1 {
		t.Fatal("HLL: single add after Reset")
	}
	check(t, c.Merge(batch))
	tokenFor(t, "HLL.Merge", FamilyHLL, c.img, c.tok)
	d, err := batch.Downsize(12)
	check(t, err)
	tokenFor(t, "HLL.Downsize", FamilyHLL, d.img, d.tok)
	dZero, dRef := d.Clone(), d.Clone()
	dZero.tok = imageToken{}
	for _, k := range keys("down-", 0, 500) {
		if d.AddString(k) != dZero.AddString(k) {
			t.Fatal("HLL: single add on a downsized sketch")
		}
	}
	dRef.AddStrings(keys("down-", 0, 500))
	sameImage(t, "HLL single adds on a downsized sketch", d, dRef)
	u, _ := NewULL(12)
	u.AddStrings(ks)
	h, err := u.ToHLL()
	check(t, err)
	tokenFor(t, "ULL.ToHLL", FamilyHLL, h.img, h.tok)
	mem := alignedCopy(marshal(t, batch), 0)
	w, err := WrapHLL(mem)
	check(t, err)
	tokenFor(t, "WrapHLL", FamilyHLL, w.img, w.tok)
	if w.AddString(ks[0]) || !w.AddString("new through the wrapped sketch") {
		t.Fatal("HLL: single adds on a wrapped image")
	}
	checkStaleTokenErrors(t, FamilyHLL, mem, func() { w.Estimate() },
		func() { w.AddString("x") }, func() { w.Add(nil) }, func() { w.AddUint64(1) })
}

// checkStaleTokenErrors damages an identity word of the wrapped image mem
// (a flag no image sets, in the common header): the sketch's token no
// longer matches, and each single-key call panics with the status of a full
// validation of those bytes (what reference, a call without a token,
// panics with), as it did before tokens. mem is then restored.
func checkStaleTokenErrors(t *testing.T, f Family, mem []byte, reference func(), calls ...func()) {
	t.Helper()
	saved := bytes.Clone(mem)
	defer copy(mem, saved)
	mem[15] ^= 0x80 // bit 31 of the flags word
	if _, s := cToken(f, mem); s == 0 {
		t.Fatalf("%v: a token made of a damaged header", f)
	}
	want := panicCode(t, reference)
	if !want.corrupt() {
		t.Fatalf("%v: a damaged header gives %v", f, want)
	}
	for i, call := range calls {
		if got := panicCode(t, call); got != want {
			t.Fatalf("%v: single-key call %d with a stale token on a damaged header: %v, without a token %v", f, i, got, want)
		}
	}
}

// panicCode returns the code of the *Error call panics with.
func panicCode(t *testing.T, call func()) (code Status) {
	t.Helper()
	defer func() {
		e, ok := recover().(*Error)
		if !ok {
			t.Fatalf("no *Error panic: %v", e)
		}
		code = e.Code
	}()
	call()
	return StatusOK
}

// The zero values hold no image and a zero token: their single-key calls
// panic with the status they had without tokens, that of a call that
// validates (the zero token matches no image).
func TestZeroValueTokens(t *testing.T) {
	var f Bloom
	var sb SplitBlock
	var h HLL
	for _, c := range []struct {
		name      string
		reference func()
		calls     []func()
	}{
		{"Bloom", func() { f.Stats() }, []func(){func() { f.AddString("x") }, func() { f.Add(nil) },
			func() { f.AddUint64(1) }, func() { f.ContainsString("x") }, func() { f.Contains(nil) }, func() { f.ContainsUint64(1) }}},
		{"SplitBlock", func() { sb.Stats() }, []func(){func() { sb.AddString("x") }, func() { sb.Add(nil) },
			func() { sb.AddUint64(1) }, func() { sb.ContainsString("x") }, func() { sb.Contains(nil) }, func() { sb.ContainsUint64(1) }}},
		{"HLL", func() { h.Estimate() }, []func(){func() { h.AddString("x") }, func() { h.Add(nil) }, func() { h.AddUint64(1) }}},
	} {
		want := panicCode(t, c.reference)
		for i, call := range c.calls {
			if got := panicCode(t, call); got != want {
				t.Fatalf("zero %s: single-key call %d panics with %v, a validating call with %v", c.name, i, got, want)
			}
		}
	}
}
