package sketches

import (
	"bytes"
	"encoding/binary"
	hexenc "encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The Parquet fixtures of tests/parquet (DuckDB 2.0.1 and pyarrow 26.0.1
// files, see tests/parquet/README.md): as tests/tests/parquet.rs does for
// the core, the binding's planner, typed hashes and fold rebuild each
// writer's bitset byte for byte, and each bitset loaded into a filter
// answers every probe as DuckDB's reader did.

var parquetDir = filepath.Join("..", "..", "tests", "parquet")

type parquetFilter struct {
	file, writer, column, kind string
	fpp                        float64
	offset, length             int
	ndvOption                  uint64 // 0 when the manifest says none
	distinct                   int
}

// parquetKey is (file or table, column).
type parquetKey struct{ where, column string }

type parquetManifest struct {
	filters []parquetFilter
	values  map[parquetKey][][]byte // ("*" or fpp, column) -> distinct PLAIN values
	present map[parquetKey][2]int   // (file, column) -> (maybe count, probed)
	absent  map[parquetKey]int      // (file, column) -> probed
	maybe   map[parquetKey]map[string]bool
	special map[parquetKey][]parquetSpecial
}

type parquetSpecial struct {
	value []byte
	maybe bool
}

func hexList(t testing.TB, fields []string, at int) [][]byte {
	t.Helper()
	var out [][]byte
	if at >= len(fields) {
		return out
	}
	for _, h := range strings.Split(fields[at], ",") {
		if h == "" {
			continue
		}
		b, err := hexenc.DecodeString(h)
		check(t, err)
		out = append(out, b)
	}
	return out
}

func atoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	check(t, err)
	return n
}

// readParquetManifest parses tests/parquet/writers.manifest (its format is
// in its header comments).
func readParquetManifest(t testing.TB) *parquetManifest {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(parquetDir, "writers.manifest"))
	check(t, err)
	m := &parquetManifest{
		values: map[parquetKey][][]byte{}, present: map[parquetKey][2]int{},
		absent: map[parquetKey]int{}, maybe: map[parquetKey]map[string]bool{},
		special: map[parquetKey][]parquetSpecial{},
	}
	type fileInfo struct {
		writer string
		fpp    float64
	}
	files := map[string]fileInfo{}
	for _, line := range strings.Split(string(text), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, " ")
		key := parquetKey{f[1], f[2]}
		switch f[0] {
		case "file":
			fpp, err := strconv.ParseFloat(f[3], 64)
			check(t, err)
			files[f[1]] = fileInfo{f[2], fpp}
		case "filter":
			info, ok := files[f[1]]
			if !ok {
				t.Fatalf("filter line before its file line: %q", line)
			}
			pf := parquetFilter{file: f[1], writer: info.writer, fpp: info.fpp, column: f[2], kind: f[3],
				offset: atoi(t, f[4]), length: atoi(t, f[5]), distinct: atoi(t, f[7])}
			if n, err := strconv.ParseUint(f[6], 10, 64); err == nil {
				pf.ndvOption = n
			}
			m.filters = append(m.filters, pf)
		case "values":
			m.values[key] = hexList(t, f, 3)
		case "present":
			m.present[key] = [2]int{atoi(t, f[3]), atoi(t, f[4])}
		case "absent":
			m.absent[key] = atoi(t, f[3])
			set := map[string]bool{}
			for _, v := range hexList(t, f, 4) {
				set[string(v)] = true
			}
			m.maybe[key] = set
		case "special":
			v, err := hexenc.DecodeString(f[3])
			check(t, err)
			m.special[key] = append(m.special[key], parquetSpecial{v, f[4] == "1"})
		default:
			t.Fatalf("unknown manifest line %q", line)
		}
	}
	if len(m.filters) < 40 {
		t.Fatalf("only %d filters in the manifest", len(m.filters))
	}
	return m
}

// table names the fixture table of a filter ("0.01" or "0.05").
func (f *parquetFilter) table() string {
	if f.fpp == 0.01 {
		return "0.01"
	}
	return "0.05"
}

func (f *parquetFilter) String() string { return f.file + "/" + f.column }

// valuesOf returns the distinct PLAIN values written to f's column.
func (m *parquetManifest) valuesOf(t testing.TB, f *parquetFilter) [][]byte {
	t.Helper()
	v, ok := m.values[parquetKey{"*", f.column}]
	if !ok {
		v, ok = m.values[parquetKey{f.table(), f.column}]
	}
	if !ok {
		t.Fatalf("%v: no values", f)
	}
	return v
}

// fileBitset returns the bitset of f read out of its file: the filter
// region at OFFSET..OFFSET+LENGTH is a Thrift-compact BloomFilterHeader
// (field 1: i32 numBytes, a zigzag varint) followed by numBytes of bitset.
func fileBitset(t testing.TB, f *parquetFilter) []byte {
	t.Helper()
	file, err := os.ReadFile(filepath.Join(parquetDir, f.file))
	check(t, err)
	region := file[f.offset : f.offset+f.length]
	if region[0] != 0x15 {
		t.Fatalf("%v: field 1 of type i32 expected, got %#x", f, region[0])
	}
	v, n := binary.Uvarint(region[1:])
	if n <= 0 {
		t.Fatalf("%v: bad varint", f)
	}
	numBytes := int(int64(v>>1) ^ -int64(v&1))
	if numBytes <= 0 || numBytes > len(region)-1-n {
		t.Fatalf("%v: numBytes %d in a region of %d bytes", f, numBytes, len(region))
	}
	return region[len(region)-numBytes:]
}

