//! Runtime CPU-feature dispatch: the only `unsafe` code in the core.
//!
//! The split-block kernels are plain safe Rust. Compiled for baseline x86-64
//! (SSE2) they cannot use per-lane variable shifts, and measured ~3x slower
//! than with AVX2 (`make bench`, sbbf group). Each of them runs here as an
//! `#[inline(always)]` safe kernel inside a copy compiled with AVX2 enabled
//! when the CPU has it (so the kernel is vectorized), and as is otherwise.
//! The UltraLogLog merge has explicit AVX-512 BW and AVX2 kernels (a table
//! lookup the compiler does not find), checked against the scalar formula on
//! every byte pair. The ExaLogLog merges (28- and 32-bit registers) are
//! the scalar formula compiled with AVX2. The HyperLogLog and UltraLogLog
//! adds and ExaLogLog's batch adds run in a copy compiled with LZCNT
//! ([`with_lzcnt`]).
//! Detection uses CPUID (and XGETBV to confirm the OS saves the vector
//! state) once, then a cached flag.
#![allow(unsafe_code)]

use core::sync::atomic::{AtomicU8, Ordering};

/// Cached feature bits: 0 until detection ran, then `DETECTED` plus the
/// bits of the features found.
static FEATURES: AtomicU8 = AtomicU8::new(0);
const DETECTED: u8 = 1;
const AVX2: u8 = 2;
const AVX512BW: u8 = 4;
const LZCNT: u8 = 8;

/// The cached feature bits; one load and a well-predicted branch on every
/// call but the first (the detection is out of line, so that dispatchers
/// stay small enough to inline into the caller's loop).
#[inline(always)]
fn features() -> u8 {
    let cached = FEATURES.load(Ordering::Relaxed);
    if cached != 0 {
        return cached;
    }
    detect_and_cache()
}

#[cold]
#[inline(never)]
fn detect_and_cache() -> u8 {
    let found = DETECTED | detect();
    FEATURES.store(found, Ordering::Relaxed);
    found
}

/// True when the CPU and OS support AVX2 (cached after the first call).
#[inline(always)]
pub fn has_avx2() -> bool {
    features() & AVX2 != 0
}

/// True when the CPU and OS support AVX-512 F and BW (512-bit byte
/// operations; cached after the first call).
pub fn has_avx512bw() -> bool {
    features() & AVX512BW != 0
}

/// True when the CPU has LZCNT (cached after the first call).
#[inline(always)]
pub fn has_lzcnt() -> bool {
    features() & LZCNT != 0
}

/// The square root of `x`, correctly rounded (IEEE 754), as `libm::sqrt`
/// gives it: on x86-64 the SSE2 instruction (baseline; 3.5 against 16.8 ns
/// for libm's portable code here, and Ertl's tau function of the HLL
/// estimate takes up to 50), elsewhere and under Miri libm's code. libm is
/// built without its `arch` feature because that feature's inline assembly
/// does not run under Miri.
#[inline]
pub fn sqrt(x: f64) -> f64 {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use core::arch::x86_64::{_mm_cvtsd_f64, _mm_set_sd, _mm_sqrt_sd};
        // SAFETY: these intrinsics need SSE2, part of every x86-64 CPU (a
        // baseline target feature); they only compute on a register.
        unsafe {
            let v = _mm_set_sd(x);
            _mm_cvtsd_f64(_mm_sqrt_sd(v, v))
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        libm::sqrt(x)
    }
}

