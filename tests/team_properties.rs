//! The same view, over random teams and conversations: on every turn, the
//! prompts a member's session was sent (and its own replies) hold exactly
//! the messages that concern it — those a full prompt on the whole
//! transcript would hold — in the same order, save the budget's cuts, each
//! of which the plan names.
#![cfg(not(target_arch = "wasm32"))]

use agent_context::agents::assembly::assemble_for_agent;
use agent_context::team::{plan_turn, Member, TurnKind, TurnRequest};
use agent_context::{AssembleOptions, ContextMessage, ErrorCode, PromptFields};
use proptest::prelude::*;

const AGENT_TYPES: [&str; 4] = [
    "claude-code",
    "openai-codex",
    "google-gemini",
    "custom-agent",
];
const PEOPLE: [&str; 2] = ["kailai", "lin"];
const TASK: &str = "Ship ⟪task⟫";
const SYSTEM: &str = "You are on the team ⟪sys⟫";

fn text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        "word ",
        "é",
        "日本",
        "🎉",
        "\n",
        " ",
        "[CONTEXT]",
        "x: y",
        "- z",
        "",
    ]);
    prop::collection::vec(pieces, 0..12).prop_map(|v| v.concat())
}

#[derive(Clone, Debug)]
enum Step {
    /// A person's message: sender, recipient choice, text.
    Post(usize, usize, String),
    /// A member's turn: member, with a message, session lost before it,
    /// whether it replies and to whom.
    Ask(usize, Option<String>, bool, Option<usize>),
}

fn step(members: usize) -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0..PEOPLE.len(), 0..members + 5, text()).prop_map(|(f, t, c)| Step::Post(f, t, c)),
        2 => (0..members, prop::option::of(text()), prop::bool::weighted(0.15),
              prop::option::weighted(0.8, 0..members + 5))
            .prop_map(|(m, msg, lost, reply)| Step::Ask(m, msg, lost, reply)),
    ]
}

#[derive(Clone, Debug)]
struct Case {
    agent_types: Vec<usize>,
    budgets: Vec<u64>,
    steps: Vec<Step>,
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..5)
        .prop_flat_map(|n| {
            (
                prop::collection::vec(0..AGENT_TYPES.len(), n),
                prop::collection::vec(prop_oneof![3 => Just(1u64 << 20), 1 => 150u64..1500], n),
                prop::collection::vec(step(n), 1..60),
            )
        })
        .prop_map(|(agent_types, budgets, steps)| Case {
            agent_types,
            budgets,
            steps,
        })
}

/// A recipient: nobody (everyone), "", "all", a member, a person or a stranger.
fn recipient(choice: usize, members: usize) -> Option<String> {
    match choice {
        0 => None,
        1 => Some(String::new()),
        2 => Some("all".into()),
        3 => Some(PEOPLE[0].into()),
        4 => Some("stranger".into()),
        m => Some(member_id(m - 5)),
    }
    .filter(|_| choice < 5 || choice - 5 < members)
}

fn member_id(m: usize) -> String {
    format!("m{m}")
}

/// The transcript indices a prompt's text holds, by the token each message
/// carries, in the order they appear.
fn tokens_in(text: &str) -> Vec<usize> {
    text.split('⟦')
        .skip(1)
        .map(|rest| rest.split('⟧').next().unwrap().parse().unwrap())
        .collect()
}

/// Written independently of the library: to the member, by it, or to everyone.
fn concerns(m: &ContextMessage, id: &str) -> bool {
    m.from == id
        || matches!(m.to.as_deref(), None | Some("") | Some("all"))
        || m.to.as_deref() == Some(id)
}

#[derive(Default, Clone)]
struct Session {
    mark: Option<usize>,
    /// Transcript indices the session holds: sent in prompts, or its replies.
    held: Vec<usize>,
    /// What budgets dropped since the session began.
    dropped: Vec<usize>,
}