// typedHash hashes a PLAIN-encoded value of Parquet type kind through the
// typed helpers, decoding it to its Go type first, as a user holding typed
// values calls them.
func typedHash(t testing.TB, kind string, plain []byte) uint64 {
	t.Helper()
	switch kind {
	case "int32":
		return ParquetHashInt32(int32(binary.LittleEndian.Uint32(plain)))
	case "int64":
		return ParquetHashInt64(int64(binary.LittleEndian.Uint64(plain)))
	case "float":
		return ParquetHashFloat32(math.Float32frombits(binary.LittleEndian.Uint32(plain)))
	case "double":
		return ParquetHashFloat64(math.Float64frombits(binary.LittleEndian.Uint64(plain)))
	case "string", "binary":
		return ParquetHashBytes(plain)
	}
	t.Fatalf("type %q", kind)
	return 0
}

// absentProbes are the probes generate.py sent for absent values (its
// absent_probes; tests/tests/parquet.rs has the same list).
func absentProbes(kind string, count int) [][]byte {
	out := make([][]byte, count)
	for i := range out {
		switch kind {
		case "int32":
			out[i] = binary.LittleEndian.AppendUint32(nil, uint32(int32(2_000_000+13*i)))
		case "int64":
			out[i] = binary.LittleEndian.AppendUint64(nil, uint64(int64(9_000_000_000_000+13*i)))
		case "float":
			half := float32(0.5 * float32(i)) // exact; the conversion forbids a fused multiply-add
			out[i] = binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(1.0e6)+half))
		case "double":
			quarter := float64(0.25 * float64(i))
			out[i] = binary.LittleEndian.AppendUint64(nil, math.Float64bits(1.0e9+quarter))
		case "string":
			out[i] = []byte("absent-" + strconv.Itoa(i))
		default:
			out[i] = binary.LittleEndian.AppendUint32([]byte{0xfe, 0xed}, uint32(i))
		}
	}
	return out
}

// Every non-special filter of the DuckDB and pyarrow files is rebuilt byte
// for byte: planned with the writer's sizing rule (DuckDB from the exact
// distinct count, pyarrow from its ndv option), the values added through
// the typed hashes, folded as the writer folds (DuckDB: never).
func TestParquetWritersBitsetsRebuiltByteForByte(t *testing.T) {
	m := readParquetManifest(t)
	seen := map[string]bool{}
	folded := 0
	for i := range m.filters {
		f := &m.filters[i]
		values := m.valuesOf(t, f)
		if len(values) != f.distinct {
			t.Fatalf("%v: %d values, manifest says %d distinct", f, len(values), f.distinct)
		}
		if strings.HasPrefix(f.column, "s_") {
			continue // -0.0 and NaN: TestParquetFloatSpecialValues
		}
		theirs := fileBitset(t, f)
		var p SplitBlockParams
		var err error
		switch f.writer {
		case "duckdb":
			p, err = PlanSplitBlockParquetSizing(uint64(f.distinct), f.fpp, ParquetSizingDuckDB)
		case "pyarrow":
			if f.ndvOption == 0 {
				t.Fatalf("%v: pyarrow filter without an ndv option", f)
			}
			p, err = PlanSplitBlockParquetSizing(f.ndvOption, f.fpp, ParquetSizingArrowCPP)
		default:
			t.Fatalf("%v: writer %q", f, f.writer)
		}
		check(t, err)
		if !p.Parquet {
			t.Fatalf("%v: planned in native mode", f)
		}
		sb, err := NewSplitBlockWithParams(p)
		check(t, err)
		for _, v := range values {
			sb.AddHash(typedHash(t, f.kind, v))
		}
		folds, err := sb.FoldToTargetFPP(f.fpp)
		check(t, err)
		if f.writer == "duckdb" && folds != 0 {
			t.Fatalf("%v: DuckDB sizes from the exact count, yet %d folds", f, folds)
		}
		if folds > 0 {
			folded++
		}
		ours := sb.Bitset()
		if len(ours) != len(theirs) {
			t.Fatalf("%v: %d bytes, the writer's %d (planned %d blocks, %d folds)", f, len(ours), len(theirs), p.Blocks, folds)
		}
		if !bytes.Equal(ours, theirs) {
			t.Fatalf("%v: bitset differs from the writer's", f)
		}
		// The folded filter is the shorter image everywhere.
		if got := sb.Stats().Params.Blocks; got != p.Blocks>>folds || got*32 != uint64(len(theirs)) {
			t.Fatalf("%v: %d blocks after %d folds of %d", f, got, folds, p.Blocks)
		}
		img, err := sb.MarshalBinary()
		check(t, err)
		if len(img) != sb.Size() {
			t.Fatalf("%v: exported %d bytes, Size %d", f, len(img), sb.Size())
		}
		var back SplitBlock
		check(t, back.UnmarshalBinary(img))
		if !bytes.Equal(back.Bitset(), theirs) {
			t.Fatalf("%v: the exported image's bitset differs", f)
		}
		seen[f.writer+" "+f.kind+" "+f.table()] = true
	}
	for _, w := range []string{"duckdb", "pyarrow"} {
		for _, k := range []string{"int32", "int64", "float", "double", "string", "binary"} {
			for _, tb := range []string{"0.01", "0.05"} {
				if !seen[w+" "+k+" "+tb] {
					t.Errorf("%s %s %s not covered", w, k, tb)
				}
			}
		}
	}
	// pyarrow's c_i64 (told ndv 8192 for 129 values) folds in both files.
	if folded < 2 {
		t.Fatalf("only %d filters folded", folded)
	}
}

