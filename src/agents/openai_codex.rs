//! Codex (`codex exec`). Layout (CodexContextAssembler): everything inline,
//! `[SYSTEM]` first, then `[TEAM_TASK]`, `[CONTEXT]` and `[MESSAGE]`; context
//! lines `- {from} -> {to}: {content}`. Output: `exec --json` lines.
//! `--skip-git-repo-check`: outside a git repository it refuses to start,
//! and the host chose the working directory.

use super::spec::*;
use super::ApiFamily;
use crate::attachments::cli::{CliAttachments, CliImage};
use crate::layout::{InstructionPlacement, Layout};

pub const CODEX: Layout = Layout {
    agent_type: "openai-codex",
    instructions: InstructionPlacement::Inline {
        header: "[SYSTEM]\n",
    },
    team_header: "[TEAM_TASK]\n",
    context_header: "[CONTEXT]\n",
    line_prefix: "- ",
    line_shows_recipient: true,
    message_header: "[MESSAGE]\n",
};

pub const AGENT: AgentSpec = AgentSpec {
    agent_type: "openai-codex",
    name: "Codex",
    layout: &CODEX,
    assembler_class: Some("CodexContextAssembler"),
    output: OutputFormat::CodexJson,
    cli: CliSpec {
        command: "codex",
        package: "@openai/codex",
        base_args: &["exec", "--json", "--skip-git-repo-check"],
        system_prompt: SystemPromptArg::None,
        model_flag: "--model",
        session: SessionArg::Subcommand("resume"),
        approval: ApprovalArg::Sandbox { flag: "--sandbox" },
        trailing_args: &["-"],
        mcp: CliMcp::CodexOverrides,
        attachments: Some(ATTACHMENTS),
        extras: CliExtras::NONE,
    },
    acp: Some(AcpLaunch {
        command: "codex-acp",
        package: "@agentclientprotocol/codex-acp",
        args: &[],
        model: AcpModel::CodexConfig,
        system_prompt_meta: false,
        load_broken: None,
        missing_file_is_empty: false,
        // 2.6.0 opens sessions in `agent` ("Auto review": it edits inside
        // the folder unasked); `read-only` asks before every edit and
        // command outside its read-only sandbox. Zed's 0.16.0 opens in
        // `read-only`.
        ask_mode: Some("read-only"),
        ask_env: None,
        context_as_text_with_images: false,
        exits_on_eof: false,
        mcp_env: &[],
    }),
    mcp_tool: "codex",
    own_retries: OwnRetries::Unbounded(
        "request_max_retries and stream_max_retries belong to a model provider: the built-in `openai` one cannot be overridden (Codex refuses the configuration), and a custom provider's are the user's",
    ),
    // A custom model provider: Codex ignores OPENAI_BASE_URL.
    endpoint: EndpointSpec {
        families: &[FamilyUse {
            family: ApiFamily::OpenaiResponses,
            env: &[],
        }],
        route: EndpointRoute::CodexProvider {
            id: "agent_context",
            key_env: "AGENT_CONTEXT_ENDPOINT_KEY",
        },
        model: EndpointModel::Option,
    },
    home: None,
};

/// How attachments reach it over its CLI (`docs/attachments.md`).
pub const ATTACHMENTS: CliAttachments = CliAttachments {
    // `--image=path`, once per image: sent as a data URL (`input_image`).
    image: CliImage::FileFlag("--image"),
    at_path: false,
    include_dir_flag: None,
};
