//! Parquet interop: our split-block filter in Parquet mode is byte-identical
//! to the bloom filter bitsets a real Parquet writer (the parquet crate,
//! see tests/parquet/generator) stored in tests/parquet/fixture.parquet, and
//! answers exactly as the Parquet reader did for present and absent values.

use sketches_core::sbbf::{self, SbbfMode, SbbfParams};
use sketches_tests::workspace;
use std::collections::{HashMap, HashSet};

const ROWS: i64 = 5000;

fn id(i: i64) -> i64 {
    i.wrapping_mul(7919) - 1_000_000
}

fn name(i: i64) -> String {
    format!("user-{i}")
}

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

struct Manifest {
    ndv: u64,
    fpp: f64,
    filters: HashMap<String, (usize, usize)>,
    present_maybe: HashMap<String, i64>,
    absent_maybe: HashMap<String, HashSet<i64>>,
}

fn manifest() -> Manifest {
    let text = std::fs::read_to_string(workspace().join("tests/parquet/fixture.manifest")).unwrap();
    let mut m = Manifest {
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
fn parquet_mode_is_byte_identical_to_a_parquet_writer() {
    let m = manifest();
    let file = std::fs::read(workspace().join("tests/parquet/fixture.parquet")).unwrap();
    for column in ["id", "name"] {
        let (offset, length) = m.filters[column];
        let region = &file[offset..offset + length];
        let num_bytes = parse_num_bytes(region);
        let bitset = &region[length - num_bytes..];

        // Sized exactly as the writer sized it from its NDV and FPP settings.
        let params = SbbfParams::for_parquet(m.ndv, m.fpp).unwrap();
        assert_eq!(params.mode, SbbfMode::Parquet);
        assert_eq!(params.blocks as usize * 32, num_bytes, "{column}: bitset size");
        let len = params.image_len().unwrap() as usize;
        let mut storage = vec![0u8; len + 64];
        let off = storage.as_ptr().align_offset(64);
        let image = &mut storage[off..off + len];
        let mut f = sbbf::init(image, &params, 0).unwrap();
        for i in 0..ROWS {
            match column {
                "id" => f.add(&id(i).to_le_bytes()), // INT64 plain encoding
                _ => f.add(name(i).as_bytes()),      // BYTE_ARRAY without length prefix
            };
        }
        let view = f.as_ref();
        assert!(view.body() == bitset, "{column}: bitset differs from the Parquet writer's");

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
