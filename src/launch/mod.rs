//! What a launch of an agent needs, each in the agent's own way: its
//! headless command line (`invocation`), the model endpoint (`endpoint`), a
//! run's own home (`run_home`), MCP servers (`mcp_servers`), attachments
//! (`attachments`), the variables its parts read differently
//! (`env_flags`), and the platform's rules for finding, starting and
//! stopping a process (`platform`). The host spawns; these decide.

pub mod attachments;
pub mod endpoint;
pub mod env_flags;
pub mod invocation;
pub mod mcp_servers;
pub mod platform;
pub mod run_home;
