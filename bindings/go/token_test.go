package sketches

import (
	"bytes"
	"fmt"
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

// tokenedFilter is what the Bloom and split-block token tests use of a
// filter type F: its single-key and batch calls, the paths that give it a
// new or rewritten image, and (test-only, below) its image and token.
type tokenedFilter[F any] interface {
	Add([]byte) bool
	AddString(string) bool
	AddUint64(uint64) bool
	Contains([]byte) bool
	ContainsString(string) bool
	ContainsUint64(uint64) bool
	AddStringsReportNew([]string, []bool) []bool
	AddUint64s([]uint64)
	ContainsStrings([]string, []bool) []bool
	ContainsBytes([][]byte, []bool) []bool
	ContainsUint64s([]uint64, []bool) []bool
	Clone() F
	Clear()
	Union(F) error
	Intersect(F) error
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
	imageAndToken() ([]byte, *imageToken)
}

func (f *Bloom) imageAndToken() ([]byte, *imageToken)      { return f.img, &f.tok }
func (f *SplitBlock) imageAndToken() ([]byte, *imageToken) { return f.img, &f.tok }

// singleAnswers queries every single-key form and returns the answers.
func singleAnswers[F tokenedFilter[F]](f F, q []string, ints []uint64) []bool {
	var a []bool
	for _, k := range q {
		a = append(a, f.ContainsString(k), f.Contains([]byte(k)))
	}
	for _, k := range ints {
		a = append(a, f.ContainsUint64(k))
	}
	return a
}

// batchAnswers is singleAnswers through the batch calls.
func batchAnswers[F tokenedFilter[F]](f F, q []string, qi []uint64) []bool {
	s, b, i := f.ContainsStrings(q, nil), f.ContainsBytes(byteKeys(q), nil), f.ContainsUint64s(qi, nil)
	var a []bool
	for j := range q {
		a = append(a, s[j], b[j])
	}
	return append(a, i...)
}

// checkFilterTokens: the single-key calls of a filter go through the
// image's token. For each empty filter in fresh: a few thousand single adds
// (every key form) build the image the batches build, single queries answer
// as the batches do, with the filter's token and with a zero one. Then
// other's image (other parameters) imported into fresh[0]: the token
// follows, and the old one, now stale, still answers and adds right. Every
// other path that gives a filter a new or rewritten image (Clone, Clear,
// Union, Intersect, wrap) leaves it the token of that image. reference and
// the wrapped filter's calls go to checkStaleTokenErrors.
func checkFilterTokens[F tokenedFilter[F]](t *testing.T, name string, family Family, fresh []F, other F,
	wrap func([]byte) (F, error), reference func(F)) {
	t.Helper()
	const n = 4000
	ks := mixedKeys("tok-", n)
	ints := u64Keys(0, n)
	q := append(keys("tok-", 0, n), keys("tok-absent-", 0, n)...)
	qi := u64Keys(0, 2*n)
	current := func(what string, f F) {
		t.Helper()
		img, tok := f.imageAndToken()
		tokenFor(t, name+" "+what, family, img, *tok)
	}

	var batch F
	for m, single := range fresh {
		what := fmt.Sprintf("%s (filter %d)", name, m)
		current("new", single)
		zero := single.Clone()
		_, zt := zero.imageAndToken()
		*zt = imageToken{}
		batch = single.Clone()
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
		sameImage(t, what+": single adds with the token", single, batch)
		sameImage(t, what+": single adds with the zero token", zero, batch)
		if !slices.Equal(newSingle[:n], newBatch) || !slices.Equal(newSingle, newZero) {
			t.Fatal(what + ": single adds report other new keys than the batch or the zero token")
		}
		want := batchAnswers(batch, q, qi)
		for _, f := range []F{single, zero} {
			if got := singleAnswers(f, q, qi); !slices.Equal(got, want) {
				t.Fatal(what + ": single queries differ from the batch")
			}
		}
	}

	single := fresh[0]
	_, tok := single.imageAndToken()
	old := *tok
	check(t, single.UnmarshalBinary(marshal(t, other)))
	current("UnmarshalBinary", single)
	if _, tok = single.imageAndToken(); *tok == old {
		t.Fatal(name + ": images of other parameters have one token")
	}
	want := batchAnswers(other, q, qi)
	if got := singleAnswers(single, q, qi); !slices.Equal(got, want) {
		t.Fatal(name + ": answers after a new image was imported")
	}
	*tok = old
	if got := singleAnswers(single, q, qi); !slices.Equal(got, want) {
		t.Fatal(name + ": answers with a stale token")
	}
	if single.AddString("after") != other.AddString("after") {
		t.Fatal(name + ": add with a stale token")
	}
	sameImage(t, name+" add with a stale token", single, other)

	c := batch.Clone()
	current("Clone", c)
	c.Clear()
	current("Clear", c)
	if c.ContainsString(ks[0]) || !c.AddString(ks[0]) || !c.ContainsString(ks[0]) {
		t.Fatal(name + ": single calls after Clear")
	}
	check(t, c.Union(batch))
	current("Union", c)
	check(t, c.Intersect(batch))
	current("Intersect", c)
	sameImage(t, name+" (cleared + one key) OR b AND b", c, batch)
	mem := alignedCopy(marshal(t, batch), 0)
	w, err := wrap(mem)
	check(t, err)
	current("wrap", w)
	if got := singleAnswers(w, q, qi); !slices.Equal(got, batchAnswers(batch, q, qi)) {
		t.Fatal(name + ": single queries on a wrapped image")
	}
	checkStaleTokenErrors(t, family, mem, func() { reference(w) },
		func() { w.ContainsString("x") }, func() { w.Contains(nil) }, func() { w.ContainsUint64(1) },
		func() { w.AddString("x") }, func() { w.Add(nil) }, func() { w.AddUint64(1) })
}

func TestBloomTokens(t *testing.T) {
	single, err := NewBloom(8000, 0.01, WithSeed(3))
	check(t, err)
	// Other bits, hashes and seed.
	other, err := NewBloom(2000, 0.001, WithSeed(4))
	check(t, err)
	other.AddStrings(mixedKeys("tok-", 2000))
	checkFilterTokens(t, "Bloom", FamilyBloom, []*Bloom{single}, other, WrapBloom, func(w *Bloom) { w.Stats() })
}

// The split-block filter, native and Parquet mode: the Parquet filter's
// image is imported into the native one (mode, hash and blocks differ).
func TestSplitBlockTokens(t *testing.T) {
	native, err := NewSplitBlock(8000, 0.01, WithSeed(3))
	check(t, err)
	parquet, err := NewSplitBlockParquet(8000, 0.01)
	check(t, err)
	checkFilterTokens(t, "SplitBlock", FamilySplitBlock, []*SplitBlock{native, parquet}, parquet, WrapSplitBlock,
		func(w *SplitBlock) { w.OverCapacity() })
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
