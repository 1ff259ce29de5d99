//! Parquet interop against real writers.
//!
//! * `tests/parquet/fixture.parquet` (the parquet crate 60.1.0, see
//!   `tests/parquet/generator`): an INT64 and a BYTE_ARRAY column, answers
//!   from the crate's own reader.
//! * `tests/parquet/{duckdb,pyarrow}_fpp{01,05}.parquet` (DuckDB 2.0.1 and
//!   pyarrow 26.0.1, see `tests/parquet/generate.py` and
//!   `writers.manifest`): int32, int64, float, double, string and binary
//!   columns at two fpp values, answers from DuckDB's reader
//!   (`parquet_bloom_probe`) for both writers' files.
//!
//! For every filter: our planner (with the writer's sizing rule and, for
//! writers that fold, the same fold) plus our typed value hashing rebuild the
//! writer's bitset byte for byte, and the bitset loaded into a live image
//! answers every written value present and every probe as the reader did.

use sketches_core::parquet::{self, ParquetSizing};
use sketches_core::sbbf::{self, SbbfMode, SbbfParams};
use sketches_tests::workspace;
use std::collections::{HashMap, HashSet};

/// Reads the first field of a Thrift-compact `BloomFilterHeader`
/// (field 1, i32 `numBytes`, zigzag varint); the bitset is the last
/// `numBytes` bytes of the filter region.
fn parse_num_bytes(bytes: &[u8]) -> usize {
    assert_eq!(bytes[0], 0x15, "field 1 of type i32 expected");
    let (mut value, mut shift, mut at) = (0u64, 0, 1);
    loop {
        let b = bytes[at];
        value |= u64::from(b & 0x7f) << shift;
        at += 1;
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    ((value >> 1) as i64 ^ -((value & 1) as i64)) as usize
}

/// The bitset of the filter stored at `offset..offset + length`.
fn bitset(file: &[u8], offset: usize, length: usize) -> &[u8] {
    let region = &file[offset..offset + length];
    let num_bytes = parse_num_bytes(region);
    &region[length - num_bytes..]
}

/// A live image buffer, 64-byte aligned.
fn aligned(len: usize) -> (Vec<u8>, usize) {
    let storage = vec![0u8; len + 64];
    let off = storage.as_ptr().align_offset(64);
    (storage, off)
}

// ---------------------------------------------------------------------------
// The parquet crate's fixture.

const ROWS: i64 = 5000;

fn id(i: i64) -> i64 {
    i.wrapping_mul(7919) - 1_000_000
}

fn name(i: i64) -> String {
    format!("user-{i}")
}

struct CrateManifest {
    ndv: u64,
    fpp: f64,
    filters: HashMap<String, (usize, usize)>,
    present_maybe: HashMap<String, i64>,
    absent_maybe: HashMap<String, HashSet<i64>>,
}

fn crate_manifest() -> CrateManifest {
    let text = std::fs::read_to_string(workspace().join("tests/parquet/fixture.manifest")).unwrap();
    let mut m = CrateManifest {
        ndv: 0,
        fpp: 0.0,
        filters: HashMap::new(),
        present_maybe: HashMap::new(),
        absent_maybe: HashMap::new(),
    };
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        match f[0] {
            "ndv" => m.ndv = f[1].parse().unwrap(),
            "fpp" => m.fpp = f[1].parse().unwrap(),
            "filter" => {
                m.filters.insert(f[1].into(), (f[2].parse().unwrap(), f[3].parse().unwrap()));
            }
            "present_maybe" => {
                m.present_maybe.insert(f[1].into(), f[2].parse().unwrap());
            }
            "absent_maybe" => {
                let set =
                    f.get(2).map(|s| s.split(',').filter(|x| !x.is_empty()).map(|x| x.parse().unwrap()));
                m.absent_maybe.insert(f[1].into(), set.into_iter().flatten().collect());
            }
            _ => {}
        }
    }
    m
}

