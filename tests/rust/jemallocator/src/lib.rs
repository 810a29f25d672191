//! jemallocator: `Jemalloc`, a global allocator over jemalloc-sys's
//! prefixed jemalloc (`_rjem_mallocx` and friends), the few lines of
//! tikv-jemallocator a service needs.  `pub use jemalloc_sys` gives callers
//! `jemallocator::jemalloc_sys::mallctl` (the `_rjem_mallctl` symbol).
pub use jemalloc_sys;

use std::alloc::{GlobalAlloc, Layout};
use std::os::raw::{c_int, c_void};

/// The global allocator: `#[global_allocator] static A: Jemalloc = Jemalloc;`
pub struct Jemalloc;

/// jemalloc already aligns every allocation to 16 bytes (x86-64, aarch64).
const MIN_ALIGN: usize = 16;
/// MALLOCX_ZERO from jemalloc's <jemalloc.h>.
const MALLOCX_ZERO: c_int = 0x40;

/// The mallocx flags for a layout: MALLOCX_LG_ALIGN when jemalloc's own
/// alignment for that size is not enough.
fn align_flags(l: &Layout) -> c_int {
    if l.align() <= MIN_ALIGN && l.align() <= l.size() {
        0
    } else {
        l.align().trailing_zeros() as c_int
    }
}

unsafe impl GlobalAlloc for Jemalloc {
    #[inline]
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        jemalloc_sys::mallocx(l.size(), align_flags(&l)) as *mut u8
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        jemalloc_sys::mallocx(l.size(), align_flags(&l) | MALLOCX_ZERO) as *mut u8
    }
    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        jemalloc_sys::sdallocx(p as *mut c_void, l.size(), align_flags(&l))
    }
    #[inline]
    unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
        let nl = Layout::from_size_align_unchecked(size, l.align());
        jemalloc_sys::rallocx(p as *mut c_void, size, align_flags(&nl)) as *mut u8
    }
}
