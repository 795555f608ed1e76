//! A prompt with attachments over the Agent Client Protocol: the
//! attachments' content blocks after the prompt's, and, once the agent's
//! capabilities are known, the check that it takes each kind sent.

use serde_json::Value;

use super::engine::{Engine, Queued};
use super::turn::{Turn, TurnLimits};
use crate::agents;
use crate::attachments::{acp, read_attachments};
use crate::run::{AgentErrorKind, Failure};

impl Engine {
    /// Queue a prompt in session `key`: `blocks` (its content blocks), then `attachments`
    /// (`attachments` as the host read them; `null`: none). Attachments
    /// that cannot be read end the turn at once, `invalid_params` naming
    /// `attachments[i]`. `trace`: the turn's `traceparent` (checked).
    pub fn prompt_with_attachments(
        &mut self,
        key: u64,
        blocks: Value,
        attachments: &Value,
        limits: TurnLimits,
        trace: Option<String>,
        now: u64,
    ) -> u64 {
        let op = self.op_id();
        let list = match read_attachments(attachments, "attachments") {
            Ok(list) => list,
            Err(err) => {
                let failure = Failure::new(
                    AgentErrorKind::InvalidParams,
                    format!("invalid parameters: {}", err.message()),
                );
                let turn = Turn::new(op, Value::Array(Vec::new()), limits);
                self.push_failed_turn(None, &turn, failure, now);
                return op;
            }
        };
        let mut all = match blocks {
            Value::Array(list) => list,
            other => vec![other],
        };
        let from = all.len();
        if agents::acp_context_as_text_with_images(self.cfg.agent.agent_type) {
            all.extend(acp::blocks_beside_images_as_text(&list));
        } else {
            all.extend(acp::blocks(&list));
        }
        let mut turn = Turn::new(op, Value::Array(all), limits);
        turn.attachments_from = from;
        turn.trace = trace;
        self.enqueue(key, Queued::Prompt(Box::new(turn)), op, now);
        op
    }

    /// Why the agent cannot take `turn`'s blocks (its `promptCapabilities`),
    /// as the turn's failure.
    pub(super) fn prompt_refusal(&self, turn: &Turn) -> Option<Failure> {
        let why = acp::refusal(
            self.cfg.agent.name,
            &self.info.capabilities,
            &turn.blocks,
            turn.attachments_from,
        )?;
        Some(Failure::new(
            AgentErrorKind::InvalidParams,
            format!("invalid parameters: {why}"),
        ))
    }
}
