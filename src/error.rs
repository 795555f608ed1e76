//! The one error type of the library. Every failure carries a stable code and a
//! message that names the offending field, e.g.
//! `contextMessages[3].content must be a string`.

use std::fmt;

/// Stable error codes, as `error.code` says them: the one list of the
/// codes of every `AgentContextError` the library throws, the core's and the
/// JS host's (`AgentContextErrorCode` in the shipped types is this list,
/// checked by `tests/error_codes.rs`; the codes the JS host throws, by
/// `tests/js/js_sources.test.cjs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// A field is missing, has the wrong type, or an impossible value.
    InvalidInput,
    /// Even after every allowed cut, the output does not fit `maxBytes`.
    BudgetExceeded,
    /// A broken internal invariant; never expected, reported instead of panicking.
    Internal,
    /// A session store's record is being written by another writer.
    SessionLocked,
    /// An agent failed an operation that does not resolve a run or a turn
    /// (opening a session, a mode or model set); `kind` says how.
    AgentError,
    /// An agent session that is no longer its conversation's live end;
    /// `details` names the live end.
    SessionMoved,
}

impl ErrorCode {
    /// Every code, in the order the shipped types list them.
    pub const ALL: [ErrorCode; 6] = [
        ErrorCode::InvalidInput,
        ErrorCode::BudgetExceeded,
        ErrorCode::Internal,
        ErrorCode::SessionLocked,
        ErrorCode::AgentError,
        ErrorCode::SessionMoved,
    ];

    /// The code as JS sees it.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "INVALID_INPUT",
            ErrorCode::BudgetExceeded => "BUDGET_EXCEEDED",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::SessionLocked => "SESSION_LOCKED",
            ErrorCode::AgentError => "AGENT_ERROR",
            ErrorCode::SessionMoved => "SESSION_MOVED",
        }
    }
}

/// The numbers behind a `BUDGET_EXCEEDED` error, `error.neededBytes` and
/// `error.maxBytes` in JS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BudgetShortfall {
    /// The smallest output the rules allow, in UTF-8 bytes.
    pub needed_bytes: u64,
    /// The budget it did not fit.
    pub max_bytes: u64,
}

/// `AgentContextError` in JS: `name`, `code`, `message` (and, for
/// `BUDGET_EXCEEDED`, `neededBytes` and `maxBytes`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentContextError {
    code: ErrorCode,
    message: String,
    /// Boxed: every `Result` of the crate carries this error, and a pointer
    /// keeps it (and the code that moves it) as small as before.
    shortfall: Option<Box<BudgetShortfall>>,
    /// What the code says more (`SESSION_MOVED`: the live end), as JSON.
    details: Option<Box<serde_json::Value>>,
}

impl AgentContextError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        AgentContextError {
            code,
            message: message.into(),
            shortfall: None,
            details: None,
        }
    }

    /// `BUDGET_EXCEEDED`: the output needs `needed_bytes`, the budget is
    /// `max_bytes`; the message says so in words.
    pub fn budget_exceeded(needed_bytes: u64, max_bytes: u64, message: impl Into<String>) -> Self {
        AgentContextError {
            code: ErrorCode::BudgetExceeded,
            message: message.into(),
            shortfall: Some(Box::new(BudgetShortfall {
                needed_bytes,
                max_bytes,
            })),
            details: None,
        }
    }

    /// The sizes of a `BUDGET_EXCEEDED` error; `None` for the other codes.
    pub fn shortfall(&self) -> Option<BudgetShortfall> {
        self.shortfall.as_deref().copied()
    }

    /// The error with `details` (`error.details` in JS).
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// What the code says more, when anything.
    pub fn details(&self) -> Option<&serde_json::Value> {
        self.details.as_deref()
    }

    /// `INVALID_INPUT` with a message that names the field.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidInput, message)
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for AgentContextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for AgentContextError {}

pub type Result<T> = std::result::Result<T, AgentContextError>;
