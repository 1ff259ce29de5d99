package sketches

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// streamSketch is one sketch for the stream tests with its family's reader.
type streamSketch struct {
	name string
	s    interface {
		io.WriterTo
		MarshalBinary() ([]byte, error)
	}
	read func(io.Reader) (any, error)
}

// streamSketches returns one populated sketch of every family, and a small
// HLL (compact export) and a folded split-block filter (shortened image).
func streamSketches(t *testing.T) []streamSketch {
	t.Helper()
	ks := keys("stream-", 0, 2000)
	bl, err := NewBloom(4000, 0.01, WithSeed(5))
	check(t, err)
	bl.AddStrings(ks)
	sb, err := NewSplitBlock(4000, 0.01)
	check(t, err)
	sb.AddStrings(ks)
	folded, err := NewSplitBlockParquet(4000, 0.01)
	check(t, err)
	folded.AddStrings(ks[:50])
	_, err = folded.FoldToTargetFPP(0.01)
	check(t, err)
	cb, err := NewCountingBloom(4000, 0.01)
	check(t, err)
	cb.AddStrings(ks)
	cu, err := NewCuckoo(4000, 0.01)
	check(t, err)
	_, err = cu.AddStrings(ks)
	check(t, err)
	fu, err := NewBinaryFuseStrings(ks, 16)
	check(t, err)
	hd, err := NewHLL(11)
	check(t, err)
	hd.AddStrings(ks)
	hs, err := NewHLL(14)
	check(t, err)
	hs.AddStrings(ks[:20])
	if hs.Stats().Dense {
		t.Fatal("want a small-mode HLL")
	}
	ul, err := NewULL(10)
	check(t, err)
	ul.AddStrings(ks)
	el, err := NewELL(9, 20)
	check(t, err)
	el.AddStrings(ks)
	cm, err := NewCountMin(0.01, 0.01)
	check(t, err)
	check(t, cm.AddStrings(ks, nil))
	tk, err := NewTopK(32, 24)
	check(t, err)
	check(t, tk.AddStrings(ks, nil))
	mh, err := NewMinHash(64)
	check(t, err)
	mh.AddStrings(ks)
	return []streamSketch{
		{"Bloom", bl, func(r io.Reader) (any, error) { return ReadBloom(r) }},
		{"SplitBlock", sb, func(r io.Reader) (any, error) { return ReadSplitBlock(r) }},
		{"SplitBlock folded", folded, func(r io.Reader) (any, error) { return ReadSplitBlock(r) }},
		{"CountingBloom", cb, func(r io.Reader) (any, error) { return ReadCountingBloom(r) }},
		{"Cuckoo", cu, func(r io.Reader) (any, error) { return ReadCuckoo(r) }},
		{"BinaryFuse", fu, func(r io.Reader) (any, error) { return ReadBinaryFuse(r) }},
		{"HLL dense", hd, func(r io.Reader) (any, error) { return ReadHLL(r) }},
		{"HLL small", hs, func(r io.Reader) (any, error) { return ReadHLL(r) }},
		{"ULL", ul, func(r io.Reader) (any, error) { return ReadULL(r) }},
		{"ELL", el, func(r io.Reader) (any, error) { return ReadELL(r) }},
		{"CountMin", cm, func(r io.Reader) (any, error) { return ReadCountMin(r) }},
		{"TopK", tk, func(r io.Reader) (any, error) { return ReadTopK(r) }},
		{"MinHash", mh, func(r io.Reader) (any, error) { return ReadMinHash(r) }},
	}
}

func exportOf(t *testing.T, s any) []byte {
	t.Helper()
	b, err := s.(interface{ MarshalBinary() ([]byte, error) }).MarshalBinary()
	check(t, err)
	return b
}

// WriteTo writes exactly MarshalBinary's bytes (the checksum computed on
// the live image in place), for every family, a compact HLL and a folded
// filter included, and reports their count.
func TestWriteToIsMarshalBinary(t *testing.T) {
	for _, c := range streamSketches(t) {
		var buf bytes.Buffer
		n, err := c.s.WriteTo(&buf)
		check(t, err)
		want := exportOf(t, c.s)
		if !bytes.Equal(buf.Bytes(), want) || n != int64(len(want)) {
			t.Fatalf("%s: WriteTo wrote %d bytes (reported %d), MarshalBinary %d, equal %v",
				c.name, buf.Len(), n, len(want), bytes.Equal(buf.Bytes(), want))
		}
		check(t, Verify(buf.Bytes()))
	}
}

