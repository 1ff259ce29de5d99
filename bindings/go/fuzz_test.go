package sketches

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// Native Go fuzz targets, one per family, over UnmarshalBinary and the Wrap
// function, seeded with the golden images (and small fresh images, which
// mutate faster). For any bytes:
//   - UnmarshalBinary succeeds exactly when Verify does and the family
//     matches; otherwise it returns an *Error;
//   - an imported image re-exports to the same bytes (HLL: to a stable
//     image) and every method works on it without panicking;
//   - Wrap refuses misaligned memory, and every method works on whatever it
//     accepts (the library is memory-safe whatever the body holds; on a body
//     the format forbids, calls may fail with an *Error matching ErrCorrupt);
//   - exporting a wrapped image reseals its checksum, so importing that
//     reaches the body checks;
//   - ReadSketch reads the image the header announces from the front of
//     the bytes and accepts it exactly when Verify accepts those bytes.
// make go-test runs each target for a few seconds; run longer with
//   go test -tags sketches_static -run '^$' -fuzz '^FuzzHLLImage$' -fuzztime 10m

func fuzzImage[T any, P interface {
	*T
	sketchImage
}](t *testing.T, data []byte, fam Family, wrap func([]byte) (P, error), exercise func(P)) {
	var s T
	err := P(&s).UnmarshalBinary(data)
	info, ierr := Inspect(data)
	verified := ierr == nil && info.Family == fam && Verify(data) == nil
	if (err == nil) != verified {
		t.Fatalf("UnmarshalBinary: %v, but Verify/Inspect say family %v, %v, %v", err, info.Family, ierr, Verify(data))
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.Code == StatusOK {
			t.Fatalf("not an *Error: %#v", err)
		}
	} else {
		out := marshal(t, P(&s))
		if fam != FamilyHLL && !bytes.Equal(out, data) {
			t.Fatal("export(import(bytes)) differs")
		}
		var again T
		check(t, P(&again).UnmarshalBinary(out))
		if !bytes.Equal(marshal(t, P(&again)), out) {
			t.Fatal("export is not stable")
		}
		exercise(P(&s))
		var after T
		check(t, P(&after).UnmarshalBinary(marshal(t, P(&s))))
	}

	// The stream reader takes the image the header announces from the
	// front of data, and accepts it exactly when Verify accepts those bytes.
	rd := bytes.NewReader(data)
	got, rerr := ReadSketch(rd)
	used := data[:len(data)-rd.Len()]
	switch {
	case len(data) == 0:
		if rerr != io.EOF {
			t.Fatalf("ReadSketch of no bytes: %v", rerr)
		}
	case rerr == nil:
		if verr := Verify(used); verr != nil {
			t.Fatalf("ReadSketch accepted %d bytes that Verify refuses: %v", len(used), verr)
		}
		out, err := got.(interface{ MarshalBinary() ([]byte, error) }).MarshalBinary()
		check(t, err)
		if fam != FamilyHLL && !bytes.Equal(out, used) {
			t.Fatal("export(ReadSketch(bytes)) differs")
		}
	default:
		var e *Error
		if !errors.As(rerr, &e) || e.Code == StatusOK {
			t.Fatalf("ReadSketch: not an *Error: %#v", rerr)
		}
		if Verify(used) == nil {
			t.Fatalf("ReadSketch refused %d bytes that Verify accepts: %v", len(used), rerr)
		}
	}

	mem := alignedCopy(data, 0)
	w, err := wrap(mem)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("not an *Error: %#v", err)
		}
	} else {
		resealed := marshal(t, w)
		var r T
		if err := P(&r).UnmarshalBinary(resealed); err == nil {
			exercise(P(&r))
		}
		// An unverified body may hold values its format forbids; the
		// library stays memory-safe, but may then refuse later calls, which
		// the reading and adding methods surface as a panic with an *Error.
		// Any other panic is a bug.
		func() {
			defer func() {
				if p := recover(); p != nil {
					if e, ok := p.(*Error); !ok || !errors.Is(e, ErrCorrupt) {
						panic(p)
					}
				}
			}()
			exercise(w)
		}()
	}
	if len(data) > 0 {
		if _, err := wrap(alignedCopy(data, 4)); !errors.Is(err, ErrMisaligned) {
			t.Fatalf("misaligned bytes wrapped: %v", err)
		}
	}
}