// The sizing rules differ on these files, and the binding follows each:
// Arrow C++ rounds the bit count up first (b_i64: ndv 53 at 1% gives 128
// bytes where the parquet crate gives 64), and pyarrow folds an oversized
// filter (c_i64, ndv 8192) down to the size DuckDB picks for the exact count.
func TestParquetSizingRules(t *testing.T) {
	m := readParquetManifest(t)
	get := func(file, column string) *parquetFilter {
		for i := range m.filters {
			if m.filters[i].file == file && m.filters[i].column == column {
				return &m.filters[i]
			}
		}
		t.Fatalf("no filter %s/%s", file, column)
		return nil
	}
	bytesOf := func(ndv uint64, fpp float64, s ParquetSizing) uint64 {
		p, err := PlanSplitBlockParquetSizing(ndv, fpp, s)
		check(t, err)
		return p.Blocks * 32
	}
	for _, tag := range []string{"01", "05"} {
		b := get("pyarrow_fpp"+tag+".parquet", "b_i64")
		n := uint64(len(fileBitset(t, b)))
		if got := bytesOf(b.ndvOption, b.fpp, ParquetSizingArrowCPP); got != n {
			t.Fatalf("b_i64 at %v: Arrow C++ sizing %d bytes, file %d", b.fpp, got, n)
		}
		if got := bytesOf(b.ndvOption, b.fpp, ParquetSizingParquetRS); 2*got != n {
			t.Fatalf("b_i64 at %v: parquet-rs sizing %d bytes, file %d", b.fpp, got, n)
		}
		c := get("pyarrow_fpp"+tag+".parquet", "c_i64")
		d := get("duckdb_fpp"+tag+".parquet", "c_i64")
		cb, db := fileBitset(t, c), fileBitset(t, d)
		if planned := bytesOf(c.ndvOption, c.fpp, ParquetSizingArrowCPP); planned < 32*uint64(len(cb)) {
			t.Fatalf("c_i64: planned %d bytes, written %d: not folded 5 times", planned, len(cb))
		}
		if !bytes.Equal(cb, db) {
			t.Fatal("c_i64: pyarrow's folded filter differs from DuckDB's")
		}
	}
	// The header's example, and parquet-rs sizing is PlanSplitBlockParquet's.
	for s, want := range map[ParquetSizing]uint64{ParquetSizingArrowCPP: 4096, ParquetSizingDuckDB: 2048, ParquetSizingParquetRS: 2048} {
		if got := bytesOf(1693, 0.01, s); got != want {
			t.Fatalf("%v: ndv 1693 at 1%%: %d bytes, want %d", s, got, want)
		}
	}
	for _, ndv := range []uint64{1, 53, 129, 1693, 1 << 20} {
		p, err := PlanSplitBlockParquet(ndv, 0.05)
		check(t, err)
		q, err := PlanSplitBlockParquetSizing(ndv, 0.05, ParquetSizingParquetRS)
		check(t, err)
		if p != q {
			t.Fatalf("ndv %d: %+v != %+v", ndv, p, q)
		}
	}
	if ParquetSizingDuckDB.String() != "duckdb" || ParquetSizing(9).String() != "ParquetSizing(9)" {
		t.Fatal("ParquetSizing.String")
	}
}

