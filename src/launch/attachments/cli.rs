//! Attachments over an agent's own command line: each CLI's way, as its
//! agent file's [`CliAttachments`] says (every way seen on a real run,
//! `docs/attachments.md`). Images go by a file flag, as `@path` references
//! the CLI reads in, or as base64 blocks of a stream-json user message;
//! a link to a file is an `@path` reference where the CLI reads those, else
//! a line naming it; an embedded resource is text after the prompt.

use serde_json::{json, Value};

use super::{Attachment, Image};
use crate::agents::{CliAttachments, CliImage};
use crate::error::{AgentContextError, Result};

/// What attachments add to a CLI run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CliAttachmentParts {
    /// Arguments placed before the caller's extra arguments.
    pub args: Vec<String>,
    /// Arguments placed right after the base arguments (the stream-json
    /// input mode).
    pub input_args: Vec<String>,
    /// Text after the prompt's (a blank line between).
    pub text: Vec<String>,
    /// Content blocks after the text in a stream-json user message.
    pub blocks: Vec<Value>,
}

impl CliAttachmentParts {
    /// The prompt's text with the attachments' text after it.
    pub fn prompt_text(&self, prompt: &str) -> String {
        if self.text.is_empty() {
            return prompt.to_owned();
        }
        format!("{prompt}\n\n{}", self.text.join("\n\n"))
    }

    /// stdin for the run: the text, or one stream-json user line holding
    /// it and the blocks when the CLI takes blocks.
    pub fn stdin(&self, prompt: &str) -> String {
        let text = self.prompt_text(prompt);
        if self.input_args.is_empty() {
            return text;
        }
        user_line(&text, &self.blocks)
    }
}

/// One stream-json `user` line: a text block, then `blocks`.
pub fn user_line(text: &str, blocks: &[Value]) -> String {
    let mut content = vec![json!({"type": "text", "text": text})];
    content.extend(blocks.iter().cloned());
    let line = json!({"type": "user", "message": {"role": "user", "content": content}});
    format!("{line}\n")
}

/// What `list` adds to a run of the CLI `how` describes (`agent`: its
/// name, for errors).
pub fn cli_parts(
    agent: &str,
    how: &CliAttachments,
    list: &[Attachment],
) -> Result<CliAttachmentParts> {
    let mut parts = CliAttachmentParts::default();
    let mut folders: Vec<String> = Vec::new();
    let mut at_path = |parts: &mut CliAttachmentParts, file: &str| {
        parts.text.push(format!("@{}", escape_at_path(file)));
        if let Some(folder) = parent(file) {
            if !folders.iter().any(|f| f == folder) {
                folders.push(folder.to_owned());
            }
        }
    };
    for (i, attachment) in list.iter().enumerate() {
        match attachment {
            Attachment::Image(image) => match how.image {
                CliImage::FileFlag(flag) => {
                    let file = image_file(agent, image, i)?;
                    parts.args.push(format!("{flag}={file}"));
                }
                CliImage::AtPath => at_path(&mut parts, image_file(agent, image, i)?),
                CliImage::AtArg => {
                    let file = image_file(agent, image, i)?;
                    parts.args.push(format!("@{file}"));
                }
                CliImage::Refused(why) => {
                    return Err(AgentContextError::invalid(format!(
                        "attachments[{i}] is an image, which {agent} does not take over its command line: {why}"
                    )))
                }
                CliImage::StreamJson(args) => {
                    if parts.input_args.is_empty() {
                        parts.input_args = args.iter().map(|a| (*a).to_owned()).collect();
                    }
                    parts.blocks.push(json!({"type": "image", "source": {
                        "type": "base64", "media_type": image.mime_type, "data": image.data}}));
                }
            },
            Attachment::ResourceLink {
                path: Some(file), ..
            } if how.at_path => at_path(&mut parts, file),
            other => parts.text.push(as_text(other)),
        }
    }
    if let Some(flag) = how.include_dir_flag {
        parts
            .args
            .extend(folders.iter().map(|f| format!("{flag}={f}")));
    }
    Ok(parts)
}

/// A link or an embedded resource as prompt text: `[Attached: path]`, or
/// the resource's text inside `<attached_resource uri="…">`.
pub fn as_text(attachment: &Attachment) -> String {
    match attachment {
        Attachment::ResourceLink { uri, path, .. } => {
            format!("[Attached: {}]", path.as_deref().unwrap_or(uri))
        }
        Attachment::Resource {
            uri,
            text,
            mime_type,
        } => {
            let kind = mime_type
                .as_deref()
                .map(|m| format!(" mimeType=\"{m}\""))
                .unwrap_or_default();
            format!("<attached_resource uri=\"{uri}\"{kind}>\n{text}\n</attached_resource>")
        }
        Attachment::Image(_) => String::new(),
    }
}

fn image_file<'a>(agent: &str, image: &'a Image, i: usize) -> Result<&'a str> {
    image.file.as_deref().ok_or_else(|| {
        AgentContextError::invalid(format!(
            "attachments[{i}] is an image given as data: {agent} takes images over its command line as files only (give its path, or run it with runAgent, which writes the data to a file it removes after)"
        ))
    })
}

/// `@path` with its spaces escaped as the CLIs' `@`
/// parser reads them.
fn escape_at_path(file: &str) -> String {
    let mut out = String::with_capacity(file.len());
    for c in file.chars() {
        if c == ' ' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn parent(file: &str) -> Option<&str> {
    let at = file.rfind(['/', '\\'])?;
    Some(if at == 0 { "/" } else { &file[..at] })
}
