//! rustffi: a Rust service whose bundled C library leaks (issue 26, item 4:
//! the FFI heap), for tests/integration/memory_rust.sh.
//!
//!     rustffi DIR REQUESTS RUST_MIB
//!
//! Keeps RUST_MIB MiB in the Rust heap (64 KiB entries, touched), serves
//! REQUESTS requests (each a short-lived Rust allocation and one call to
//! the C library's `ffi_parse_request`, which keeps ~3 KB through plain
//! malloc), then prints one line of JSON with what it measured itself:
//!
//!     {"mode":"rustffi","truth":{"glibc.heap":N},"c_malloc":"glibc",
//!      "c_leaked":N,"rust_kept":N,"rjem_allocated":N,
//!      "mallinfo2":{"arena":N,"hblkhd":N,"uordblks":N},"pid":N,"rss":N}
//!
//! ("truth" holds glibc.heap, mallinfo2's arena + hblkhd, only when the C
//! side's malloc is glibc's; "rjem_allocated" is the Rust jemalloc's
//! stats.allocated), a line "ready", and waits until DIR/stop appears or
//! DIR is gone, a signal, or 300 s.  When the Rust jemalloc's profiler is on it first
//! waits (up to 20 s) for prof.active (under `ying run`: the agent is up).
use jemallocator::jemalloc_sys;
use jemallocator::Jemalloc;
use std::ffi::CString;
use std::io::Write;
use std::os::raw::{c_int, c_ulong, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: Jemalloc = Jemalloc;

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" {
    fn ffi_parse_request(id: c_ulong) -> c_int;
    fn ffi_leaked() -> usize;
    fn ffi_malloc_is_jemalloc() -> c_int;
    fn ffi_glibc_info(out: *mut usize);
}

extern "C" fn on_signal(_sig: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

fn arg(args: &[String], i: usize, default: u64) -> u64 {
    match args.get(i) {
        None => default,
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("rustffi: argument {} is not a number: {:?}", i, s);
            std::process::exit(1)
        }),
    }
}

/// The Rust jemalloc's mallctl NAME read as a T (None when it fails).
fn ctl<T: Copy + Default>(name: &str) -> Option<T> {
    let c = CString::new(name).ok()?;
    let mut v = T::default();
    let mut sz = std::mem::size_of::<T>();
    let rc = unsafe {
        jemalloc_sys::mallctl(c.as_ptr(), &mut v as *mut T as *mut c_void, &mut sz,
            std::ptr::null_mut(), 0)
    };
    if rc == 0 && sz == std::mem::size_of::<T>() { Some(v) } else { None }
}

fn epoch() {
    let mut e: u64 = 1;
    let mut sz = std::mem::size_of::<u64>();
    let c = CString::new("epoch").unwrap();
    unsafe {
        jemalloc_sys::mallctl(c.as_ptr(), &mut e as *mut u64 as *mut c_void, &mut sz,
            &mut e as *mut u64 as *mut c_void, sz);
    }
}

fn rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = s.split_whitespace().nth(1).and_then(|x| x.parse().ok()).unwrap_or(0);
    pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64
}

/// One request: a short-lived Rust allocation and the C library's parse.
#[inline(never)]
fn handle(id: u64) -> usize {
    let body = format!("request {} {}", id, "y".repeat(512));
    if unsafe { ffi_parse_request(id as c_ulong) } != 0 {
        eprintln!("rustffi: the C library's malloc failed");
        std::process::exit(2);
    }
    body.len()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: rustffi DIR [REQUESTS [RUST_MIB]]");
        std::process::exit(1);
    }
    let dir = std::path::PathBuf::from(&args[1]);
    let requests = arg(&args, 2, 22000);
    let rust_mib = arg(&args, 3, 64);
    unsafe {
        let h = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGTERM, h);
        libc::signal(libc::SIGINT, h);
    }
    if ctl::<bool>("opt.prof").unwrap_or(false) {
        let start = Instant::now();
        while !ctl::<bool>("prof.active").unwrap_or(false)
            && start.elapsed() < Duration::from_secs(20)
            && !STOP.load(Ordering::SeqCst)
        {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let mut cache: Vec<Vec<u8>> = Vec::new();
    for i in 0..rust_mib * 16 {
        cache.push(vec![(i % 251) as u8 + 1; 64 << 10]);
    }
    let mut served = 0usize;
    for id in 0..requests {
        served += handle(id);
    }
    let mut gi = [0usize; 3];
    unsafe { ffi_glibc_info(gi.as_mut_ptr()) };
    let c_jem = unsafe { ffi_malloc_is_jemalloc() } != 0;
    epoch();
    let allocated: usize = ctl("stats.allocated").unwrap_or(0);
    let truth = if c_jem {
        String::new()
    } else {
        format!("\"glibc.heap\":{}", gi[0] + gi[1])
    };
    println!(
        "{{\"mode\":\"rustffi\",\"truth\":{{{}}},\"c_malloc\":\"{}\",\"c_leaked\":{},\
         \"rust_kept\":{},\"rjem_allocated\":{},\"mallinfo2\":{{\"arena\":{},\"hblkhd\":{},\
         \"uordblks\":{}}},\"served\":{},\"pid\":{},\"rss\":{}}}",
        truth, if c_jem { "jemalloc" } else { "glibc" }, unsafe { ffi_leaked() },
        cache.len() << 16, allocated, gi[0], gi[1], gi[2], served, std::process::id(), rss());
    println!("ready");
    std::io::stdout().flush().ok();
    let start = Instant::now();
    while !STOP.load(Ordering::SeqCst) && !dir.join("stop").exists() && dir.exists()
        && start.elapsed() < Duration::from_secs(300)
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    let sum: u64 = cache.iter().map(|v| v[v.len() / 2] as u64).sum();
    eprintln!("rustffi: {} entries (checksum {})", cache.len(), sum);
}