// Each writer's bitset loaded into a filter answers every written value
// present and every absent probe exactly as DuckDB's reader did (its false
// positives included, one by one).
func TestParquetLoadedBitsetsAnswerAsTheReader(t *testing.T) {
	m := readParquetManifest(t)
	falsePositives := 0
	for i := range m.filters {
		f := &m.filters[i]
		theirs := fileBitset(t, f)
		sb, err := NewSplitBlockFromParquetBitset(theirs, f.fpp)
		check(t, err)
		st := sb.Stats()
		if !st.Params.Parquet || st.Params.Blocks*32 != uint64(len(theirs)) || st.AddCalls != 0 {
			t.Fatalf("%v: loaded %+v", f, st)
		}
		if got := sb.Bitset(); !bytes.Equal(got, theirs) || &got[0] == &theirs[0] {
			t.Fatalf("%v: the loaded bitset is not a copy of the file's", f)
		}
		key := parquetKey{f.file, f.column}
		values := m.valuesOf(t, f)
		if m.present[key] != [2]int{len(values), len(values)} {
			t.Fatalf("%v: the reader did not find every value: %v", f, m.present[key])
		}
		// DuckDB stores one NaN of the s_ columns: those are checked in
		// TestParquetFloatSpecialValues.
		if !strings.HasPrefix(f.column, "s_") || f.writer == "pyarrow" {
			for _, v := range values {
				if !sb.ContainsHash(typedHash(t, f.kind, v)) {
					t.Fatalf("%v: written value %x absent", f, v)
				}
			}
		}
		probed, ok := m.absent[key]
		if !ok || probed == 0 {
			t.Fatalf("%v: no absent line", f)
		}
		maybe := m.maybe[key]
		for _, v := range absentProbes(f.kind, probed) {
			if got := sb.ContainsHash(typedHash(t, f.kind, v)); got != maybe[string(v)] {
				t.Fatalf("%v: probe %x: ours %v, DuckDB's reader %v", f, v, got, maybe[string(v)])
			}
		}
		for v := range maybe {
			if !sb.ContainsHash(typedHash(t, f.kind, []byte(v))) {
				t.Fatalf("%v: the reader's false positive %x is absent here", f, v)
			}
		}
		falsePositives += len(maybe)
		// A filter holding what it was sized for is within a plan derived
		// from its size and the writer's rate.
		if strings.HasPrefix(f.column, "a_") && sb.OverCapacity() != 0 {
			t.Fatalf("%v: over capacity: %+v", f, sb.Stats())
		}
	}
	if falsePositives <= 50 {
		t.Fatalf("only %d false positives reproduced", falsePositives)
	}
}

// -0.0 and NaN (the s_ columns hold -0.0, NaNs of three bit patterns, 1.5
// and both infinities, no +0.0): writers hash the raw bits. pyarrow stores
// every pattern, DuckDB only the first NaN; the typed float hashes, whose
// values cross into C as float and double, rebuild both.
func TestParquetFloatSpecialValues(t *testing.T) {
	m := readParquetManifest(t)
	checked := 0
	for i := range m.filters {
		f := &m.filters[i]
		if !strings.HasPrefix(f.column, "s_") {
			continue
		}
		theirs := fileBitset(t, f)
		isNaN := func(v []byte) bool {
			if f.kind == "double" {
				return math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(v)))
			}
			return math.IsNaN(float64(math.Float32frombits(binary.LittleEndian.Uint32(v))))
		}
		var stored [][]byte
		firstNaN := true
		for _, v := range m.values[parquetKey{"*", f.column}] {
			if f.writer == "duckdb" && isNaN(v) {
				if !firstNaN {
					continue
				}
				firstNaN = false
			}
			stored = append(stored, v)
		}
		want := f.distinct
		if f.writer == "duckdb" {
			want -= 2
		}
		if len(stored) != want {
			t.Fatalf("%v: %d stored values, want %d", f, len(stored), want)
		}
		p, err := PlanSplitBlockParquetSizing(uint64(len(stored)), f.fpp, ParquetSizingDuckDB)
		check(t, err)
		if p.Blocks != 1 {
			t.Fatalf("%v: %d blocks", f, p.Blocks)
		}
		sb, err := NewSplitBlockWithParams(p)
		check(t, err)
		for _, v := range stored {
			sb.AddHash(typedHash(t, f.kind, v))
		}
		if !bytes.Equal(sb.Bitset(), theirs) {
			t.Fatalf("%v: raw-bits rebuild differs", f)
		}
		loaded, err := NewSplitBlockFromParquetBitset(theirs, f.fpp)
		check(t, err)
		zero := make([]byte, 4)
		if f.kind == "double" {
			zero = make([]byte, 8)
		}
		if loaded.ContainsHash(typedHash(t, f.kind, zero)) {
			t.Fatalf("%v: +0.0 was never written", f)
		}
		says := m.special[parquetKey{f.file, f.column}]
		hasZero := false
		for _, s := range says {
			if !s.maybe {
				t.Fatalf("%v: DuckDB's reader answered no for %x", f, s.value)
			}
			hasZero = hasZero || bytes.Equal(s.value, zero)
		}
		if !hasZero {
			t.Fatalf("%v: +0.0 not probed", f)
		}
		checked++
	}
	if checked != 8 {
		t.Fatalf("%d special filters checked, want 8", checked)
	}
}

