//! wasm-bindgen tests in Node: `scripts/test.sh` runs them with
//! `wasm-bindgen-test-runner` as the wasm32 runner, and with
//! `--features node`, so the Gemini tool runner's binding (its own
//! module in the package) is tested along with the main module's.
#![cfg(all(target_arch = "wasm32", feature = "api"))]

mod common;
mod js_boundary;
