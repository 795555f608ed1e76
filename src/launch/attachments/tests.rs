use serde_json::{json, Value};

use super::acp::{blocks, refusal};
use super::cli::cli_parts;
use super::*;
use crate::agents::{cli_attachments, AGENTS};
use crate::launch::invocation::{build_cli_invocation, InvocationOptions};
use crate::prompt::output::AssemblerOutput;

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEUlEQVR4nGP4z8DAAMJg8j8AHPID/SjNIHgAAAAASUVORK5CYII=";
const JPEG_HEAD: &str = "/9j/4AAQSkZJRgABAQAAAQABAAD/";

fn read(value: Value) -> Result<Vec<Attachment>> {
    read_attachments(&value, "attachments")
}

fn err(value: Value) -> String {
    read(value).unwrap_err().message().to_owned()
}

#[test]
fn images_are_read_from_the_hosts_bytes_and_checked() {
    let by_path = read(
        json!([{"type": "image", "path": "/w/pic.png", "mimeType": "image/png", "_data": PNG}]),
    )
    .unwrap();
    assert_eq!(
        by_path,
        [Attachment::Image(Image {
            data: PNG.into(),
            mime_type: "image/png".into(),
            file: Some("/w/pic.png".into())
        })]
    );
    let by_data = read(json!([{"type": "image", "data": JPEG_HEAD, "mimeType": "image/jpeg", "_file": "/tmp/run/a-0.jpeg"}])).unwrap();
    assert_eq!(by_data[0].kind(), "image");
    let Attachment::Image(image) = &by_data[0] else {
        panic!()
    };
    assert_eq!(image.file.as_deref(), Some("/tmp/run/a-0.jpeg"));
    assert_eq!(image_extension("image/webp"), Some("webp"));
}

#[test]
fn bad_attachments_name_their_field() {
    assert_eq!(
        err(json!({})),
        "attachments must be an array, got an object"
    );
    assert_eq!(
        err(json!([1])),
        "attachments[0] must be an object, got a number"
    );
    assert_eq!(
        err(json!([{"type": "image", "path": "/a.png"}])),
        "attachments[0].mimeType must be 'image/png', 'image/jpeg', 'image/gif' or 'image/webp', got undefined"
    );
    assert_eq!(
        err(json!([{"type": "image", "mimeType": "image/png"}])),
        "attachments[0] needs either path or data (base64), not both"
    );
    assert_eq!(
        err(
            json!([{"type": "image", "path": "/a.png", "mimeType": "image/png", "_error": "ENOENT: no such file"}])
        ),
        "attachments[0].path cannot be read: ENOENT: no such file"
    );
    assert_eq!(
        err(
            json!([{"type": "image", "path": "/a.png", "mimeType": "image/png", "_size": 30_000_000}])
        ),
        "attachments[0] is 30000000 bytes, over the 20971520-byte limit on an image"
    );
    assert_eq!(
        err(json!([{"type": "image", "data": "abc", "mimeType": "image/png"}])),
        "attachments[0].data must be base64 (RFC 4648, padded)"
    );
    assert_eq!(
        err(json!([{"type": "resource", "uri": "a:b", "text": "t"}, {"type": "image", "data": PNG, "mimeType": "image/gif"}])),
        "attachments[1]: the data's bytes are not image/gif (mimeType must be the image's own type)"
    );
    assert_eq!(
        err(json!([{"type": "resource", "uri": "", "text": "t"}])),
        "attachments[0].uri must not be empty"
    );
    assert_eq!(
        err(json!([{"type": "resource", "uri": "a:b"}])),
        "attachments[0].text must be a string, got undefined"
    );
    assert_eq!(
        err(json!([{"type": "resource_link", "path": "/a", "uri": "https://x"}])),
        "attachments[0] needs either path or uri (not empty), not both"
    );
}

