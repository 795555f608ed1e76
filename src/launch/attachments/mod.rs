//! Attachments: images, links to resources and embedded text resources added
//! after a prompt's text (`attachments` of `runAgent` and of a session's
//! turn). This module reads and checks them; [`acp`] turns them into the
//! Agent Client Protocol's content blocks, [`cli`] into each CLI's own
//! arguments and prompt text, as the agent's file says
//! (the agent's `cli.attachments`).
//!
//! The host moves the bytes before the core reads them: an image given by
//! `path` is read (its base64 in `_data`, or its size in `_size` when over
//! [`MAX_IMAGE_BYTES`], or why it could not be in `_error`), and an image
//! given as `data` is written to a file the run owns (`_file`) when it runs
//! over a CLI; paths arrive absolute.
//!
//! ```
//! use agent_context::launch::attachments::{read_attachments, Attachment};
//! use serde_json::json;
//!
//! let list = read_attachments(&json!([
//!     {"type": "resource", "uri": "file:///notes.md", "text": "# Notes"},
//!     {"type": "resource_link", "uri": "https://example.com/spec"}
//! ]), "attachments").unwrap();
//! assert!(matches!(list[0], Attachment::Resource { .. }));
//! let err = read_attachments(&json!([{"type": "video"}]), "attachments").unwrap_err();
//! assert_eq!(err.message(), "attachments[0].type must be 'image', 'resource_link' or 'resource', got \"video\"");
//! ```

pub mod acp;
pub(crate) mod base64;
pub mod cli;

use serde_json::Value;

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::{type_name, Obj};

/// The largest image taken, in bytes (decoded): the most the model APIs
/// the agents call accept inline (OpenAI and Gemini: 20 MB).
pub const MAX_IMAGE_BYTES: usize = 20 * 1024 * 1024;

/// The image types every agent's model API takes, with the bytes a file of
/// that type starts with (`None`: checked apart, WebP's `RIFF....WEBP`).
const IMAGE_TYPES: &[(&str, &str, &[u8])] = &[
    ("image/png", "png", b"\x89PNG\r\n\x1a\n"),
    ("image/jpeg", "jpg", b"\xff\xd8\xff"),
    ("image/gif", "gif", b"GIF8"),
    ("image/webp", "webp", b"RIFF"),
];

/// One attachment, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attachment {
    Image(Image),
    /// A link the agent may follow: a file (`path`, absolute) or any URI.
    ResourceLink {
        uri: String,
        path: Option<String>,
        name: String,
    },
    /// A text resource embedded whole.
    Resource {
        uri: String,
        text: String,
        mime_type: Option<String>,
    },
}

/// An image: its bytes in base64 and, when it is a file (the caller's, or
/// one the run wrote), that file's absolute path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub data: String,
    pub mime_type: String,
    pub file: Option<String>,
}

impl Attachment {
    /// Its kind as callers write it (`image`, `resource_link`, `resource`).
    pub fn kind(&self) -> &'static str {
        match self {
            Attachment::Image(_) => "image",
            Attachment::ResourceLink { .. } => "resource_link",
            Attachment::Resource { .. } => "resource",
        }
    }
}

/// The file name extension of an image type (`png`), for a file the run
/// writes; `None` for a type not taken.
pub fn image_extension(mime_type: &str) -> Option<&'static str> {
    IMAGE_TYPES
        .iter()
        .find(|(m, _, _)| *m == mime_type)
        .map(|(_, ext, _)| *ext)
}

/// Reads `attachments` (`null`: none), naming `{field}[i]` in every error.
pub fn read_attachments(value: &Value, field: &str) -> Result<Vec<Attachment>> {
    let list = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(list) => list,
        other => {
            return Err(AgentContextError::invalid(format!(
                "{field} must be an array, got {}",
                type_name(other)
            )))
        }
    };
    list.iter()
        .enumerate()
        .map(|(i, item)| read_one(item, &format!("{field}[{i}]")))
        .collect()
}

fn read_one(value: &Value, path: &str) -> Result<Attachment> {
    let o = Obj::new(value, path)?;
    match o.opt_str("type")? {
        Some("image") => read_image(&o, path).map(Attachment::Image),
        Some("resource_link") => read_link(&o, path),
        Some("resource") => Ok(Attachment::Resource {
            uri: non_empty(&o, "uri")?,
            text: o.req_str("text")?.to_owned(),
            mime_type: o.opt_str("mimeType")?.map(str::to_owned),
        }),
        other => Err(AgentContextError::invalid(format!(
            "{path}.type must be 'image', 'resource_link' or 'resource', got {}",
            other.map_or("undefined".to_owned(), |t| format!("{t:?}"))
        ))),
    }
}

