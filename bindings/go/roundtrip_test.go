package sketches

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// resealed returns img with its checksum computed again (after an edit of
// the header), as an exporter of that header would write it.
func resealed(img []byte) []byte {
	binary.LittleEndian.PutUint64(img[offChecksum:], imageChecksum(img))
	return img
}

// For every family (a compact HLL and a folded filter included):
// MarshalBinary, UnmarshalBinary and AppendBinary round trip byte for
// byte; AppendBinary leaves the prefix it appends to; a failed
// UnmarshalBinary or UnmarshalText into a sketch that holds an image keeps
// that image (damaged, truncated, other family, newer version); an image of
// a newer minor version of the same major loads.
func TestImageRoundTripsAndFailedUnmarshalKeepsReceiver(t *testing.T) {
	cases := streamSketches(t)
	for i, c := range cases {
		img := exportOf(t, c.s)
		// A fresh value of the type, filled by UnmarshalBinary.
		fresh := reflect.New(reflect.TypeOf(c.s).Elem()).Interface().(encoding.BinaryUnmarshaler)
		check(t, fresh.UnmarshalBinary(img))
		if !bytes.Equal(exportOf(t, fresh), img) {
			t.Fatalf("%s: MarshalBinary after UnmarshalBinary differs", c.name)
		}
		prefix := []byte("prefix")
		out, err := fresh.(encoding.BinaryAppender).AppendBinary(prefix[:6:6])
		check(t, err)
		if !bytes.Equal(out, append([]byte("prefix"), img...)) || string(prefix) != "prefix" {
			t.Fatalf("%s: AppendBinary", c.name)
		}

		other := exportOf(t, cases[(i+5)%len(cases)].s)
		damaged := bytes.Clone(img)
		damaged[len(damaged)-1] ^= 1
		newer := bytes.Clone(img)
		newer[offMajor] = formatMajor + 1
		resealed(newer)
		older := bytes.Clone(img)
		older[offMajor] = 0
		resealed(older)
		bad := map[string]struct {
			b    []byte
			want error
		}{
			"damaged":   {damaged, ErrCorrupt},
			"truncated": {img[:len(img)-1], ErrCorrupt},
			"extended":  {append(bytes.Clone(img), 0), ErrCorrupt},
			"header":    {img[:20], ErrCorrupt},
			"newer":     {newer, ErrUnsupportedVersion},
			"older":     {older, nil},
		}
		if !bytes.Equal(other[:8], img[:8]) || binary.LittleEndian.Uint16(other[offFamily:]) != binary.LittleEndian.Uint16(img[offFamily:]) {
			bad["other family"] = struct {
				b    []byte
				want error
			}{other, ErrWrongFamily}
		}
		for what, b := range bad {
			err := fresh.UnmarshalBinary(b.b)
			if err == nil || (b.want != nil && !errors.Is(err, b.want)) {
				t.Errorf("%s: UnmarshalBinary of %s bytes: %v, want %v", c.name, what, err, b.want)
			}
			if (what == "older" || what == "newer") && !strings.Contains(err.Error(), "format major version "+itoa(int(b.b[offMajor]))+"; this library reads 1") {
				t.Errorf("%s: UnmarshalBinary of %s bytes does not name the versions: %v", c.name, what, err)
			}
			if !bytes.Equal(exportOf(t, fresh), img) {
				t.Fatalf("%s: a failed UnmarshalBinary of %s bytes changed the receiver", c.name, what)
			}
			if err := fresh.(encoding.TextUnmarshaler).UnmarshalText([]byte("not base64!")); err == nil {
				t.Fatalf("%s: UnmarshalText of bad text", c.name)
			}
			if !bytes.Equal(exportOf(t, fresh), img) {
				t.Fatalf("%s: a failed UnmarshalText changed the receiver", c.name)
			}
		}
		// A newer minor version of the same major loads (minor versions only
		// give meaning to fields older readers require to be zero).
		minor := bytes.Clone(img)
		minor[offMajor+1]++
		check(t, fresh.UnmarshalBinary(resealed(minor)))
		// Verify, Inspect and the stream readers say the same.
		for _, b := range [][]byte{newer, older} {
			_, ierr := Inspect(b)
			_, rerr := c.read(bytes.NewReader(b))
			for _, err := range []error{Verify(b), ierr, rerr} {
				if err == nil || !strings.Contains(err.Error(), "format major version "+itoa(int(b[offMajor]))) {
					t.Errorf("%s: format major %d: %v", c.name, b[offMajor], err)
				}
			}
		}
	}
}