// A copy of a SplitBlock value made before a Fold keeps the old length
// (doc.go, Memory): WriteTo writes what MarshalBinary exports for it, the
// folded image the header records.
func TestWriteToStaleCopyAfterFold(t *testing.T) {
	f, err := NewSplitBlockParquet(4000, 0.01)
	check(t, err)
	f.AddStrings(keys("fold-", 0, 100))
	g := *f
	folds, err := f.FoldToTargetFPP(0.01)
	check(t, err)
	if folds == 0 || g.Size() == f.Size() {
		t.Fatalf("%d folds", folds)
	}
	want, err := g.MarshalBinary()
	check(t, err)
	var buf bytes.Buffer
	n, err := g.WriteTo(&buf)
	check(t, err)
	if !bytes.Equal(buf.Bytes(), want) || n != int64(len(want)) || len(want) != f.Size() {
		t.Fatalf("stale copy: WriteTo %d bytes, MarshalBinary %d, folded size %d", buf.Len(), len(want), f.Size())
	}
}

// Images of every family written one after another into one stream read
// back in order, each with its family's reader and with ReadSketch, and
// each read takes exactly its image's bytes; the end is io.EOF itself.
func TestReadStreamOfImages(t *testing.T) {
	cases := streamSketches(t)
	var stream bytes.Buffer
	for _, c := range cases {
		_, err := c.s.WriteTo(&stream)
		check(t, err)
	}
	all := bytes.Clone(stream.Bytes())

	r := bytes.NewReader(all)
	for _, c := range cases {
		before := r.Len()
		got, err := c.read(r)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := exportOf(t, c.s)
		if before-r.Len() != len(want) {
			t.Fatalf("%s: read %d bytes of a %d-byte image", c.name, before-r.Len(), len(want))
		}
		if !bytes.Equal(exportOf(t, got), want) {
			t.Fatalf("%s: the image read back differs", c.name)
		}
	}
	if _, err := ReadBloom(r); err != io.EOF {
		t.Fatalf("at the end of the stream: %v, want io.EOF", err)
	}

	r = bytes.NewReader(all)
	for _, c := range cases {
		got, err := ReadSketch(r)
		if err != nil {
			t.Fatalf("ReadSketch %s: %v", c.name, err)
		}
		if strings.SplitN(c.name, " ", 2)[0] != strings.TrimPrefix(strings.TrimPrefix(typeName(got), "*"), "sketches.") {
			t.Fatalf("ReadSketch %s: got a %s", c.name, typeName(got))
		}
		if !bytes.Equal(exportOf(t, got), exportOf(t, c.s)) {
			t.Fatalf("ReadSketch %s: the image read back differs", c.name)
		}
	}
	if _, err := ReadSketch(r); err != io.EOF {
		t.Fatalf("ReadSketch at the end of the stream: %v, want io.EOF", err)
	}

	// Readers that return one byte per call, or the last bytes together
	// with io.EOF, give the same sketches.
	for name, rd := range map[string]io.Reader{
		"one byte":     iotest.OneByteReader(bytes.NewReader(all)),
		"data and EOF": iotest.DataErrReader(bytes.NewReader(all)),
		"half reads":   iotest.HalfReader(bytes.NewReader(all)),
	} {
		for _, c := range cases {
			got, err := ReadSketch(rd)
			if err != nil || !bytes.Equal(exportOf(t, got), exportOf(t, c.s)) {
				t.Fatalf("%s reader, %s: %v", name, c.name, err)
			}
		}
		if _, err := ReadSketch(rd); err != io.EOF {
			t.Fatalf("%s reader at the end: %v", name, err)
		}
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *Bloom:
		return "*sketches.Bloom"
	case *SplitBlock:
		return "*sketches.SplitBlock"
	case *CountingBloom:
		return "*sketches.CountingBloom"
	case *Cuckoo:
		return "*sketches.Cuckoo"
	case *BinaryFuse:
		return "*sketches.BinaryFuse"
	case *HLL:
		return "*sketches.HLL"
	case *ULL:
		return "*sketches.ULL"
	case *ELL:
		return "*sketches.ELL"
	case *CountMin:
		return "*sketches.CountMin"
	case *TopK:
		return "*sketches.TopK"
	case *MinHash:
		return "*sketches.MinHash"
	}
	return "unknown"
}

