//! The command line that feeds an assembled prompt to an agent CLI, with each
//! CLI's traps built in:
//!
//! - the prompt travels on stdin, never in argv, where one argument over
//!   128 KiB fails with `E2BIG` on Linux (and any local user can read it);
//!   Kimi Code alone reads no prompt on stdin and gets it in `--prompt=…`
//!   (`CliExtras::prompt_flag`), a prompt too long for one argument being
//!   `INVALID_INPUT`;
//! - Claude Code's system prompt goes in `--append-system-prompt=…`, or, when
//!   that argument would pass the same limit (or holds a NUL, which no
//!   argument can), in a file named by `--append-system-prompt-file=…`;
//! - values are attached with `=`, so one starting with `-` cannot be read as
//!   an option (pi, whose parser reads `--model=m` as an unknown flag and
//!   drops it, gets them apart: `CliExtras::values_apart`; it takes a known
//!   flag's next argument whatever it is);
//! - Gemini CLI gets `--skip-trust` (a headless run in an untrusted folder
//!   exits 55) and Codex `--skip-git-repo-check` (outside a git repository
//!   it refuses to start): the host chose the working directory.
//!
//! ```
//! use agent_context::launch::invocation::{build_cli_invocation, InvocationOptions};
//! use agent_context::AssemblerOutput;
//!
//! let output = AssemblerOutput { prompt: "[MESSAGE]\nHi".into(), system_flag: Some("You are Carol".into()) };
//! let options = InvocationOptions { model: Some("sonnet".into()), ..Default::default() };
//! let run = build_cli_invocation("claude-code", &output, &options).unwrap();
//! assert_eq!(run.command, "claude");
//! assert_eq!(
//!     run.args,
//!     ["-p", "--output-format", "stream-json", "--verbose", "--append-system-prompt=You are Carol", "--model=sonnet"]
//! );
//! assert_eq!(run.stdin, "[MESSAGE]\nHi");
//! ```

use serde::Serialize;
use serde_json::Value;

use crate::agents::{self, ApprovalArg, SessionArg, SystemPromptArg};
use crate::error::{AgentContextError, Result};
use crate::formats::json_read::Obj;
use crate::launch::attachments::cli::{cli_parts, CliAttachmentParts};
use crate::launch::attachments::{read_attachments, Attachment};
use crate::launch::platform::limits::{self, CommandLine, Limit, Measure};
use crate::launch::platform::Platform;
use crate::prompt::output::AssemblerOutput;
use crate::prompt::text::js_trim;

/// Linux's limit on one argv (or environment) string, the terminating NUL
/// included: `MAX_ARG_STRLEN`, 32 pages of 4 KiB.
pub const MAX_ARG_BYTES: usize = limits::LINUX_MAX_ARG_STRLEN;

/// What the agent may touch (seed 003's `sandbox`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sandbox {
    ReadOnly,
    WorkspaceWrite,
    DangerFullAccess,
}

