// A session's turn retried after the API's HTTP 500 reaches the model with
// the user's message once, on the real agents offline against the mock APIs
// on 127.0.0.1 (the `marked500` scenario: a call of the agent loop holding
// a prompt's mark fails as often as the mark says). Read from the model
// requests the mock recorded: where the agent's session keeps the failed
// prompt (Claude Code and Codex) the retry asks it to answer that message;
// where it does not (Gemini CLI), and where a process per turn starts a new
// session, the prompt goes again.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const harness = require('../cli/harness.cjs');
const { TEST_TIMEOUT_MS, PLAIN_TEXT, within, open, turnAsking, bodyText, succeeded } = require('./live_sessions.cjs');

/** The words of the engine's request to answer a message the session kept. */
const CONTINUE = /Your reply to my last message was interrupted by an error/;

/** How often each agent's own retries fail a call before ours: Gemini CLI
 * tries twice (maxRetries 1 is its general.maxAttempts 2); the others are
 * set to retry none (CLAUDE_CODE_MAX_RETRIES, stream_max_retries). */
const OWN_TRIES = { claude: 1, codex: 1, gemini: 2 };

/** A prompt whose turn's model calls fail `times` times. */
const marked = (id, times) => `Please answer this: FAIL_500_TIMES_${times}_${id}`;
const markOf = (prompt) => prompt.match(/FAIL_500_TIMES_\d+_\w+/)[0];
const count = (text, part) => text.split(part).length - 1;

/** The calls of the agent's loop (not a session title, a suggestion of the next prompt, …: the mock logs each call's kind). */
const loopCalls = (ctx) => ctx.mock.turns();

/**
 * Every call of the agent loop holds `prompt` once at most, and the first
 * call after its failed ones holds it once (the request after the retry).
 * Returns that call's text.
 */
function heldOnce(ctx, prompt, failed) {
  const calls = loopCalls(ctx).map(bodyText).filter((t) => t.includes(markOf(prompt)));
  for (const [i, text] of calls.entries()) {
    assert.equal(count(text, markOf(prompt)), 1, `call ${i} holding the prompt holds it once: ${text.slice(-1500)}`);
  }
  assert.ok(calls.length > failed, `${failed} failed calls, then an answered one (saw ${calls.length})`);
  return calls[failed];
}

/** Opens a session over `protocol` with one retry of ours. */
function openWith(ctx, protocol) {
  const cli = protocol === 'cli' ? { protocol: 'cli', command: harness.executable(ctx.cli), model: harness.MODELS[ctx.cli] } : {};
  return open(ctx, { maxRetries: 1, ...cli });
}

/** A turn that failed once (the agent's own tries, then ours) and succeeded. */
function retriedOnce(turn) {
  succeeded(turn);
  assert.equal(turn.attempts, 2, 'tried again by the session');
  assert.equal(turn.reply.text, PLAIN_TEXT);
}

// Over ACP: the first turn of a session fails, then a second turn.
const ACP = { claude: 'kept', codex: 'kept', gemini: 'dropped' };
for (const [cli, keeps] of Object.entries(ACP)) {
  describe(`a retried turn over ACP: ${cli}`, () => {
    test(`the model sees the prompt once (the session ${keeps} the failed prompt)`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'marked500', async (ctx) => {
        const session = await openWith(ctx, 'acp');
        const prompt = marked('acp', OWN_TRIES[cli]);
        retriedOnce(await session.prompt(prompt));
        const after = heldOnce(ctx, prompt, OWN_TRIES[cli]);
        assert.equal(CONTINUE.test(after), keeps === 'kept', `the request after the retry: ${after.slice(-1500)}`);
        succeeded(await session.prompt('And the next question: zeta-3303?'));
        assert.equal(count(bodyText(turnAsking(ctx, 'zeta-3303')), markOf(prompt)), 1, 'the next turn carries the prompt once');
      }));
  });
}

describe('a retried turn over the CLI: Claude Code keeps one process', () => {
  test('the process keeps the failed prompt: the retry asks for its answer', { timeout: TEST_TIMEOUT_MS }, () =>
    within('claude', 'marked500', async (ctx) => {
      const session = await openWith(ctx, 'cli');
      const prompt = marked('cli', 1);
      retriedOnce(await session.prompt(prompt));
      assert.match(heldOnce(ctx, prompt, 1), CONTINUE);
      succeeded(await session.prompt('And the next question: zeta-3303?'));
      assert.equal(count(bodyText(turnAsking(ctx, 'zeta-3303')), markOf(prompt)), 1, 'the next turn carries the prompt once');
    }));
});

// A process per turn: a first turn that fails is tried again in a new
// session (the prompt again); a later one resumes the session it failed in.
const PER_TURN = { codex: 'kept', gemini: 'dropped' };
for (const [cli, keeps] of Object.entries(PER_TURN)) {
  describe(`a retried turn over the CLI: ${cli} starts a process per turn`, () => {
    test(`the model sees the prompt once (the resumed session ${keeps} the failed prompt)`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'marked500', async (ctx) => {
        const session = await openWith(ctx, 'cli');
        const first = marked('first', OWN_TRIES[cli]);
        retriedOnce(await session.prompt(first));
        assert.doesNotMatch(heldOnce(ctx, first, OWN_TRIES[cli]), CONTINUE, 'a new session is told the prompt');
        const second = marked('second', OWN_TRIES[cli]);
        retriedOnce(await session.prompt(second));
        const after = heldOnce(ctx, second, OWN_TRIES[cli]);
        assert.equal(CONTINUE.test(after), keeps === 'kept', `the request after the retry: ${after.slice(-1500)}`);
        assert.equal(count(after, markOf(first)), 1, 'the resumed session holds the first turn once');
      }));
  });
}