// The typed hashes are XXH64 seed 0 of the PLAIN encoding, and a
// Parquet-mode filter's Add of those bytes is its AddHash of that hash.
func TestParquetHashes(t *testing.T) {
	// XXH64 reference values (the algorithm's published test vectors).
	for _, c := range []struct {
		key  string
		seed uint64
		want uint64
	}{
		{"", 0, 0xef46db3751d8e999},
		{"a", 0, 0xd24ec4f1a98c6e5b},
		{"abc", 0, 0x44bc2cf5ad770999},
	} {
		if got := HashXXH64([]byte(c.key), c.seed); got != c.want {
			t.Fatalf("XXH64(%q, %d) = %#x, want %#x", c.key, c.seed, got, c.want)
		}
	}
	if HashXXH64(nil, 0) != HashXXH64([]byte{}, 0) || HashXXH64([]byte("a"), 1) == HashXXH64([]byte("a"), 0) {
		t.Fatal("HashXXH64: nil key or seed")
	}
	le4 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	for _, v := range []int32{0, 1, -1, math.MinInt32, math.MaxInt32, 123456789} {
		if ParquetHashInt32(v) != HashXXH64(le4(uint32(v)), 0) {
			t.Fatalf("ParquetHashInt32(%d)", v)
		}
	}
	for _, v := range []int64{0, -1, math.MinInt64, math.MaxInt64, 9_000_000_000_013} {
		if ParquetHashInt64(v) != HashXXH64(le8(uint64(v)), 0) {
			t.Fatalf("ParquetHashInt64(%d)", v)
		}
	}
	// Raw bits, no normalization: a signaling NaN keeps its payload.
	for _, bits := range []uint32{0, 0x80000000, 0x7fc00000, 0x7f800001, 0xffc00000, 0x3fc00000} {
		if ParquetHashFloat32(math.Float32frombits(bits)) != HashXXH64(le4(bits), 0) {
			t.Fatalf("ParquetHashFloat32(bits %#x)", bits)
		}
	}
	for _, bits := range []uint64{0, 1 << 63, 0x7ff8000000000000, 0x7ff0000000000001, 0x3ff8000000000000} {
		if ParquetHashFloat64(math.Float64frombits(bits)) != HashXXH64(le8(bits), 0) {
			t.Fatalf("ParquetHashFloat64(bits %#x)", bits)
		}
	}
	if ParquetHashFloat64(0) == ParquetHashFloat64(math.Copysign(0, -1)) {
		t.Fatal("+0.0 and -0.0 hash alike")
	}
	for _, v := range [][]byte{nil, {}, []byte("user-1"), {0xfe, 0xed, 0, 0, 0, 0}} {
		if ParquetHashBytes(v) != HashXXH64(v, 0) {
			t.Fatalf("ParquetHashBytes(%x)", v)
		}
	}

	byKey, err := NewSplitBlockParquet(1000, 0.01)
	check(t, err)
	byHash, err := NewSplitBlockParquet(1000, 0.01)
	check(t, err)
	for i := int64(0); i < 500; i++ {
		if byKey.Add(le8(uint64(i*7919))) != byHash.AddHash(ParquetHashInt64(i*7919)) {
			t.Fatalf("key %d: Add and AddHash disagree on new", i)
		}
	}
	if !bytes.Equal(byKey.Bitset(), byHash.Bitset()) {
		t.Fatal("Add(plain) and AddHash(ParquetHash...) set different bits")
	}
	for i := int64(0); i < 500; i++ {
		if !byHash.ContainsHash(ParquetHashInt64(i*7919)) || !byHash.Contains(le8(uint64(i*7919))) {
			t.Fatalf("key %d absent", i)
		}
	}
	if byHash.AddHash(ParquetHashInt64(7919)) {
		t.Fatal("re-adding a hash reported new")
	}
}

// Fold ORs runs of 2^k adjacent blocks in place: the result is the filter
// built directly at the smaller size, every key stays present, and the
// filter is the shorter image everywhere (Size, Stats, Bitset, the export,
// further adds through the refreshed token).
func TestParquetFold(t *testing.T) {
	for _, parquet := range []bool{true, false} {
		const blocks, folds = 64, 3
		big, err := NewSplitBlockWithParams(mustPlanBlocks(t, blocks, parquet))
		check(t, err)
		small, err := NewSplitBlockWithParams(mustPlanBlocks(t, blocks>>folds, parquet))
		check(t, err)
		ks := keys("fold-", 0, 300)
		big.AddStrings(ks)
		small.AddStrings(ks)
		before := append([]byte(nil), big.Bitset()...)
		// Block i of the folded filter is the OR of blocks i*8 .. i*8+7.
		want := make([]byte, len(before)>>folds)
		for i := range want {
			for j := 0; j < 1<<folds; j++ {
				want[i] |= before[(i/32*(1<<folds)+j)*32+i%32]
			}
		}
		check(t, big.Fold(0))
		if !bytes.Equal(big.Bitset(), before) {
			t.Fatal("Fold(0) changed the filter")
		}
		oldTok := big.tok
		check(t, big.Fold(folds))
		tokenFor(t, "folded", FamilySplitBlock, big.img, big.tok)
		if big.tok == oldTok {
			t.Fatal("the token of the folded image is the old one")
		}
		if got := big.Bitset(); !bytes.Equal(got, want) || !bytes.Equal(got, small.Bitset()) {
			t.Fatalf("parquet=%v: folded bitset is not the OR of the blocks, or not the smaller filter's", parquet)
		}
		if big.Size() != small.Size() || big.Stats().Params.Blocks != blocks>>folds {
			t.Fatalf("parquet=%v: Size %d (want %d), %d blocks", parquet, big.Size(), small.Size(), big.Stats().Params.Blocks)
		}
		if err := allTrue("folded", big.ContainsStrings(ks, nil)); err != nil {
			t.Fatal(err)
		}
		// The token follows the new header: single-key calls work.
		big.AddString("after-fold")
		small.AddString("after-fold")
		if !big.ContainsString("after-fold") || !bytes.Equal(big.Bitset(), small.Bitset()) {
			t.Fatal("single-key add after the fold")
		}
		img, err := big.MarshalBinary()
		check(t, err)
		if len(img) != big.Size() {
			t.Fatalf("export of %d bytes, Size %d", len(img), big.Size())
		}
		var back SplitBlock
		check(t, back.UnmarshalBinary(img))
		if !bytes.Equal(back.Bitset(), big.Bitset()) || back.Size() != big.Size() {
			t.Fatal("exported folded image")
		}
		// The fold of a wrapped image: the caller's buffer holds it at its start.
		w, err := WrapSplitBlock(alignedCopy(mustMarshal(t, small), 0))
		check(t, err)
		check(t, w.Fold(2))
		if _, err := WrapSplitBlock(alignedCopy(mustMarshal(t, w), 0)); err != nil {
			t.Fatalf("folded wrapped image: %v", err)
		}
	}
}

