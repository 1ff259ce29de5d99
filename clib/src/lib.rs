//! # libsketches
//!
//! Packages the C ABI of `sketches-ffi` as `libsketches.so` (SONAME
//! `libsketches.so.MAJOR`) and `libsketches.a`, without std: no allocator,
//! no unwinder, no backtrace symbolizer, so a static C program carries only
//! the functions it calls. `include/sketches.h` declares every function.
//!
//! What happens on a panic: nothing can panic. No exported function can
//! reach a panic path, which `tests/tests/panic_free.rs` proves at build
//! time by linking the library with the `panic-check` feature, whose panic
//! handler calls a symbol defined nowhere. The handler of a normal build
//! aborts the process (`abort()` from the C library on hosted targets, a
//! trap on bare metal): with `panic = "abort"` in every profile that builds
//! this crate there is no unwinding to catch, and returning an error status
//! from a state the proof says is unreachable would hide a bug.
#![no_std]

// Link every exported function of the C ABI into this library.
pub use sketches_ffi::*;

/// Test-only (feature `panic-canary`): a function with a reachable panic,
/// proving that the `panic-check` link really fails when one exists.
#[cfg(feature = "panic-canary")]
#[no_mangle]
pub extern "C" fn sketches_panic_canary(index: usize) -> u8 {
    const TABLE: [u8; 4] = [1, 2, 3, 4];
    #[allow(clippy::indexing_slicing)]
    TABLE[index]
}

#[cfg(feature = "panic-check")]
extern "C" {
    /// Defined nowhere: referenced only if a panic path survives optimization.
    fn sketches_panic_is_reachable_from_an_exported_function() -> !;
}

#[cfg(all(not(feature = "panic-check"), not(target_os = "none")))]
extern "C" {
    fn abort() -> !;
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    #[cfg(feature = "panic-check")]
    // SAFETY: never called; the symbol does not exist, so the link fails
    // whenever this handler is reachable.
    unsafe {
        sketches_panic_is_reachable_from_an_exported_function()
    }
    #[cfg(all(not(feature = "panic-check"), not(target_os = "none")))]
    // SAFETY: abort() from the C library takes no arguments and never returns.
    unsafe {
        abort()
    }
    #[cfg(all(not(feature = "panic-check"), target_os = "none"))]
    loop {
        core::hint::spin_loop();
    }
}

/// Unoptimized builds only: the precompiled core library's unwind tables
/// name this personality routine even though nothing unwinds here (every
/// profile aborts on panic). Release builds (fat LTO) drop those tables, so
/// the shipped library neither defines nor needs it.
#[cfg(debug_assertions)]
#[no_mangle]
extern "C" fn rust_eh_personality() {}
