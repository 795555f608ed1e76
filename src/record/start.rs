//! Where a part of a conversation begins its record: the conversation's
//! record as it stands ([`RecordSeed`]) and, for a new part, why it began.
//! The conversation decides it; the session engine's recorder starts from it.

use serde_json::Value;

use super::entry::PartReason;
use super::recorder::{OpenTurn, RecordSeed};
use crate::error::{AgentContextError, Result};
use crate::formats::json_read::Obj;

/// Where a recorded session's record begins: the conversation's record
/// as it stands, and whether this session is a new part of it (its `part`
/// entry written once it is open) or the live part reopened (`resumed`,
/// `loaded` or `restarted` written).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordStart {
    pub seed: RecordSeed,
    pub part: Option<PartStart>,
}

/// A new part of a conversation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartStart {
    pub reason: PartReason,
    pub from_turn: u32,
    pub fallback_index: Option<usize>,
    /// The team and member whose conversation it is.
    pub team: Option<(String, String)>,
}

impl RecordStart {
    /// `{ nextSeq, turns, openTurn?: { turn, attempts }, part?: { reason,
    /// fromTurn, fallbackIndex?, teamId?, memberId? } }`, as the host hands
    /// it over from the conversation.
    pub fn read(value: &Value) -> Result<RecordStart> {
        let o = Obj::new(value, "record")?;
        let count = |o: &Obj, key: &str| -> Result<u64> {
            o.get(key).map_or(Ok(0), |v| {
                v.as_u64().ok_or_else(|| {
                    AgentContextError::invalid(format!("{} must be a whole number", o.path_of(key)))
                })
            })
        };
        let small = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        let open_turn = match o.get("openTurn") {
            None | Some(Value::Null) => None,
            Some(v) => {
                let t = Obj::new(v, "record.openTurn")?;
                Some(OpenTurn {
                    turn: small(count(&t, "turn")?),
                    attempts: small(count(&t, "attempts")?),
                })
            }
        };
        let part = match o.get("part") {
            None | Some(Value::Null) => None,
            Some(v) => {
                let p = Obj::new(v, "record.part")?;
                let reason = p.opt_str("reason")?.unwrap_or("opened");
                let reason = PartReason::parse(reason).ok_or_else(|| {
                    AgentContextError::invalid(format!(
                        "record.part.reason: unknown reason \"{reason}\""
                    ))
                })?;
                let team = p.opt_str("teamId")?.map(str::to_owned);
                let member = p.opt_str("memberId")?.map(str::to_owned);
                Some(PartStart {
                    reason,
                    from_turn: small(count(&p, "fromTurn")?),
                    fallback_index: p
                        .get("fallbackIndex")
                        .and_then(Value::as_u64)
                        .map(|n| n as usize),
                    team: team.zip(member),
                })
            }
        };
        Ok(RecordStart {
            seed: RecordSeed {
                next_seq: count(&o, "nextSeq")?.max(1),
                turns: small(count(&o, "turns")?),
                open_turn,
            },
            part,
        })
    }
}
