//! The README's example in Rust: plan, size, init in your own buffer, add, query, export/import.
use sketches_core::bloom::{self, BloomParams};
use sketches_core::image::ImageBuf; // N zeroed bytes, 64-byte aligned: on the stack, in a static or a Box
use sketches_core::Error;

fn main() -> Result<(), Error> {
    let params = BloomParams::for_items(10_000, 0.01)?; // n, p
    assert_eq!(params.image_len()?, 12_096); // exact bytes, a multiple of 64
    let mut buf = ImageBuf::<12_288>::new(); // longer than the image is fine
    let mut filter = bloom::init(&mut buf, &params, 0)?; // seed 0; Err if too small or misaligned

    assert!(filter.add(b"alice")); // test-and-insert: true, it was new
    assert!(!filter.add(b"alice")); // false: seen before
    assert!(filter.add_u64(42)); // integers hash as their 8 little-endian bytes
    let view = filter.as_ref(); // read-only, Copy, any number of readers
    assert!(view.contains(b"alice") && !view.contains(b"bob"));
    assert!(view.capacity().is_within_plan()); // O(1) over-capacity signal

    let mut wire = vec![0u8; bloom::exported_len(&buf)?];
    bloom::export(&buf, &mut wire)?; // the image with its checksum
    let mut copy = ImageBuf::<12_288>::new();
    bloom::import(&wire, &mut copy)?; // checked: length, headers, checksum
    assert!(bloom::wrap(&copy)?.contains_u64(42)); // wrap: zero-copy, header checks only

    if let Some(byte) = wire.last_mut() {
        *byte ^= 1; // damage one bit: the checked path refuses it
    }
    let refused = bloom::verify(&wire);
    assert_eq!(refused, Err(Error::ChecksumMismatch));
    if let Err(e) = refused {
        println!("damaged copy refused: {e}"); // Error is Display and core::error::Error
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn quickstart_runs() -> Result<(), sketches_core::Error> {
        super::main()
    }
}
