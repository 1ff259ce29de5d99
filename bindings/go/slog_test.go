package sketches

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// A sketch logged through log/slog (the text and the JSON handler) is the
// one line String gives, not its image: slog's handlers write a value that
// is an encoding.TextMarshaler through MarshalText, the whole image in
// base64 (1.6 MB for a filter of a million keys) in every log line. A nil
// sketch logs as <nil>.
func TestSlogLogsTheDescription(t *testing.T) {
	for _, c := range streamSketches(t) {
		want := c.s.(interface{ String() string }).String()
		for _, json := range []bool{false, true} {
			var buf bytes.Buffer
			var h slog.Handler = slog.NewTextHandler(&buf, nil)
			if json {
				h = slog.NewJSONHandler(&buf, nil)
			}
			slog.New(h).Info("rotated", "sketch", c.s)
			if out := buf.String(); len(out) > 200 || !strings.Contains(out, want) {
				t.Fatalf("%s (json %v): logged %d bytes, want the line %q: %.200s", c.name, json, len(out), want, out)
			}
		}
	}
	var buf bytes.Buffer
	var nilBloom *Bloom
	var nilHLL *HLL
	slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "bloom", nilBloom, "hll", nilHLL)
	if out := buf.String(); !strings.Contains(out, "bloom=<nil> hll=<nil>") {
		t.Fatalf("nil sketches logged as %q", out)
	}
}
