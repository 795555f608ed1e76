//! Tests across the JS boundary: real JS values in, real JS values out.
//! Included by `tests/node.rs` and `tests/web.rs`; `gemini_tool_run` needs
//! the `gemini-tool` feature (the runner's own module in the package).

mod agent_output;
mod assemble;
mod context;
mod gemini_tool_prompt;
#[cfg(feature = "gemini-tool")]
mod gemini_tool_run;
mod invocation;
mod manager;
mod selection;
mod support;
