package sketches

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The common header fields the stream functions use (little-endian; the
// layout of core/src/image.rs and SPEC.md section 2): the magic, the format
// major version, the family id, the hash id, the header length, the image
// length, and the checksum, which covers every byte of the image but its
// own 8.
const (
	offMajor     = 4
	offFamily    = 6
	offHash      = 8
	offHeaderLen = 10
	offImageLen  = 24
	offChecksum  = 32
	offReserved  = 40
)

// imageMagic is the 4 bytes every image starts with.
const imageMagic = "SKCH"

// streamFirstRead is the most a stream read allocates before the bytes it
// announces have arrived: the buffer starts at this size (or the image's,
// when smaller) and doubles as bytes arrive, so a header announcing a huge
// length from a short stream costs at most about twice the bytes received.
const streamFirstRead = 64 << 10

// imageChecksum is the checksum the export writes for image b (the format's
// rule: XXH3-64 of the bytes after the checksum field, seeded with XXH3-64
// seed 0 of the bytes before it), computed on the live image in place.
func imageChecksum(b []byte) uint64 {
	return Hash(b[offReserved:], Hash(b[:offChecksum], 0))
}

// writeImage writes the exported image of the live image at the start of
// b (family f) to w: the common header with its checksum written (48
// bytes copied), then the rest of the image itself, without copying it.
// exported is the length the export writes; when it is shorter than the
// image (a small HLL's compact export) the export is made into a buffer
// first.
func writeImage(op string, f Family, b []byte, exported int, w io.Writer) (int64, error) {
	info, s := cInspect(b)
	switch {
	case len(b) == 0:
		return 0, errorOf(op, int32(StatusBufferTooSmall))
	case s != 0:
		return 0, errorOf(op, s)
	case info.Family != f:
		return 0, &Error{Code: StatusWrongFamily, Op: op, Detail: "the image holds a " + info.Family.String()}
	}
	// As the export does, write the length the header records: shorter
	// than b for a copy of a SplitBlock value made before a Fold.
	b = b[:info.ImageBytes]
	exported = min(exported, len(b))
	if exported != len(b) {
		img, err := appendExport(op, f, b, exported, nil)
		if err != nil {
			return 0, err
		}
		n, err := writeAll(w, img)
		return int64(n), writerError(op, err)
	}
	var head [commonHeaderLen]byte
	copy(head[:], b)
	binary.LittleEndian.PutUint64(head[offChecksum:], imageChecksum(b))
	n, err := writeAll(w, head[:])
	if err != nil {
		return int64(n), writerError(op, err)
	}
	m, err := writeAll(w, b[commonHeaderLen:])
	return int64(n + m), writerError(op, err)
}

// writeAll is one w.Write(p) held to io.Writer's contract, as io.Copy
// holds it: a writer that takes fewer bytes than p without an error gives
// io.ErrShortWrite, not a success that leaves the image cut short; a
// count outside 0..len(p) is an error too, counted as 0 bytes written.
func writeAll(w io.Writer, p []byte) (int, error) {
	n, err := w.Write(p)
	if n < 0 || n > len(p) {
		return 0, errors.New("invalid write result: " + itoa(n) + " bytes reported of " + itoa(len(p)))
	}
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	return n, err
}

// readFull is io.ReadFull(r, p) holding r to io.Reader's contract: a
// Read that reports a count outside 0..len(p) (which io.ReadFull adds up
// as it is, so a later slice of p panics or the image is taken as read
// with bytes missing) is an error, and so are 100 Reads in a row that
// return nothing and no error (io.ErrNoProgress, as bufio reports it),
// where io.ReadFull would spin forever. Otherwise its results are
// io.ReadFull's: io.EOF when nothing was read, io.ErrUnexpectedEOF when
// the stream ended inside p, r's error as it is, nil once p is full.
func readFull(r io.Reader, p []byte) (int, error) {
	n, idle := 0, 0
	for n < len(p) {
		k, err := r.Read(p[n:])
		if k < 0 || k > len(p)-n {
			return n, errors.New("invalid read result: " + itoa(k) + " bytes reported of " + itoa(len(p)-n) + " asked")
		}
		n += k
		switch {
		case n == len(p):
			return n, nil
		case err == io.EOF && n == 0:
			return 0, io.EOF
		case err == io.EOF:
			return n, io.ErrUnexpectedEOF
		case err != nil:
			return n, err
		case k == 0:
			if idle++; idle == 100 {
				return n, io.ErrNoProgress
			}
		default:
			idle = 0
		}
	}
	return n, nil
}

// writerError names op in an error of the caller's writer (errors.Is and
// errors.As still find it).
func writerError(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("sketches: %s: %w", op, err)
}

// readImage reads exactly one image from r: the common header, then the
// length it records, no byte more. want, when not 0, is the family the
// caller expects; another one fails before the body is read. The result is
// in aligned Go memory, not yet checked beyond the common header. At the
// end of the stream (no byte read) it returns io.EOF itself.
func readImage(op string, r io.Reader, want Family) ([]byte, Family, error) {
	var head [commonHeaderLen]byte
	n, err := readFull(r, head[:])
	switch {
	case err == io.EOF:
		return nil, 0, io.EOF
	case err == io.ErrUnexpectedEOF:
		return nil, 0, truncatedStream(op, n, commonHeaderLen)
	case err != nil:
		return nil, 0, readerError(op, err)
	}
	// The library checks the header alone (magic, version, ids, reserved
	// field, lengths), so a bad one fails before its body is read. The hash
	// id is left to the import, as from UnmarshalBinary (an unknown one is
	// StatusUnsupportedHash when the checksum holds and
	// StatusChecksumMismatch when it fails): the check reads a copy naming
	// XXH3.
	probe := head
	binary.LittleEndian.PutUint16(probe[offHash:], hashXXH3)
	info, s := cInspectHeader(probe[:])
	if s != 0 {
		return nil, 0, headerError(op, s, &head)
	}
	fam := info.Family
	if want != 0 && fam != want {
		return nil, 0, &Error{Code: StatusWrongFamily, Op: op, Detail: "the stream holds a " + fam.String() + " image"}
	}
	size := info.ImageBytes
	if size > math.MaxInt/2 {
		return nil, 0, &Error{Code: StatusCorruptHeader, Op: op,
			Detail: "the header records an image of " + utoa(size) + " bytes"}
	}
	buf, err := newImage(op, min(size, streamFirstRead))
	if err != nil {
		return nil, 0, err
	}
	have := copy(buf, head[:])
	for uint64(have) < size {
		if have == len(buf) {
			grown, err := newImage(op, min(size, 2*uint64(len(buf))))
			if err != nil {
				return nil, 0, err
			}
			copy(grown, buf)
			buf = grown
		}
		k, err := readFull(r, buf[have:])
		have += k
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, 0, truncatedStream(op, have, size)
		}
		if err != nil {
			return nil, 0, readerError(op, err)
		}
	}
	return buf, fam, nil
}