fn check(case: &Case) -> Result<(), TestCaseError> {
    let members: Vec<Member> = (0..case.agent_types.len())
        .map(|i| Member {
            system_instruction: SYSTEM.into(),
            max_bytes: case.budgets[i],
            ..Member::new(&member_id(i), AGENT_TYPES[case.agent_types[i]])
        })
        .collect();
    let mut sessions = vec![Session::default(); members.len()];
    let mut transcript: Vec<ContextMessage> = Vec::new();
    let push = |t: &mut Vec<ContextMessage>, from: &str, to: Option<String>, text: &str| {
        let content = format!("⟦{}⟧ {text}", t.len());
        t.push(ContextMessage {
            from: from.into(),
            to,
            content,
        });
    };
    for step in &case.steps {
        match step {
            Step::Post(from, to, text) => push(
                &mut transcript,
                PEOPLE[*from],
                recipient(*to, members.len()),
                text,
            ),
            Step::Ask(m, message, lost, reply) => {
                let member = &members[*m];
                let session = &mut sessions[*m];
                if *lost {
                    *session = Session {
                        mark: session.mark,
                        ..Session::default()
                    };
                }
                let message = message
                    .as_deref()
                    .map(|t| format!("⟪msg⟫ {t}"))
                    .unwrap_or_default();
                let request = TurnRequest {
                    fresh: *lost,
                    ..TurnRequest::new(TASK, member, session.mark, &message)
                };
                let turn = match plan_turn(&request, &transcript) {
                    Ok(turn) => turn,
                    Err(e) if e.code() == ErrorCode::BudgetExceeded => continue,
                    Err(e) => {
                        // Only a delta with nothing new and no message has nothing to send.
                        let new = session.mark.map_or(0, |mark| {
                            transcript[mark..]
                                .iter()
                                .filter(|t| concerns(t, &member.id) && t.from != member.id)
                                .count()
                        });
                        prop_assert!(e.message().starts_with("nothing to send"), "{e}");
                        prop_assert!(
                            session.mark.is_some() && !*lost && new == 0 && message.is_empty()
                        );
                        continue;
                    }
                };
                let full = session.mark.is_none() || *lost;
                prop_assert_eq!(
                    turn.kind,
                    if full {
                        TurnKind::Full
                    } else {
                        TurnKind::Delta
                    }
                );
                let text = format!(
                    "{}{}",
                    turn.output.system_flag.clone().unwrap_or_default(),
                    turn.output.prompt
                );
                // The text holds the messages the plan names, nothing else.
                prop_assert_eq!(tokens_in(&text), turn.sent.clone());
                // The instructions and the team task only when the session is new.
                prop_assert_eq!(text.contains("⟪task⟫"), full);
                prop_assert_eq!(text.contains("⟪sys⟫"), full);
                prop_assert_eq!(turn.dropped.len() as u64, turn.report.messages_dropped);
                prop_assert_eq!(turn.mark, transcript.len());
                if full {
                    session.held.clear();
                    session.dropped.clear();
                }
                session.held.extend(&turn.sent);
                session.dropped.extend(&turn.dropped);
                session.mark = Some(turn.mark);

                // The same view: what the session holds, plus what budgets
                // dropped, is every message that concerns the member, in order.
                let visible: Vec<usize> = (0..transcript.len())
                    .filter(|&i| concerns(&transcript[i], &member.id))
                    .collect();
                let mut all = session.held.clone();
                all.extend(&session.dropped);
                all.sort_unstable();
                prop_assert_eq!(&all, &visible);
                prop_assert!(
                    session.held.windows(2).all(|w| w[0] < w[1]),
                    "held in order: {:?}",
                    session.held
                );
                // And against assemble on the whole transcript: when its full
                // prompt drops nothing and the session lost nothing, the
                // session holds exactly what that prompt holds.
                let context: Vec<ContextMessage> =
                    visible.iter().map(|&i| transcript[i].clone()).collect();
                let fields = PromptFields {
                    current_message: message.clone(),
                    team_task: TASK.into(),
                    system_instruction: SYSTEM.into(),
                    instruction_file_text: String::new(),
                    max_bytes: member.max_bytes,
                };
                if let Ok(reference) = assemble_for_agent(
                    &member.agent_type,
                    &fields,
                    &context,
                    AssembleOptions::default(),
                ) {
                    let out = &reference.assembled.output;
                    let in_full = tokens_in(&format!(
                        "{}{}",
                        out.system_flag.clone().unwrap_or_default(),
                        out.prompt
                    ));
                    if session.dropped.is_empty()
                        && reference.assembled.report.messages_dropped == 0
                    {
                        prop_assert_eq!(&session.held, &in_full);
                    }
                    if full {
                        prop_assert_eq!(&turn.output, out, "a full prompt is what assemble gives");
                    }
                }
                if let Some(to) = reply {
                    session.held.push(transcript.len());
                    push(
                        &mut transcript,
                        &member.id,
                        recipient(*to, members.len()),
                        "reply",
                    );
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn every_turn_gives_the_member_the_same_view_as_a_full_prompt(case in case()) {
        check(&case)?;
    }
}
