// layers/main.rs: growth of Rust's standard collections, each in its own
// named function, for tests/integration/rust_layers.sh.
//
// Built by that test with plain rustc (no crates: the global allocator is
// the system malloc, here jemalloc linked with -l jemalloc), once with
// rustup's current rustc (v0-demangled std paths such as
// <alloc::raw_vec::RawVecInner>::finish_grow) and once with Debian's 1.63
// (legacy names such as alloc::raw_vec::RawVec<T,A>::grow_amortized), at
// -O and at -C opt-level=0.  `layers BASE DUMP` writes BASE before the
// growth and DUMP after it, keeping everything each function made
// (mallctl("prof.dump"): MALLOC_CONF must hold prof:true).  Every stack through one of these functions must start at it
// in ying's reports: RawVec, hashbrown, Box, String, Vec, BTreeMap, Arc and
// Rc are allocation layers, trimmed like malloc.
use std::collections::{BTreeMap, HashMap};
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};
use std::rc::Rc;
use std::sync::Arc;

extern "C" {
    fn mallctl(name: *const c_char, oldp: *mut c_void, oldlenp: *mut usize,
               newp: *mut c_void, newlen: usize) -> c_int;
}

// std::hint::black_box is not stable in Rust 1.63: an opaque identity
#[inline(never)]
fn black_box<T>(x: T) -> T {
    let r = unsafe { std::ptr::read_volatile(&x) };
    std::mem::forget(x);
    r
}

pub struct Session {
    pub id: u64,
    pub payload: [u8; 120],
}

// Vec growth by push (RawVec grow_one / grow_amortized / finish_grow)
#[inline(never)]
pub fn push_events(n: u64) -> Vec<Session> {
    let mut v = Vec::new();
    for i in 0..n {
        v.push(Session { id: i, payload: [7; 120] });
    }
    v
}

// HashMap growth (hashbrown RawTable reserve_rehash, do_alloc)
#[inline(never)]
pub fn build_session(n: u64) -> HashMap<u64, u64> {
    let mut m = HashMap::new();
    for i in 0..n {
        m.insert(i, i * 3);
    }
    m
}

// String growth by push_str, and String::from
#[inline(never)]
pub fn write_journal(n: u64) -> (String, Vec<String>) {
    let mut s = String::new();
    let mut names = Vec::with_capacity(n as usize);
    for i in 0..n {
        s.push_str("a line of the session journal\n");
        names.push(String::from("a name that is long enough to be on the heap"));
        black_box(i);
    }
    (s, names)
}

// Box::new
#[inline(never)]
pub fn box_sessions(n: u64) -> Vec<Box<Session>> {
    let mut v = Vec::with_capacity(n as usize);
    for i in 0..n {
        v.push(Box::new(Session { id: i, payload: [1; 120] }));
    }
    v
}

// BTreeMap nodes
#[inline(never)]
pub fn btree_index(n: u64) -> BTreeMap<u64, [u8; 64]> {
    let mut m = BTreeMap::new();
    for i in 0..n {
        m.insert(i, [2; 64]);
    }
    m
}

// Arc::new and Rc::new
#[inline(never)]
pub fn share_sessions(n: u64) -> (Vec<Arc<Session>>, Vec<Rc<Session>>) {
    let mut a = Vec::with_capacity(n as usize);
    let mut r = Vec::with_capacity(n as usize);
    for i in 0..n {
        a.push(Arc::new(Session { id: i, payload: [3; 120] }));
        r.push(Rc::new(Session { id: i, payload: [4; 120] }));
    }
    (a, r)
}

// slice to_vec, Vec clone, extend
#[inline(never)]
pub fn copy_buffers(n: u64) -> Vec<Vec<u8>> {
    let src = black_box(vec![5u8; 2000]);
    let mut out = Vec::with_capacity(3 * n as usize);
    for _ in 0..n {
        out.push(src[..1500].to_vec());
        out.push(src.clone());
        let mut e: Vec<u8> = Vec::new();
        e.extend(src.iter().copied());
        out.push(e);
    }
    out
}

fn dump(path: &str) {
    let p = CString::new(path).unwrap();
    let mut pp = p.as_ptr();
    let rc = unsafe {
        mallctl(b"prof.dump\0".as_ptr() as *const c_char, std::ptr::null_mut(),
                std::ptr::null_mut(), &mut pp as *mut _ as *mut c_void,
                std::mem::size_of::<*const c_char>())
    };
    if rc != 0 {
        eprintln!("prof.dump to {} failed: {} (is MALLOC_CONF=prof:true set?)", path, rc);
        std::process::exit(3);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: layers BASE DUMP");
        std::process::exit(2);
    }
    dump(&args[1]);
    let a = black_box(push_events(5000));
    let b = black_box(build_session(20000));
    let c = black_box(write_journal(3000));
    let d = black_box(box_sessions(3000));
    let e = black_box(btree_index(5000));
    let f = black_box(share_sessions(2000));
    let g = black_box(copy_buffers(300));
    dump(&args[2]);
    black_box((a.len(), b.len(), c.0.len(), d.len(), e.len(), f.0.len(), g.len()));
}
