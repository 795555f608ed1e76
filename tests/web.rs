//! The same wasm-bindgen tests in headless Chrome (Debian's chromium and
//! chromedriver; `scripts/test.sh` sets CHROMEDRIVER).
#![cfg(all(target_arch = "wasm32", feature = "api"))]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;
mod js_boundary;
