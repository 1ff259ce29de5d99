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
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
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
    xxh3_64(key, seed)
}

/// XXH3-64 of `input` with `seed`, as the xxHash specification defines it
/// (XXH3_64bits_withSeed), written here so that no path needs more than
/// about a hundred bytes of stack: the usual implementations keep the
/// seed's 192-byte custom secret on the stack for long inputs, and every
/// exported function of the library stays within 1 KiB. Tested equal to
/// the `xxhash-rust` crate for every length up to 5,000 bytes and many seeds.
#[inline]
pub fn xxh3_64(input: &[u8], seed: u64) -> u64 {
    let len = input.len();
    if len <= 16 {
        xxh3_len_0to16(input, seed)
    } else if len <= 128 {
        xxh3_len_17to128(input, seed)
    } else if len <= XXH3_MIDSIZE_MAX {
        xxh3_len_129to240(input, seed)
    } else {
        xxh3_64_long_seeded(input, seed)
    }
}

/// [`hash_bytes`] with a key of at most [`SHORT_KEY`] bytes hashed in
/// line (a longer key takes one call). For the single-key fast paths,
/// where a call and the registers it saves cost about as much as hashing a
/// short key; a caller that bounds the length first gets no call at all.
#[inline(always)]
pub fn hash_bytes_inline(key: &[u8], seed: u64) -> u64 {
    if key.len() <= SHORT_KEY {
        xxh3_len_0to16(key, seed)
    } else {
        xxh3_over_16(key, seed)
    }
}

/// The longest key [`hash_bytes_inline`] hashes in line, in bytes.
pub const SHORT_KEY: usize = 16;

/// [`xxh3_64`] of an input longer than 16 bytes.
#[inline(never)]
fn xxh3_over_16(input: &[u8], seed: u64) -> u64 {
    if input.len() <= 128 {
        xxh3_len_17to128(input, seed)
    } else if input.len() <= XXH3_MIDSIZE_MAX {
        xxh3_len_129to240(input, seed)
    } else {
        xxh3_64_long_seeded(input, seed)
    }
}

#[inline(always)]
fn le32(bytes: &[u8], offset: usize) -> u64 {
    bytes.get(offset..).and_then(|b| b.first_chunk::<4>()).map_or(0, |b| u64::from(u32::from_le_bytes(*b)))
}

