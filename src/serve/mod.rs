//! Serving ACP over the network (Streamable HTTP and WebSocket on one URL),
//! the pure rules: what the server's options may hold and their defaults
//! ([`options`]), which request is let in (the `Host`, the `Origin`, the
//! bearer token compared in constant time, the subprotocol, the path, the
//! method, the connection limit: [`gate`]), and what a client may ask of a
//! conversation's folder and commands (its `cwd` inside the server's `cd`,
//! no stdio MCP server unless allowed: [`session_params`]). The host
//! (`js/serve/`) listens, moves bytes and asks these.

pub mod gate;
pub mod options;
pub mod session_params;

pub use gate::{Admission, Gate, Request};
pub use options::{Limits, ServeOptions};
