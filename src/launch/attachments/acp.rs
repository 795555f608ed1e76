//! Attachments over the Agent Client Protocol: content blocks after the
//! prompt's, each kind sent only where the agent's `promptCapabilities`
//! advertise it (`resource_link` always: every agent must take it).

use serde_json::{json, Value};

use super::Attachment;

/// `session/prompt` content blocks for `list`, in order.
pub fn blocks(list: &[Attachment]) -> Vec<Value> {
    list.iter().map(block).collect()
}

/// As [`blocks`], but when an image is among them, embedded resources and
/// file links go as text blocks (for an agent that drops images beside
/// them: the agent's `context_as_text_with_images`).
pub fn blocks_beside_images_as_text(list: &[Attachment]) -> Vec<Value> {
    if !list.iter().any(|a| matches!(a, Attachment::Image(_))) {
        return blocks(list);
    }
    list.iter()
        .map(|a| match a {
            Attachment::Image(_) | Attachment::ResourceLink { path: None, .. } => block(a),
            other => json!({"type": "text", "text": super::cli::as_text(other)}),
        })
        .collect()
}

fn block(attachment: &Attachment) -> Value {
    match attachment {
        Attachment::Image(image) => {
            json!({"type": "image", "data": image.data, "mimeType": image.mime_type})
        }
        Attachment::ResourceLink { uri, name, .. } => {
            json!({"type": "resource_link", "uri": uri, "name": name})
        }
        Attachment::Resource {
            uri,
            text,
            mime_type,
        } => {
            let mut resource = json!({"uri": uri, "text": text});
            if let Some(m) = mime_type {
                resource["mimeType"] = json!(m);
            }
            json!({"type": "resource", "resource": resource})
        }
    }
}

/// The capability a content block's type needs (`promptCapabilities.image`),
/// `None` for the ones every agent takes (text, resource links).
fn needs(kind: &str) -> Option<&'static str> {
    match kind {
        "image" => Some("image"),
        "audio" => Some("audio"),
        "resource" => Some("embeddedContext"),
        _ => None,
    }
}

/// Why `agent` cannot take the prompt `blocks`, judged by its
/// `agentCapabilities`: the first block it refuses, named `attachments[i]`
/// from index `attachments_from` on and `prompt[i]` before.
pub fn refusal(
    agent: &str,
    capabilities: &Value,
    blocks: &Value,
    attachments_from: usize,
) -> Option<String> {
    let list = blocks.as_array()?;
    list.iter().enumerate().find_map(|(i, b)| {
        let kind = b.get("type").and_then(Value::as_str)?;
        let cap = needs(kind)?;
        let offered = capabilities
            .pointer(&format!("/promptCapabilities/{cap}"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if offered {
            return None;
        }
        let name = if i >= attachments_from {
            format!("attachments[{}]", i - attachments_from)
        } else {
            format!("prompt[{i}]")
        };
        Some(format!(
            "{name} is {}: {agent} does not take {} over the Agent Client Protocol (its promptCapabilities.{cap} is not true)",
            article(kind),
            plural(kind)
        ))
    })
}

fn article(kind: &str) -> String {
    match kind {
        "image" => "an image".to_owned(),
        "audio" => "audio".to_owned(),
        "resource" => "an embedded resource".to_owned(),
        other => format!("a {other} block"),
    }
}

fn plural(kind: &str) -> &'static str {
    match kind {
        "image" => "images",
        "audio" => "audio",
        _ => "embedded resources",
    }
}