var fuzzKeys = []string{"", "a", "golden-1", "golden-7", "present-123456"}

func fuzzSeeds(f *testing.F, golden []string, fresh ...sketchImage) {
	for _, g := range golden {
		f.Add(readGolden(f, g))
	}
	for _, s := range fresh {
		f.Add(marshal(f, s))
	}
}

func FuzzBloomImage(f *testing.F) {
	small, _ := NewBloom(20, 0.1)
	small.AddStrings(fuzzKeys)
	fuzzSeeds(f, []string{"bloom"}, small)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzImage(t, data, FamilyBloom, WrapBloom, func(s *Bloom) {
			s.ContainsStrings(fuzzKeys, nil)
			s.ContainsUint64s([]uint64{1, 7}, nil)
			s.AddStrings(fuzzKeys)
			s.AddUint64(7)
			_ = s.Contains([]byte("x")) && s.ContainsUint64(9)
			_ = s.Union(s.Clone())
			_ = s.Intersect(s.Clone())
			_, _ = s.Stats(), s.OverCapacity()
		})
	})
}

func FuzzSplitBlockImage(f *testing.F) {
	small, _ := NewSplitBlock(20, 0.1)
	small.AddStrings(fuzzKeys)
	fuzzSeeds(f, []string{"sbbf", "sbbf_parquet"}, small)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzImage(t, data, FamilySplitBlock, WrapSplitBlock, func(s *SplitBlock) {
			s.ContainsBytes(byteKeys(fuzzKeys), nil)
			s.AddStrings(fuzzKeys)
			s.AddUint64s([]uint64{1, 7})
			_ = s.ContainsString("x") && s.ContainsUint64(7)
			_ = s.Union(s.Clone())
			_, _, _ = s.Stats(), s.OverCapacity(), s.Bitset()
		})
	})
}

func FuzzCountingBloomImage(f *testing.F) {
	small, _ := NewCountingBloom(20, 0.1)
	small.AddStrings(fuzzKeys)
	fuzzSeeds(f, []string{"counting"}, small)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzImage(t, data, FamilyCountingBloom, WrapCountingBloom, func(s *CountingBloom) {
			s.ContainsStrings(fuzzKeys, nil)
			_, _ = s.RemoveStrings(fuzzKeys)
			s.AddStrings(fuzzKeys)
			_ = s.RemoveUint64(7)
			s.AddUint64(7)
			_ = s.Merge(s.Clone())
			_, _ = s.Stats(), s.OverCapacity()
		})
	})
}

func FuzzCuckooImage(f *testing.F) {
	small, _ := NewCuckoo(20, 0.1)
	_, _ = small.AddStrings(fuzzKeys)
	fuzzSeeds(f, []string{"cuckoo"}, small)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzImage(t, data, FamilyCuckoo, WrapCuckoo, func(s *Cuckoo) {
			s.ContainsStrings(fuzzKeys, nil)
			_ = s.CountString("a") + s.CountUint64(7)
			_ = s.RemoveString("golden-1")
			_, _ = s.AddStrings(fuzzKeys)
			_ = s.AddUint64(7)
			_ = s.Merge(s.Clone())
			_, _ = s.Stats(), s.OverCapacity()
		})
	})
}

func FuzzHLLImage(f *testing.F) {
	small, _ := NewHLL(6)
	small.AddStrings(fuzzKeys)
	dense, _ := NewHLL(4)
	dense.AddUint64s(u64Keys(0, 200))
	fuzzSeeds(f, []string{"hll_small", "hll_dense"}, small, dense)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzImage(t, data, FamilyHLL, WrapHLL, func(s *HLL) {
			_, _ = s.Estimate(), s.RegisterEstimate()
			s.AddStrings(fuzzKeys)
			s.AddUint64s(u64Keys(0, 100))
			_ = s.Merge(s.Clone())
			if d, err := s.Downsize(4); err == nil {
				_ = d.Estimate()
			}
			_ = s.Stats()
		})
	})
}

