//! Tests across the JS boundary: real JS values in, real JS values out.
//! Included by `tests/node.rs` and `tests/web.rs`; `gemini_tool_run`
//! and `invocation` need the `node` feature
//! (the Node-only module of the package, which has those bindings).

mod agent_output;
mod assemble;
mod context;
mod gemini_tool_prompt;
#[cfg(feature = "node")]
mod gemini_tool_run;
#[cfg(feature = "node")]
mod invocation;
mod manager;
mod selection;
mod support;