// FoldToTargetFPP folds an oversized filter until the estimated rate would
// pass fpp, and not at all when the filter is as full as planned.
func TestParquetFoldToTargetFPP(t *testing.T) {
	over, err := NewSplitBlockParquet(100_000, 0.01)
	check(t, err)
	full, err := NewSplitBlockParquet(1000, 0.01)
	check(t, err)
	for i := int64(0); i < 1000; i++ {
		over.AddHash(ParquetHashInt64(i))
		full.AddHash(ParquetHashInt64(i))
	}
	blocks := over.Stats().Params.Blocks
	k, err := over.FoldToTargetFPP(0.01)
	check(t, err)
	tokenFor(t, "folded to the target", FamilySplitBlock, over.img, over.tok)
	if k < 5 || over.Stats().Params.Blocks != blocks>>k || len(over.Bitset()) != int(blocks>>k)*32 {
		t.Fatalf("%d folds of %d blocks: %d blocks left", k, blocks, over.Stats().Params.Blocks)
	}
	if est := over.Stats().EstimatedFPR; est > 0.01 {
		t.Fatalf("folded past the target: estimated rate %v", est)
	}
	for i := int64(0); i < 1000; i++ {
		if !over.ContainsHash(ParquetHashInt64(i)) {
			t.Fatalf("value %d lost", i)
		}
	}
	size := full.Size()
	if k, err := full.FoldToTargetFPP(0.01); err != nil || k != 0 || full.Size() != size {
		t.Fatalf("a filter as full as planned folded %d times (%v)", k, err)
	}
}