func FuzzULLImage(f *testing.F) {
	small, _ := NewULL(4)
	small.AddStrings(fuzzKeys)
	fuzzSeeds(f, []string{"ull"}, small)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzImage(t, data, FamilyULL, WrapULL, func(s *ULL) {
			_, _, _ = s.Estimate(), s.RegisterEstimate(), s.MLEstimate()
			s.AddStrings(fuzzKeys)
			_ = s.Merge(s.Clone())
			if h, err := s.ToHLL(); err == nil {
				_ = h.Estimate()
			}
			_ = s.Stats()
		})
	})
}

func FuzzCountMinImage(f *testing.F) {
	p, _ := PlanCountMinSize(16, 2)
	small, _ := NewCountMinWithParams(p)
	small.AddStrings(fuzzKeys, nil)
	fuzzSeeds(f, []string{"countmin"}, small)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzImage(t, data, FamilyCountMin, WrapCountMin, func(s *CountMin) {
			s.EstimateStrings(fuzzKeys, nil)
			s.AddStrings(fuzzKeys, nil)
			s.AddUint64(7, 1<<62)
			s.AddUint64(7, 1<<62)
			_ = s.EstimateUint64(7)
			_ = s.Merge(s.Clone())
			_ = s.Stats()
		})
	})
}

func FuzzTopKImage(f *testing.F) {
	small, _ := NewTopK(4, 8)
	_ = small.AddStrings(fuzzKeys[:4], nil)
	fuzzSeeds(f, []string{"topk"}, small)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzImage(t, data, FamilyTopK, WrapTopK, func(s *TopK) {
			_ = s.List()
			_ = s.EstimateString("a")
			_ = s.AddStrings(fuzzKeys, nil)
			_ = s.AddUint64(7, 3)
			_ = s.Merge(s.Clone())
			_ = s.List()
			_ = s.Stats()
		})
	})
}

func FuzzMinHashImage(f *testing.F) {
	small, _ := NewMinHash(8)
	small.AddStrings(fuzzKeys)
	fuzzSeeds(f, []string{"minhash"}, small)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzImage(t, data, FamilyMinHash, WrapMinHash, func(s *MinHash) {
			_, _ = s.Jaccard(s.Clone())
			_ = s.Signature()
			s.AddStrings(fuzzKeys)
			_ = s.Merge(s.Clone())
			_ = s.Stats()
		})
	})
}

func FuzzBinaryFuseImage(f *testing.F) {
	small, _ := NewBinaryFuseStrings(fuzzKeys, 8)
	tiny, _ := NewBinaryFuseUint64s([]uint64{7}, 16)
	fuzzSeeds(f, []string{"fuse8", "fuse16"}, small, tiny)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzImage(t, data, FamilyBinaryFuse, WrapBinaryFuse, func(s *BinaryFuse) {
			s.ContainsStrings(fuzzKeys, nil)
			s.ContainsBytes(byteKeys(fuzzKeys), nil)
			s.ContainsUint64s([]uint64{1, 7}, nil)
			_ = s.Contains([]byte("x")) && s.ContainsString("golden-1") && s.ContainsUint64(7)
			_, _ = s.Stats(), s.FingerprintBits()
			_ = s.Clone().ContainsString("a")
		})
	})
}

func FuzzELLImage(f *testing.F) {
	small, _ := NewELL(2, 20)
	small.AddStrings(fuzzKeys)
	merged, _ := NewELL(3, 24)
	merged.AddUint64s(u64Keys(0, 100))
	_ = merged.Merge(merged.Clone())
	fuzzSeeds(f, []string{"ell", "ell_d24"}, small, merged)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzImage(t, data, FamilyELL, WrapELL, func(s *ELL) {
			_, _ = s.Estimate(), s.MLEstimate()
			_, _ = s.MartingaleEstimate()
			s.AddStrings(fuzzKeys)
			s.AddUint64s(u64Keys(0, 100))
			_ = s.AddUint64(7)
			_ = s.Merge(s.Clone())
			if d, err := s.Downsize(2, 20); err == nil {
				_ = d.Estimate()
			}
			_ = s.Stats()
		})
	})
}
