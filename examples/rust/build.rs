// build.rs: link libying.  YING_LIBDIR names the directory holding
// libying.so (ying's build tree: build/.libs; installed: e.g.
// /usr/local/lib); it is also put in the binary's run path.  Without it,
// the system's default library path is searched.
fn main() {
    println!("cargo:rerun-if-env-changed=YING_LIBDIR");
    if let Some(dir) = std::env::var_os("YING_LIBDIR") {
        let dir = dir.to_string_lossy();
        println!("cargo:rustc-link-search=native={}", dir);
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir);
    }
    // the runner, the HTTP endpoint and ying_ctl_* are libying-live's
    // (include/ying-live.h), which sits on libying
    println!("cargo:rustc-link-lib=dylib=ying-live");
    println!("cargo:rustc-link-lib=dylib=ying");
}
