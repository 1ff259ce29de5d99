//! Link arguments of the shared library: a SONAME carrying the major version
//! (libsketches.so.MAJOR, so `-lsketches` resolves at run time through the
//! versioned name `make install` creates), and no undefined symbols left
//! for the loader to find (which is also what makes the `panic-check`
//! feature fail the link when a panic path survives).
fn main() {
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_else(|_| "0".into());
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libsketches.so.{major}");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-z,defs");
        println!("cargo:rustc-cdylib-link-arg=-lc");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