/// Runs `work` compiled with LZCNT when the CPU has it, else as is.
///
/// The register updates of HyperLogLog, UltraLogLog and ExaLogLog count
/// leading zeros of every hash. Baseline x86-64 has no LZCNT, so
/// `leading_zeros` becomes BSR plus a fix-up, which measured 2-2.7x slower
/// per add on the development VM's AMD EPYC (HLL dense adds 8.1 -> 3.0-4.0 ms
/// per 1M with LZCNT enabled). `work` is inlined into a copy compiled with
/// LZCNT (one copy per call site; the caller's `#[inline(never)]` helpers
/// stay shared) only when the caller marks the closure `#[inline(always)]`:
/// otherwise it stays a function of its own, compiled without LZCNT, and
/// the copy is a jump to it. Costs one load and one well-predicted branch
/// per call, plus a call to the copy with the closure's captures in memory:
/// for one ExaLogLog add that cost more than the BSR it saved, so only
/// ExaLogLog's batches use it.
#[inline(always)]
pub fn with_lzcnt<R>(work: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "lzcnt")]
        fn fast<R>(work: impl FnOnce() -> R) -> R {
            work()
        }
        if has_lzcnt() {
            // SAFETY: `fast` needs LZCNT, which `has_lzcnt` confirmed (CPUID
            // leaf 0x8000_0001, ECX bit 5; no OS state is involved).
            return unsafe { fast(work) };
        }
    }
    work()
}

#[cfg(target_arch = "x86_64")]
fn detect() -> u8 {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    // Miri cannot run CPUID (inline assembly): under it the portable code
    // paths run, and those are what it checks.
    if cfg!(miri) {
        return 0;
    }
    // SAFETY: CPUID exists on every x86_64 processor.
    #[allow(unused_unsafe)]
    let (max_leaf, leaf1, max_extended) = unsafe { (__cpuid(0).eax, __cpuid(1), __cpuid(0x8000_0000).eax) };
    // LZCNT ("ABM" on AMD): extended leaf 0x8000_0001, ECX bit 5.
    let mut found = 0;
    if max_extended >= 0x8000_0001 {
        // SAFETY: the extended leaf exists (checked just above).
        #[allow(unused_unsafe)]
        let extended = unsafe { __cpuid(0x8000_0001) };
        if extended.ecx & (1 << 5) != 0 {
            found |= LZCNT;
        }
    }
    let osxsave = leaf1.ecx & (1 << 27) != 0;
    let avx = leaf1.ecx & (1 << 28) != 0;
    if !(osxsave && avx) || max_leaf < 7 {
        return found;
    }
    // SAFETY: OSXSAVE is set, so the OS enabled XGETBV.
    let xcr0 = unsafe { xcr0() };
    if xcr0 & 0b110 != 0b110 {
        return found; // the OS does not save XMM/YMM state
    }
    // SAFETY: leaf 7 exists (max_leaf >= 7).
    #[allow(unused_unsafe)]
    let leaf7 = unsafe { __cpuid_count(7, 0) };
    if leaf7.ebx & (1 << 5) != 0 {
        found |= AVX2;
        // AVX-512 F (bit 16) and BW (bit 30), with the OS saving the opmask
        // and both halves of the ZMM registers (XCR0 bits 5, 6, 7).
        let zmm_state = xcr0 & 0b1110_0000 == 0b1110_0000;
        if zmm_state && leaf7.ebx & (1 << 16) != 0 && leaf7.ebx & (1 << 30) != 0 {
            found |= AVX512BW;
        }
    }
    found
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    core::arch::x86_64::_xgetbv(0)
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> u8 {
    0
}

/// Defines `pub fn $name(args) -> ret` that runs the `#[inline(always)]`
/// kernel `$kernel` compiled with AVX2 when the CPU has it, else as is.
///
/// The dispatcher inlines into the caller and costs one load, one test and
/// one call once detection has run: the AVX2 copy and the portable copy are
/// both out of line. A single-key loop in the caller then carries no more
/// instructions per key than it must, which matters because the number of
/// keys whose cache misses overlap is bounded by the reorder window (see
/// `sbbf` module docs). The first call, and every call on CPUs without AVX2,
/// goes through `other`, which detects the features and runs the right copy.
macro_rules! avx2_dispatch {
    ($(#[$doc:meta])* fn $name:ident => $kernel:expr, ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                #[inline(never)]
                fn with_avx2($($arg: $ty),*) -> $ret {
                    $kernel($($arg),*)
                }
                #[inline(never)]
                fn other($($arg: $ty),*) -> $ret {
                    if has_avx2() {
                        // SAFETY: `with_avx2` needs AVX2, which `has_avx2`
                        // confirmed (CPUID feature bit plus OS support of the
                        // YMM state).
                        return unsafe { with_avx2($($arg),*) };
                    }
                    $kernel($($arg),*)
                }
                if FEATURES.load(Ordering::Relaxed) & AVX2 != 0 {
                    // SAFETY: the AVX2 bit is only ever stored by detection
                    // after CPUID and XGETBV confirmed AVX2 and OS support.
                    return unsafe { with_avx2($($arg),*) };
                }
                other($($arg),*)
            }
            #[cfg(not(target_arch = "x86_64"))]
            $kernel($($arg),*)
        }
    };
}

