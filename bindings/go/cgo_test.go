package sketches

import (
	"os"
	"regexp"
	"sort"
	"testing"
)

// Every C function capi.go calls is declared #cgo nocallback (none calls
// back into Go) and #cgo noescape, except the two that hand a pointer into
// the image back to the caller: noescape is only legal when no Go pointer
// escapes through the function, returning it included.
func TestCgoDirectives(t *testing.T) {
	src, err := os.ReadFile("capi.go")
	check(t, err)
	returnsPointer := map[string]bool{"sketch_sbbf_bitset": true, "sketch_topk_list": true}
	called := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bC\.((?:sketch|sk)_\w+)\(`).FindAllSubmatch(src, -1) {
		called[string(m[1])] = true
	}
	directive := func(kind, fn string) bool {
		return regexp.MustCompile(`(?m)^#cgo ` + kind + ` ` + fn + `$`).Match(src)
	}
	var names []string
	for fn := range called {
		names = append(names, fn)
	}
	sort.Strings(names)
	for _, fn := range names {
		if !directive("nocallback", fn) {
			t.Errorf("%s: no #cgo nocallback", fn)
		}
		if returnsPointer[fn] == directive("noescape", fn) {
			t.Errorf("%s: #cgo noescape must be present exactly when no pointer into the image is returned", fn)
		}
	}
	if len(names) < 150 {
		t.Fatalf("only %d C functions found: the pattern broke", len(names))
	}
	// cgo is the only importer of "C".
	files, _ := os.ReadDir(".")
	for _, f := range files {
		if f.Name() == "capi.go" || f.IsDir() {
			continue
		}
		b, _ := os.ReadFile(f.Name())
		if regexp.MustCompile(`(?m)^import "C"|^\s+"C"$`).Match(b) {
			t.Errorf("%s imports C: keep cgo in capi.go", f.Name())
		}
	}
}
