#![no_main]
//! Any bytes as ContextBuildOptions JSON: the builder returns a result whose
//! metadata adds up, or an INVALID_INPUT error; the run-directive parser
//! never panics on the same bytes as a reply. Nothing panics.

use agent_context::prompt::context_builder::{
    build_llm_messages, parse_run_directive, ContextBuildOptions, Templates,
};
use agent_context::ErrorCode;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = parse_run_directive(&text, None);
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    match ContextBuildOptions::read(&value) {
        Ok(options) => {
            let built = build_llm_messages(&options, &Templates::default());
            let m = &built.metadata;
            assert_eq!(m.output_count, built.messages.len());
            assert!(m.filtered_count + m.trimmed_count.unwrap_or(0) <= m.input_count);
            assert_eq!(
                m.system_prompt_included,
                options.settings.include_system_prompt
            );
            // Never starts on an orphaned tool result when a window is set.
            if m.trimmed_count.is_some() {
                let first = built.messages.iter().find(|x| x.role != "system");
                assert!(first.map_or(true, |x| x.role != "tool"));
            }
            if let Some(ctx) = &options.prompt.run_context {
                let _ = parse_run_directive(&text, Some(ctx));
            }
        }
        Err(e) => assert_eq!(e.code(), ErrorCode::InvalidInput, "{e}"),
    }
});
