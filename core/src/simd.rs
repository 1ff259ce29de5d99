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

/// ExaLogLog same-layout merge of 28-bit registers (`d = 20`), two per 7
/// bytes: with AVX2, four pairs (eight registers) per step
/// (`ell28_merge_avx2`), the bytes after the last whole step and every
/// other CPU by the portable kernel (`ell::kernels::merge28`). Same bytes
/// either way (tested).
pub fn ell28_merge(dst: &mut [u8], src: &[u8], d: u32) {
    #[cfg(target_arch = "x86_64")]
    {
        let n = dst.len().min(src.len());
        // A step covers 28 bytes and reads and writes 2 more (see the kernel).
        let steps = if n >= 30 { (n - 2) / 28 } else { 0 };
        let done = if d < 31 && has_avx2() {
            // SAFETY: AVX2 is present (CPUID feature bit plus OS support of
            // the YMM state, checked by `has_avx2`); 28 * (steps - 1) + 30 <= n
            // by the choice of `steps`; d < 31.
            unsafe { ell28_merge_avx2(dst, src, steps, d) }
        } else {
            0
        };
        if let (Some(rest), Some(from)) = (dst.get_mut(done..n), src.get(done..n)) {
            crate::ell::kernels::merge28(rest, from, d);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    crate::ell::kernels::merge28(dst, src, d);
}

// The 28-bit kernel, per step of four 7-byte pairs at byte 28 v: each
// 128-bit lane loads 16 bytes, lane 0 at 28 v and lane 1 at 28 v + 14, so
// each holds two pairs and two bytes of the next pair. `vpshufb` widens a
// lane's pairs to four 32-bit registers (bytes 0-3, 3-6, 7-10, 10-13; the odd
// ones then shift right by 4), all masked to 28 bits. The merge is
// `ell::merge_register` lane by lane: top values `u = r >> d`, the higher
// register's bits or-ed with the lower one's window (its history and its top
// value's bit) shifted right by the difference of the top values (`vpsrlvd`
// gives 0 for shifts past 31, as `checked_shr`), or the plain OR where the
// top values are equal or the lower register is empty. Packing reverses the
// widening: each 64-bit half holds a pair as `r_even | r_odd << 32`, which
// `(q & M28) | ((q >> 4) & !M28)` turns into the pair's 56 bits; `vpshufb`
// moves each lane's two pairs to its bytes 0-13, and bytes 14-15 keep the
// loaded bytes of the next pair. Lane 0 is stored first, lane 1 14 bytes
// further: it rewrites lane 0's last two bytes with its merged pair, and puts
// back the two bytes it loaded past the step unchanged (the next step, loaded
// before this store, holds the same two bytes and merges them later).

/// Merges the first `steps` 28-byte steps of 28-bit registers; returns the
/// bytes done (`28 * steps`).
///
/// # Safety
/// The CPU must support AVX2; `d < 31`; unless `steps` is 0, `28 * (steps -
/// 1) + 30` must not exceed either length.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn ell28_merge_avx2(dst: &mut [u8], src: &[u8], steps: usize, d: u32) -> usize {
    use core::arch::x86_64::*;
    #[rustfmt::skip]
    let widen = _mm256_setr_epi8(
        0, 1, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 10, 11, 12, 13,
        0, 1, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 10, 11, 12, 13,
    );
    #[rustfmt::skip]
    let narrow = _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, -1, -1,
        0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, -1, -1,
    );
    #[rustfmt::skip]
    let next_pair = _mm256_setr_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1,
    );
    let odd_shift = _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4);
    let m28 = _mm256_set1_epi32((1 << 28) - 1);
    let m28_pairs = _mm256_set1_epi64x((1 << 28) - 1);
    let top_shift = _mm_cvtsi32_si128(d as i32);
    let history = _mm256_set1_epi32((1 << d) - 1);
    let top_bit = _mm256_set1_epi32(1 << d);
    let zero = _mm256_setzero_si256();
    let (d_ptr, s_ptr) = (dst.as_mut_ptr(), src.as_ptr());
    /// The two 16-byte windows of a step: lane 0 at `p`, lane 1 at `p + 14`.
    ///
    /// # Safety
    /// AVX2; `p .. p + 30` readable.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn load(p: *const u8) -> __m256i {
        // SAFETY: 30 readable bytes at `p` (caller); the loads have no
        // alignment requirement.
        unsafe {
            _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(_mm_loadu_si128(p as *const __m128i)),
                _mm_loadu_si128(p.add(14) as *const __m128i),
            )
        }
    }
    let widened =
        |raw: __m256i| _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(raw, widen), odd_shift), m28);
    // Each step's bytes are loaded before the previous step stores: its
    // first two bytes are the ones that store puts back unchanged, and a
    // load right after a store that covers part of it would wait for the
    // store instead of taking its bytes from it (a store-forwarding stall:
    // 31-33 µs per p = 14 merge against 24-26 for the compiler's
    // vectorization of the portable kernel, until this order).
    let (mut next_a, mut next_b) = (zero, zero);
    if steps > 0 {
        // SAFETY: AVX2 (caller); step 0's bytes 0 .. 30 are within both
        // slices (caller).
        (next_a, next_b) = unsafe { (load(d_ptr), load(s_ptr)) };
    }
    for v in 0..steps {
        let (a_raw, b_raw) = (next_a, next_b);
        if v + 1 < steps {
            // SAFETY: AVX2 (caller); step v + 1's bytes 28 (v + 1) .. 28 (v +
            // 1) + 30 are within both slices (caller).
            unsafe { (next_a, next_b) = (load(d_ptr.add(28 * (v + 1))), load(s_ptr.add(28 * (v + 1)))) };
        }
        let (a, b) = (widened(a_raw), widened(b_raw));
        let (ua, ub) = (_mm256_srl_epi32(a, top_shift), _mm256_srl_epi32(b, top_shift));
        let (top, low_top) = (_mm256_max_epu32(ua, ub), _mm256_min_epu32(ua, ub));
        let a_higher = _mm256_cmpeq_epi32(top, ua);
        let (high, low) = (_mm256_blendv_epi8(b, a, a_higher), _mm256_blendv_epi8(a, b, a_higher));
        let rise = _mm256_sub_epi32(top, low_top);
        let window = _mm256_or_si256(_mm256_and_si256(low, history), top_bit);
        let moved = _mm256_or_si256(high, _mm256_srlv_epi32(window, rise));
        let plain = _mm256_or_si256(a, b);
        let take_plain = _mm256_or_si256(_mm256_cmpeq_epi32(rise, zero), _mm256_cmpeq_epi32(low_top, zero));
        let merged = _mm256_blendv_epi8(moved, plain, take_plain);
        let pairs = _mm256_or_si256(
            _mm256_and_si256(merged, m28_pairs),
            _mm256_andnot_si256(m28_pairs, _mm256_srli_epi64::<4>(merged)),
        );
        let out = _mm256_blendv_epi8(_mm256_shuffle_epi8(pairs, narrow), a_raw, next_pair);
        // SAFETY: bytes 28 v .. 28 v + 30 are within `dst` (caller), which
        // does not overlap `src` (a `&mut` and a `&`); no alignment needed.
        unsafe {
            let pd = d_ptr.add(28 * v);
            _mm_storeu_si128(pd as *mut __m128i, _mm256_castsi256_si128(out));
            _mm_storeu_si128(pd.add(14) as *mut __m128i, _mm256_extracti128_si256::<1>(out));
        }
    }
    28 * steps
}

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
    fn ell28_merge_kernels_agree() {
        extern crate std;
        use std::vec::Vec;
        // Legal 28-bit registers (d = 20: 8-bit top values, history bits only
        // for values that exist) and arbitrary ones, packed two per 7 bytes;
        // every pair count up to 40 (steps, remainders, fewer bytes than a
        // step reads) and a p = 14 array.
        fn next(state: &mut u64) -> u64 {
            *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let z = (*state ^ (*state >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z ^ (z >> 29)
        }
        let d = 20u32;
        // A legal register, or (`legal` false) any 28-bit value: a forged
        // image's registers, for which every CPU must still write the same bytes.
        let register = |state: &mut u64, legal: bool| {
            if !legal {
                return (next(state) as u32) & ((1 << 28) - 1);
            }
            let u = (next(state) % 256) as u32;
            if u == 0 {
                return 0;
            }
            let mut r = (u << d) | (next(state) as u32 & ((1 << d) - 1));
            if u <= d {
                r = (r & !((2 << (d - u)) - 1)) | (1 << (d - u));
            }
            r
        };
        let mut state = 7u64;
        let pack = |regs: &[u32]| -> Vec<u8> {
            regs.chunks(2)
                .flat_map(|p| (u64::from(p[0]) | (u64::from(p[1]) << 28)).to_le_bytes().into_iter().take(7))
                .collect()
        };
        for (pairs, legal) in (0..=40).chain([8192]).flat_map(|p| [(p, true), (p, false)]) {
            let a: Vec<u32> = (0..2 * pairs).map(|_| register(&mut state, legal)).collect();
            let b: Vec<u32> =
                (0..2 * pairs).map(|i| if i % 9 == 0 { a[i] } else { register(&mut state, legal) }).collect();
            let expected: Vec<u32> =
                a.iter().zip(&b).map(|(x, y)| crate::ell::merge_register(*x, *y, d)).collect();
            let (a, b, expected) = (pack(&a), pack(&b), pack(&expected));
            let mut portable = a.clone();
            crate::ell::kernels::merge28(&mut portable, &b, d);
            assert_eq!(portable, expected, "{pairs} pairs (legal: {legal}), portable");
            let mut dispatched = a.clone();
            super::ell28_merge(&mut dispatched, &b, d);
            assert_eq!(dispatched, expected, "{pairs} pairs (legal: {legal}), dispatched");
            #[cfg(target_arch = "x86_64")]
            if super::has_avx2() && a.len() >= 30 {
                let mut fast = a.clone();
                let steps = (a.len() - 2) / 28;
                // SAFETY: AVX2 is present; 28 * (steps - 1) + 30 <= len; d < 31.
                let done = unsafe { super::ell28_merge_avx2(&mut fast, &b, steps, d) };
                assert_eq!(done, 28 * steps);
                assert_eq!(fast[..done], expected[..done], "{pairs} pairs (legal: {legal}), AVX2");
                assert_eq!(fast[done..], a[done..], "{pairs} pairs: bytes past the steps unchanged");
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
