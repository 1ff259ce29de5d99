package sketches

// HLL is a HyperLogLog distinct counter: precision p = 4..18 (2^p 6-bit
// registers, 0.75 * 2^p bytes plus a 384-byte header), exact while small
// (sorted hashes in the same buffer, converting in place), the martingale
// estimate (relative standard error ~0.83/sqrt(2^p)) while it saw only its
// own stream and Ertl's improved estimate (~1.04/sqrt(2^p)) after merges,
// both O(1). Merges across precisions fold down.
//
// Its image lives in Go memory (or the caller's bytes for WrapHLL). The
// zero value holds no image; only UnmarshalBinary may be called on it.
//
// Concurrency: the reading methods (Estimate, RegisterEstimate, Stats,
// Precision, Size, Clone, Downsize, MarshalBinary, AppendBinary) may run
// concurrently; the changing ones (Add*, Merge, Reset, UnmarshalBinary)
// need exclusive access.
type HLL struct {
	img []byte
	tok imageToken // img's token for the single-key calls (see imageToken)
}

// hllOf returns the sketch of the live image b, with its token.
func hllOf(b []byte) *HLL { return &HLL{img: b, tok: tokenOf(FamilyHLL, b)} }

// retoken refreshes the token after the image was replaced or rewritten
// (only where the image is written under exclusive access).
func (h *HLL) retoken() { h.tok = tokenOf(FamilyHLL, h.img) }

// HLLStats are the statistics of a HyperLogLog sketch.
type HLLStats struct {
	Precision     uint8   // precision p
	Dense         bool    // false while in exact small mode
	Martingale    bool    // Estimate is the martingale estimate (dense, own stream only)
	SmallCount    uint32  // hashes stored in small mode (0 when dense)
	SmallCapacity uint32  // hashes small mode holds at this precision before converting
	RegistersSet  uint32  // registers above zero
	Seed          uint64  // hash seed
	Estimate      float64 // distinct-count estimate
	ImageBytes    uint64  // live image length in bytes
}

// NewHLL returns an empty sketch of precision p (4..18; p = 14 is 12 KiB of
// registers, ~0.65% error).
func NewHLL(precision uint8, opts ...Option) (*HLL, error) {
	b, err := newCardinality("NewHLL", FamilyHLL, precision, opts)
	if err != nil {
		return nil, err
	}
	return hllOf(b), nil
}