// A sketch read from a stream answers as the one written: the image is
// live (queries, adds, another write) without another import.
func TestReadStreamSketchIsLive(t *testing.T) {
	f, err := NewBloom(1000, 0.01)
	check(t, err)
	f.AddStrings(keys("live-", 0, 500))
	var buf bytes.Buffer
	_, err = f.WriteTo(&buf)
	check(t, err)
	g, err := ReadBloom(&buf)
	check(t, err)
	if countTrue(g.ContainsStrings(keys("live-", 0, 500), nil)) != 500 || g.ReadOnly() {
		t.Fatal("the filter read back")
	}
	if !g.AddString("new") || !g.ContainsString("new") || f.ContainsString("new") && !f.ContainsString("new") {
		t.Fatal("adds to the filter read back")
	}
}

// A stream cut at every byte offset of a small image gives an error, never
// a panic: io.EOF itself before the first byte, an error matching both
// ErrCorrupt and io.ErrUnexpectedEOF after it.
func TestReadTruncatedAtEveryOffset(t *testing.T) {
	for _, c := range streamSketches(t) {
		img := exportOf(t, c.s)
		if len(img) > 8192 {
			continue
		}
		for cut := 0; cut < len(img); cut++ {
			_, err := c.read(bytes.NewReader(img[:cut]))
			if cut == 0 {
				if err != io.EOF {
					t.Fatalf("%s: empty stream: %v", c.name, err)
				}
				continue
			}
			var e *Error
			if !errors.Is(err, ErrCorrupt) || !errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &e) ||
				e.Code != StatusLengthMismatch || !strings.Contains(err.Error(), "truncated stream") {
				t.Fatalf("%s cut at %d of %d: %v", c.name, cut, len(img), err)
			}
		}
		if _, err := ReadSketch(bytes.NewReader(img[:len(img)-1])); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("ReadSketch %s cut by one byte: %v", c.name, err)
		}
	}
}

// A header announcing a huge image on a short stream fails as truncated
// without allocating the announced length: the bytes allocated stay within
// a small bound (the first read buffer), whatever the header says.
func TestReadHugeLengthIsBounded(t *testing.T) {
	f, err := NewBloom(100, 0.01)
	check(t, err)
	img := exportOf(t, f)
	// Image lengths are multiples of 8 (others fail from the header alone).
	for _, size := range []uint64{1 << 30, 1 << 40, math.MaxInt / 2 &^ 7} {
		forged := bytes.Clone(img)
		binary.LittleEndian.PutUint64(forged[offImageLen:], size)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := ReadBloom(bytes.NewReader(forged))
		runtime.ReadMemStats(&after)
		if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("announced %d bytes: %v", size, err)
		}
		if grown := after.TotalAlloc - before.TotalAlloc; grown > 4*streamFirstRead {
			t.Fatalf("announced %d bytes: allocated %d bytes on a %d-byte stream", size, grown, len(forged))
		}
	}
	// Lengths no image can have fail from the header alone.
	for _, size := range []uint64{0, 47, math.MaxInt/2 + 1, math.MaxUint64} {
		forged := bytes.Clone(img)
		binary.LittleEndian.PutUint64(forged[offImageLen:], size)
		if _, err := ReadBloom(bytes.NewReader(forged)); !errors.Is(err, ErrCorrupt) || errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("announced %d bytes: %v", size, err)
		}
	}
	allocs := testing.AllocsPerRun(5, func() {
		forged := bytes.Clone(img)
		binary.LittleEndian.PutUint64(forged[offImageLen:], 1<<40)
		ReadBloom(bytes.NewReader(forged))
	})
	if allocs > 20 {
		t.Fatalf("%v allocations reading a forged header", allocs)
	}
}