fn non_empty(o: &Obj, key: &str) -> Result<String> {
    let value = o.req_str(key)?;
    if value.is_empty() {
        return Err(AgentContextError::invalid(format!(
            "{} must not be empty",
            o.path_of(key)
        )));
    }
    Ok(value.to_owned())
}

fn read_image(o: &Obj, path: &str) -> Result<Image> {
    let mime_type = o.opt_str("mimeType")?.unwrap_or_default();
    let Some((_, _, magic)) = IMAGE_TYPES.iter().find(|(m, _, _)| *m == mime_type) else {
        return Err(AgentContextError::invalid(format!(
            "{path}.mimeType must be 'image/png', 'image/jpeg', 'image/gif' or 'image/webp', got {}",
            o.get("mimeType").map_or("undefined".to_owned(), Value::to_string)
        )));
    };
    let (file, data, from) = match (o.opt_str("path")?, o.opt_str("data")?) {
        (Some(_), Some(_)) | (None, None) => {
            return Err(AgentContextError::invalid(format!(
                "{path} needs either path or data (base64), not both"
            )))
        }
        (Some(file), None) => {
            if let Some(why) = o.opt_str("_error")? {
                return Err(AgentContextError::invalid(format!(
                    "{path}.path cannot be read: {why}"
                )));
            }
            if let Some(size) = o.opt_count("_size")? {
                return Err(too_big(path, size));
            }
            (Some(file.to_owned()), o.req_str("_data")?, "path")
        }
        (None, Some(data)) => (o.opt_str("_file")?.map(str::to_owned), data, "data"),
    };
    let size = base64::decoded_len(data).ok_or_else(|| {
        AgentContextError::invalid(format!("{path}.data must be base64 (RFC 4648, padded)"))
    })?;
    if size > MAX_IMAGE_BYTES {
        return Err(too_big(path, size));
    }
    let head = base64::decode_head(data, 12);
    let webp = mime_type != "image/webp" || head.get(8..12) == Some(b"WEBP");
    if !head.starts_with(magic) || !webp {
        return Err(AgentContextError::invalid(format!(
            "{path}: the {from}'s bytes are not {mime_type} (mimeType must be the image's own type)"
        )));
    }
    Ok(Image {
        data: data.to_owned(),
        mime_type: mime_type.to_owned(),
        file,
    })
}

fn too_big(path: &str, size: usize) -> AgentContextError {
    AgentContextError::invalid(format!(
        "{path} is {size} bytes, over the {MAX_IMAGE_BYTES}-byte limit on an image"
    ))
}

fn read_link(o: &Obj, path: &str) -> Result<Attachment> {
    let name = o.opt_str("name")?;
    match (o.opt_str("path")?, o.opt_str("uri")?) {
        (Some(file), None) if !file.is_empty() => {
            let base = file
                .rsplit(['/', '\\'])
                .find(|s| !s.is_empty())
                .unwrap_or(file);
            Ok(Attachment::ResourceLink {
                uri: file_uri(file),
                path: Some(file.to_owned()),
                name: name.unwrap_or(base).to_owned(),
            })
        }
        (None, Some(uri)) if !uri.is_empty() => Ok(Attachment::ResourceLink {
            uri: uri.to_owned(),
            path: None,
            name: name.unwrap_or(uri).to_owned(),
        }),
        _ => Err(AgentContextError::invalid(format!(
            "{path} needs either path or uri (not empty), not both"
        ))),
    }
}

/// `file://` URI of an absolute path (POSIX `/a b` → `file:///a%20b`,
/// Windows `C:\a` → `file:///C:/a`).
pub fn file_uri(path: &str) -> String {
    let slashed = path.replace('\\', "/");
    let rooted = if slashed.starts_with('/') {
        slashed
    } else {
        format!("/{slashed}")
    };
    let mut uri = String::from("file://");
    for byte in rooted.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' | b':' => {
                uri.push(byte as char)
            }
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri
}

#[cfg(test)]
mod tests;
