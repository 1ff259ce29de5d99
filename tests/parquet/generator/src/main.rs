//! Writes a Parquet file with bloom filters on an INT64 and a BYTE_ARRAY
//! column using the parquet crate's writer, then records, from the crate's
//! own reader: where each column's bloom filter lies in the file, the
//! writer's NDV/FPP settings, and the reader's answers for present and
//! absent values. sketches' tests rebuild the bitsets and compare.
use parquet::basic::Compression;
use parquet::column::writer::ColumnWriter;
use parquet::data_type::ByteArray;
use parquet::file::properties::{ReaderProperties, WriterProperties};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::serialized_reader::ReadOptionsBuilder;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::fmt::Write as _;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

const ROWS: i64 = 5000;
const NDV: u64 = 5000;
const FPP: f64 = 0.01;

fn id(i: i64) -> i64 {
    i.wrapping_mul(7919) - 1_000_000
}

fn name(i: i64) -> String {
    format!("user-{i}")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let path = dir.join("fixture.parquet");
    let schema = Arc::new(parse_message_type(
        "message fixture { REQUIRED INT64 id; REQUIRED BYTE_ARRAY name (UTF8); }",
    )?);
    let props = WriterProperties::builder()
        .set_compression(Compression::UNCOMPRESSED)
        .set_dictionary_enabled(false)
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_ndv(NDV)
        .set_bloom_filter_fpp(FPP)
        .build();
    let mut writer = SerializedFileWriter::new(File::create(&path)?, schema, Arc::new(props))?;
    let ids: Vec<i64> = (0..ROWS).map(id).collect();
    let names: Vec<ByteArray> = (0..ROWS).map(|i| ByteArray::from(name(i).as_str())).collect();
    let mut row_group = writer.next_row_group()?;
    while let Some(mut column) = row_group.next_column()? {
        match column.untyped() {
            ColumnWriter::Int64ColumnWriter(w) => {
                w.write_batch(&ids, None, None)?;
            }
            ColumnWriter::ByteArrayColumnWriter(w) => {
                w.write_batch(&names, None, None)?;
            }
            _ => return Err("unexpected column type".into()),
        }
        column.close()?;
    }
    row_group.close()?;
    writer.close()?;

    let options = ReadOptionsBuilder::new()
        .with_reader_properties(ReaderProperties::builder().set_read_bloom_filter(true).build())
        .build();
    let reader = SerializedFileReader::new_with_options(File::open(&path)?, options)?;
    let meta = reader.metadata().row_group(0);
    let group = reader.get_row_group(0)?;
    let mut manifest = String::new();
    writeln!(manifest, "# written by tests/parquet/generator with parquet 60.1.0")?;
    writeln!(manifest, "rows {ROWS}")?;
    writeln!(manifest, "ndv {NDV}")?;
    writeln!(manifest, "fpp {FPP}")?;
    for (index, column) in ["id", "name"].iter().enumerate() {
        let chunk = meta.column(index);
        let offset = chunk.bloom_filter_offset().ok_or("no bloom filter offset")?;
        let length = chunk.bloom_filter_length().ok_or("no bloom filter length")?;
        writeln!(manifest, "filter {column} {offset} {length}")?;
        let sbbf = group.get_column_bloom_filter(index).ok_or("no bloom filter")?;
        // The reader's answers: every present value, and 20000 absent ones
        // (listing the absent values it answers "maybe" for).
        let mut present_ok = 0;
        let mut absent_maybe = Vec::new();
        for i in 0..ROWS {
            present_ok += match index {
                0 => sbbf.check(&id(i)),
                _ => sbbf.check(&name(i).as_str()),
            } as i64;
        }
        for i in ROWS..ROWS + 20_000 {
            let maybe = match index {
                0 => sbbf.check(&id(i)),
                _ => sbbf.check(&name(i).as_str()),
            };
            if maybe {
                absent_maybe.push(i.to_string());
            }
        }
        writeln!(manifest, "present_maybe {column} {present_ok}")?;
        writeln!(manifest, "absent_maybe {column} {}", absent_maybe.join(","))?;
    }
    std::fs::write(dir.join("fixture.manifest"), manifest)?;
    println!("wrote {}", path.display());
    Ok(())
}
