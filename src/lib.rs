//! agent-context: builds the prompts and context sent to coding-agent CLIs
//! (Claude Code, Codex, Gemini CLI, any other), within a hard byte budget,
//! the command line that feeds them, and parses what they print back.
//!
//! The crate is a pure core (every module but `wasm`) and one binding layer,
//! `wasm`, compiled only for `wasm32` and the only place that knows about
//! JavaScript. Its Cargo features (`api`, the default, and `node`)
//! choose which bindings a WebAssembly module gets; the core is always all
//! there.
//!
//! ```
//! use agent_context::{assemblers::GEMINI, AssemblerInput, ContextMessage};
//!
//! let mut input = AssemblerInput::default();
//! input.fields.current_message = "Hello Gemini".into();
//! input.context_messages.push(ContextMessage::new("kailai", Some("carol"), "Hi"));
//! let out = GEMINI.assemble(&input).unwrap();
//! assert_eq!(out.prompt, "Conversation so far:\n- kailai: Hi\n\nYour task:\nHello Gemini");
//! assert_eq!(out.system_flag, None);
//! ```

// The core is safe Rust; the binding layer's generated glue is not ours.
#![cfg_attr(not(target_arch = "wasm32"), forbid(unsafe_code))]

pub mod acp;
pub mod agent_output;
pub mod agent_tool;
pub mod agents;
pub mod assemblers;
pub mod attachments;
pub mod attempt;
pub mod budget;
pub mod cache_stable;
pub mod context_builder;
pub mod endpoint;
pub mod engine;
pub mod error;
pub mod error_kind;
pub mod gemini_tool;
pub mod input;
pub mod input_keys;
pub mod invocation;
pub mod json_read;
pub mod json_text;
pub mod layout;
pub mod mcp_servers;
pub mod output;
pub mod platform;
pub mod record;
pub mod remote;
pub mod run_home;
pub mod sample;
pub mod selection;
pub mod size_plan;
pub mod structured;
pub mod team;
pub mod text;
pub mod toml_text;
pub mod truncate;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use assemblers::{assemble_for_agent, AgentAssembly};
pub use budget::{AssembleOptions, Assembled};
pub use error::{AgentContextError, ErrorCode, Result};
pub use input::{AssemblerInput, ContextMessage, ContextSource, PromptFields, DEFAULT_MAX_BYTES};
pub use layout::Layout;
pub use output::{AssemblerOutput, TrimReport};
