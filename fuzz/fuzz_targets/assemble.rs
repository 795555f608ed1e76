#![no_main]
//! Every agent type, random budgets: the output fits or the call fails with
//! BUDGET_EXCEEDED; the instruction body survives whole whenever it fits
//! alone; nothing panics.

use agent_context::agents::assembly::resolve_layout;
use agent_context::prompt::layout::InstructionPlacement;
use agent_context::prompt::budget::{assemble, MESSAGE_MIN_KEEP};
use agent_context::prompt::text::js_trim;
use agent_context::{AssembleOptions, ContextMessage, ErrorCode, PromptFields};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    agent: u8,
    budget: u32,
    current: String,
    team: String,
    system: String,
    file: String,
    messages: Vec<(String, Option<String>, String)>,
}

fuzz_target!(|input: Input| {
    // Every registered agent, and one name no agent has.
    let agent = agent_context::agents::AGENTS
        .get(usize::from(input.agent) % (agent_context::agents::AGENTS.len() + 1))
        .map_or("other", |a| a.agent_type);
    let (layout, _) = resolve_layout(agent);
    let fields = PromptFields {
        current_message: input.current,
        team_task: input.team,
        system_instruction: input.system,
        instruction_file_text: input.file,
        max_bytes: u64::from(input.budget % 20_000),
    };
    let messages: Vec<ContextMessage> = input
        .messages
        .into_iter()
        .map(|(from, to, content)| ContextMessage { from, to, content })
        .collect();
    match assemble(
        layout,
        &fields,
        &messages,
        AssembleOptions {
            measure_dropped: true,
            cache_block: None,
        },
    ) {
        Ok(a) => {
            assert!(
                a.output.byte_len() as u64 <= fields.max_bytes,
                "over budget"
            );
            let r = &a.report;
            assert_eq!(
                r.bytes_before - r.bytes_after,
                r.context_bytes_cut + r.message_bytes_cut + r.instruction_file_bytes_cut
            );
            // The instruction body is whole whenever the file text was not cut.
            let system = js_trim(&fields.system_instruction);
            let file = js_trim(&fields.instruction_file_text);
            if r.instruction_file_bytes_removed == 0 {
                let body = match (system.is_empty(), file.is_empty()) {
                    (true, _) => file.to_owned(),
                    (false, true) => system.to_owned(),
                    (false, false) => format!("{system}\n\n{file}"),
                };
                let holder = match layout.instructions {
                    InstructionPlacement::SystemFlag => {
                        a.output.system_flag.clone().unwrap_or_default()
                    }
                    InstructionPlacement::Inline { .. } => a.output.prompt.clone(),
                };
                assert!(holder.contains(&body), "instructions lost");
            }
            assert!(a.output.prompt.contains(js_trim(&fields.team_task)));
            // Cheapest first: the file is cut only once all context is gone
            // and the message is at its minimum (or too short to cut).
            if r.instruction_file_bytes_removed > 0 {
                let message = js_trim(&fields.current_message).len() as u64;
                assert_eq!(r.messages_kept, 0, "file cut while context was kept");
                let kept = message - r.message_bytes_removed;
                assert!(
                    kept <= MESSAGE_MIN_KEEP as u64 + 6 || message <= MESSAGE_MIN_KEEP as u64 + 40,
                    "file cut before the message"
                );
            }
        }
        Err(e) => assert_eq!(e.code(), ErrorCode::BudgetExceeded, "{e}"),
    }
});