#[test]
fn parquet_mode_is_byte_identical_to_the_parquet_crate() {
    let m = crate_manifest();
    let file = std::fs::read(workspace().join("tests/parquet/fixture.parquet")).unwrap();
    for column in ["id", "name"] {
        let (offset, length) = m.filters[column];
        let bitset = bitset(&file, offset, length);

        // Sized as the writer sized it from its NDV and FPP settings, then
        // folded as it folds before writing (here: not at all, the filter
        // holds as many values as planned).
        let params = SbbfParams::for_parquet(m.ndv, m.fpp).unwrap();
        assert_eq!(params.mode, SbbfMode::Parquet);
        let len = params.image_len().unwrap() as usize;
        let (mut storage, off) = aligned(len);
        let image = &mut storage[off..off + len];
        let mut f = sbbf::init(image, &params, 0).unwrap();
        for i in 0..ROWS {
            match column {
                "id" => f.add_hash(parquet::hash_i64(id(i))), // INT64 plain encoding
                _ => f.add_hash(parquet::hash_bytes(name(i).as_bytes())), // BYTE_ARRAY, no length prefix
            };
        }
        assert_eq!(sbbf::fold_to_target_fpp(image, m.fpp), Ok(0));
        let view = sbbf::wrap(image).unwrap();
        assert_eq!(view.params().blocks as usize * 32, bitset.len(), "{column}: bitset size");
        assert!(view.bitset() == bitset, "{column}: bitset differs from the Parquet writer's");

        // Same answers as the Parquet reader.
        let contains = |i: i64| match column {
            "id" => view.contains(&id(i).to_le_bytes()),
            _ => view.contains(name(i).as_bytes()),
        };
        assert_eq!((0..ROWS).filter(|i| contains(*i)).count() as i64, m.present_maybe[column]);
        let ours: HashSet<i64> = (ROWS..ROWS + 20_000).filter(|i| contains(*i)).collect();
        assert_eq!(ours, m.absent_maybe[column], "{column}: absent-value answers differ");
        assert!(!ours.is_empty() && ours.len() < 600, "{column}: {} false positives", ours.len());
    }
}

// ---------------------------------------------------------------------------
// DuckDB and pyarrow.

#[derive(Debug)]
struct Filter {
    file: String,
    writer: String,
    fpp: f64,
    column: String,
    kind: String,
    offset: usize,
    length: usize,
    ndv_option: Option<u64>,
    distinct: usize,
}

/// (file or table, column).
type Key = (String, String);

#[derive(Default)]
struct Manifest {
    filters: Vec<Filter>,
    /// (fpp or "*", column) -> distinct PLAIN values in first-seen order.
    values: HashMap<Key, Vec<Vec<u8>>>,
    /// (file, column) -> (maybe count, probed)
    present: HashMap<Key, (usize, usize)>,
    /// (file, column) -> (probed, the absent probes answered maybe)
    absent: HashMap<Key, (usize, HashSet<Vec<u8>>)>,
    /// (file, column) -> [(value, maybe)]
    special: HashMap<Key, Vec<(Vec<u8>, bool)>>,
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn hex_list(s: Option<&&str>) -> Vec<Vec<u8>> {
    s.map(|s| s.split(',').filter(|x| !x.is_empty()).map(hex).collect()).unwrap_or_default()
}

fn manifest() -> Manifest {
    let text = std::fs::read_to_string(workspace().join("tests/parquet/writers.manifest")).unwrap();
    let mut m = Manifest::default();
    let mut files: HashMap<String, (String, f64)> = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        let key = || (f[1].to_string(), f[2].to_string());
        match f[0] {
            "file" => {
                files.insert(f[1].into(), (f[2].into(), f[3].parse().unwrap()));
            }
            "filter" => {
                let (writer, fpp) = files[f[1]].clone();
                m.filters.push(Filter {
                    file: f[1].into(),
                    writer,
                    fpp,
                    column: f[2].into(),
                    kind: f[3].into(),
                    offset: f[4].parse().unwrap(),
                    length: f[5].parse().unwrap(),
                    ndv_option: f[6].parse().ok(),
                    distinct: f[7].parse().unwrap(),
                });
            }
            "values" => {
                m.values.insert(key(), hex_list(f.get(3)));
            }
            "present" => {
                m.present.insert(key(), (f[3].parse().unwrap(), f[4].parse().unwrap()));
            }
            "absent" => {
                m.absent.insert(key(), (f[3].parse().unwrap(), hex_list(f.get(4)).into_iter().collect()));
            }
            "special" => {
                m.special.entry(key()).or_default().push((hex(f[3]), f[4] == "1"));
            }
            other => panic!("unknown manifest line {other}"),
        }
    }
    m
}

