//! ying.rs: the few libying-live functions this service uses (include/ying-live.h),
//! declared by hand, and two helpers that start the growth reports and the
//! HTTP endpoint.  Each hands libying the service's own jemalloc first:
//! jemalloc-sys links it statically with the `_rjem_` prefix, so libying
//! cannot find it with dlsym; `ying_ctl_use(_rjem_mallctl)` tells it.
//! Errors are printed and the service runs on without profiling.
use jemallocator::jemalloc_sys;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_uint, c_void};

type MallctlFn = unsafe extern "C" fn(*const c_char, *mut c_void, *mut usize, *mut c_void,
    usize) -> c_int;
type StatsPrintFn = unsafe extern "C" fn(Option<unsafe extern "C" fn(*mut c_void, *const c_char)>,
    *mut c_void, *const c_char);

/// struct ying_runner_opts (YING_RUNNER_OPTS_VERSION 2; no other version is accepted).
#[repr(C)]
struct RunnerOpts {
    version: c_int,
    dir: *const c_char,
    interval: f64,
    pct: f64,
    floor: u64,
    portable_names: c_int,
    max_sets: c_uint,
    max_bytes: u64,
    top: c_uint,
    log: *mut c_void,
    verbose: c_int,
    program: *const c_char,
    frames: *const c_char,
    full_names: c_int,
}

/// struct ying_http_opts (YING_HTTP_OPTS_VERSION 3; no other version is accepted).
#[repr(C)]
struct HttpOpts {
    version: c_int,
    bind: *const c_char,
    token: *const c_char,
    max_connections: c_uint,
    timeout_sec: c_uint,
    max_seconds: c_uint,
    max_snapshots: c_uint,
    max_snapshot_bytes: usize,
    busy_wait_ms: c_uint,
    max_body: usize,
    log: *mut c_void,
    allow_hosts: *const c_char,
    insecure: c_int,
    open: c_int,
    frames: *const c_char,
}

#[repr(C)]
struct YingRunner {
    _opaque: [u8; 0],
}
#[repr(C)]
struct YingHttp {
    _opaque: [u8; 0],
}

extern "C" {
    fn ying_ctl_use(f: Option<MallctlFn>) -> c_int;
    fn ying_ctl_use_stats_print(f: Option<StatsPrintFn>);
    fn ying_runner_start(out: *mut *mut YingRunner, o: *const RunnerOpts) -> c_int;
    fn ying_runner_stop(r: *mut YingRunner);
    fn ying_http_start(out: *mut *mut YingHttp, o: *const HttpOpts) -> c_int;
    fn ying_http_port(h: *const YingHttp) -> c_int;
    fn ying_http_stop(h: *mut YingHttp);
    fn ying_last_error() -> *const c_char;
}

/// The growth runner; stops when dropped.
pub struct Reports(*mut YingRunner);
/// The HTTP endpoint; stops when dropped.
pub struct Http(*mut YingHttp);

impl Drop for Reports {
    fn drop(&mut self) {
        unsafe { ying_runner_stop(self.0) }
    }
}
impl Drop for Http {
    fn drop(&mut self) {
        unsafe { ying_http_stop(self.0) }
    }
}

fn use_our_jemalloc() -> Result<(), String> {
    unsafe {
        ying_ctl_use_stats_print(Some(jemalloc_sys::malloc_stats_print));
        check(ying_ctl_use(Some(jemalloc_sys::mallctl)))
    }
}

fn check(rc: c_int) -> Result<(), String> {
    if rc >= 0 {
        return Ok(());
    }
    Err(unsafe { CStr::from_ptr(ying_last_error()) }.to_string_lossy().into_owned())
}