use crate::sbbf::kernels;

avx2_dispatch!(
    /// Split-block insert, native block selection; true when a bit was new.
    fn sbbf_insert_native => kernels::insert::<false>, (body: &mut [u8], blocks: u64, hash: u64) -> bool
);
avx2_dispatch!(
    /// Split-block insert, Parquet block selection; true when a bit was new.
    fn sbbf_insert_parquet => kernels::insert::<true>, (body: &mut [u8], blocks: u64, hash: u64) -> bool
);
avx2_dispatch!(
    /// Split-block membership test, native block selection.
    fn sbbf_contains_native => kernels::contains::<false>, (body: &[u8], blocks: u64, hash: u64) -> bool
);
avx2_dispatch!(
    /// Split-block membership test, Parquet block selection.
    fn sbbf_contains_parquet => kernels::contains::<true>, (body: &[u8], blocks: u64, hash: u64) -> bool
);
avx2_dispatch!(
    /// Split-block batch insert (native); returns how many items set a new bit.
    fn sbbf_insert_batch_native => kernels::insert_batch::<false>, (
        body: &mut [u8],
        blocks: u64,
        hashes: &[u64],
        newly: Option<&mut [bool]>
    ) -> u64
);
avx2_dispatch!(
    /// Split-block batch insert (Parquet); returns how many items set a new bit.
    fn sbbf_insert_batch_parquet => kernels::insert_batch::<true>, (
        body: &mut [u8],
        blocks: u64,
        hashes: &[u64],
        newly: Option<&mut [bool]>
    ) -> u64
);
avx2_dispatch!(
    /// Split-block batch membership test (native).
    fn sbbf_contains_batch_native => kernels::contains_batch::<false>, (
        body: &[u8],
        blocks: u64,
        hashes: &[u64],
        results: &mut [bool]
    ) -> ()
);
avx2_dispatch!(
    /// Split-block batch membership test (Parquet).
    fn sbbf_contains_batch_parquet => kernels::contains_batch::<true>, (
        body: &[u8],
        blocks: u64,
        hashes: &[u64],
        results: &mut [bool]
    ) -> ()
);

avx2_dispatch!(
    /// ExaLogLog same-layout merge of 32-bit registers (`d = 24`): the
    /// scalar register formula, compiled with AVX2 when the CPU has it
    /// (eight registers per vector, variable shifts `vpsrlvd`).
    fn ell32_merge => crate::ell::kernels::merge32, (dst: &mut [u8], src: &[u8], d: u32) -> ()
);

avx2_dispatch!(
    /// ExaLogLog same-layout merge of 28-bit registers (`d = 20`), two per
    /// 7 bytes, compiled with AVX2 when the CPU has it (groups of 32
    /// registers widened to 32-bit lanes: eight per vector).
    fn ell28_merge => crate::ell::kernels::merge28, (dst: &mut [u8], src: &[u8], d: u32) -> ()
);