func newCardinality(op string, f Family, p uint8, opts []Option) ([]byte, error) {
	o := applyOptions(opts)
	n, s := cCardinalitySize(f, p)
	if s != 0 {
		return nil, errorOf(op, s)
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cCardinalityInit(f, b, p, o.seed); s != 0 {
		return nil, errorOf(op, s)
	}
	return b, nil
}

// WrapHLL uses b, a live HLL image in caller memory, without copying (see
// WrapBloom for the rules). A compact export of a small sketch cannot be
// wrapped (error StatusCompactImage): unmarshal it.
func WrapHLL(b []byte) (*HLL, error) {
	img, err := wrapImage("WrapHLL", b, FamilyHLL, func(b []byte) int32 {
		_, s := cEstimate(FamilyHLL, b, estimateDefault)
		return s
	})
	if err != nil {
		return nil, err
	}
	return hllOf(img), nil
}

// Add adds a byte key and reports whether the sketch changed.
func (h *HLL) Add(key []byte) bool {
	c, s := cHLLAdd(h.img, &h.tok, bytesPtr(key), len(key))
	must("HLL.Add", s)
	return c
}

// AddString adds a string key (its UTF-8 bytes) and reports whether the
// sketch changed.
func (h *HLL) AddString(key string) bool {
	c, s := cHLLAdd(h.img, &h.tok, strPtr(key), len(key))
	must("HLL.AddString", s)
	return c
}

// AddUint64 adds an integer key (its 8 little-endian bytes) and reports
// whether the sketch changed.
func (h *HLL) AddUint64(key uint64) bool {
	c, s := cHLLAddU64(h.img, &h.tok, key)
	must("HLL.AddUint64", s)
	return c
}

// AddStrings adds many string keys (packed batches).
func (h *HLL) AddStrings(keys []string) { must("HLL.AddStrings", setAdd(FamilyHLL, h.img, keys)) }

// AddBytes adds many byte keys (packed batches).
func (h *HLL) AddBytes(keys [][]byte) { must("HLL.AddBytes", setAdd(FamilyHLL, h.img, keys)) }

// AddUint64s adds many integer keys in one call.
func (h *HLL) AddUint64s(keys []uint64) {
	must("HLL.AddUint64s", cSetAddU64s(FamilyHLL, h.img, keys))
}

func setAdd[K keyList](f Family, b []byte, keys K) int32 {
	return packed(keys, func(_ int, data []byte, offs []uint32) int32 {
		return cSetAddPacked(f, b, data, offs)
	})
}

// Estimate returns the distinct-count estimate, O(1): exact in small mode,
// the martingale estimate while the sketch saw only its own stream, the
// estimate from the registers after merges.
func (h *HLL) Estimate() float64 {
	e, s := cEstimate(FamilyHLL, h.img, estimateDefault)
	must("HLL.Estimate", s)
	return e
}

// RegisterEstimate returns the estimate from the registers alone (Ertl's
// improved estimator; exact in small mode): what a merged sketch reports.
func (h *HLL) RegisterEstimate() float64 {
	e, s := cEstimate(FamilyHLL, h.img, estimateRegister)
	must("HLL.RegisterEstimate", s)
	return e
}

// Merge adds other's stream to h: h then estimates the union. Same seed
// required, and other's precision must be at least h's (a higher precision
// folds down); else an error matching ErrIncompatible and h is unchanged.
func (h *HLL) Merge(other *HLL) error {
	s := cMerge(FamilyHLL, h.img, other.img)
	h.retoken()
	return errorOf("HLL.Merge", s)
}

// Downsize returns a new sketch of precision p holding what h holds
// (registers folded down, or the stored hashes). p may exceed h's
// precision only while h is in small mode.
func (h *HLL) Downsize(p uint8) (*HLL, error) {
	const op = "HLL.Downsize"
	n, s := cCardinalitySize(FamilyHLL, p)
	if s != 0 {
		return nil, errorOf(op, s)
	}
	b, err := newImage(op, n)
	if err != nil {
		return nil, err
	}
	if s := cHLLDownsize(h.img, b, p); s != 0 {
		return nil, errorOf(op, s)
	}
	return hllOf(b), nil
}

// Precision returns p.
func (h *HLL) Precision() uint8 { return h.Stats().Precision }

// Stats returns the sketch's statistics.
func (h *HLL) Stats() HLLStats {
	st, s := cHLLStats(h.img)
	must("HLL.Stats", s)
	return st
}

// Reset empties the sketch (same precision and seed).
func (h *HLL) Reset() {
	must("HLL.Reset", cClear(FamilyHLL, h.img))
	h.retoken()
}

// Size returns the live image size in bytes (the memory the sketch uses;
// MarshalBinary writes less while the sketch is in small mode).
func (h *HLL) Size() int { return len(h.img) }

// Clone returns an independent copy in new Go memory.
func (h *HLL) Clone() *HLL { return hllOf(cloneImage(h.img)) }

// MarshalBinary returns the exported image with its checksum: the whole
// image when dense, the header plus 8 bytes per stored hash in small mode.
func (h *HLL) MarshalBinary() ([]byte, error) { return h.AppendBinary(nil) }

// AppendBinary appends the exported image to b.
func (h *HLL) AppendBinary(b []byte) ([]byte, error) {
	const op = "HLL.MarshalBinary"
	n, s := cHLLExportedSize(h.img)
	if s != 0 {
		return b, errorOf(op, s)
	}
	return appendExport(op, FamilyHLL, h.img, n, b)
}

// UnmarshalBinary replaces h with the sketch in data, an exported image
// (compact or full), after checking headers, length, checksum and register
// values: damaged bytes give an error matching ErrCorrupt and h is then
// unchanged. data is copied; a compact image imports into the full image
// of its precision (the size the library's import_size reports).
func (h *HLL) UnmarshalBinary(data []byte) error {
	b, err := importImage("HLL.UnmarshalBinary", data, FamilyHLL)
	if err != nil {
		return err
	}
	h.img = b
	h.retoken()
	return nil
}
