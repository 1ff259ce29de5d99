//! Canonical hashing and index derivation.
//!
//! * Byte keys are hashed with XXH3-64 and the seed stored in the image
//!   ([`HashKind::Xxh3`]). Integer keys are hashed as their 8-byte
//!   little-endian form, so `hash_u64(x) == hash_bytes(&x.to_le_bytes())`.
//! * Interop families may use another function, recorded in the image header
//!   as its [`HashKind`] (XXH64 with seed 0 for Parquet split-block filters:
//!   [`xxh64`]).
//! * Indexes are derived from 64-bit hashes with the multiply-shift
//!   ("fastrange") reduction `(h * n) >> 64` computed in 128 bits, never `%`
//!   on 32 bits, so ranges above 2^32 keep a uniform distribution.
//!
//! Every function here is pure and thread-safe.

/// The hash function an image uses, stored as a `u16` in its header.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum HashKind {
    /// XXH3-64 with the image's seed: the canonical hash of the library.
    Xxh3 = 1,
    /// XXH64 with the image's seed (Parquet split-block filters use seed 0).
    Xxh64 = 2,
}

impl HashKind {
    /// Decodes the header value; `None` for unknown ids.
    pub const fn from_id(id: u16) -> Option<HashKind> {
        match id {
            1 => Some(HashKind::Xxh3),
            2 => Some(HashKind::Xxh64),
            _ => None,
        }
    }

    /// The header value of this hash function.
    pub const fn id(self) -> u16 {
        self as u16
    }

    /// Hashes `key` with this function and `seed`.
    #[inline]
    pub fn hash(self, key: &[u8], seed: u64) -> u64 {
        match self {
            HashKind::Xxh3 => hash_bytes(key, seed),
            HashKind::Xxh64 => xxh64(key, seed),
        }
    }
}

/// A hash function bound to a seed: what an image uses to hash its keys.
/// Copy it out of a view to hash keys while the view is borrowed mutably.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct KeyHasher {
    /// The function.
    pub kind: HashKind,
    /// The seed.
    pub seed: u64,
}

impl KeyHasher {
    /// Hashes a byte key.
    #[inline]
    pub fn hash(&self, key: &[u8]) -> u64 {
        self.kind.hash(key, self.seed)
    }
}

/// The canonical hash of a byte key: XXH3-64 with `seed`.
#[inline]
pub fn hash_bytes(key: &[u8], seed: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(key, seed)
}

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;
const P5: u64 = 0x27D4_EB2F_1656_67C5;

#[inline(always)]
const fn xxh64_round(acc: u64, lane: u64) -> u64 {
    acc.wrapping_add(lane.wrapping_mul(P2)).rotate_left(31).wrapping_mul(P1)
}

/// XXH64 of `bytes` with `seed` (the xxHash specification; Parquet bloom
/// filters use seed 0 over a value's plain encoding, see [`crate::parquet`]).
///
/// Bit-identical to `xxhash_rust::xxh64::xxh64` (tested on every length up
/// to 300 bytes and several seeds). Written out here, short inputs inline,
/// so that a call with a constant length (a 4- or 8-byte Parquet value)
/// compiles to straight-line code; inputs of 32 bytes or more take an out of
/// line path. Never fails, never panics.
#[inline]
pub fn xxh64(bytes: &[u8], seed: u64) -> u64 {
    let (acc, tail) = match bytes.len() {
        0..32 => (seed.wrapping_add(P5), bytes),
        _ => xxh64_stripes(bytes, seed),
    };
    xxh64_finish(acc.wrapping_add(bytes.len() as u64), tail)
}

/// The 32-byte stripes of a long input: the merged accumulator and the
/// remaining (< 32) bytes.
#[inline(never)]
fn xxh64_stripes(bytes: &[u8], seed: u64) -> (u64, &[u8]) {
    let (stripes, tail) = bytes.as_chunks::<32>();
    let mut v = [seed.wrapping_add(P1).wrapping_add(P2), seed.wrapping_add(P2), seed, seed.wrapping_sub(P1)];
    for stripe in stripes {
        for (acc, lane) in v.iter_mut().zip(stripe.as_chunks::<8>().0) {
            *acc = xxh64_round(*acc, u64::from_le_bytes(*lane));
        }
    }
    let [a, b, c, d] = v;
    let mut h = a
        .rotate_left(1)
        .wrapping_add(b.rotate_left(7))
        .wrapping_add(c.rotate_left(12))
        .wrapping_add(d.rotate_left(18));
    for lane in v {
        h = (h ^ xxh64_round(0, lane)).wrapping_mul(P1).wrapping_add(P4);
    }
    (h, tail)
}

