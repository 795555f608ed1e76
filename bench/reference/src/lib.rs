//! simd-json over newline-separated JSON lines in this module's memory: each
//! line copied to a scratch buffer (simd-json parses in place) and parsed
//! into simd-json's tape, the way a reader would parse each line it receives.
//! No mapping: this is what a SIMD parser alone costs on the lines.

use std::alloc::{alloc, Layout};

/// Room for `len` bytes of lines, written by the caller; never freed (one
/// per benchmark process).
#[no_mangle]
pub extern "C" fn lines_buffer(len: usize) -> *mut u8 {
    match Layout::from_size_align(len.max(1), 16) {
        Ok(layout) => unsafe { alloc(layout) },
        Err(_) => std::ptr::null_mut(),
    }
}

/// Parses each `\n`-ended line of `ptr[..len]`; returns how many parsed.
#[no_mangle]
pub extern "C" fn parse_lines(ptr: *const u8, len: usize) -> u32 {
    let data = unsafe { std::slice::from_raw_parts(ptr, len) };
    let mut buffers = simd_json::Buffers::new(64 * 1024);
    let mut scratch = Vec::with_capacity(64 * 1024);
    let mut parsed = 0;
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', data) {
        scratch.clear();
        scratch.extend_from_slice(&data[start..end]);
        start = end + 1;
        if simd_json::Deserializer::from_slice_with_buffers(&mut scratch, &mut buffers).is_ok() {
            parsed += 1;
        }
    }
    parsed
}