/// UltraLogLog same-precision register merge: `dst[i] = merge(dst[i], src[i])`
/// over the common length, with a table lookup (`vpshufb`) for the history
/// shift: 64 registers per step with AVX-512 BW, 32 with AVX2, else the
/// scalar formula (`cargo bench --bench cardinality -- merge` compares it
/// with a `memcpy` of the same bytes).
pub fn ull_merge(dst: &mut [u8], src: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        let n = dst.len().min(src.len());
        let done = if has_avx512bw() {
            // SAFETY: AVX-512 F and BW are present (CPUID feature bits plus OS
            // support of the opmask and ZMM state, checked by `has_avx512bw`).
            unsafe { ull_merge_avx512(dst, src, n / 64) }
        } else if has_avx2() {
            // SAFETY: AVX2 is present (CPUID feature bit plus OS support of
            // the YMM state, checked by `has_avx2`).
            unsafe { ull_merge_avx2(dst, src, n / 32) }
        } else {
            0
        };
        if let (Some(d), Some(s)) = (dst.get_mut(done..n), src.get(done..n)) {
            crate::ull::kernels::merge(d, s);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    crate::ull::kernels::merge(dst, src);
}

// The vector kernels compute, per byte pair: hi = max, lo = min (the larger
// byte has the larger top value), index = (hi | 3) - lo = 4d + 3 - (lo & 3)
// where d is the difference of the top values; a saturating add of 0x70 sets
// bit 7 (vpshufb then yields 0) exactly when index >= 16, i.e. d >= 4; the
// table `REVERSED_HISTORY` holds, at 4d + 3 - j, the shifted history of a
// smaller register with history bits j. Seven operations per vector.

/// Merges the first `vectors` 32-byte blocks; returns the bytes done.
///
/// # Safety
/// The CPU must support AVX2; `32 * vectors` must not exceed either length.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn ull_merge_avx2(dst: &mut [u8], src: &[u8], vectors: usize) -> usize {
    use core::arch::x86_64::*;
    let t = crate::ull::kernels::REVERSED_HISTORY;
    // SAFETY: `t` is 16 readable bytes; the load has no alignment requirement.
    let table = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(t.as_ptr() as *const __m128i) });
    let (three, bias) = (_mm256_set1_epi8(3), _mm256_set1_epi8(0x70));
    let (d_ptr, s_ptr) = (dst.as_mut_ptr(), src.as_ptr());
    for v in 0..vectors {
        // SAFETY: 32 * v + 32 <= 32 * vectors, within both slices (caller).
        unsafe {
            let pd = d_ptr.add(32 * v) as *mut __m256i;
            let ps = s_ptr.add(32 * v) as *const __m256i;
            let (a, b) = (_mm256_loadu_si256(pd), _mm256_loadu_si256(ps));
            let (hi, lo) = (_mm256_max_epu8(a, b), _mm256_min_epu8(a, b));
            let index = _mm256_adds_epu8(_mm256_sub_epi8(_mm256_or_si256(hi, three), lo), bias);
            _mm256_storeu_si256(pd, _mm256_or_si256(hi, _mm256_shuffle_epi8(table, index)));
        }
    }
    32 * vectors
}

/// Merges the first `vectors` 64-byte blocks; returns the bytes done.
///
/// # Safety
/// The CPU must support AVX-512 F and BW; `64 * vectors` must not exceed
/// either length.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn ull_merge_avx512(dst: &mut [u8], src: &[u8], vectors: usize) -> usize {
    use core::arch::x86_64::*;
    let t = crate::ull::kernels::REVERSED_HISTORY;
    // SAFETY: `t` is 16 readable bytes; the load has no alignment requirement.
    let table = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(t.as_ptr() as *const __m128i) });
    let (three, bias) = (_mm512_set1_epi8(3), _mm512_set1_epi8(0x70));
    let (d_ptr, s_ptr) = (dst.as_mut_ptr(), src.as_ptr());
    for v in 0..vectors {
        // SAFETY: 64 * v + 64 <= 64 * vectors, within both slices (caller).
        unsafe {
            let pd = d_ptr.add(64 * v) as *mut __m512i;
            let ps = s_ptr.add(64 * v) as *const __m512i;
            let (a, b) = (_mm512_loadu_si512(pd), _mm512_loadu_si512(ps));
            let (hi, lo) = (_mm512_max_epu8(a, b), _mm512_min_epu8(a, b));
            let index = _mm512_adds_epu8(_mm512_sub_epi8(_mm512_or_si512(hi, three), lo), bias);
            _mm512_storeu_si512(pd, _mm512_or_si512(hi, _mm512_shuffle_epi8(table, index)));
        }
    }
    64 * vectors
}