impl Sandbox {
    pub const NAMES: [&'static str; 3] = ["read-only", "workspace-write", "danger-full-access"];

    pub fn parse(name: &str) -> Option<Sandbox> {
        match name {
            "read-only" => Some(Sandbox::ReadOnly),
            "workspace-write" => Some(Sandbox::WorkspaceWrite),
            "danger-full-access" => Some(Sandbox::DangerFullAccess),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Sandbox::ReadOnly => "read-only",
            Sandbox::WorkspaceWrite => "workspace-write",
            Sandbox::DangerFullAccess => "danger-full-access",
        }
    }
}

/// `buildCliInvocation`'s options; every one may be left out (a string may
/// also be empty), and then the CLI's own default applies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InvocationOptions {
    /// The executable; default `claude`, `codex` or `gemini`.
    pub command: Option<String>,
    pub model: Option<String>,
    /// Resume this session (the `sessionId` a parsed reply gave).
    pub session_id: Option<String>,
    /// Resume `session_id` only if it exists, with the CLI's flag that
    /// fails on an unknown id where its usual one would silently create a
    /// session (`CliExtras::resume_existing`): what `runAgent` asks, as it
    /// verifies resume. Not read from the options.
    pub resume_existing: bool,
    pub sandbox: Option<Sandbox>,
    /// Skip approval prompts.
    pub yolo: Option<bool>,
    /// Where the host will write Claude Code's system prompt when it is too
    /// long for an argument; needed only then.
    pub system_prompt_file: Option<String>,
    /// Where the CLI should write its token usage when that is the only
    /// place it reports it (Copilot's `--usage-output-file`); the invocation
    /// then lists it in `outputs` for the host to read back after the run.
    /// Ignored for CLIs that print their usage.
    pub usage_file: Option<String>,
    /// More arguments, placed after ours and before any positional argument.
    pub extra_args: Vec<String>,
    /// The run's MCP servers, on the command line where the CLI takes them
    /// there (after the approval flags); not read from the options of
    /// `buildCliInvocation`, whose result has no environment or settings
    /// file for the CLIs that take them elsewhere.
    pub mcp_servers: Vec<crate::launch::mcp_servers::McpServer>,
    /// The system the command will run on (Node's `process.platform`); its
    /// command-line limits are counted (see `platform::limits`). Default
    /// Linux in the core; the JS binding passes the current platform.
    pub platform: Option<Platform>,
    /// The child's environment, when known: counted on Linux and macOS,
    /// where argv and environment share one limit.
    pub env: Option<Vec<(String, String)>>,
    /// Images and resources after the prompt, each the CLI's own way
    /// ([`crate::launch::attachments::cli`]).
    pub attachments: Vec<Attachment>,
    /// `outputSchema`, on the command line where the CLI takes one
    /// ([`crate::agents::OutputSchemaArg`]); not read from the options of
    /// `buildCliInvocation`.
    pub output_schema: Option<crate::structured::OutputSchema>,
    /// The file the schema is written to for a CLI that reads it from one
    /// (in the run's folder).
    pub output_schema_file: Option<String>,
}

impl InvocationOptions {
    /// Reads `{ command?, model?, sessionId?, sandbox?, yolo?,
    /// systemPromptFile?, usageFile?, extraArgs?, platform?, env? }` (the
    /// JSON of `buildCliInvocation`'s `options`); `null` gives the defaults.
    pub fn read(value: &Value) -> Result<InvocationOptions> {
        if value.is_null() {
            return Ok(InvocationOptions::default());
        }
        let o = Obj::new(value, "options")?;
        let text = |key: &str| o.opt_str(key).map(|v| v.map(str::to_owned));
        let sandbox = match o.opt_str("sandbox")? {
            None => None,
            Some(name) => Some(Sandbox::parse(name).ok_or_else(|| {
                AgentContextError::invalid(format!(
                    "options.sandbox must be one of {}, got \"{name}\"",
                    Sandbox::NAMES.map(|n| format!("'{n}'")).join(", ")
                ))
            })?),
        };
        let platform = match o.opt_str("platform")? {
            None => None,
            Some(name) => Some(
                Platform::parse(name)
                    .map_err(|e| AgentContextError::invalid(format!("options.{}", e.message())))?,
            ),
        };
        let env = match o.get("env") {
            None | Some(Value::Null) => None,
            Some(Value::Object(vars)) => Some(
                vars.iter()
                    .map(|(k, v)| match v {
                        Value::String(v) => Ok((k.clone(), v.clone())),
                        _ => Err(AgentContextError::invalid(format!(
                            "options.env.{k} must be a string"
                        ))),
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
            Some(_) => {
                return Err(AgentContextError::invalid(
                    "options.env must be an object of strings",
                ))
            }
        };
        Ok(InvocationOptions {
            platform,
            env,
            command: text("command")?,
            model: text("model")?,
            session_id: text("sessionId")?,
            resume_existing: false,
            sandbox,
            yolo: o.opt_bool("yolo")?,
            system_prompt_file: text("systemPromptFile")?,
            usage_file: text("usageFile")?,
            extra_args: o
                .opt_str_list("extraArgs")?
                .unwrap_or_default()
                .into_iter()
                .map(str::to_owned)
                .collect(),
            mcp_servers: Vec::new(),
            attachments: read_attachments(
                o.get("attachments").unwrap_or(&Value::Null),
                "options.attachments",
            )?,
            output_schema: None,
            output_schema_file: None,
        })
    }
}

/// A file the host must write before spawning.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InvocationFile {
    pub path: String,
    pub content: String,
}

/// A file the CLI writes during the run, for the host to read back after
/// it (`kind: "usage"`: merge it into the reply with
/// [`crate::agent_output::merge_output_file`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InvocationOutput {
    pub path: String,
    pub kind: OutputKind,
}

/// What an [`InvocationOutput`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputKind {
    /// The run's token usage (Copilot's `--usage-output-file` JSON).
    Usage,
}

