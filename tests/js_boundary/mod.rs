//! Tests across the JS boundary: real JS values in, real JS values out.
//! Included by `tests/node.rs` and `tests/web.rs`.

mod assemble;
mod context;
mod manager;
mod selection;
mod support;