// Damaged streams: a flipped body bit fails the checksum, bytes that are
// not an image, another family, a newer major version (refused from the
// header alone, before its body is read) and a reader error each give
// their error.
func TestReadCorruptedStreams(t *testing.T) {
	f, err := NewBloom(1000, 0.01)
	check(t, err)
	f.AddStrings(keys("c-", 0, 100))
	img := exportOf(t, f)

	bad := bytes.Clone(img)
	bad[len(bad)/2] ^= 0x10
	var e *Error
	if _, err := ReadBloom(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.Code != StatusChecksumMismatch {
		t.Fatalf("flipped body bit: %v", err)
	}
	bad = bytes.Clone(img)
	bad[0] = 'X'
	if _, err := ReadSketch(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.Code != StatusBadMagic {
		t.Fatalf("bad magic: %v", err)
	}
	r := bytes.NewReader(img)
	if _, err := ReadHLL(r); !errors.Is(err, ErrWrongFamily) || !strings.Contains(err.Error(), "Bloom") {
		t.Fatalf("another family: %v", err)
	}
	if r.Len() != len(img)-commonHeaderLen {
		t.Fatalf("another family: read %d bytes, want the header only", len(img)-r.Len())
	}
	bad = bytes.Clone(img)
	bad[offFamily] = 99
	r = bytes.NewReader(bad)
	if _, err := ReadSketch(r); !errors.As(err, &e) || e.Code != StatusCorruptHeader || !strings.Contains(err.Error(), "99") {
		t.Fatalf("unknown family: %v", err)
	}
	// A header the library refuses on its own is refused before its body
	// is read (the unknown family above read the whole image first).
	if r.Len() != len(img)-commonHeaderLen {
		t.Fatalf("unknown family: read %d bytes, want the header only", len(img)-r.Len())
	}
	for _, c := range []struct {
		what   string
		at     int
		value  byte
		code   Status
		detail string
	}{
		{"major 0", offMajor, 0, StatusCorruptHeader, "format major version 0"},
		{"reserved field", offReserved + 7, 1, StatusCorruptHeader, ""},
		{"header length not a multiple of 8", offHeaderLen, 52, StatusCorruptHeader, "a header of 52"},
		{"image length not a multiple of 8", offImageLen, img[offImageLen] | 3, StatusCorruptHeader, "bytes and a header of"},
	} {
		bad = bytes.Clone(img)
		bad[c.at] = c.value
		r = bytes.NewReader(bad)
		_, err := ReadSketch(r)
		if !errors.As(err, &e) || e.Code != c.code || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.detail) {
			t.Fatalf("%s: %v", c.what, err)
		}
		if r.Len() != len(img)-commonHeaderLen {
			t.Fatalf("%s: read %d bytes, want the header only", c.what, len(img)-r.Len())
		}
	}
	// An unknown hash id is the import's to judge, as from UnmarshalBinary:
	// with the checksum holding, StatusUnsupportedHash.
	var viaBytes, viaStream *Error
	bad = bytes.Clone(img)
	bad[offHash] = 0xEE
	_, errBytes := ReadSketch(bytes.NewReader(bad))
	if !errors.As(errBytes, &viaStream) || viaStream.Code != StatusChecksumMismatch {
		t.Fatalf("unknown hash id, checksum failing: %v", errBytes)
	}
	if err := new(Bloom).UnmarshalBinary(bad); !errors.As(err, &viaBytes) || viaBytes.Code != viaStream.Code {
		t.Fatalf("unknown hash id: UnmarshalBinary %v, ReadSketch %v", err, errBytes)
	}
	newer := bytes.Clone(img)
	newer[offMajor] = formatMajor + 1
	r = bytes.NewReader(newer)
	if _, err := ReadBloom(r); !errors.Is(err, ErrUnsupportedVersion) || r.Len() != len(img)-commonHeaderLen {
		t.Fatalf("newer major version: %v (read %d bytes)", err, len(img)-r.Len())
	}
	boom := errors.New("connection reset")
	if _, err := ReadBloom(io.MultiReader(bytes.NewReader(img[:100]), &failingReader{boom})); !errors.Is(err, boom) ||
		!strings.Contains(err.Error(), "ReadBloom") {
		t.Fatalf("reader error: %v", err)
	}
}

type failingReader struct{ err error }

func (r *failingReader) Read([]byte) (int, error) { return 0, r.err }

type failingWriter struct {
	room int
	err  error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.room {
		n := w.room
		w.room = 0
		return n, w.err
	}
	w.room -= len(p)
	return len(p), nil
}

// WriteTo on a zero value is ErrNoImage; a writer's error comes back
// wrapped, with the bytes it took.
func TestWriteToErrors(t *testing.T) {
	var z Bloom
	if n, err := z.WriteTo(io.Discard); !errors.Is(err, ErrNoImage) || n != 0 {
		t.Fatalf("zero value: %d, %v", n, err)
	}
	var zh HLL
	if _, err := zh.WriteTo(io.Discard); !errors.Is(err, ErrNoImage) {
		t.Fatalf("zero HLL: %v", err)
	}
	f, err := NewBloom(1000, 0.01)
	check(t, err)
	boom := errors.New("disk full")
	for _, room := range []int{0, 10, commonHeaderLen, 100} {
		n, err := f.WriteTo(&failingWriter{room: room, err: boom})
		if !errors.Is(err, boom) || n != int64(room) || !strings.Contains(err.Error(), "Bloom.WriteTo") {
			t.Fatalf("writer with room %d: %d, %v", room, n, err)
		}
	}
}

// Every golden image reads through the stream readers, all of them
// concatenated in one stream too, as UnmarshalBinary reads them.
func TestGoldenImagesReadFromStream(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(goldenDir, "*_v1.img"))
	check(t, err)
	if len(names) < 11 {
		t.Fatalf("%d golden images", len(names))
	}
	var stream bytes.Buffer
	var wants [][]byte
	for _, name := range names {
		b, err := os.ReadFile(name)
		check(t, err)
		stream.Write(b)
		wants = append(wants, b)
	}
	for i, want := range wants {
		got, err := ReadSketch(&stream)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		// The golden images are exports: writing the sketch back gives them.
		var back bytes.Buffer
		_, err = got.(io.WriterTo).WriteTo(&back)
		check(t, err)
		if !bytes.Equal(back.Bytes(), want) {
			t.Fatalf("%s: written back differs", names[i])
		}
	}
	if _, err := ReadSketch(&stream); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

// InspectHeader reads an image's length from its 48 header bytes, where
// Inspect needs the whole image; both refuse the same damaged headers.
func TestInspectHeaderReadsTheRecordedLength(t *testing.T) {
	f, err := NewBloom(1000, 0.01)
	check(t, err)
	img := exportOf(t, f)
	if _, err := Inspect(img[:commonHeaderLen]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Inspect of the header alone: %v", err)
	}
	head, err := InspectHeader(img[:commonHeaderLen])
	check(t, err)
	whole, err := Inspect(img)
	check(t, err)
	if head != whole || head.ImageBytes != uint64(len(img)) {
		t.Fatalf("InspectHeader %+v, Inspect %+v", head, whole)
	}
	forged := bytes.Clone(img[:commonHeaderLen])
	binary.LittleEndian.PutUint64(forged[offImageLen:], 1<<40)
	if info, err := InspectHeader(forged); err != nil || info.ImageBytes != 1<<40 {
		t.Fatalf("forged length: %+v %v", info, err)
	}
	if _, err := InspectHeader(img[:47]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("47 bytes: %v", err)
	}
	bad := bytes.Clone(img)
	bad[0] = 'X'
	_, errHead := InspectHeader(bad)
	_, errWhole := Inspect(bad)
	var a, b *Error
	if !errors.As(errHead, &a) || !errors.As(errWhole, &b) || a.Code != StatusBadMagic || b.Code != a.Code {
		t.Fatalf("bad magic: InspectHeader %v, Inspect %v", errHead, errWhole)
	}
}

// shortWriter breaks io.Writer's contract the way a buggy adapter does:
// it takes at most room bytes in total and reports the shorter count
// with a nil error.
type shortWriter struct {
	room int
	got  []byte
}

func (w *shortWriter) Write(p []byte) (int, error) {
	n := min(len(p), w.room)
	w.room -= n
	w.got = append(w.got, p[:n]...)
	return n, nil
}

// A writer that takes fewer bytes than it was given without an error is
// io.ErrShortWrite (as io.Copy reports it), never a silent success with a
// truncated image: for every family, the compact HLL export included, and
// a cut in the header or in the body.
func TestWriteToShortWriteIsAnError(t *testing.T) {
	for _, c := range streamSketches(t) {
		size := len(exportOf(t, c.s))
		for _, room := range []int{0, 10, commonHeaderLen, size - 1} {
			w := &shortWriter{room: room}
			n, err := c.s.WriteTo(w)
			if !errors.Is(err, io.ErrShortWrite) || n != int64(len(w.got)) || n >= int64(size) {
				t.Fatalf("%s: writer taking %d of %d bytes: WriteTo reported %d, %v", c.name, room, size, n, err)
			}
		}
	}
}

// overWriter reports one byte more than it was given, nil error.
type overWriter struct{}

func (overWriter) Write(p []byte) (int, error) { return len(p) + 1, nil }

// A writer reporting more bytes than it was given is an error, and the
// count WriteTo returns never exceeds the image.
func TestWriteToInvalidCountIsAnError(t *testing.T) {
	for _, c := range streamSketches(t) {
		n, err := c.s.WriteTo(overWriter{})
		if err == nil || n > int64(len(exportOf(t, c.s))) || !strings.Contains(err.Error(), "invalid write result") {
			t.Fatalf("%s: WriteTo reported %d, %v", c.name, n, err)
		}
	}
}

// miscountingReader reads from r but reports extra bytes more (or, when
// extra is negative, fewer) than it read, from its Read number `after`
// on: an io.Reader that breaks the contract, as a buggy adapter does.
type miscountingReader struct {
	r     io.Reader
	extra int
	after int
}

func (m *miscountingReader) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if m.after--; m.after < 0 {
		return n + m.extra, err
	}
	return n, err
}