// Bad input gives errors matching the sentinels, and a failed fold changes
// nothing.
func TestParquetBadInput(t *testing.T) {
	for _, n := range []int{0, 1, 31, 33, 48, 100} {
		var b []byte
		if n > 0 {
			b = make([]byte, n)
		}
		if f, err := NewSplitBlockFromParquetBitset(b, 0.01); !errors.Is(err, ErrInvalidArgument) || f != nil {
			t.Fatalf("bitset of %d bytes: %v", n, err)
		}
	}
	if _, err := PlanSplitBlockParquetBitset(-32, 0.01); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("negative length: %v", err)
	}
	for _, fpr := range []float64{math.NaN(), 0, 1, -0.5} {
		if _, err := NewSplitBlockFromParquetBitset(make([]byte, 64), fpr); !errors.Is(err, ErrInvalidParameter) {
			t.Fatalf("fpr %v: %v", fpr, err)
		}
	}
	for _, c := range []struct {
		ndv    uint64
		fpp    float64
		sizing ParquetSizing
	}{
		{0, 0.01, ParquetSizingDuckDB}, {100, math.NaN(), ParquetSizingArrowCPP}, {100, 0, ParquetSizingParquetRS},
		{100, 1, ParquetSizingDuckDB}, {100, 0.01, ParquetSizing(3)},
	} {
		if _, err := PlanSplitBlockParquetSizing(c.ndv, c.fpp, c.sizing); !errors.Is(err, ErrInvalidParameter) {
			t.Fatalf("%+v: %v", c, err)
		}
	}

	// 6 blocks: one fold is possible (to 3), two are not.
	f, err := NewSplitBlockWithParams(mustPlanBlocks(t, 6, true))
	check(t, err)
	for i := int32(0); i < 50; i++ {
		f.AddHash(ParquetHashInt32(i))
	}
	wantErr := func(what string, err error, sentinel error) {
		t.Helper()
		if !errors.Is(err, sentinel) {
			t.Fatalf("%s: %v, want %v", what, err, sentinel)
		}
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(e.Op, "SplitBlock.Fold") {
			t.Fatalf("%s: %#v", what, err)
		}
	}
	img := mustMarshal(t, f)
	size, bitset := f.Size(), append([]byte(nil), f.Bitset()...)
	same := func(what string) {
		t.Helper()
		if f.Size() != size || !bytes.Equal(f.Bitset(), bitset) || !bytes.Equal(mustMarshal(t, f), img) || f.Stats().Params.Blocks != 6 {
			t.Fatalf("%s changed the filter", what)
		}
	}
	err = f.Fold(2)
	wantErr("Fold(2) of 6 blocks", err, ErrInvalidArgument)
	same("Fold(2)")
	for _, k := range []uint32{3, 4, 63, 64, 1 << 31} {
		wantErr("Fold("+strconv.Itoa(int(k))+")", f.Fold(k), ErrInvalidArgument)
		same("Fold")
	}
	_, err = f.FoldToTargetFPP(math.NaN())
	wantErr("FoldToTargetFPP(NaN)", err, ErrInvalidParameter)
	same("FoldToTargetFPP(NaN)")
	// A rate outside (0, 1), which the planners refuse, is refused here too:
	// FoldToTargetFPP(1) (1 meant as 1%) folded the filter to one block,
	// all ones, rate 1, with no error and no way back.
	for _, fpp := range []float64{1, 5, 100, math.Inf(1), 0, -0.01, math.Inf(-1)} {
		k, err := f.FoldToTargetFPP(fpp)
		wantErr("FoldToTargetFPP("+strconv.FormatFloat(fpp, 'g', -1, 64)+")", err, ErrInvalidParameter)
		if k != 0 {
			t.Fatalf("FoldToTargetFPP(%v) reported %d folds", fpp, k)
		}
		same("FoldToTargetFPP out of (0, 1)")
	}

	if err := f.Fold(1); err != nil || f.Stats().Params.Blocks != 3 || len(f.Bitset()) != 96 {
		t.Fatalf("Fold(1) of 6 blocks: %v", err)
	}
	tokenFor(t, "6 blocks folded to 3", FamilySplitBlock, f.img, f.tok)
	for i := int32(0); i < 50; i++ {
		if !f.ContainsHash(ParquetHashInt32(i)) {
			t.Fatalf("value %d lost", i)
		}
	}
	size3, bits3 := f.Size(), append([]byte(nil), f.Bitset()...)
	if err := f.Fold(1); !errors.Is(err, ErrInvalidArgument) || f.Size() != size3 || !bytes.Equal(f.Bitset(), bits3) {
		t.Fatalf("Fold(1) of 3 blocks: %v", err)
	}

	// A zero value reports an error instead of panicking.
	var z SplitBlock
	if err := z.Fold(1); err == nil {
		t.Fatal("Fold of a zero value")
	}
	if _, err := z.FoldToTargetFPP(0.01); err == nil {
		t.Fatal("FoldToTargetFPP of a zero value")
	}
}

func mustPlanBlocks(t testing.TB, blocks uint64, parquet bool) SplitBlockParams {
	t.Helper()
	p, err := PlanSplitBlockBlocks(blocks, parquet)
	check(t, err)
	return p
}

func mustMarshal(t testing.TB, f *SplitBlock) []byte {
	t.Helper()
	b, err := f.MarshalBinary()
	check(t, err)
	return b
}

// Hash and HashUint64 are the keys' canonical hashes: a native-mode filter
// given them through AddHash holds the same bits as one given the keys.
func TestCanonicalHashesFeedNativeAddHash(t *testing.T) {
	if got := Hash(nil, 0); got != 0x2d06800538d394c2 { // XXH3-64 of the empty input (published vector)
		t.Fatalf("Hash(empty) = %#x", got)
	}
	if Hash([]byte("k"), 1) == Hash([]byte("k"), 2) || HashUint64(5, 3) != Hash(le8(5), 3) {
		t.Fatal("Hash: seed or integer form")
	}
	byKey, err := NewSplitBlock(1000, 0.01, WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	byHash, _ := NewSplitBlock(1000, 0.01, WithSeed(7))
	byBatch, _ := NewSplitBlock(1000, 0.01, WithSeed(7))
	var hashes []uint64
	for i := uint64(0); i < 300; i++ {
		byKey.Add([]byte(fmt.Sprint("key-", i)))
		byHash.AddHash(Hash([]byte(fmt.Sprint("key-", i)), 7))
		byKey.AddUint64(i)
		byHash.AddHash(HashUint64(i, 7))
		hashes = append(hashes, Hash([]byte(fmt.Sprint("key-", i)), 7), HashUint64(i, 7))
	}
	byBatch.AddHashes(hashes)
	byBatch.AddHashes(nil)
	a, _ := byKey.MarshalBinary()
	b, _ := byHash.MarshalBinary()
	c, _ := byBatch.MarshalBinary()
	if !bytes.Equal(a, b) || !bytes.Equal(a, c) {
		t.Fatal("AddHash(Hash(key, seed)) / AddHashes set other bits than Add(key)")
	}
	probes := append([]uint64{Hash([]byte("absent-1"), 7), Hash([]byte("absent-2"), 7)}, hashes[:10]...)
	got := byBatch.ContainsHashes(probes, make([]bool, 0, 4))
	for i, h := range probes {
		if got[i] != byBatch.ContainsHash(h) || (i >= 2 && !got[i]) {
			t.Fatalf("ContainsHashes[%d] = %v", i, got[i])
		}
	}
	if len(byBatch.ContainsHashes(nil, nil)) != 0 {
		t.Fatal("ContainsHashes(nil)")
	}
	var zero SplitBlock
	if err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%v", r)
			}
		}()
		zero.AddHashes(hashes)
		return nil
	}(); err == nil {
		t.Fatal("AddHashes on a zero value did not fail")
	}
	if !byKey.ContainsHash(Hash([]byte("key-9"), 7)) || !byHash.Contains([]byte("key-9")) {
		t.Fatal("ContainsHash / Contains disagree")
	}
}

