//! wasm-bindgen tests in Node: `scripts/test.sh` runs them with
//! `wasm-bindgen-test-runner` as the wasm32 runner.
#![cfg(target_arch = "wasm32")]

mod common;
mod js_boundary;