impl OutputKind {
    pub fn parse(name: &str) -> Option<OutputKind> {
        (name == "usage").then_some(OutputKind::Usage)
    }

    /// Its name in `outputs` (`"usage"`).
    pub fn name(self) -> &'static str {
        match self {
            OutputKind::Usage => "usage",
        }
    }
}

/// `{ command, args, stdin, files, outputs? }`: spawn `command` with `args`,
/// write the `files` first, then write `stdin` to the child and close it;
/// after the run, read each of `outputs` (present only when not empty).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CliInvocation {
    pub command: String,
    pub args: Vec<String>,
    pub stdin: String,
    pub files: Vec<InvocationFile>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<InvocationOutput>,
}

/// The command line that runs `agent_type`'s CLI on `output`, as its
/// registry entry ([`crate::agents`]) describes it.
///
/// Errors (`INVALID_INPUT`): an agent type without a CLI, an empty prompt,
/// a `systemFlag` for a CLI that has none, a session id starting with `-`,
/// a NUL in an argument, or a system prompt too long for an argument with no
/// `systemPromptFile` to put it in.
pub fn build_cli_invocation(
    agent_type: &str,
    output: &AssemblerOutput,
    options: &InvocationOptions,
) -> Result<CliInvocation> {
    let agent = agents::require(agent_type, "to build a command line")?;
    let cli = agent.cli("a command line")?;
    let platform = options.platform.unwrap_or_default();
    check_options(options, platform)?;
    if js_trim(&output.prompt).is_empty() {
        return Err(AgentContextError::invalid(
            "assemblerOutput.prompt is empty: the CLI reads its prompt from stdin and has nothing to do",
        ));
    }
    let flag = output.system_flag.as_deref().filter(|f| !f.is_empty());
    let apart = cli.extras.values_apart;

    let mut args: Vec<String> = cli.base_args.iter().map(|a| (*a).to_owned()).collect();
    let mut files = Vec::new();
    // Where the system prompt sits when it travels as an argument, and the
    // flag that names its file instead.
    let mut system_arg: Option<(usize, &str, &str)> = None;
    let mut outputs = Vec::new();
    match (flag, cli.system_prompt) {
        (None, _) => {}
        (Some(_), SystemPromptArg::None) => {
            return Err(AgentContextError::invalid(format!(
                "assemblerOutput.systemFlag is only for {}: the {agent_type} assembler puts the instructions in the prompt",
                with_system_flag()
            )));
        }
        (Some(flag), SystemPromptArg::Append { inline, file }) => {
            // Inline for now; moved to its file below when the whole
            // command line does not fit the platform with it.
            push_value(&mut args, inline, Some(flag), apart);
            system_arg = Some((args.len() - 1, inline, file));
        }
        (Some(flag), SystemPromptArg::AppendInline { inline }) => {
            if !fits_in_argument(inline, flag) {
                return Err(AgentContextError::invalid(format!(
                    "assemblerOutput.systemFlag cannot be an argument ({}) and {agent_type} has no file flag for it",
                    too_long_why("systemFlag", inline, flag)
                )));
            }
            push_value(&mut args, inline, Some(flag), apart);
        }
    }
    push_value(&mut args, cli.model_flag, given(&options.model), apart);
    let session = given(&options.session_id);
    if let SessionArg::Flag(name) = cli.session {
        match cli.extras.resume_existing {
            Some(strict) if options.resume_existing && session.is_some() => {
                push_value(&mut args, strict.flag, session, apart);
                args.extend(strict.here.iter().map(|a| (*a).to_owned()));
            }
            _ => push_value(&mut args, name, session, apart),
        }
    }
    match cli.approval {
        ApprovalArg::Mode {
            flag,
            read_only,
            yolo,
            edits,
        } => push_value(
            &mut args,
            flag,
            approval(options, read_only, yolo, edits),
            apart,
        ),
        // The CLI never stops to ask for approval, so `yolo` changes
        // nothing; the sandbox is the one knob.
        ApprovalArg::Sandbox { flag } => {
            push_value(&mut args, flag, options.sandbox.map(Sandbox::name), apart)
        }
        ApprovalArg::Flags {
            read_only,
            yolo,
            edits,
        } => {
            if let Some(flags) = approval(options, read_only, yolo, edits) {
                args.extend(flags.iter().map(|f| (*f).to_owned()));
            }
        }
        ApprovalArg::AllApproved(why) => {
            if options.sandbox == Some(Sandbox::ReadOnly) {
                return Err(AgentContextError::invalid(format!(
                    "options.sandbox 'read-only' cannot be kept by {} over its command line: {why}",
                    agent.name
                )));
            }
        }
    }
    let approve = options.yolo == Some(true) || options.sandbox == Some(Sandbox::DangerFullAccess);
    args.extend(crate::launch::mcp_servers::cli::cli_args(
        agent,
        &options.mcp_servers,
        approve,
    )?);
    if let (Some(flag), Some(path)) = (cli.extras.usage_file, given(&options.usage_file)) {
        push_value(&mut args, flag, Some(path), apart);
        outputs.push(InvocationOutput {
            path: path.to_owned(),
            kind: OutputKind::Usage,
        });
    }
    let attached = attachment_parts(agent_type, options)?;
    args.splice(
        cli.base_args.len()..cli.base_args.len(),
        attached.input_args.iter().cloned(),
    );
    if let Some((i, _, _)) = system_arg.as_mut() {
        *i += attached.input_args.len();
    }
    args.extend(attached.args.iter().cloned());
    if let (Some(schema), Some(own)) = (&options.output_schema, cli.extras.output_schema) {
        let (more, file) = schema.cli_args(own, options.output_schema_file.as_deref())?;
        args.extend(more);
        files.extend(file.map(|(path, content)| InvocationFile { path, content }));
    }
    args.extend(options.extra_args.iter().cloned());
    if let (SessionArg::Subcommand(word), Some(session)) = (cli.session, session) {
        args.extend([word.to_owned(), session.to_owned()]);
    }
    let mut stdin = attached.stdin(&output.prompt);
    if let Some(prompt_flag) = cli.extras.prompt_flag {
        // The CLI reads no prompt on stdin: it goes in its flag.
        if !fits_in_argument(prompt_flag, &stdin) {
            return Err(AgentContextError::invalid(format!(
                "assemblerOutput.prompt cannot be an argument ({}) and {} reads no prompt on stdin",
                too_long_why("the prompt", prompt_flag, &stdin),
                agent.name
            )));
        }
        push_value(&mut args, prompt_flag, Some(&stdin), apart);
        stdin = String::new();
    }
    args.extend(cli.trailing_args.iter().map(|a| (*a).to_owned()));
    if !cli.extras.args_may_hold_spaces {
        check_no_whitespace(agent_type, &args, options)?;
    }
    let command = given(&options.command).unwrap_or(cli.command).to_owned();
    let env = options.env.as_deref().unwrap_or(&[]);
    if let (Some((i, inline, file)), Some(flag)) = (system_arg, flag) {
        let line = CommandLine {
            program: &command,
            args: &args,
            env,
        };
        if flag.contains('\0') || !fits_with_launcher(platform, &line) {
            let measure = limits::check(platform, &line);
            let path = system_prompt_file(
                inline,
                given(&options.system_prompt_file),
                flag,
                platform,
                measure,
            )?;
            args[i] = if apart {
                path.to_owned()
            } else {
                format!("{file}={path}")
            };
            if apart && inline != file {
                args[i - 1] = file.to_owned();
            }
            files.push(InvocationFile {
                path: path.to_owned(),
                content: flag.to_owned(),
            });
        }
    }
    let line = CommandLine {
        program: &command,
        args: &args,
        env,
    };
    if let Err(over) = limits::check(platform, &line) {
        let why = if cli.extras.prompt_flag.is_some() {
            "the prompt is one of its arguments; shorten the prompt or the options"
        } else {
            "the prompt travels on stdin; shorten the options"
        };
        return Err(AgentContextError::invalid(format!(
            "the command line does not fit on {}: {} ({why})",
            platform.name(),
            over.message()
        )));
    }
    Ok(CliInvocation {
        command,
        args,
        stdin,
        files,
        outputs,
    })
}

