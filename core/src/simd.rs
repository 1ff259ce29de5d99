//! Runtime CPU-feature dispatch: the only `unsafe` code in the core.
//!
//! The split-block and UltraLogLog merge kernels are plain safe Rust. Compiled for baseline x86-64
//! (SSE2) they cannot use per-lane variable shifts, and measured ~3x slower
//! than with AVX2 (`make bench`, sbbf group). Each function here runs one
//! `#[inline(always)]` safe kernel inside a copy compiled with AVX2 enabled
//! when the CPU has it (so the kernel is vectorized), and as is otherwise.
//! Detection uses CPUID (and XGETBV to confirm the OS saves YMM state) once,
//! then a cached flag.
#![allow(unsafe_code)]

use core::sync::atomic::{AtomicU8, Ordering};

const UNKNOWN: u8 = 0;
const ABSENT: u8 = 1;
const PRESENT: u8 = 2;

static AVX2: AtomicU8 = AtomicU8::new(UNKNOWN);

/// True when the CPU and OS support AVX2 (cached after the first call).
pub fn has_avx2() -> bool {
    match AVX2.load(Ordering::Relaxed) {
        PRESENT => true,
        ABSENT => false,
        _ => {
            let found = detect();
            AVX2.store(if found { PRESENT } else { ABSENT }, Ordering::Relaxed);
            found
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn detect() -> bool {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    // SAFETY: CPUID exists on every x86_64 processor.
    #[allow(unused_unsafe)]
    let (max_leaf, leaf1) = unsafe { (__cpuid(0).eax, __cpuid(1)) };
    let osxsave = leaf1.ecx & (1 << 27) != 0;
    let avx = leaf1.ecx & (1 << 28) != 0;
    if !(osxsave && avx) || max_leaf < 7 {
        return false;
    }
    // SAFETY: OSXSAVE is set, so the OS enabled XGETBV.
    let xcr0 = unsafe { xcr0() };
    if xcr0 & 0b110 != 0b110 {
        return false; // the OS does not save XMM/YMM state
    }
    // SAFETY: leaf 7 exists (max_leaf >= 7).
    #[allow(unused_unsafe)]
    let leaf7 = unsafe { __cpuid_count(7, 0) };
    leaf7.ebx & (1 << 5) != 0
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    core::arch::x86_64::_xgetbv(0)
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> bool {
    false
}

/// Defines `pub fn $name(args) -> ret` that runs the `#[inline(always)]`
/// kernel `$kernel` compiled with AVX2 when the CPU has it, else as is.
macro_rules! avx2_dispatch {
    ($(#[$doc:meta])* fn $name:ident => $kernel:path, ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        $(#[$doc])*
        #[inline]
        pub fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn with_avx2($($arg: $ty),*) -> $ret {
                    $kernel($($arg),*)
                }
                if has_avx2() {
                    // SAFETY: `with_avx2` needs AVX2, which `has_avx2` confirmed
                    // (CPUID feature bit plus OS support of the YMM state).
                    return unsafe { with_avx2($($arg),*) };
                }
            }
            $kernel($($arg),*)
        }
    };
}

use crate::sbbf::kernels;

avx2_dispatch!(
    /// Split-block insert of one located item; true when a bit was new.
    fn sbbf_insert => kernels::insert, (body: &mut [u8], addressing: kernels::Addressing, hash: u64) -> bool
);
avx2_dispatch!(
    /// Split-block membership test of one hash.
    fn sbbf_contains => kernels::contains, (body: &[u8], addressing: kernels::Addressing, hash: u64) -> bool
);
avx2_dispatch!(
    /// Split-block batch insert; returns how many items set a new bit.
    fn sbbf_insert_batch => kernels::insert_batch, (
        body: &mut [u8],
        addressing: kernels::Addressing,
        hashes: &[u64],
        newly: Option<&mut [bool]>
    ) -> u64
);
avx2_dispatch!(
    /// Split-block batch membership test.
    fn sbbf_contains_batch => kernels::contains_batch, (
        body: &[u8],
        addressing: kernels::Addressing,
        hashes: &[u64],
        results: &mut [bool]
    ) -> ()
);

/// UltraLogLog same-precision register merge: `dst[i] = merge(dst[i], src[i])`
/// over the common length. With AVX2, 32 registers per step with a table
/// lookup (`vpshufb`) for the history shift: p = 14 (16 KiB) measured
/// 0.77-0.83 us against 1.26 us for the compiler's own AVX2 vectorization of
/// the scalar formula (`cargo bench --bench cardinality -- merge`).
pub fn ull_merge(dst: &mut [u8], src: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: AVX2 is present (CPUID feature bit plus OS support of the
        // YMM state, checked by `has_avx2`).
        unsafe { ull_merge_avx2(dst, src) };
        return;
    }
    crate::ull::kernels::merge(dst, src);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn ull_merge_avx2(dst: &mut [u8], src: &[u8]) {
    use core::arch::x86_64::*;
    let n = dst.len().min(src.len());
    let vectors = n / 32;
    let t = crate::ull::kernels::SHIFTED_HISTORY;
    // SAFETY: `t` is 16 readable bytes; the load has no alignment requirement.
    let table = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(t.as_ptr() as *const __m128i) });
    let top_mask = _mm256_set1_epi8(0xfcu8 as i8);
    let twelve = _mm256_set1_epi8(12);
    let three = _mm256_set1_epi8(3);
    let (d_ptr, s_ptr) = (dst.as_mut_ptr(), src.as_ptr());
    for v in 0..vectors {
        // SAFETY: 32 * v + 32 <= n, which is within both slices.
        unsafe {
            let pd = d_ptr.add(32 * v) as *mut __m256i;
            let ps = s_ptr.add(32 * v) as *const __m256i;
            let (a, b) = (_mm256_loadu_si256(pd), _mm256_loadu_si256(ps));
            let (hi, lo) = (_mm256_max_epu8(a, b), _mm256_min_epu8(a, b));
            // hi - (lo & 0xfc) = 4d + (hi & 3) with d the difference of the top
            // values, so (.. & 0xfc) = 4d and min(4d, 12) = 4 min(d, 3): the
            // table index min(d, 3) << 2 | (lo & 3) without any shift.
            let four_d = _mm256_and_si256(_mm256_sub_epi8(hi, _mm256_and_si256(lo, top_mask)), top_mask);
            let index = _mm256_or_si256(_mm256_min_epu8(four_d, twelve), _mm256_and_si256(lo, three));
            let merged = _mm256_or_si256(hi, _mm256_shuffle_epi8(table, index));
            _mm256_storeu_si256(pd, merged);
        }
    }
    let done = vectors * 32;
    if let (Some(d), Some(s)) = (dst.get_mut(done..n), src.get(done..n)) {
        crate::ull::kernels::merge(d, s);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ull_merge_kernels_agree_on_every_byte_pair() {
        extern crate std;
        // All 65,536 pairs (legal or not), at every offset of a 32-byte vector.
        let a: std::vec::Vec<u8> = (0..65_536u32).map(|i| (i >> 8) as u8).chain(0..37u8).collect();
        let b: std::vec::Vec<u8> = (0..65_536u32).map(|i| i as u8).chain(0..37u8).collect();
        let mut fast = a.clone();
        super::ull_merge(&mut fast, &b);
        let mut scalar = a.clone();
        crate::ull::kernels::merge(&mut scalar, &b);
        assert_eq!(fast, scalar);
    }

    #[test]
    fn detection_is_stable() {
        let first = super::has_avx2();
        assert_eq!(first, super::has_avx2());
    }
}