/// Hash of a PLAIN-encoded value of Parquet type `kind`, through the typed
/// helpers (decoding first), as a user holding typed values would call them.
fn typed_hash(kind: &str, plain: &[u8]) -> u64 {
    match kind {
        "int32" => parquet::hash_i32(i32::from_le_bytes(plain.try_into().unwrap())),
        "int64" => parquet::hash_i64(i64::from_le_bytes(plain.try_into().unwrap())),
        "float" => parquet::hash_f32(f32::from_bits(u32::from_le_bytes(plain.try_into().unwrap()))),
        "double" => parquet::hash_f64(f64::from_bits(u64::from_le_bytes(plain.try_into().unwrap()))),
        "string" | "binary" => parquet::hash_bytes(plain),
        _ => panic!("type {kind}"),
    }
}

/// The probes `generate.py` sent for absent values (its `absent_probes`).
fn absent_probes(kind: &str, count: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|i| match kind {
            "int32" => (2_000_000 + 13 * i as i32).to_le_bytes().to_vec(),
            "int64" => (9_000_000_000_000 + 13 * i as i64).to_le_bytes().to_vec(),
            "float" => (1.0e6f32 + 0.5 * i as f32).to_le_bytes().to_vec(),
            "double" => (1.0e9f64 + 0.25 * i as f64).to_le_bytes().to_vec(),
            "string" => format!("absent-{i}").into_bytes(),
            _ => [&[0xfe, 0xed][..], &(i as u32).to_le_bytes()].concat(),
        })
        .collect()
}

/// Our rebuild of a writer's filter: plan with its sizing rule, add the
/// distinct values with the typed hashes, fold as it folds.
fn rebuild(f: &Filter, values: &[Vec<u8>]) -> Vec<u8> {
    let params = match f.writer.as_str() {
        // DuckDB sizes from the chunk's dictionary (the exact distinct count) and does not fold.
        "duckdb" => SbbfParams::for_parquet_sizing(f.distinct as u64, f.fpp, ParquetSizing::DuckDb).unwrap(),
        // pyarrow sizes from its ndv option with Arrow C++'s rule, then folds.
        _ => SbbfParams::for_parquet_sizing(f.ndv_option.unwrap(), f.fpp, ParquetSizing::ArrowCpp).unwrap(),
    };
    let len = params.image_len().unwrap() as usize;
    let (mut storage, off) = aligned(len);
    let image = &mut storage[off..off + len];
    let mut sb = sbbf::init(image, &params, 0).unwrap();
    for v in values {
        sb.add_hash(typed_hash(&f.kind, v));
    }
    let folds = sbbf::fold_to_target_fpp(image, f.fpp).unwrap();
    if f.writer == "duckdb" {
        // The rule would not fold these either: sized from the exact count.
        assert_eq!(folds, 0, "{}/{}", f.file, f.column);
    }
    sbbf::wrap(image).unwrap().bitset().to_vec()
}

#[test]
fn duckdb_and_pyarrow_bitsets_are_rebuilt_byte_for_byte() {
    let m = manifest();
    let mut seen = HashSet::new();
    for f in &m.filters {
        let file = std::fs::read(workspace().join("tests/parquet").join(&f.file)).unwrap();
        let theirs = bitset(&file, f.offset, f.length);
        let table = if f.fpp == 0.01 { "0.01" } else { "0.05" };
        let values = m
            .values
            .get(&("*".into(), f.column.clone()))
            .or_else(|| m.values.get(&(table.into(), f.column.clone())))
            .unwrap();
        assert_eq!(values.len(), f.distinct, "{}/{}", f.file, f.column);
        if f.column.starts_with("s_") {
            continue; // what writers do with -0.0 and NaN: next test
        }
        let ours = rebuild(f, values);
        assert_eq!(ours.len(), theirs.len(), "{}/{}: size", f.file, f.column);
        assert!(ours == theirs, "{}/{}: bitset differs", f.file, f.column);
        seen.insert((f.writer.clone(), f.kind.clone(), table));
    }
    for writer in ["duckdb", "pyarrow"] {
        for kind in ["int32", "int64", "float", "double", "string", "binary"] {
            for table in ["0.01", "0.05"] {
                assert!(
                    seen.contains(&(writer.into(), kind.into(), table)),
                    "{writer} {kind} {table} not covered"
                );
            }
        }
    }
}

