//go:build unix

package sketches

import (
	"errors"
	"reflect"
	"runtime"
	"testing"
)

// Every exported method of every family type, called on a zero value (a
// sketch declared but never built): it returns, returns an error, or panics
// with an *Error matching ErrNoImage (the documented panic of the methods
// without an error result), never a runtime error (nil dereference, index
// out of range) or a fault.
func TestZeroValueEveryMethod(t *testing.T) {
	for _, fam := range roFamilies() {
		t.Run(fam.name, func(t *testing.T) {
			orig := fam.build(t)
			img, err := orig.(encoding_BinaryMarshaler).MarshalBinary()
			check(t, err)
			typ := reflect.TypeOf(orig)
			for i := 0; i < typ.NumMethod(); i++ {
				m := typ.Method(i)
				if m.Name == "Format" {
					continue // fmt's State; TestSketchString prints zero values
				}
				zero := reflect.New(typ.Elem())
				args := sampleArgs(t, fam.name, m.Name, m, orig, img)
				out, p := callRecover(zero.Method(i), args)
				if p != nil {
					if _, rt := p.(runtime.Error); rt {
						t.Errorf("%s.%s on a zero value: runtime panic %v", fam.name, m.Name, p)
						continue
					}
					e, ok := p.(error)
					if !ok || !errors.Is(e, ErrNoImage) {
						t.Errorf("%s.%s on a zero value panicked with %v, want an *Error matching ErrNoImage", fam.name, m.Name, p)
					}
					continue
				}
				if n := len(out); n > 0 && out[n-1].Type() == reflect.TypeOf((*error)(nil)).Elem() && !out[n-1].IsNil() {
					err := out[n-1].Interface().(error)
					var e *Error
					if !errors.As(err, &e) {
						t.Errorf("%s.%s on a zero value: %v is not an *Error", fam.name, m.Name, err)
					}
				}
			}
		})
	}
}