// A reader reporting more bytes than it was asked for is an error naming
// the count, from the header or the body read, never a runtime panic (a
// body read past the first 64 KiB sliced beyond the buffer) nor an image
// taken as read with bytes missing; one reporting a negative count is an
// error too.
func TestReadInvalidCountIsAnError(t *testing.T) {
	big, err := NewBloom(1_000_000, 0.01)
	check(t, err)
	images := [][]byte{exportOf(t, big)}
	for _, c := range streamSketches(t) {
		images = append(images, exportOf(t, c.s))
	}
	for _, img := range images {
		for _, extra := range []int{1, 100_000, -1} {
			for _, after := range []int{0, 1} {
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("%d-byte image, count off by %d from read %d: panic %v", len(img), extra, after, p)
						}
					}()
					_, err := ReadSketch(&miscountingReader{r: bytes.NewReader(img), extra: extra, after: after})
					if err == nil || !strings.Contains(err.Error(), "ReadSketch") {
						t.Fatalf("%d-byte image, count off by %d from read %d: %v", len(img), extra, after, err)
					}
				}()
			}
		}
	}
}

// idleReader returns no bytes and no error, up to limit times, then
// errSpun: a reader that never makes progress.
type idleReader struct{ calls, limit int }

var errSpun = errors.New("the reader was called past any sane retry count")

func (r *idleReader) Read([]byte) (int, error) {
	if r.calls++; r.calls > r.limit {
		return 0, errSpun
	}
	return 0, nil
}

// A reader that keeps returning nothing and no error gives io.ErrNoProgress
// (as bufio reports it) after 100 such reads, where io.ReadFull would call
// it forever; mid-image too.
func TestReadNoProgressIsAnError(t *testing.T) {
	f, err := NewBloom(1000, 0.01)
	check(t, err)
	img := exportOf(t, f)
	for _, prefix := range []int{0, 10, commonHeaderLen, 100} {
		idle := &idleReader{limit: 1_000_000}
		_, err := ReadBloom(io.MultiReader(bytes.NewReader(img[:prefix]), idle))
		if !errors.Is(err, io.ErrNoProgress) || idle.calls > 100 {
			t.Fatalf("after %d bytes: %v after %d idle reads", prefix, err, idle.calls)
		}
	}
}