/// The sizing rules make a difference on these files: Arrow C++ rounds the
/// bit count up to a power of two (b_i64: told ndv 53 at 1% it plans
/// 128 bytes where the parquet crate plans 64, and pyarrow, holding 106
/// values, does not fold), and pyarrow folds an oversized filter (c_i64:
/// told ndv 8192) down to the size DuckDB chose from the exact count.
#[test]
fn writers_size_differently_and_our_options_follow() {
    let m = manifest();
    let get = |file: &str, col: &str| m.filters.iter().find(|f| f.file == file && f.column == col).unwrap();
    let file = |name: &str| std::fs::read(workspace().join("tests/parquet").join(name)).unwrap();
    for (tag, fpp) in [("01", 0.01), ("05", 0.05)] {
        let b = get(&format!("pyarrow_fpp{tag}.parquet"), "b_i64");
        let ndv = b.ndv_option.unwrap();
        let bytes = bitset(&file(&b.file), b.offset, b.length).len() as u64;
        assert_eq!(bytes, ParquetSizing::ArrowCpp.bitset_bytes(ndv, fpp).unwrap());
        assert_eq!(bytes, 2 * ParquetSizing::ParquetRs.bitset_bytes(ndv, fpp).unwrap());

        let c = get(&format!("pyarrow_fpp{tag}.parquet"), "c_i64");
        let d = get(&format!("duckdb_fpp{tag}.parquet"), "c_i64");
        let planned = ParquetSizing::ArrowCpp.bitset_bytes(c.ndv_option.unwrap(), fpp).unwrap();
        let c_bits = file(&c.file);
        let d_bits = file(&d.file);
        let (c_bits, d_bits) = (bitset(&c_bits, c.offset, c.length), bitset(&d_bits, d.offset, d.length));
        assert!(planned >= 32 * c_bits.len() as u64, "folded at least 5 times");
        assert_eq!(c_bits, d_bits, "folding equals sizing for the exact count");
    }
}

/// Loading each writer's bitset gives an image that answers every written
/// value present and every absent probe as DuckDB's reader did, and whose
/// capacity signal follows the fill.
#[test]
fn loaded_bitsets_answer_as_the_readers() {
    let m = manifest();
    let mut false_positives = 0;
    for f in &m.filters {
        let file = std::fs::read(workspace().join("tests/parquet").join(&f.file)).unwrap();
        let theirs = bitset(&file, f.offset, f.length);
        let params = SbbfParams::for_parquet_bitset(theirs.len(), f.fpp).unwrap();
        let len = params.image_len().unwrap() as usize;
        let (mut storage, off) = aligned(len);
        let image = &mut storage[off..off + len];
        let view = sbbf::load_parquet_bitset(image, theirs, &params).unwrap().as_ref().bitset().len();
        assert_eq!(view, theirs.len());
        let view = sbbf::wrap(image).unwrap();
        assert!(view.is_loaded());
        let key = (f.file.clone(), f.column.clone());
        let table = if f.fpp == 0.01 { "0.01" } else { "0.05" };
        let values = m
            .values
            .get(&("*".into(), f.column.clone()))
            .or_else(|| m.values.get(&(table.into(), f.column.clone())))
            .unwrap();
        if !f.column.starts_with("s_") {
            assert!(values.iter().all(|v| view.contains_hash(typed_hash(&f.kind, v))), "{key:?}");
        }
        assert_eq!(m.present[&key], (values.len(), values.len()), "{key:?}: the reader finds every value");
        let (probed, maybe) = &m.absent[&key];
        for v in absent_probes(&f.kind, *probed) {
            assert_eq!(view.contains_hash(typed_hash(&f.kind, &v)), maybe.contains(&v), "{key:?} {v:02x?}");
        }
        false_positives += maybe.len();
        // A filter holding what it was sized for is within a plan derived
        // from its size and the writer's rate (the b_i64 columns, holding
        // twice pyarrow's ndv, may not be).
        if f.column.starts_with("a_") {
            assert!(view.capacity().is_within_plan(), "{key:?}: {:?}", view.stats());
        }
    }
    // The reader's false positives are reproduced one by one, not just absent.
    assert!(false_positives > 50, "{false_positives}");
}