#[test]
fn links_to_files_get_a_file_uri_and_their_name() {
    let list = read(json!([{"type": "resource_link", "path": "/w/my notes.txt"}])).unwrap();
    assert_eq!(
        list[0],
        Attachment::ResourceLink {
            uri: "file:///w/my%20notes.txt".into(),
            path: Some("/w/my notes.txt".into()),
            name: "my notes.txt".into()
        }
    );
    assert_eq!(
        file_uri("C:\\Users\\a b\\x.md"),
        "file:///C:/Users/a%20b/x.md"
    );
}

fn sample() -> Vec<Attachment> {
    read(json!([
        {"type": "image", "path": "/w/pic.png", "mimeType": "image/png", "_data": PNG},
        {"type": "resource", "uri": "file:///docs/a.md", "text": "TEXT", "mimeType": "text/markdown"},
        {"type": "resource_link", "path": "/w/notes.txt"}
    ]))
    .unwrap()
}

#[test]
fn over_acp_they_are_content_blocks_checked_against_the_prompt_capabilities() {
    let list = blocks(&sample());
    assert_eq!(
        list[0],
        json!({"type": "image", "data": PNG, "mimeType": "image/png"})
    );
    assert_eq!(
        list[1],
        json!({"type": "resource", "resource": {"uri": "file:///docs/a.md", "text": "TEXT", "mimeType": "text/markdown"}})
    );
    assert_eq!(
        list[2],
        json!({"type": "resource_link", "uri": "file:///w/notes.txt", "name": "notes.txt"})
    );
    let mut prompt = vec![json!({"type": "text", "text": "hi"})];
    prompt.extend(list);
    let prompt = Value::Array(prompt);
    let all = json!({"promptCapabilities": {"image": true, "embeddedContext": true}});
    assert_eq!(refusal("Gemini CLI", &all, &prompt, 1), None);
    let no_image = json!({"promptCapabilities": {"embeddedContext": true}});
    assert_eq!(
        refusal("GitHub Copilot CLI", &no_image, &prompt, 1).unwrap(),
        "attachments[0] is an image: GitHub Copilot CLI does not take images over the Agent Client Protocol (its promptCapabilities.image is not true)"
    );
    let none = json!({});
    assert_eq!(
        refusal("X", &json!({"promptCapabilities": {"image": true}}), &prompt, 1).unwrap(),
        "attachments[1] is an embedded resource: X does not take embedded resources over the Agent Client Protocol (its promptCapabilities.embeddedContext is not true)"
    );
    // Links are taken by every agent; a prompt's own blocks are named prompt[i].
    let links = json!([{"type": "resource_link", "uri": "https://x", "name": "x"}]);
    assert_eq!(refusal("X", &none, &links, 0), None);
    let audio = json!([{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}]);
    assert_eq!(
        refusal("X", &none, &audio, 1).unwrap(),
        "prompt[0] is audio: X does not take audio over the Agent Client Protocol (its promptCapabilities.audio is not true)"
    );
}

fn invocation(agent_type: &str, list: Vec<Attachment>) -> crate::launch::invocation::CliInvocation {
    let output = AssemblerOutput {
        prompt: "Look".into(),
        system_flag: None,
    };
    let options = InvocationOptions {
        attachments: list,
        ..Default::default()
    };
    build_cli_invocation(agent_type, &output, &options).unwrap()
}

#[test]
fn every_agent_says_how_its_cli_takes_them() {
    // An agent driven over ACP only has no CLI to take them.
    for agent in AGENTS {
        assert_eq!(
            cli_attachments(agent.agent_type).is_some(),
            agent.cli.is_some(),
            "{}",
            agent.agent_type
        );
    }
    assert!(cli_attachments("aider").is_none());
}