// readLive reads one image of family f from r and checks it as
// UnmarshalBinary does (headers, exact length, checksum, body rules),
// returning the live image: the bytes read, in place, or for a compact
// HLL export its import into the full image.
func readLive(op string, r io.Reader, f Family) ([]byte, error) {
	buf, _, err := readImage(op, r, f)
	if err != nil {
		return nil, err
	}
	return adoptImage(op, buf, f)
}

// adoptImage checks buf, an exported image of family f read into aligned
// Go memory, as importImage does, and returns the live image without a
// copy when the import would be one.
func adoptImage(op string, buf []byte, f Family) ([]byte, error) {
	liveLen, s := cImportSize(f, buf)
	if s != 0 {
		return nil, untrustedError(op, s, buf)
	}
	if liveLen != len(buf) {
		return importImage(op, buf, f)
	}
	if s := cVerify(f, buf); s != 0 {
		return nil, errorOf(op, s)
	}
	return buf, nil
}

// headerError is the error of a stream whose next common header the
// library refused with status s: it names what the header holds where
// that is the reason (no image magic, another format major version, an
// unknown family id, impossible lengths).
func headerError(op string, s int32, head *[commonHeaderLen]byte) error {
	family := binary.LittleEndian.Uint16(head[offFamily:])
	size := binary.LittleEndian.Uint64(head[offImageLen:])
	headerLen := uint64(binary.LittleEndian.Uint16(head[offHeaderLen:]))
	switch {
	case Status(s) == StatusBadMagic:
		return &Error{Code: StatusBadMagic, Op: op, Detail: "the stream does not continue with an image"}
	case head[offMajor] != formatMajor:
		return &Error{Code: Status(s), Op: op, Detail: versionDetail(head[offMajor])}
	case Status(s) != StatusCorruptHeader:
		return errorOf(op, s)
	case family == 0 || int(family) >= len(familyNames):
		return unknownFamily(op, Family(family))
	case size < headerLen || headerLen < commonHeaderLen || size%8 != 0 || headerLen%8 != 0:
		return &Error{Code: StatusCorruptHeader, Op: op,
			Detail: "the header records an image of " + utoa(size) + " bytes and a header of " + utoa(headerLen)}
	}
	return errorOf(op, s)
}