/// Consumes the last (< 32) bytes and applies the final avalanche, as
/// straight-line steps guarded by the remaining length (at most three 8-byte
/// lanes, one 4-byte word, three bytes): with a constant length every guard
/// folds away, with a variable one they are a few predictable branches
/// instead of loops (a 16-byte key: about 30 instructions, was about 55).
#[inline(always)]
fn xxh64_finish(mut h: u64, tail: &[u8]) -> u64 {
    let mut rest = tail;
    for _ in 0..3 {
        let Some((lane, after)) = rest.split_first_chunk::<8>() else { break };
        h ^= xxh64_round(0, u64::from_le_bytes(*lane));
        h = h.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
        rest = after;
    }
    if let Some((word, after)) = rest.split_first_chunk::<4>() {
        h ^= u64::from(u32::from_le_bytes(*word)).wrapping_mul(P1);
        h = h.rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
        rest = after;
    }
    for byte in rest.iter().take(3) {
        h ^= u64::from(*byte).wrapping_mul(P5);
        h = h.rotate_left(11).wrapping_mul(P1);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

/// The canonical hash of an integer key: XXH3-64 of its 8 little-endian bytes.
#[inline]
pub fn hash_u64(key: u64, seed: u64) -> u64 {
    hash_bytes(&key.to_le_bytes(), seed)
}

/// Maps a uniformly distributed 64-bit value onto `0..range` with one
/// 64x64->128-bit multiply ("fastrange"). Returns 0 when `range` is 0.
#[inline(always)]
pub const fn reduce(value: u64, range: u64) -> u64 {
    ((value as u128 * range as u128) >> 64) as u64
}

/// A bijective 64-bit finalizer (the murmur3 `fmix64` constants). Used to
/// derive a second, independent-looking hash from the first.
#[inline(always)]
pub const fn remix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The `k` probe positions in `0..range` of a hash, by enhanced double
/// hashing in 64 bits: `x_0 = h`, `y_0 = fmix64(h)`, `x_{i+1} = x_i + y_i`,
/// `y_{i+1} = y_i + i` (wrapping), position `i` = `fastrange(x_i, range)`.
/// Every position uses all 64 bits, so ranges above 2^32 keep their spread.
#[derive(Clone, Debug)]
pub struct Probes {
    x: u64,
    y: u64,
    i: u32,
    k: u32,
    range: u64,
}

/// The probe sequence of `hash` over `range` positions, `k` long.
#[inline(always)]
pub fn probes(hash: u64, k: u32, range: u64) -> Probes {
    Probes { x: hash, y: remix(hash), i: 0, k, range }
}

impl Iterator for Probes {
    type Item = u64;

    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        if self.i >= self.k {
            return None;
        }
        let position = reduce(self.x, self.range);
        self.x = self.x.wrapping_add(self.y);
        self.y = self.y.wrapping_add(u64::from(self.i));
        self.i += 1;
        Some(position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u64_keys_hash_as_little_endian_bytes() {
        for x in [0u64, 1, 0xdead_beef, u64::MAX] {
            assert_eq!(hash_u64(x, 7), hash_bytes(&x.to_le_bytes(), 7));
        }
    }

    #[test]
    fn xxh3_matches_published_vectors() {
        // XXH3-64 of the empty input with seed 0 (xxHash reference test vector).
        assert_eq!(hash_bytes(b"", 0), 0x2D06_8005_38D3_94C2);
        // XXH64 of the empty input with seed 0.
        assert_eq!(HashKind::Xxh64.hash(b"", 0), 0xEF46_DB37_51D8_E999);
    }

    #[test]
    fn xxh64_matches_the_reference_implementation() {
        extern crate std;
        let data: std::vec::Vec<u8> =
            (0..300u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for seed in [0u64, 1, 0x9E37_79B9_7F4A_7C15, u64::MAX] {
            for len in 0..=data.len() {
                let bytes = &data[..len];
                assert_eq!(
                    xxh64(bytes, seed),
                    xxhash_rust::xxh64::xxh64(bytes, seed),
                    "len {len} seed {seed}"
                );
            }
        }
        // Published vectors: XXH64("", 0) and XXH64("abc", 0).
        assert_eq!(xxh64(b"", 0), 0xEF46_DB37_51D8_E999);
        assert_eq!(xxh64(b"abc", 0), 0x44BC_2CF5_AD77_0999);
    }

    #[test]
    fn seed_changes_the_hash() {
        assert_ne!(hash_bytes(b"key", 0), hash_bytes(b"key", 1));
    }

    #[test]
    fn reduce_stays_in_range_and_covers_large_ranges() {
        let range = (1u64 << 40) + 12345;
        assert_eq!(reduce(u64::MAX, range), range - 1);
        assert_eq!(reduce(0, range), 0);
        assert_eq!(reduce(u64::MAX, 0), 0);
        // The top of a range above 2^32 is reachable.
        assert!(reduce(u64::MAX - 1, range) > 1u64 << 39);
    }

    #[test]
    fn hash_kind_ids_round_trip() {
        for k in [HashKind::Xxh3, HashKind::Xxh64] {
            assert_eq!(HashKind::from_id(k.id()), Some(k));
        }
        assert_eq!(HashKind::from_id(0), None);
        assert_eq!(HashKind::from_id(3), None);
    }
}
