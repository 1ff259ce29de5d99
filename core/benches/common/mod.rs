//! Helpers shared by the core benches.

/// A byte buffer whose slice at the returned offset is 64-byte aligned
/// (the recommended alignment: split-block blocks then sit in one cache line).
pub fn aligned(len: u64) -> (Vec<u8>, usize) {
    let v = vec![0u8; len as usize + 64];
    let off = v.as_ptr().align_offset(64);
    (v, off)
}

/// The next value of the SplitMix64 sequence at `state` (the benches' key
/// generator: every bench that compares libraries draws the same keys).
#[allow(dead_code)] // not every bench that includes this module draws keys
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `n` 16-byte keys from the SplitMix64 sequence started at `tag`.
#[allow(dead_code)]
pub fn byte_keys(tag: u64, n: usize) -> Vec<[u8; 16]> {
    let mut state = tag;
    (0..n)
        .map(|_| {
            let mut k = [0u8; 16];
            for half in k.chunks_mut(8) {
                half.copy_from_slice(&splitmix(&mut state).to_le_bytes());
            }
            k
        })
        .collect()
}

/// `n` u64 keys from the SplitMix64 sequence, continuing `state`.
#[allow(dead_code)]
pub fn u64_keys(state: &mut u64, n: usize) -> Vec<u64> {
    (0..n).map(|_| splitmix(state)).collect()
}
