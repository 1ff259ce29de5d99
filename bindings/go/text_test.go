package sketches

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// textDoc is a caller's JSON document holding a sketch three ways: through
// a pointer, by value, and through a pointer left nil.
type textDoc[T any] struct {
	Name string `json:"name"`
	Ptr  *T     `json:"ptr"`
	Val  T      `json:"val"`
	Nil  *T     `json:"nil"`
}

// checkText runs the text form of one family: MarshalText/AppendText are
// the base64 of MarshalBinary; a JSON document holding the sketch by
// pointer and by value round-trips into sketches with the same image and
// answers; null leaves a pointer nil; bad text (a damaged image, truncated
// or non-base64 text) is an error matching ErrCorrupt that leaves the
// sketches already in the document unchanged.
func checkText[T any, P interface {
	*T
	imageCodec
}](t *testing.T, s P, answers func(P) string) {
	t.Helper()
	img := marshal(t, s)
	want := answers(s)
	b64 := base64.StdEncoding.EncodeToString(img)

	text, err := s.MarshalText()
	check(t, err)
	if string(text) != b64 {
		t.Fatal("MarshalText is not the standard base64 of MarshalBinary")
	}
	if out, err := s.AppendText([]byte("prefix")); err != nil || string(out) != "prefix"+b64 {
		t.Fatal("AppendText", err)
	}
	var u T
	check(t, P(&u).UnmarshalText(text))
	if !bytes.Equal(marshal(t, P(&u)), img) || answers(P(&u)) != want {
		t.Fatal("UnmarshalText(MarshalText) is another sketch")
	}

	// A JSON document: the sketch is a string, the base64 of its image.
	d := textDoc[T]{Name: "doc", Ptr: (*T)(s)}
	check(t, P(&d.Val).UnmarshalBinary(img))
	doc, err := json.Marshal(&d)
	check(t, err)
	// The document by value: MarshalText has a value receiver, so the value
	// field is not written as {} (encoding/json cannot take its address).
	byValue, err := json.Marshal(d)
	check(t, err)
	if !bytes.Equal(byValue, doc) {
		t.Fatalf("the document by value marshals otherwise: %.80s", byValue)
	}
	var raw map[string]json.RawMessage
	check(t, json.Unmarshal(doc, &raw))
	for _, field := range []string{"ptr", "val"} {
		var str string
		if err := json.Unmarshal(raw[field], &str); err != nil {
			t.Fatalf("%s is not a JSON string: %.60s", field, raw[field])
		}
		dec, err := base64.StdEncoding.DecodeString(str)
		if err != nil || !bytes.Equal(dec, img) {
			t.Fatalf("%s: the string's base64 decoding is not MarshalBinary's image (%v)", field, err)
		}
	}
	if string(raw["nil"]) != "null" {
		t.Fatalf("a nil sketch pointer: %s", raw["nil"])
	}
	// encoding/json writes a []byte as the same string.
	if asBytes, _ := json.Marshal(img); string(raw["ptr"]) != string(asBytes) {
		t.Fatal("the JSON value differs from that of the image as a []byte")
	}

	var back textDoc[T]
	check(t, json.Unmarshal(doc, &back))
	if back.Name != "doc" || back.Ptr == nil || back.Nil != nil {
		t.Fatalf("document read back: %+v", back)
	}
	for what, got := range map[string]P{"pointer": P(back.Ptr), "value": P(&back.Val)} {
		if !bytes.Equal(marshal(t, got), img) {
			t.Fatalf("%s field: another image after the JSON round trip", what)
		}
		if a := answers(got); a != want {
			t.Fatalf("%s field answers %s, the original %s", what, a, want)
		}
	}
	// The decoded sketches are independent of the original.
	if P(back.Ptr) == s {
		t.Fatal("decoded into the original")
	}

	// null leaves a pointer nil (and a value unchanged), as encoding/json
	// does for any type.
	check(t, json.Unmarshal([]byte(`{"ptr":null,"val":null}`), &back))
	if back.Ptr != nil || !bytes.Equal(marshal(t, P(&back.Val)), img) {
		t.Fatal("null")
	}

	// Bad text: an error matching ErrCorrupt, and the sketches already in
	// the document keep their images.
	flipped := bytes.Clone(img)
	flipped[len(img)/2] ^= 0x40
	bad := map[string]string{
		"a flipped image byte":                base64.StdEncoding.EncodeToString(flipped),
		"truncated base64":                    b64[:len(b64)-3],
		"base64 of a truncated image":         b64[:len(b64)-8],
		"the first base64 characters":         b64[:4],
		"non-base64 text":                     "not a sketch!",
		"an empty string":                     "",
		"a stray character after the padding": b64 + "A",
		"URL-safe base64 characters":          "-_-_" + b64,
	}
	for what, str := range bad {
		back.Ptr = new(T)
		check(t, P(back.Ptr).UnmarshalBinary(img))
		keep := back.Ptr
		q, _ := json.Marshal(str)
		for _, field := range []string{"ptr", "val"} {
			err := json.Unmarshal([]byte(`{"`+field+`":`+string(q)+`}`), &back)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s in %s: %v", what, field, err)
			}
			var e *Error
			if !errors.As(err, &e) || !strings.HasSuffix(e.Op, ".UnmarshalText") {
				t.Fatalf("%s in %s: not an *Error of UnmarshalText: %#v", what, field, err)
			}
		}
		if back.Ptr != keep || !bytes.Equal(marshal(t, P(back.Ptr)), img) || !bytes.Equal(marshal(t, P(&back.Val)), img) {
			t.Fatalf("%s: a failed UnmarshalText changed the sketch", what)
		}
		if answers(P(back.Ptr)) != want || answers(P(&back.Val)) != want {
			t.Fatalf("%s: a failed UnmarshalText changed the answers", what)
		}
	}
	// Another family's image: ErrWrongFamily.
	foreign := readGolden(t, "minhash")
	if _, isMinHash := any(s).(*MinHash); isMinHash {
		foreign = readGolden(t, "bloom")
	}
	if err := P(&u).UnmarshalText([]byte(base64.StdEncoding.EncodeToString(foreign))); !errors.Is(err, ErrWrongFamily) {
		t.Fatalf("another family's image: %v", err)
	}
	if !bytes.Equal(marshal(t, P(&u)), img) {
		t.Fatal("a failed UnmarshalText changed the receiver")
	}

	// The zero value has no image: MarshalText fails as MarshalBinary
	// does, AppendText leaves its argument, and json.Marshal reports it.
	var zero T
	if _, err := P(&zero).MarshalBinary(); err != nil {
		if _, terr := P(&zero).MarshalText(); terr == nil {
			t.Fatal("MarshalText of the zero value succeeded where MarshalBinary failed")
		}
		if out, _ := P(&zero).AppendText([]byte("prefix")); string(out) != "prefix" {
			t.Fatal("a failed AppendText changed its argument")
		}
		if _, jerr := json.Marshal(&textDoc[T]{}); jerr == nil {
			t.Fatal("json.Marshal of a zero-value sketch succeeded")
		}
	}
}

