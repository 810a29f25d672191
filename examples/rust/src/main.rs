//! ying-rust-example: a Rust service with ying built in.
//!
//!     ying-rust-example [HTTP_ADDR [REPORT_DIR [SECONDS]]]
//!
//! The two lines in main() are all it takes: growth reports (flame graphs
//! included) land in REPORT_DIR (default ./ying-reports) whenever the live
//! heap grows by 10 %, and HTTP_ADDR (default 127.0.0.1:6060) serves
//! /debug/pprof/heap, /debug/heap?format=svg and the rest (curl it /).
//! jemalloc's profiler is switched on below (_rjem_malloc_conf), so no
//! environment is needed; _RJEM_MALLOC_CONF still overrides it.  The
//! "service" keeps 1 MiB more per 100 ms in SessionStore::remember, for
//! SECONDS seconds (default: until SIGTERM/SIGINT/Ctrl-C kills it).
mod ying;

use jemallocator::Jemalloc;
use std::os::raw::c_char;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: Jemalloc = Jemalloc;

/// jemalloc's compiled-in options (jemalloc reads this symbol at start-up;
/// `_rjem_` is jemalloc-sys's prefix): profile, sampling on.
#[repr(transparent)]
pub struct Conf(*const c_char);
unsafe impl Sync for Conf {}
#[no_mangle]
pub static _rjem_malloc_conf: Conf = Conf(b"prof:true,prof_active:true\0".as_ptr() as *const c_char);

struct SessionStore {
    sessions: Vec<Vec<u8>>,
}

impl SessionStore {
    /// The leak: every session is remembered forever.
    #[inline(never)]
    fn remember(&mut self, id: usize) {
        let session = vec![(id % 255) as u8 + 1; 256 << 10]; // EXAMPLE_LEAK_LINE
        self.sessions.push(session);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let http_addr = args.get(1).map_or("127.0.0.1:6060", |s| s.as_str());
    let report_dir = args.get(2).map_or("ying-reports", |s| s.as_str());
    let seconds: Option<u64> = args.get(3).and_then(|s| s.parse().ok());

    let _reports = ying::start_reports(report_dir);
    let _http = ying::start_http(http_addr);

    let start = Instant::now();
    let mut store = SessionStore { sessions: Vec::new() };
    let mut id = 0;
    while seconds.map_or(true, |s| start.elapsed() < Duration::from_secs(s)) {
        for _ in 0..4 {
            store.remember(id);
            id += 1;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    println!("ying-rust-example: {} sessions", store.sessions.len());
}