/// What `options.attachments` add to the agent's command line and stdin.
fn attachment_parts(agent_type: &str, options: &InvocationOptions) -> Result<CliAttachmentParts> {
    if options.attachments.is_empty() {
        return Ok(CliAttachmentParts::default());
    }
    let (Some(agent), Some(how)) = (
        agents::find(agent_type),
        agents::cli_attachments(agent_type),
    ) else {
        return Ok(CliAttachmentParts::default());
    };
    cli_parts(agent.name, how, &options.attachments)
}

/// Room kept, when deciding where Claude's system prompt goes, for what
/// resolving the command adds to the line: an interpreter's path and a
/// script's in place of the bare command (Windows: two `MAX_PATH` paths,
/// quoted; POSIX: two `PATH_MAX` paths counted twice, path and argv[0]).
fn launcher_reserve(platform: Platform) -> usize {
    if platform.is_windows() {
        2 * (260 + 3)
    } else {
        4 * 4096
    }
}

/// Whether `line` fits `platform` with room for the launcher.
fn fits_with_launcher(platform: Platform, line: &CommandLine) -> bool {
    match limits::check(platform, line) {
        Ok(total) => total.used + launcher_reserve(platform) <= total.max(),
        Err(_) => false,
    }
}

/// opencode wraps an argument holding whitespace in literal quotes before
/// the model sees it: refuse such an argument, naming the option it came
/// from.
fn check_no_whitespace(
    agent_type: &str,
    args: &[String],
    options: &InvocationOptions,
) -> Result<()> {
    let Some(arg) = args.iter().find(|a| a.chars().any(char::is_whitespace)) else {
        return Ok(());
    };
    let named = [
        ("options.model", &options.model),
        ("options.sessionId", &options.session_id),
    ];
    let field = named
        .iter()
        .find(|(_, v)| v.as_deref().is_some_and(|v| arg.ends_with(v)))
        .map(|(name, _)| (*name).to_owned())
        .or_else(|| {
            options
                .extra_args
                .iter()
                .position(|a| a == arg)
                .map(|i| format!("options.extraArgs[{i}]"))
        })
        .unwrap_or_else(|| "an argument".to_owned());
    Err(AgentContextError::invalid(format!(
        "{field} must not contain whitespace for {agent_type}: it would reach the agent wrapped in quotes; got \"{arg}\""
    )))
}