// TestTextEveryFamily: every family's MarshalText/UnmarshalText/AppendText
// and its JSON form.
func TestTextEveryFamily(t *testing.T) {
	in := keys("text-", 0, 300)
	probe := append(keys("text-", 250, 350), "", "absent")

	t.Run("Bloom", func(t *testing.T) {
		f, err := NewBloom(1000, 0.01, WithSeed(7))
		check(t, err)
		f.AddStrings(in)
		checkText(t, f, func(f *Bloom) string {
			return fmt.Sprint(f.ContainsStrings(probe, nil)) + fmt.Sprint(f.Stats())
		})
	})
	t.Run("SplitBlock", func(t *testing.T) {
		f, err := NewSplitBlock(1000, 0.01)
		check(t, err)
		f.AddStrings(in)
		checkText(t, f, func(f *SplitBlock) string { return fmt.Sprint(f.ContainsStrings(probe, nil)) })
	})
	t.Run("SplitBlockParquet", func(t *testing.T) {
		f, err := NewSplitBlockParquet(1000, 0.01)
		check(t, err)
		f.AddStrings(in)
		checkText(t, f, func(f *SplitBlock) string {
			return fmt.Sprint(f.ContainsStrings(probe, nil)) + string(f.Bitset())
		})
	})
	t.Run("CountingBloom", func(t *testing.T) {
		f, err := NewCountingBloom(1000, 0.01)
		check(t, err)
		f.AddStrings(in)
		f.AddStrings(in[:10])
		checkText(t, f, func(f *CountingBloom) string { return fmt.Sprint(f.ContainsStrings(probe, nil)) })
	})
	t.Run("Cuckoo", func(t *testing.T) {
		f, err := NewCuckoo(1000, 0.01)
		check(t, err)
		_, err = f.AddStrings(in)
		check(t, err)
		checkText(t, f, func(f *Cuckoo) string {
			return fmt.Sprint(f.ContainsStrings(probe, nil)) + fmt.Sprint(f.CountString(in[0]), f.CountString("absent"))
		})
	})
	t.Run("BinaryFuse", func(t *testing.T) {
		for _, bits := range []uint32{8, 16} {
			f, err := NewBinaryFuseStrings(in, bits)
			check(t, err)
			checkText(t, f, func(f *BinaryFuse) string { return fmt.Sprint(f.ContainsStrings(probe, nil)) })
		}
	})
	t.Run("HLL", func(t *testing.T) {
		small, err := NewHLL(12) // exact small mode: a compact image
		check(t, err)
		small.AddStrings(in[:20])
		checkText(t, small, func(h *HLL) string { return fmt.Sprint(h.Estimate()) })
		dense, err := NewHLL(10)
		check(t, err)
		dense.AddStrings(in)
		dense.Densify()
		checkText(t, dense, func(h *HLL) string { return fmt.Sprint(h.Estimate()) })
	})
	t.Run("ULL", func(t *testing.T) {
		u, err := NewULL(10)
		check(t, err)
		u.AddStrings(in)
		checkText(t, u, func(u *ULL) string { return fmt.Sprint(u.Estimate()) })
	})
	t.Run("ELL", func(t *testing.T) {
		e, err := NewELL(8, 20)
		check(t, err)
		e.AddStrings(in)
		checkText(t, e, func(e *ELL) string { return fmt.Sprint(e.Estimate(), e.MLEstimate()) })
	})
	t.Run("CountMin", func(t *testing.T) {
		c, err := NewCountMin(0.01, 0.01)
		check(t, err)
		c.AddStrings(in, nil)
		c.AddString(in[3], 41)
		checkText(t, c, func(c *CountMin) string { return fmt.Sprint(c.EstimateStrings(probe, nil)) })
	})
	t.Run("TopK", func(t *testing.T) {
		k, err := NewTopK(16, 32)
		check(t, err)
		check(t, k.AddStrings(in, nil))
		check(t, k.AddString(in[5], 100))
		checkText(t, k, func(k *TopK) string { return fmt.Sprint(k.List(), k.EstimateString(in[5])) })
	})
	t.Run("MinHash", func(t *testing.T) {
		m, err := NewMinHash(64)
		check(t, err)
		m.AddStrings(in)
		other, err := NewMinHash(64)
		check(t, err)
		other.AddStrings(probe)
		checkText(t, m, func(m *MinHash) string {
			j, err := m.Jaccard(other)
			return fmt.Sprint(j, err)
		})
	})
}

// TestTextXML: encoding/xml uses the text form too (an element's
// character data).
func TestTextXML(t *testing.T) {
	type entry struct {
		XMLName xml.Name `xml:"entry"`
		Seen    *HLL     `xml:"seen"`
	}
	h, err := NewHLL(10)
	check(t, err)
	h.AddStrings(keys("xml-", 0, 500))
	out, err := xml.Marshal(entry{Seen: h})
	check(t, err)
	want := "<entry><seen>" + base64.StdEncoding.EncodeToString(marshal(t, h)) + "</seen></entry>"
	if string(out) != want {
		t.Fatalf("XML: %.80s", out)
	}
	var back entry
	check(t, xml.Unmarshal(out, &back))
	sameImage(t, "XML round trip", back.Seen, h)
	if err := xml.Unmarshal([]byte("<entry><seen>%%%</seen></entry>"), &back); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("XML with bad text: %v", err)
	}
}
