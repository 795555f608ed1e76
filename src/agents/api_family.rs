//! The API families a model endpoint can speak.

/// An API family, named as `endpoint.api` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ApiFamily {
    /// Anthropic Messages (`POST {baseUrl}/v1/messages`); `baseUrl` is the
    /// origin, as Anthropic's SDK takes it.
    AnthropicMessages,
    /// OpenAI Responses (`POST {baseUrl}/responses`); `baseUrl` ends in `/v1`.
    OpenaiResponses,
    /// OpenAI-compatible chat completions (`POST {baseUrl}/chat/completions`);
    /// `baseUrl` ends in `/v1`.
    OpenaiChat,
    /// Gemini (`POST {baseUrl}/v1beta/models/{model}:streamGenerateContent`);
    /// `baseUrl` is the origin.
    Gemini,
}

impl ApiFamily {
    pub const ALL: [ApiFamily; 4] = [
        ApiFamily::AnthropicMessages,
        ApiFamily::OpenaiResponses,
        ApiFamily::OpenaiChat,
        ApiFamily::Gemini,
    ];

    /// The name `endpoint.api` takes (`'openai-chat'`).
    pub fn name(self) -> &'static str {
        match self {
            ApiFamily::AnthropicMessages => "anthropic-messages",
            ApiFamily::OpenaiResponses => "openai-responses",
            ApiFamily::OpenaiChat => "openai-chat",
            ApiFamily::Gemini => "gemini",
        }
    }

    /// How people call it, for messages.
    pub fn title(self) -> &'static str {
        match self {
            ApiFamily::AnthropicMessages => "Anthropic Messages",
            ApiFamily::OpenaiResponses => "OpenAI Responses",
            ApiFamily::OpenaiChat => "OpenAI-compatible chat completions",
            ApiFamily::Gemini => "Gemini",
        }
    }

    pub fn parse(name: &str) -> Option<ApiFamily> {
        ApiFamily::ALL.into_iter().find(|f| f.name() == name)
    }

    /// `'a', 'b', 'c' or 'd'`.
    pub fn quoted_names() -> String {
        quoted(&ApiFamily::ALL)
    }
}

/// `'a', 'b' or 'c'`.
pub fn quoted(families: &[ApiFamily]) -> String {
    let names: Vec<String> = families.iter().map(|f| format!("'{}'", f.name())).collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}
