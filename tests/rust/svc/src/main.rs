//! rustsvc: a small Rust "service" that leaks, for ying's integration tests.
//!
//!     rustsvc STEPS MIB STEP_MS HOLD_MS
//!
//! Each of STEPS steps keeps MIB more MiB in a cache (1 MiB entries, through
//! `Cache::leak_entry`) while requests come and go (`Request::handle`
//! allocates and frees), then waits STEP_MS milliseconds; afterwards it holds
//! its heap for HOLD_MS milliseconds (-1: until a signal).  SIGTERM, SIGINT
//! and SIGHUP end it cleanly (status 0) at any time.  It prints one line per
//! step on stdout.  Nothing in it knows about ying.
use jemallocator::Jemalloc;
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: Jemalloc = Jemalloc;

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_sig: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// The leak: entries go in and never come out.
struct Cache {
    entries: HashMap<u64, Vec<u8>>,
}

impl Cache {
    #[inline(never)]
    fn leak_entry(&mut self, key: u64, size: usize) {
        let data = vec![(key % 251) as u8 + 1; size]; // RUSTSVC_LEAK_LINE
        self.entries.insert(key, data);
    }

    fn checksum(&self) -> u64 {
        self.entries.values().map(|v| v[v.len() / 2] as u64).sum()
    }
}

/// Short-lived allocations: freed before the request ends.
struct Request {
    id: u64,
}

impl Request {
    #[inline(never)]
    fn handle(&self) -> usize {
        let body = format!("request {} {}", self.id, "x".repeat(4096));
        body.len()
    }
}

fn arg(args: &[String], i: usize, default: i64) -> i64 {
    match args.get(i) {
        None => default,
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("rustsvc: argument {} is not a number: {:?}", i, s);
            std::process::exit(2)
        }),
    }
}

/// Sleep up to `ms` milliseconds (forever when negative); false once a
/// signal asked us to stop.
fn pause(ms: i64) -> bool {
    let start = Instant::now();
    while !STOP.load(Ordering::SeqCst) {
        if ms >= 0 && start.elapsed() >= Duration::from_millis(ms as u64) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let steps = arg(&args, 1, 5);
    let mib = arg(&args, 2, 10);
    let step_ms = arg(&args, 3, 1000);
    let hold_ms = arg(&args, 4, 0);
    unsafe {
        let h = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGTERM, h);
        libc::signal(libc::SIGINT, h);
        libc::signal(libc::SIGHUP, h);
    }
    let mut cache = Cache { entries: HashMap::new() };
    let mut served = 0usize;
    let mut key = 0u64;
    let mut running = true;
    for step in 1..=steps {
        for _ in 0..mib {
            key += 1;
            cache.leak_entry(key, 1 << 20);
            served += Request { id: key }.handle();
        }
        println!("step {}: {} MiB in the cache", step, key);
        std::io::stdout().flush().ok();
        if !pause(step_ms) {
            running = false;
            break;
        }
    }
    if running {
        pause(hold_ms);
    }
    println!("rustsvc: {} entries (checksum {}), {} bytes served", cache.entries.len(),
        cache.checksum(), served);
}