// truncatedStream is the error of a stream that ended inside an image:
// a length mismatch (ErrCorrupt) wrapping io.ErrUnexpectedEOF.
func truncatedStream(op string, have int, size uint64) error {
	return &Error{Code: StatusLengthMismatch, Op: op, cause: io.ErrUnexpectedEOF,
		Detail: "truncated stream: " + itoa(have) + " of " + utoa(size) + " image bytes"}
}

// readerError names op in an error of the caller's reader.
func readerError(op string, err error) error {
	return fmt.Errorf("sketches: %s: %w", op, err)
}

// ReadSketch reads exactly one image of any family from r, as the
// per-family readers (ReadBloom, ...) do, and returns the sketch as its
// family's type: *Bloom, *SplitBlock, *CountingBloom, *Cuckoo,
// *BinaryFuse, *HLL, *ULL, *ELL, *CountMin, *TopK or *MinHash (a type
// switch dispatches on it). For a stream whose images' families vary.
// Errors and memory are ReadBloom's; an unknown family id is an error
// matching ErrCorrupt (StatusCorruptHeader, as Inspect and every binding
// report it).
func ReadSketch(r io.Reader) (any, error) {
	const op = "ReadSketch"
	buf, fam, err := readImage(op, r, 0)
	if err != nil {
		return nil, err
	}
	if fam == 0 || int(fam) >= len(familyNames) {
		return nil, unknownFamily(op, fam)
	}
	img, err := adoptImage(op, buf, fam)
	if err != nil {
		return nil, err
	}
	switch fam {
	case FamilyBloom:
		return bloomOf(img), nil
	case FamilySplitBlock:
		return splitBlockOf(img), nil
	case FamilyCountingBloom:
		return &CountingBloom{img: img}, nil
	case FamilyCuckoo:
		return &Cuckoo{img: img}, nil
	case FamilyBinaryFuse:
		return &BinaryFuse{img: img}, nil
	case FamilyHLL:
		return hllOf(img), nil
	case FamilyULL:
		return &ULL{img: img}, nil
	case FamilyELL:
		return &ELL{img: img}, nil
	case FamilyCountMin:
		return &CountMin{img: img}, nil
	case FamilyTopK:
		return &TopK{img: img}, nil
	case FamilyMinHash:
		return &MinHash{img: img}, nil
	}
	return nil, unknownFamily(op, fam)
}

// unknownFamily is the error of an image whose family id no family has
// (ErrCorrupt, StatusCorruptHeader: the core's and the other bindings'
// status for it).
func unknownFamily(op string, fam Family) error {
	return &Error{Code: StatusCorruptHeader, Op: op, Detail: "unknown family id " + itoa(int(fam))}
}
