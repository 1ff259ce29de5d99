//! Splices bloom filters built by sketches-core into a copy of a Parquet
//! file written by another writer, through the parquet crate's public
//! `SerializedRowGroupWriter::append_column` (the column chunks are copied
//! as they are; no byte of the file is edited by hand), and writes our own
//! answers for probes, so that tests/parquet/splice.py can ask the writer's
//! reader (DuckDB) the same questions about the new file.
//!
//! usage: splice IN.parquet OUT.parquet ANSWERS.txt FPP COLUMN...
//! (COLUMN: a_i64 or a_str; values from tests/parquet/writers.manifest)
use parquet::bloom_filter::Sbbf;
use parquet::column::writer::ColumnCloseResult;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use sketches_core::parquet as pq;
use sketches_core::sbbf::{self, SbbfParams};
use std::fmt::Write as _;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (input, output, answers, fpp) = (&args[1], &args[2], &args[3], args[4].parse::<f64>()?);
    let columns = &args[5..];
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../writers.manifest"))?;
    let values = |col: &str| -> Vec<Vec<u8>> {
        let line = manifest.lines().find(|l| l.starts_with(&format!("values * {col} "))).expect("values line");
        line.rsplit(' ').next().unwrap().split(',').map(hex).collect()
    };

    let source = File::open(input)?;
    let reader = SerializedFileReader::new(source.try_clone()?)?;
    let meta = reader.metadata();
    let schema = meta.file_metadata().schema_descr().root_schema_ptr();
    let props = Arc::new(WriterProperties::builder().build());
    let mut writer = SerializedFileWriter::new(File::create(output)?, schema, props)?;
    let mut out = String::new();
    for rg in meta.row_groups() {
        let mut group = writer.next_row_group()?;
        for cc in rg.columns() {
            let name = cc.column_path().string();
            let mut bloom = None;
            if columns.contains(&name) {
                // Our filter, deliberately not the writer's: planned for 10x
                // the values at a 20x lower rate, so it differs in size too.
                let vals = values(&name);
                let hash = |v: &[u8]| if name.ends_with("i64") { pq::hash_i64(i64::from_le_bytes(v.try_into().unwrap())) } else { pq::hash_bytes(v) };
                let params = SbbfParams::for_parquet(10 * vals.len() as u64, fpp / 20.0)?;
                let mut buf = vec![0u8; params.image_len()? as usize + 64];
                let off = buf.as_ptr().align_offset(64);
                let image = &mut buf[off..];
                let mut f = sbbf::init(image, &params, 0)?;
                for v in &vals {
                    f.add_hash(hash(v));
                }
                let view = sbbf::wrap(image)?;
                writeln!(out, "filter {name} {}", view.bitset().len())?;
                let absent: Vec<Vec<u8>> = (0..400u64)
                    .map(|i| if name.ends_with("i64") { (9_000_000_000_000i64 + 13 * i as i64).to_le_bytes().to_vec() } else { format!("absent-{i}").into_bytes() })
                    .collect();
                for v in vals.iter().chain(&absent) {
                    writeln!(out, "probe {name} {} {}", v.iter().map(|b| format!("{b:02x}")).collect::<String>(), u8::from(view.contains_hash(hash(v))))?;
                }
                bloom = Some(Sbbf::new(view.bitset()));
            }
            let close = ColumnCloseResult {
                bytes_written: cc.compressed_size() as u64,
                rows_written: rg.num_rows() as u64,
                metadata: cc.clone(),
                bloom_filter: bloom,
                column_index: None,
                offset_index: None,
            };
            group.append_column(&source, close)?;
        }
        group.close()?;
    }
    writer.close()?;
    std::fs::write(answers, out)?;
    Ok(())
}
