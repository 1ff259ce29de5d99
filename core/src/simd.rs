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

avx2_dispatch!(
    /// UltraLogLog same-precision register merge (`dst[i] = merge(dst[i], src[i])`).
    fn ull_merge => crate::ull::kernels::merge, (dst: &mut [u8], src: &[u8]) -> ()
);

#[cfg(test)]
mod tests {
    #[test]
    fn detection_is_stable() {
        let first = super::has_avx2();
        assert_eq!(first, super::has_avx2());
    }
}
