//! Tests across the JS boundary: real JS values in, real JS values out.
//! Included by `tests/node.rs` and `tests/web.rs`.

mod agent_output;
mod assemble;
mod context;
mod gemini_tool;
mod invocation;
mod manager;
mod selection;
mod support;
