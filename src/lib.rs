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
//! use agent_context::{agents::GEMINI, AssemblerInput, ContextMessage};
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

// The core, by layer, bottom-up (docs/architecture.md): a layer uses only
// the layers declared before it here (tests/module_graph.rs checks it).
// The errors and the one failure taxonomy.
pub mod error;
pub mod error_kind;
// The text formats every layer reads and writes, and the caller's values.
pub mod formats;
// The prompt, built within its budget.
pub mod prompt;
// The agents, as data.
pub mod agents;
// Structured output: a schema read, a value validated, a reply judged.
pub mod structured;
// What a launch needs: command line, endpoint, home, MCP servers,
// attachments, platform.
pub mod launch;
// What agents print, read.
pub mod agent_output;
// What an attempt is made of.
pub mod attempt;
// ACP's pure rules.
pub mod acp;
// The session record.
pub mod record;
// The session engine.
pub mod engine;
// Agents on other machines.
pub mod remote;
// ACP served over the network: who may connect, what a session may ask.
pub mod serve;
// The conversation, one thing: which agent session runs its next turn,
// what that turn carries, what is recorded.
pub mod conversation;
// Teams.
pub mod team;
// The tools built on runs.
pub mod tools;

// The binding, on top: it may use any layer.
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use agents::assembly::{assemble_for_agent, AgentAssembly};
pub use error::{AgentContextError, ErrorCode, Result};
pub use prompt::budget::{AssembleOptions, Assembled};
pub use prompt::input::{
    AssemblerInput, ContextMessage, ContextSource, PromptFields, DEFAULT_MAX_BYTES,
};
pub use prompt::layout::Layout;
pub use prompt::output::{AssemblerOutput, TrimReport};
