//! build.rs: compiles the leaking C library (src/leak.c) into a static
//! archive linked into rustffi, as a crate with bundled C code does.
fn main() {
    println!("cargo:rerun-if-changed=src/leak.c");
    cc::Build::new().file("src/leak.c").opt_level(2).compile("rustffi_leak");
}