// The negative zero the float hash docs tell a Go user to write
// (math.Copysign(0, -1); the constant -0.0 is +0 in Go) is the one writers
// store, 0x80000000 / 0x8000000000000000.
func TestParquetNegativeZeroSpelling(t *testing.T) {
	negZero := -0.0 // a constant: +0
	if ParquetHashFloat64(negZero) != ParquetHashFloat64(0) {
		t.Fatal("the constant -0.0 is not +0 (the doc note is wrong)")
	}
	if ParquetHashFloat64(math.Copysign(0, -1)) != HashXXH64(le8(1<<63), 0) ||
		ParquetHashFloat32(float32(math.Copysign(0, -1))) != HashXXH64([]byte{0, 0, 0, 0x80}, 0) {
		t.Fatal("math.Copysign(0, -1) does not hash as the bits of -0.0")
	}
}

// The key-type trap the SplitBlock integer docs warn about: a writer's
// filter of an INT32 column holds XXH64 of 4-byte values, so
// ContainsUint64(uint64(v)) (8 bytes: an INT64 value) misses values the
// column holds, while ContainsHash(ParquetHashInt32(v)) finds them; for an
// INT64 column ContainsUint64 and ParquetHashInt64 agree.
func TestParquetInt32ColumnNeedsTheInt32Hash(t *testing.T) {
	int32Col, err := NewSplitBlockParquet(1000, 0.01)
	check(t, err)
	int64Col, err := NewSplitBlockParquet(1000, 0.01)
	check(t, err)
	for v := int32(0); v < 500; v++ {
		int32Col.AddHash(ParquetHashInt32(v))
		int64Col.AddHash(ParquetHashInt64(int64(v)))
	}
	missed := 0
	for v := int32(0); v < 500; v++ {
		if !int32Col.ContainsHash(ParquetHashInt32(v)) || !int64Col.ContainsUint64(uint64(v)) {
			t.Fatalf("value %d: the typed hash or the INT64 key missed it", v)
		}
		if !int32Col.ContainsUint64(uint64(v)) {
			missed++
		}
	}
	if missed < 450 { // all but false positives
		t.Fatalf("ContainsUint64 on an INT32 column found %d of 500 values: not the trap the docs describe", 500-missed)
	}
}

// OverCapacity on a filter loaded from a Parquet bitset reads the blocks
// (the counters start at 0), which is why its doc says it scans: an
// all-ones bitset is over capacity with no add counted, an empty one is
// not, and a few adds do not change the answer the blocks give.
func TestParquetLoadedOverCapacityReadsTheBlocks(t *testing.T) {
	ones := bytes.Repeat([]byte{0xff}, 4096)
	full, err := NewSplitBlockFromParquetBitset(ones, 0.01)
	check(t, err)
	if full.Stats().AddCalls != 0 || full.OverCapacity()&FPRAboveTwicePlanned == 0 {
		t.Fatalf("all-ones bitset: %v, %+v", full.OverCapacity(), full.Stats())
	}
	empty, err := NewSplitBlockFromParquetBitset(make([]byte, 4096), 0.01)
	check(t, err)
	empty.AddHash(ParquetHashInt64(1))
	if empty.OverCapacity() != 0 {
		t.Fatalf("empty bitset: %v", empty.OverCapacity())
	}
}

// A wrapped filter folded in place: the image is the first Size bytes of
// the buffer, which verify once MarshalBinary's bytes are copied over them,
// while the whole buffer (a file not cut to Size) is a length mismatch, as
// Fold's doc says.
func TestParquetFoldWrappedBuffer(t *testing.T) {
	f, err := NewSplitBlockParquet(10000, 0.01)
	check(t, err)
	mem := alignedCopy(marshal(t, f), 0)
	w, err := WrapSplitBlock(mem)
	check(t, err)
	for i := int64(0); i < 100; i++ {
		w.AddHash(ParquetHashInt64(i))
	}
	check(t, w.Fold(2))
	copy(mem, marshal(t, w))
	check(t, Verify(mem[:w.Size()]))
	var e *Error
	if err := Verify(mem); !errors.As(err, &e) || e.Code != StatusLengthMismatch {
		t.Fatalf("the whole buffer after a fold: %v", err)
	}
	var g SplitBlock
	check(t, g.UnmarshalBinary(mem[:w.Size()]))
	for i := int64(0); i < 100; i++ {
		if !g.ContainsHash(ParquetHashInt64(i)) {
			t.Fatal("lost", i)
		}
	}
}
