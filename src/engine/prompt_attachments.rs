//! A prompt with attachments over the Agent Client Protocol: the
//! attachments' content blocks after the prompt's, and, once the agent's
//! capabilities are known, the check that it takes each kind sent. (A
//! session over the CLI sends text turns: it refuses attachments.)

use serde_json::Value;

use super::engine::{Engine, Queued};
use super::turn::{Turn, TurnLimits};
use crate::agents;
use crate::attempt::{AgentErrorKind, Failure};
use crate::launch::attachments::{acp, read_attachments};

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
        let none = attachments.is_null() || attachments.as_array().is_some_and(Vec::is_empty);
        if !self.cfg.is_acp() {
            return match none {
                true => self.prompt_in(key, blocks, limits, now),
                false => self.cli_refuse_attachments(limits, now),
            };
        }
        let op = self.op_id();
        let list = match read_attachments(attachments, "attachments") {
            Ok(list) => list,
            Err(err) => {
                let failure = Failure::new(
                    AgentErrorKind::InvalidParams,
                    format!("invalid parameters: {}", err.message()),
                );
                let turn = Turn::new(op, Value::Array(Vec::new()), limits);
                self.failed_turn(None, &turn, failure, now);
                return op;
            }
        };
        let mut all = match blocks {
            Value::Array(list) => list,
            other => vec![other],
        };
        let from = all.len();
        if agents::acp_context_as_text_with_images(self.agent().agent_type) {
            all.extend(acp::blocks_beside_images_as_text(&list));
        } else {
            all.extend(acp::blocks(&list));
        }
        let all = Value::Array(all);
        if !self.one_shot {
            self.warn_if_large(&all);
        }
        let mut turn = Turn::new(op, all, limits);
        turn.attachments_from = from;
        if self.is_recorded(key) {
            turn.attachments = list;
        }
        turn.trace = trace;
        self.enqueue(key, Queued::Prompt(Box::new(turn)), op, now);
        op
    }

    /// Why the agent cannot take `turn`'s blocks (its `promptCapabilities`),
    /// as the turn's failure.
    pub(super) fn prompt_refusal(&self, turn: &Turn) -> Option<Failure> {
        let why = acp::refusal(
            self.agent().name,
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