#[inline(always)]
fn mul128_fold64(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

#[inline(always)]
fn xxh3_avalanche(mut h: u64) -> u64 {
    h ^= h >> 37;
    h = h.wrapping_mul(0x1656_6791_9E37_79F9);
    h ^ (h >> 32)
}

#[inline(always)]
fn xxh64_avalanche(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(PRIME64_2);
    h ^= h >> 29;
    h = h.wrapping_mul(PRIME64_3);
    h ^ (h >> 32)
}

#[inline(always)]
fn xxh3_len_0to16(input: &[u8], seed: u64) -> u64 {
    let len = input.len();
    let s = &XXH3_SECRET;
    if len > 8 {
        let bitflip1 = (le64(s, 24) ^ le64(s, 32)).wrapping_add(seed);
        let bitflip2 = (le64(s, 40) ^ le64(s, 48)).wrapping_sub(seed);
        let lo = le64(input, 0) ^ bitflip1;
        let hi = le64(input, len - 8) ^ bitflip2;
        let acc =
            (len as u64).wrapping_add(lo.swap_bytes()).wrapping_add(hi).wrapping_add(mul128_fold64(lo, hi));
        xxh3_avalanche(acc)
    } else if len >= 4 {
        let seed = seed ^ (u64::from((seed as u32).swap_bytes()) << 32);
        let (first, last) = (le32(input, 0), le32(input, len - 4));
        let bitflip = (le64(s, 8) ^ le64(s, 16)).wrapping_sub(seed);
        let mut h = (last.wrapping_add(first << 32)) ^ bitflip;
        // rrmxmx
        h ^= h.rotate_left(49) ^ h.rotate_left(24);
        h = h.wrapping_mul(0x9FB2_1C65_1E98_DF25);
        h ^= (h >> 35).wrapping_add(len as u64);
        h = h.wrapping_mul(0x9FB2_1C65_1E98_DF25);
        h ^ (h >> 28)
    } else if len > 0 {
        let byte = |i: usize| u32::from(input.get(i).copied().unwrap_or(0));
        let combined = (byte(0) << 16) | (byte(len >> 1) << 24) | byte(len - 1) | ((len as u32) << 8);
        let bitflip = (le32(s, 0) ^ le32(s, 4)).wrapping_add(seed);
        xxh64_avalanche(u64::from(combined) ^ bitflip)
    } else {
        xxh64_avalanche(seed ^ le64(s, 56) ^ le64(s, 64))
    }
}

#[inline(always)]
fn mix16(input: &[u8], at: usize, secret_offset: usize, seed: u64) -> u64 {
    let s = &XXH3_SECRET;
    mul128_fold64(
        le64(input, at) ^ le64(s, secret_offset).wrapping_add(seed),
        le64(input, at + 8) ^ le64(s, secret_offset + 8).wrapping_sub(seed),
    )
}

#[inline(always)]
fn xxh3_len_17to128(input: &[u8], seed: u64) -> u64 {
    let len = input.len();
    let mut acc = (len as u64).wrapping_mul(PRIME64_1);
    if len > 32 {
        if len > 64 {
            if len > 96 {
                acc = acc.wrapping_add(mix16(input, 48, 96, seed));
                acc = acc.wrapping_add(mix16(input, len - 64, 112, seed));
            }
            acc = acc.wrapping_add(mix16(input, 32, 64, seed));
            acc = acc.wrapping_add(mix16(input, len - 48, 80, seed));
        }
        acc = acc.wrapping_add(mix16(input, 16, 32, seed));
        acc = acc.wrapping_add(mix16(input, len - 32, 48, seed));
    }
    acc = acc.wrapping_add(mix16(input, 0, 0, seed));
    acc = acc.wrapping_add(mix16(input, len - 16, 16, seed));
    xxh3_avalanche(acc)
}

#[inline(never)]
fn xxh3_len_129to240(input: &[u8], seed: u64) -> u64 {
    const START_OFFSET: usize = 3;
    const LAST_OFFSET: usize = 17;
    const SECRET_SIZE_MIN: usize = 136;
    let len = input.len();
    let mut acc = (len as u64).wrapping_mul(PRIME64_1);
    for i in 0..8 {
        acc = acc.wrapping_add(mix16(input, 16 * i, 16 * i, seed));
    }
    let mut acc_end = mix16(input, len - 16, SECRET_SIZE_MIN - LAST_OFFSET, seed);
    acc = xxh3_avalanche(acc);
    for i in 8..len / 16 {
        acc_end = acc_end.wrapping_add(mix16(input, 16 * i, 16 * (i - 8) + START_OFFSET, seed));
    }
    xxh3_avalanche(acc.wrapping_add(acc_end))
}

/// Longest input XXH3 hashes without its long-input loop.
const XXH3_MIDSIZE_MAX: usize = 240;

/// XXH3's default secret (`kSecret` of the xxHash specification, 192 bytes).
const XXH3_SECRET: [u8; 192] = [
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c, //
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f, //
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21, //
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c, //
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3, //
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8, //
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d, //
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64, //
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb, //
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e, //
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce, //
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e, //
];

const PRIME32_1: u64 = 0x9E37_79B1;
const PRIME32_2: u64 = 0x85EB_CA77;
const PRIME32_3: u64 = 0xC2B2_AE3D;
const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
const PRIME64_4: u64 = 0x85EB_CA77_C2B2_AE63;
const PRIME64_5: u64 = 0x27D4_EB2F_1656_67C5;

/// Little-endian word at byte `offset` of a slice (0 past its end).
#[inline(always)]
fn le64(bytes: &[u8], offset: usize) -> u64 {
    bytes.get(offset..).and_then(|b| b.first_chunk::<8>()).map_or(0, |b| u64::from_le_bytes(*b))
}

/// Word `w` (bytes `8w .. 8w + 8`) of the seed's custom secret: the
/// specification adds the seed to the first word of every 16 bytes of
/// `kSecret` and subtracts it from the second.
#[inline(always)]
fn secret_word(w: usize, seed: u64) -> u64 {
    let base = le64(&XXH3_SECRET, 8 * w);
    if w.is_multiple_of(2) {
        base.wrapping_add(seed)
    } else {
        base.wrapping_sub(seed)
    }
}

/// The 8 bytes at any `offset` of the custom secret.
#[inline(always)]
fn secret_u64(offset: usize, seed: u64) -> u64 {
    let (w, r) = (offset / 8, offset % 8);
    if r == 0 {
        return secret_word(w, seed);
    }
    let shift = 8 * r as u32;
    (secret_word(w, seed) >> shift) | (secret_word(w + 1, seed) << (64 - shift))
}

#[inline(always)]
fn accumulate_512(acc: &mut [u64; 8], stripe: &[u8], secret_offset: usize, seed: u64) {
    for i in 0..8 {
        let value = le64(stripe, 8 * i);
        let key = value ^ secret_u64(secret_offset + 8 * i, seed);
        if let Some(a) = acc.get_mut(i ^ 1) {
            *a = a.wrapping_add(value);
        }
        if let Some(a) = acc.get_mut(i) {
            *a = a.wrapping_add((key & 0xFFFF_FFFF).wrapping_mul(key >> 32));
        }
    }
}

/// XXH3-64 of an input longer than 240 bytes with `seed`
/// (`XXH3_hashLong_64b_withSeed` of the specification; seed 0 gives the
/// default secret itself), with the seed's custom secret computed word by
/// word instead of materialized.
#[inline(never)]
fn xxh3_64_long_seeded(input: &[u8], seed: u64) -> u64 {
    const STRIPE: usize = 64;
    const STRIPES_PER_BLOCK: usize = (XXH3_SECRET.len() - STRIPE) / 8;
    const BLOCK: usize = STRIPE * STRIPES_PER_BLOCK;
    let len = input.len();
    let mut acc = [PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1];
    let stripe_at = |offset: usize| input.get(offset..).unwrap_or(&[]);
    let nb_blocks = len.saturating_sub(1) / BLOCK;
    for n in 0..nb_blocks {
        for s in 0..STRIPES_PER_BLOCK {
            accumulate_512(&mut acc, stripe_at(n * BLOCK + s * STRIPE), 8 * s, seed);
        }
        // Scramble with the last 64 bytes of the secret.
        for (i, a) in acc.iter_mut().enumerate() {
            let key = secret_u64(XXH3_SECRET.len() - STRIPE + 8 * i, seed);
            *a = ((*a ^ (*a >> 47)) ^ key).wrapping_mul(PRIME32_1);
        }
    }
    let nb_stripes = (len.saturating_sub(1) - BLOCK * nb_blocks) / STRIPE;
    for s in 0..nb_stripes {
        accumulate_512(&mut acc, stripe_at(nb_blocks * BLOCK + s * STRIPE), 8 * s, seed);
    }
    // The last stripe, against the secret 7 bytes before its last 64.
    accumulate_512(&mut acc, stripe_at(len.saturating_sub(STRIPE)), XXH3_SECRET.len() - STRIPE - 7, seed);
    // Merge the accumulators with the secret from byte 11.
    let mut result = (len as u64).wrapping_mul(PRIME64_1);
    for i in 0..4 {
        let lo = acc.get(2 * i).copied().unwrap_or(0) ^ secret_u64(11 + 16 * i, seed);
        let hi = acc.get(2 * i + 1).copied().unwrap_or(0) ^ secret_u64(11 + 16 * i + 8, seed);
        let product = u128::from(lo) * u128::from(hi);
        result = result.wrapping_add((product as u64) ^ ((product >> 64) as u64));
    }
    result ^= result >> 37;
    result = result.wrapping_mul(0x1656_6791_9E37_79F9);
    result ^ (result >> 32)
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
/// line path. On firmware (`target_os = "none"`), where flash counts more
/// than a call, it is one out-of-line function instead (960 bytes on a
/// Cortex-M4F, once instead of in every caller). Never fails, never panics.
#[cfg_attr(not(target_os = "none"), inline)]
#[cfg_attr(target_os = "none", inline(never))]
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
///
/// Computed with XXH3's 4-to-8-byte path written out for exactly 8 bytes
/// (no length dispatch; the same value as [`hash_bytes`] of the bytes, which
/// the tests check), so integer-keyed hot loops pay two multiplies. Loops
/// over many keys with one seed use [`U64Hasher`], which folds the seed once.
#[inline(always)]
pub const fn hash_u64(key: u64, seed: u64) -> u64 {
    U64Hasher::new(seed).hash(key)
}

/// [`hash_u64`] with its seed folded into the key mask once, for loops over
/// integer keys: the seed's byte swap and subtraction (a handful of
/// instructions that a compiler does not always hoist out of a loop; the
/// binary fuse build's key loop folded the seed again for every key) then
/// leave every key's hash. Plain data; thread-safe.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct U64Hasher {
    /// XXH3's bitflip for 8-byte inputs: secret bytes 8..24 less the folded seed.
    flip: u64,
}

impl U64Hasher {
    /// The hasher of `seed`.
    #[inline(always)]
    pub const fn new(seed: u64) -> U64Hasher {
        // Bytes 8..16 and 16..24 of XXH3's default secret, little-endian.
        const SECRET_8: u64 = 0x1cad_21f7_2c81_017c;
        const SECRET_16: u64 = 0xdb97_9083_e96d_d4de;
        let seed = seed ^ (((seed as u32).swap_bytes() as u64) << 32);
        U64Hasher { flip: (SECRET_8 ^ SECRET_16).wrapping_sub(seed) }
    }

    /// [`hash_u64`] of `key` with this hasher's seed.
    #[inline(always)]
    pub const fn hash(self, key: u64) -> u64 {
        const PRIME: u64 = 0x9fb2_1c65_1e98_df25;
        // The first and last 4 bytes, read as little-endian u32: low and high half.
        let input64 = (key >> 32).wrapping_add(key << 32);
        let mut h = input64 ^ self.flip;
        h ^= h.rotate_left(49) ^ h.rotate_left(24);
        h = h.wrapping_mul(PRIME);
        h ^= (h >> 35).wrapping_add(8);
        h = h.wrapping_mul(PRIME);
        h ^ (h >> 28)
    }
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
    fn the_inline_hash_equals_the_byte_hash_at_every_length() {
        let mut bytes = [0u8; 400];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = remix(i as u64) as u8;
        }
        for seed in [0u64, 1, 0x8000_0000, u64::MAX, remix(7)] {
            for len in 0..bytes.len() {
                let key = &bytes[len / 3..len / 3 + len.min(bytes.len() - len / 3)];
                assert_eq!(
                    hash_bytes_inline(key, seed),
                    hash_bytes(key, seed),
                    "len {} seed {seed:#x}",
                    key.len()
                );
            }
        }
    }

    #[test]
    fn a_u64_hasher_reused_over_many_keys_equals_the_byte_hash() {
        for seed in [0u64, 1, 0x8000_0000, u64::MAX, remix(42)] {
            let hasher = U64Hasher::new(seed);
            let mut x = seed;
            for i in 0..10_000u64 {
                x = remix(x.wrapping_add(i));
                assert_eq!(hasher.hash(x), hash_bytes(&x.to_le_bytes(), seed), "{x:#x} seed {seed:#x}");
            }
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
    fn our_xxh3_equals_the_reference_implementation() {
        // Every length class: 0, 1-3, 4-8, 9-16, 17-128, 129-240, and the
        // long path (one stripe, partial blocks, exact 1024-byte blocks,
        // several blocks), with many seeds including 0.
        let mut rng = crate::test_util::SplitMix64(11);
        extern crate std;
        let mut data = std::vec![0u8; 5000];
        rng.fill(&mut data);
        for len in (0..=2100).chain([3071, 3072, 3073, 4096, 4097, 5000]) {
            for seed in [0u64, 1, 7, u64::MAX, 0x8000_0000_0000_0000, rng.next_u64(), rng.next_u64()] {
                let input = &data[..len];
                assert_eq!(
                    xxh3_64(input, seed),
                    xxhash_rust::xxh3::xxh3_64_with_seed(input, seed),
                    "len {len} seed {seed}"
                );
            }
        }
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
