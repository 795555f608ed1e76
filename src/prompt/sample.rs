//! The sample conversation the demo command runs through every assembler.

use crate::prompt::input::{AssemblerInput, ContextMessage, PromptFields, DEFAULT_MAX_BYTES};

/// A small team conversation about a dashboard, as an Electron app would pass it.
pub fn demo_input() -> AssemblerInput {
    let messages = [
        (
            "kailai",
            Some("carol"),
            "Can you design the UI for the usage dashboard?",
        ),
        (
            "max",
            Some("carol"),
            "I suggest a clean interface: one chart, one table, dark mode.",
        ),
        (
            "carol",
            Some("all"),
            "Draft is in design/dashboard.fig — feedback welcome.",
        ),
        (
            "kailai",
            None,
            "Looks good. Keep the charts readable for colour-blind users.",
        ),
    ];
    AssemblerInput {
        fields: PromptFields {
            current_message: "What UI framework should we use, and why?".into(),
            team_task: "Design the user dashboard".into(),
            system_instruction: "You are Carol, a UI/UX designer.".into(),
            instruction_file_text: "Focus on accessibility and user experience.\nPrefer components the team already uses.".into(),
            max_bytes: DEFAULT_MAX_BYTES,
        },
        context_messages: messages
            .iter()
            .map(|(from, to, content)| ContextMessage::new(from, *to, content))
            .collect(),
    }
}

/// [`demo_input`] as the JS object `sampleInput()` returns: `to` left out
/// when there is none, an empty team task `null`.
pub fn demo_input_json() -> serde_json::Value {
    let input = demo_input();
    let messages: Vec<serde_json::Value> = input
        .context_messages
        .iter()
        .map(|m| match &m.to {
            Some(to) => serde_json::json!({ "from": m.from, "to": to, "content": m.content }),
            None => serde_json::json!({ "from": m.from, "content": m.content }),
        })
        .collect();
    let f = &input.fields;
    serde_json::json!({
        "contextMessages": messages,
        "currentMessage": f.current_message,
        "teamTask": Some(&f.team_task).filter(|t| !t.is_empty()),
        "systemInstruction": f.system_instruction,
        "instructionFileText": f.instruction_file_text,
        "maxBytes": f.max_bytes,
    })
}