/// The agent types whose CLI takes a system prompt flag, for a message.
fn with_system_flag() -> String {
    let names: Vec<&str> = agents::AGENTS
        .iter()
        .filter(|a| {
            a.cli
                .is_some_and(|cli| cli.system_prompt != SystemPromptArg::None)
        })
        .map(|a| a.agent_type)
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// An option's value; `''` counts as not given.
fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|v| !v.is_empty())
}

/// `--name=value` when there is a value (`--name value` for a CLI that
/// takes its values apart).
fn push_value(args: &mut Vec<String>, name: &str, value: Option<&str>, apart: bool) {
    match value {
        Some(value) if apart => args.extend([name.to_owned(), value.to_owned()]),
        Some(value) => args.push(format!("{name}={value}")),
        None => {}
    }
}

/// SPEC §7's mapping: `read-only` → the read-only mode; else `yolo` → no
/// approvals; else the mode that approves edits. Nothing when neither
/// `sandbox` nor `yolo` is given.
fn approval<T: Copy>(options: &InvocationOptions, read_only: T, yolo: T, edits: T) -> Option<T> {
    match (options.sandbox, options.yolo) {
        (None, None) => None,
        (Some(Sandbox::ReadOnly), _) => Some(read_only),
        (_, Some(true)) => Some(yolo),
        _ => Some(edits),
    }
}

