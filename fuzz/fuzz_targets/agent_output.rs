#![no_main]
//! Any bytes as a CLI's output, split into chunks anywhere (inside lines and
//! inside UTF-8 characters): parsing in chunks gives what parsing whole does,
//! text input gives what its bytes do, the UTF-16 form (the JS binding's,
//! with Gemini message lines read by the byte scanner) gives the same reply
//! and text, and nothing panics.

use agent_context::agent_output::{
    parse_acp_output_general, parse_agent_output, parse_agent_output_as, parse_agent_output_in,
    parse_agent_output_str, AgentOutputParser, AgentReply, Output, Protocol, TextForm,
};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    agent: u8,
    splits: Vec<u16>,
    output: Vec<u8>,
}

fuzz_target!(|input: Input| {
    // Every registered agent, and one name no agent has.
    let agent = agent_context::agents::AGENTS
        .get(usize::from(input.agent) % (agent_context::agents::AGENTS.len() + 1))
        .map_or("other", |a| a.agent_type);
    let whole = parse_agent_output(agent, &input.output);
    let mut parser = AgentOutputParser::new(agent);
    let mut at = 0;
    let mut streamed_text = String::new();
    for split in input.splits.iter().take(64) {
        let end = (at + usize::from(*split) % 97).min(input.output.len());
        for event in parser.push(&input.output[at..end]) {
            if let agent_context::agent_output::AgentEvent::Text { text } = event {
                streamed_text.push_str(&text);
            }
        }
        at = end;
    }
    for event in parser.push(&input.output[at..]) {
        if let agent_context::agent_output::AgentEvent::Text { text } = event {
            streamed_text.push_str(&text);
        }
    }
    let chunked = parser.finish();
    assert_eq!(chunked, whole, "chunks differ from whole");
    // The text events stream what the reply ends with (a last unterminated line aside).
    assert!(whole.text.starts_with(&streamed_text), "events are not a prefix of the reply text");
    let (reply, units) = parse_agent_output_as(agent, Output::Bytes(&input.output), TextForm::Utf16);
    assert_eq!(String::from_utf16(&units).ok().as_deref(), Some(whole.text.as_str()), "UTF-16 text differs");
    assert_eq!(AgentReply { text: whole.text.clone(), ..reply }, whole, "UTF-16 form differs");
    if let Ok(text) = std::str::from_utf8(&input.output) {
        assert_eq!(parse_agent_output_str(agent, text), whole, "text path differs from bytes path");
    }

    // The same bytes as ACP output: the byte scanner of common update lines
    // gives what the general reader gives, in chunks, in UTF-16 form and
    // from UTF-16 units.
    let general = parse_acp_output_general(agent, Output::Bytes(&input.output), TextForm::Utf8).0;
    let acp = parse_agent_output_in(agent, Protocol::Acp, Output::Bytes(&input.output), TextForm::Utf8).0;
    assert_eq!(acp, general, "ACP scanner differs from the general reader");
    let (reply, units) = parse_agent_output_in(agent, Protocol::Acp, Output::Bytes(&input.output), TextForm::Utf16);
    assert_eq!(AgentReply { text: String::from_utf16_lossy(&units), ..reply }, general, "ACP UTF-16 form differs");
    if let Ok(text) = std::str::from_utf8(&input.output) {
        let units: Vec<u16> = text.encode_utf16().collect();
        let (reply, text_units) = parse_agent_output_in(agent, Protocol::Acp, Output::Utf16(&units), TextForm::Utf16);
        assert_eq!(AgentReply { text: String::from_utf16_lossy(&text_units), ..reply }, general, "ACP from units differs");
    }
});
