//! Canonical hashing and index derivation.
//!
//! * Byte keys are hashed with XXH3-64 and the seed stored in the image
//!   ([`HashKind::Xxh3`]). Integer keys are hashed as their 8-byte
//!   little-endian form, so `hash_u64(x) == hash_bytes(&x.to_le_bytes())`.
//! * Interop families may use another function, recorded in the image header
//!   as its [`HashKind`] (XXH64 with seed 0 for Parquet split-block filters).
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
            HashKind::Xxh64 => xxhash_rust::xxh64::xxh64(key, seed),
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

/// The canonical hash of an integer key: XXH3-64 of its 8 little-endian bytes.
///
/// Computed with XXH3's 4-to-8-byte path written out for exactly 8 bytes
/// (no length dispatch; the same value as [`hash_bytes`] of the bytes, which
/// the tests check), so integer-keyed hot loops pay two multiplies.
#[inline(always)]
pub const fn hash_u64(key: u64, seed: u64) -> u64 {
    // Bytes 8..16 and 16..24 of XXH3's default secret, little-endian.
    const SECRET_8: u64 = 0x1cad_21f7_2c81_017c;
    const SECRET_16: u64 = 0xdb97_9083_e96d_d4de;
    const PRIME: u64 = 0x9fb2_1c65_1e98_df25;
    let seed = seed ^ (((seed as u32).swap_bytes() as u64) << 32);
    let flip = (SECRET_8 ^ SECRET_16).wrapping_sub(seed);
    // The first and last 4 bytes, read as little-endian u32: low and high half.
    let input64 = (key >> 32).wrapping_add(key << 32);
    let mut h = input64 ^ flip;
    h ^= h.rotate_left(49) ^ h.rotate_left(24);
    h = h.wrapping_mul(PRIME);
    h ^= (h >> 35).wrapping_add(8);
    h = h.wrapping_mul(PRIME);
    h ^ (h >> 28)
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
        let mut x = 0x0123_4567_89ab_cdefu64;
        for i in 0..100_000u64 {
            x = remix(x.wrapping_add(i));
            let seed = match i % 4 {
                0 => 0,
                1 => i,
                2 => u64::MAX - i,
                _ => remix(x),
            };
            assert_eq!(hash_u64(x, seed), hash_bytes(&x.to_le_bytes(), seed), "{x:#x} seed {seed:#x}");
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