fn system_prompt_file<'a>(
    inline: &str,
    path: Option<&'a str>,
    flag: &str,
    platform: Platform,
    measure: std::result::Result<Measure, Measure>,
) -> Result<&'a str> {
    path.ok_or_else(|| {
        let why = if flag.contains('\0') {
            "systemFlag holds a NUL character, which no argument can".to_owned()
        } else {
            match measure {
                Err(m) if m.limit == Limit::LinuxArgument => format!(
                    "systemFlag is {} bytes, over the {} one argument may take on Linux",
                    flag.len(),
                    MAX_ARG_BYTES - 2 - inline.len()
                ),
                // Over the limit, or too close to it to leave room for
                // the launcher (see `launcher_reserve`).
                Err(m) | Ok(m) => format!(
                    "systemFlag is {} bytes and with it the {} is {} of the {} {} {} allows, with {} kept for the launcher",
                    flag.len(),
                    m.what,
                    m.used,
                    m.max(),
                    m.limit.unit(),
                    platform.name(),
                    launcher_reserve(platform)
                ),
            }
        };
        AgentContextError::invalid(format!(
            "options.systemPromptFile is needed: {why}; give a path where the host will write it"
        ))
    })
}

/// Whether `{flag}={value}` and its NUL fit in one argument on Linux, the
/// strictest per-argument limit (the whole line is checked for the platform
/// after).
fn fits_in_argument(flag: &str, value: &str) -> bool {
    flag.len() + 1 + value.len() < MAX_ARG_BYTES && !value.contains('\0')
}

/// Why `{inline}={value}` cannot be one argument; `what` names the value
/// (`systemFlag`).
fn too_long_why(what: &str, inline: &str, value: &str) -> String {
    if value.contains('\0') {
        format!("{what} holds a NUL character, which no argument can")
    } else {
        format!(
            "{what} is {} bytes, over the {} one argument may take on Linux",
            value.len(),
            MAX_ARG_BYTES - 2 - inline.len()
        )
    }
}

fn check_options(options: &InvocationOptions, platform: Platform) -> Result<()> {
    let named = [
        ("options.command", &options.command),
        ("options.model", &options.model),
        ("options.sessionId", &options.session_id),
        ("options.systemPromptFile", &options.system_prompt_file),
        ("options.usageFile", &options.usage_file),
    ];
    for (path, value) in named {
        if let Some(value) = value {
            check_argument(path, value, platform)?;
        }
    }
    for (i, arg) in options.extra_args.iter().enumerate() {
        check_argument(&format!("options.extraArgs[{i}]"), arg, platform)?;
    }
    if let Some(session) = given(&options.session_id) {
        if session.starts_with('-') {
            return Err(AgentContextError::invalid(format!(
                "options.sessionId must not start with '-', got \"{session}\""
            )));
        }
    }
    Ok(())
}

/// No NUL anywhere; on Linux, within one argument's limit (other
/// systems have only totals, checked on the whole line).
fn check_argument(path: &str, value: &str, platform: Platform) -> Result<()> {
    if value.contains('\0') {
        return Err(AgentContextError::invalid(format!(
            "{path} must not contain a NUL character"
        )));
    }
    if platform == Platform::Linux && value.len() >= limits::LINUX_MAX_ARG_STRLEN {
        return Err(AgentContextError::invalid(format!(
            "{path} is {} bytes, too long for one argument on Linux",
            value.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
#[path = "invocation_tests.rs"]
mod tests;