#[test]
fn over_the_cli_each_agent_its_own_way() {
    let resource = "<attached_resource uri=\"file:///docs/a.md\" mimeType=\"text/markdown\">\nTEXT\n</attached_resource>";
    // Codex, Copilot, opencode: a file flag; the rest as text.
    for (agent_type, flag) in [
        ("openai-codex", "--image"),
        ("github-copilot", "--attachment"),
        ("opencode", "--file"),
    ] {
        let run = invocation(agent_type, sample());
        assert!(
            run.args.contains(&format!("{flag}=/w/pic.png")),
            "{agent_type}: {:?}",
            run.args
        );
        assert_eq!(
            run.stdin,
            format!("Look\n\n{resource}\n\n[Attached: /w/notes.txt]")
        );
    }
    let codex = invocation("openai-codex", sample());
    assert_eq!(
        codex.args.last().map(String::as_str),
        Some("-"),
        "the image flag before the stdin marker"
    );
    // Gemini CLI and Qwen Code: @path, each folder included.
    for agent_type in ["google-gemini", "qwen-code"] {
        let run = invocation(agent_type, sample());
        assert_eq!(
            run.stdin,
            format!("Look\n\n@/w/pic.png\n\n{resource}\n\n@/w/notes.txt")
        );
        assert_eq!(
            run.args
                .iter()
                .filter(|a| a.starts_with("--include-directories="))
                .collect::<Vec<_>>(),
            ["--include-directories=/w"]
        );
    }
    // Claude Code: a stream-json user message with the image as a base64 block.
    let claude = invocation("claude-code", sample());
    assert_eq!(
        &claude.args[..6],
        [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json"
        ]
    );
    let line: Value = serde_json::from_str(claude.stdin.trim_end()).unwrap();
    assert_eq!(
        line["message"]["content"][0]["text"],
        format!("Look\n\n{resource}\n\n[Attached: /w/notes.txt]")
    );
    assert_eq!(
        line["message"]["content"][1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}})
    );
    // Without attachments nothing changes.
    assert_eq!(invocation("claude-code", Vec::new()).stdin, "Look");
}

#[test]
fn an_image_given_as_data_needs_a_file_for_a_cli_that_takes_files() {
    let list = read(json!([{"type": "image", "data": PNG, "mimeType": "image/png"}])).unwrap();
    let how = cli_attachments("openai-codex").unwrap();
    let err = cli_parts("Codex", how, &list).unwrap_err();
    assert!(err.message().starts_with("attachments[0] is an image given as data: Codex takes images over its command line as files only"), "{}", err.message());
    // Claude Code takes the bytes themselves.
    assert!(cli_parts(
        "Claude Code",
        cli_attachments("claude-code").unwrap(),
        &list
    )
    .is_ok());
    // A path with spaces is escaped for the `@` parser.
    let spaced = read(json!([{"type": "resource_link", "path": "/my dir/a b.txt"}])).unwrap();
    let parts = cli_parts(
        "Gemini CLI",
        cli_attachments("google-gemini").unwrap(),
        &spaced,
    )
    .unwrap();
    assert_eq!(parts.text, ["@/my\\ dir/a\\ b.txt"]);
    assert_eq!(parts.args, ["--include-directories=/my dir"]);
}

#[test]
fn for_an_agent_that_drops_images_beside_context_that_context_goes_as_text() {
    use super::acp::blocks_beside_images_as_text;
    let list = blocks_beside_images_as_text(&sample());
    assert_eq!(list[0]["type"], "image");
    assert_eq!(
        list[1],
        json!({"type": "text", "text": "<attached_resource uri=\"file:///docs/a.md\" mimeType=\"text/markdown\">\nTEXT\n</attached_resource>"})
    );
    assert_eq!(
        list[2],
        json!({"type": "text", "text": "[Attached: /w/notes.txt]"})
    );
    // Without an image, the usual blocks.
    assert_eq!(
        blocks_beside_images_as_text(&sample()[1..]),
        blocks(&sample()[1..])
    );
    assert!(crate::agents::acp_context_as_text_with_images(
        "google-gemini"
    ));
    assert!(!crate::agents::acp_context_as_text_with_images("qwen-code"));
}