/// Hints the CPU to bring the cache line holding `bytes[index]` closer
/// (nothing past the end of `bytes`). Batch kernels call it for a group of
/// keys before touching any of them, so their cache misses overlap. A
/// prefetch has no architectural effect: it never faults and changes no
/// program state. No-op off x86-64.
#[inline(always)]
pub fn prefetch(bytes: &[u8], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(byte) = bytes.get(index) {
        // SAFETY: `_mm_prefetch` needs SSE, part of every x86-64 CPU (a
        // baseline target feature); it reads nothing into the program and
        // cannot fault, and the address is inside `bytes` anyway.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                core::ptr::from_ref(byte).cast::<i8>(),
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, index);
}

/// Like [`prefetch`], for the cache line of an atomic word (shared images:
/// concurrent batch adds request the words of keys a few places ahead).
#[cfg(target_has_atomic = "64")]
#[inline(always)]
pub fn prefetch_word(word: &core::sync::atomic::AtomicU64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as in `prefetch`: SSE is baseline on x86-64, a prefetch
    // cannot fault and is not an access (no data race with the atomics),
    // and the address is that of a live atomic.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            word.as_ptr().cast::<i8>().cast_const(),
        )
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = word;
}

#[cfg(test)]
mod tests {
    #[test]
    fn sqrt_equals_libm_bit_for_bit() {
        extern crate std;
        // Both are correctly rounded: the same bits for every input,
        // including the estimators' range (0, 1), large counts, zero,
        // infinity, subnormals and NaN.
        let mut x = 1e-300f64;
        let mut inputs =
            std::vec![0.0, -0.0, 1.0, 2.0, f64::INFINITY, f64::MIN_POSITIVE / 3.0, 0.999_999_999];
        while x < 1e300 {
            inputs.push(x);
            x *= 1.37;
        }
        for x in inputs {
            assert_eq!(super::sqrt(x).to_bits(), libm::sqrt(x).to_bits(), "sqrt({x:e})");
        }
        assert!(super::sqrt(f64::NAN).is_nan() && super::sqrt(-1.0).is_nan());
    }

    #[test]
    fn ull_merge_kernels_agree_on_every_byte_pair() {
        extern crate std;
        use std::vec::Vec;
        // All 65,536 pairs (legal or not), at every offset of a 64-byte vector.
        let a: Vec<u8> = (0..65_536u32).map(|i| (i >> 8) as u8).chain(0..101u8).collect();
        let b: Vec<u8> = (0..65_536u32).map(|i| i as u8).chain(0..101u8).collect();
        let mut scalar = a.clone();
        crate::ull::kernels::merge(&mut scalar, &b);
        let mut dispatched = a.clone();
        super::ull_merge(&mut dispatched, &b);
        assert_eq!(dispatched, scalar);
        #[cfg(target_arch = "x86_64")]
        {
            let n = a.len();
            if super::has_avx2() {
                let mut fast = a.clone();
                // SAFETY: AVX2 is present; 32 * (n / 32) <= n.
                let done = unsafe { super::ull_merge_avx2(&mut fast, &b, n / 32) };
                assert_eq!(fast[..done], scalar[..done]);
                assert_eq!(done, n - n % 32);
            }
            if super::has_avx512bw() {
                let mut fast = a.clone();
                // SAFETY: AVX-512 BW is present; 64 * (n / 64) <= n.
                let done = unsafe { super::ull_merge_avx512(&mut fast, &b, n / 64) };
                assert_eq!(fast[..done], scalar[..done]);
                assert_eq!(done, n - n % 64);
            }
        }
    }

    #[test]
    fn lzcnt_detection_matches_std_and_runs_the_work() {
        extern crate std;
        #[cfg(target_arch = "x86_64")]
        assert_eq!(super::has_lzcnt(), std::is_x86_feature_detected!("lzcnt"));
        let mut calls = 0;
        assert_eq!(
            super::with_lzcnt(|| {
                calls += 1;
                u64::MAX.leading_zeros() + 1u64.leading_zeros()
            }),
            63
        );
        assert_eq!(calls, 1);
    }

    #[test]
    fn detection_is_stable() {
        let first = super::has_avx2();
        assert_eq!(first, super::has_avx2());
    }
}