/// `var` from the environment as a number >= 0 with an optional unit
/// suffix (the first of `units` that matches, times its factor): None when
/// unset or empty.  libying reads no environment: the application chooses
/// its settings and fills the options itself.
fn env_number(var: &str, units: &[(&str, f64)]) -> Result<Option<f64>, String> {
    let s = match std::env::var(var) {
        Ok(s) if !s.is_empty() => s,
        _ => return Ok(None),
    };
    let (num, mult) = units
        .iter()
        .find_map(|(u, m)| s.strip_suffix(u).map(|n| (n, *m)))
        .unwrap_or((s.as_str(), 1.0));
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && !num.starts_with('+') => Ok(Some(v * mult)),
        _ => Err(format!("{}={}: expected a number >= 0", var, s)),
    }
}

const SECONDS: &[(&str, f64)] = &[("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)];
const SIZES: &[(&str, f64)] = &[
    ("KiB", 1024.0), ("MiB", 1048576.0), ("GiB", 1073741824.0),
    ("k", 1024.0), ("K", 1024.0), ("M", 1048576.0), ("G", 1073741824.0),
];

/// YING_REPORT_INTERVAL (seconds, 5m, 1h), YING_REPORT_PCT and
/// YING_REPORT_FLOOR (4MiB, 512k, 4096) into `o`.
fn opts_from_env(o: &mut RunnerOpts) -> Result<(), String> {
    if let Some(v) = env_number("YING_REPORT_INTERVAL", SECONDS)? {
        o.interval = v;
    }
    if let Some(v) = env_number("YING_REPORT_PCT", &[("%", 1.0)])? {
        o.pct = v;
    }
    if let Some(v) = env_number("YING_REPORT_FLOOR", SIZES)? {
        o.floor = v as u64;
    }
    Ok(())
}

/// Growth reports into `dir` (ying.<time>.<N>MiB.{report,svg,heap,pb.gz}),
/// tuned by YING_REPORT_INTERVAL, YING_REPORT_PCT and YING_REPORT_FLOOR.
pub fn start_reports(dir: &str) -> Option<Reports> {
    let cdir = CString::new(dir).ok()?;
    let mut opts = RunnerOpts {
        version: 2, dir: std::ptr::null(), interval: 300.0, pct: 10.0, floor: 20 << 20,
        portable_names: 0, max_sets: 64, max_bytes: 512 << 20, top: 10,
        log: std::ptr::null_mut(), verbose: 0, program: std::ptr::null(),
        frames: std::ptr::null(), full_names: 0,
    };
    let mut r = std::ptr::null_mut();
    let res = use_our_jemalloc()
        .and_then(|_| opts_from_env(&mut opts))
        .and_then(|_| {
            opts.dir = cdir.as_ptr();
            check(unsafe { ying_runner_start(&mut r, &opts) })
        });
    match res {
        Ok(()) => {
            eprintln!("ying: growth reports in {}", dir);
            Some(Reports(r))
        }
        Err(e) => {
            eprintln!("ying: no growth reports: {}", e);
            None
        }
    }
}

/// The HTTP endpoint on `bind` ("127.0.0.1:6060"; port 0 picks a free one).
pub fn start_http(bind: &str) -> Option<Http> {
    let cbind = CString::new(bind).ok()?;
    let opts = HttpOpts {
        version: 3, bind: cbind.as_ptr(), token: std::ptr::null(), max_connections: 0,
        timeout_sec: 0, max_seconds: 0, max_snapshots: 0, max_snapshot_bytes: 0,
        busy_wait_ms: 0, max_body: 0, log: std::ptr::null_mut(),
        allow_hosts: std::ptr::null(), insecure: 0, open: 0, frames: std::ptr::null(),
    };
    let mut h = std::ptr::null_mut();
    match use_our_jemalloc().and_then(|_| check(unsafe { ying_http_start(&mut h, &opts) })) {
        Ok(()) => {
            let host = bind.rsplit_once(':').map_or("127.0.0.1", |(h, _)| h);
            let host = if host.is_empty() { "127.0.0.1" } else { host };
            eprintln!("ying: HTTP on http://{}:{}/", host, unsafe { ying_http_port(h) });
            Some(Http(h))
        }
        Err(e) => {
            eprintln!("ying: no HTTP endpoint: {}", e);
            None
        }
    }
}
