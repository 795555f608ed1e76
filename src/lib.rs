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
//! use agent_context::{prompt::assemblers::GEMINI, AssemblerInput, ContextMessage};
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

// The core, by layer (docs/architecture.md): the prompt built within its
// budget; the agents as data; what a launch needs (command line, endpoint,
// home, MCP servers, attachments, platform); what agents print, read; an
// attempt's rules; the session engine and what rests on it
// (ACP's rules, structured output, the record, teams, remote hosts, ACP
// served over the network); the
// tools built on runs; the errors and the one failure taxonomy, and the
// text formats every layer reads and writes.
pub mod prompt;

pub mod agents;

pub mod launch;

pub mod agent_output;

pub mod attempt;
pub mod engine;

pub mod acp;
pub mod record;
pub mod remote;
pub mod serve;
pub mod structured;
pub mod team;

pub mod tools;

pub mod error;
pub mod error_kind;
pub mod formats;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::{AgentContextError, ErrorCode, Result};
pub use prompt::assemblers::{assemble_for_agent, AgentAssembly};
pub use prompt::budget::{AssembleOptions, Assembled};
pub use prompt::input::{
    AssemblerInput, ContextMessage, ContextSource, PromptFields, DEFAULT_MAX_BYTES,
};
pub use prompt::layout::Layout;
pub use prompt::output::{AssemblerOutput, TrimReport};