/// What writers do with -0.0 and NaN, checked on the bitsets themselves (the
/// s_* columns hold -0.0, NaNs of three bit patterns, 1.5 and both
/// infinities, no +0.0): both hash the raw IEEE bits of what they store, no
/// normalization (so our typed hashes, which do not normalize, rebuild both
/// byte for byte). pyarrow stores every bit pattern; DuckDB stores one value
/// per DuckDB-equal class, and all NaNs are equal to DuckDB: only the first
/// NaN seen (here the canonical quiet NaN) is in its filter. DuckDB's reader
/// answers "maybe" for +0.0 although only -0.0 was written, and for every
/// NaN pattern: it normalizes its probes, so a reader of ours that wants the
/// same answer for 0.0 must test both zeros.
#[test]
fn float_special_values() {
    let m = manifest();
    let mut checked = 0;
    for f in m.filters.iter().filter(|f| f.column.starts_with("s_")) {
        let file = std::fs::read(workspace().join("tests/parquet").join(&f.file)).unwrap();
        let theirs = bitset(&file, f.offset, f.length);
        let values = &m.values[&("*".into(), f.column.clone())];
        let is_nan = |v: &Vec<u8>| match f.kind.as_str() {
            "double" => f64::from_le_bytes(v[..].try_into().unwrap()).is_nan(),
            _ => f32::from_le_bytes(v[..].try_into().unwrap()).is_nan(),
        };
        let stored: Vec<Vec<u8>> = match f.writer.as_str() {
            "pyarrow" => values.clone(),
            _ => {
                let first_nan = values.iter().position(is_nan).unwrap();
                values
                    .iter()
                    .enumerate()
                    .filter(|(i, v)| !is_nan(v) || *i == first_nan)
                    .map(|(_, v)| v.clone())
                    .collect()
            }
        };
        assert_eq!(
            stored.len(),
            f.distinct - usize::from(f.writer == "duckdb") * 2,
            "{}/{}",
            f.file,
            f.column
        );
        // The filter is one block: no folding question, the sizes agree.
        let params =
            SbbfParams::for_parquet_sizing(stored.len() as u64, f.fpp, ParquetSizing::DuckDb).unwrap();
        assert_eq!(params.blocks, 1);
        let len = params.image_len().unwrap() as usize;
        let (mut storage, off) = aligned(len);
        let image = &mut storage[off..off + len];
        let mut sb = sbbf::init(image, &params, 0).unwrap();
        for v in &stored {
            sb.add_hash(typed_hash(&f.kind, v));
        }
        assert!(sb.as_ref().bitset() == theirs, "{}/{}: raw-bits rebuild differs", f.file, f.column);

        let zero = if f.kind == "double" { 0f64.to_le_bytes().to_vec() } else { 0f32.to_le_bytes().to_vec() };
        let loaded_params = SbbfParams::for_parquet_bitset(theirs.len(), f.fpp).unwrap();
        let mut storage2 = aligned(len);
        let image2 = &mut storage2.0[storage2.1..storage2.1 + len];
        let view = sbbf::load_parquet_bitset(image2, theirs, &loaded_params).unwrap();
        assert!(!view.as_ref().contains_hash(typed_hash(&f.kind, &zero)), "+0.0 was never written");
        let duckdb_says = &m.special[&(f.file.clone(), f.column.clone())];
        assert!(
            duckdb_says.iter().all(|(_, maybe)| *maybe),
            "DuckDB's reader: maybe for every special probe"
        );
        assert!(duckdb_says.iter().any(|(v, _)| *v == zero));
        checked += 1;
    }
    assert_eq!(checked, 8);
}
