// runAgent (SPEC §10) on the real Qwen Code, GitHub Copilot CLI and opencode
// (the versions pinned in tests/cli/openai_chat_agents.json), offline against
// the OpenAI Chat Completions mock on 127.0.0.1: a plain answer with live
// events, a tool call then the answer, HTTP 400, 401 and 500, resume (the
// session asked for, then an unknown id), and each agent's way of ending
// without its final event. Each gives the AgentRun checked here: status,
// error kind, reply text, session id, usage (Copilot's from its usage file).
//
// Each test has its own folder, HOME and mock (stopped by its PID) and checks
// that no process with its HOME is left running, so tests run side by side.
// The CLIs' own retries are counted where they tell of them (Qwen's
// telemetry, Copilot's `model.call_failure` lines, opencode's error log):
// with maxRetries 0 each is stopped on its first retry.
'use strict';
const { after, describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pkg = require('agent-context');
const agents = require('./openai_chat_agents.cjs');
const chat = require('./mocks/openai-chat.cjs');
const { PLAIN_PIECES } = require('./mocks/common.cjs');
const { processesWithHome, inFreshRun } = require('./processes.cjs');
const { turnCalls, turnsAsking } = require('./requests.cjs');

const PLAIN_TEXT = PLAIN_PIECES.join('');
const TOOL_ANSWER = 'The notes say the launch code is 4217.';
const TEST_TIMEOUT_MS = 200_000;
const CONCURRENCY = Number(process.env.RUN_AGENT_TEST_CONCURRENCY || 6);
/** Session ids each CLI does not know, in its own form. */
const UNKNOWN_ID = {
  qwen: '3f1e2a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b',
  copilot: '3f1e2a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b',
  opencode: 'ses_0123456789abcdefABCDEFGHIJ',
};
const SESSION_FORM = { qwen: /^[0-9a-f-]{36}$/, copilot: /^[0-9a-f-]{36}$/, opencode: /^ses_[0-9A-Za-z]{26}$/ };
/** How each says it does not know the session (each agent's signs, in its file in src/agents/). */
const UNKNOWN_SAID = { qwen: /No saved session found/, copilot: /No session, task, or name matched/, opencode: /Session not found/ };
const TOOL_NAMES = { qwen: 'read_file', copilot: 'view', opencode: 'read' };

/** A folder, a mock playing `scenario`, a sandboxed HOME for `cli`; then nothing left running. */
function within(cli, scenario, body) {
  return inFreshRun(() => agents.freshRun(cli, scenario, path.join(os.tmpdir(), 'agent-context-live-runs')), agents.endFreshRun, body);
}

/** runAgent in `ctx` on the sample conversation (or `request`). */
function run(ctx, { request, ...options } = {}) {
  const { agentType } = agents.AGENTS[ctx.cli];
  return pkg.runAgent(agentType, request ?? { ...pkg.sampleInput(), currentMessage: 'What UI framework should we use?' }, {
    cd: ctx.cwd,
    command: agents.executable(ctx.cli),
    env: ctx.env,
    timeout: 150,
    maxDuration: 180,
    maxRetries: 0,
    ...options,
  });
}

/** The calls that carry the conversation: the turn's, not a side call (a title, Qwen's memory extraction: the mock logs each call's kind). */
function mainCalls(ctx) {
  return turnCalls(agents.readRequests(ctx.mock.log));
}

/** The first call of the turn asking `needle` (its last user message holds it). */
function turnAsking(ctx, needle) {
  const [first] = turnsAsking(agents.readRequests(ctx.mock.log), needle);
  assert.ok(first, `a turn call asking ${JSON.stringify(needle)}`);
  return first;
}

/** The mock's usage for `calls` main calls. */
function expectedUsage(calls) {
  const u = chat.MAIN_USAGE;
  return {
    inputTokens: u.prompt_tokens * calls,
    cachedInputTokens: u.prompt_tokens_details.cached_tokens * calls,
    outputTokens: u.completion_tokens * calls,
    totalTokens: u.total_tokens * calls,
  };
}

function checkUsage(ctx, result, calls) {
  const { durationMs, costUsd, ...counts } = result.reply.usage ?? {};
  assert.deepEqual(counts, expectedUsage(calls), JSON.stringify(result.reply.usage));
  // Copilot's usage is only in its usage file, with the API's time.
  if (ctx.cli === 'copilot') assert.ok(durationMs > 0, JSON.stringify(result.reply.usage));
}

function failedWith(result, kind) {
  assert.equal(result.success, false, JSON.stringify(result));
  assert.equal(result.error.kind, kind, JSON.stringify(result.error));
  assert.equal(result.error.retryable, ['upstream_error', 'quota_exceeded', 'network_error', 'empty_response', 'idle_timeout', 'timeout'].includes(kind));
}

function strings(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

describe('runAgent: Qwen Code, Copilot and opencode against the OpenAI Chat Completions mock', { concurrency: CONCURRENCY }, () => {
  // Copilot's usage files (and every run's scratch folder) were the runner's
  // temp files, removed after each run: none is left once all have ended
  // (checked at the end, as runs of this file overlap).
  after(() => {
    const leftovers = require('./processes.cjs').runFolders();
    assert.deepEqual(leftovers, []);
  });
  // The HTTP 500 runs first: they wait for the CLIs' first retry while
  // the others run beside them.
  for (const cli of Object.keys(agents.SUITE_AGENTS)) {
    const name = `${cli} ${agents.AGENTS[cli].version}`;
    test(`${name}: HTTP 500 is upstream_error on the CLI's first retry`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'error500', async (ctx) => {
        const result = await run(ctx);
        failedWith(result, 'upstream_error');
        assert.equal(result.attempts, 1);
        // Qwen's telemetry and Copilot's call_failure lines name the
        // status; opencode's error log only the API's words.
        const what = cli === 'opencode' ? 'upstream_error' : 'HTTP 500';
        assert.match(result.error.message, new RegExp(`retried a failed API call 1 times \\(${what}\\), more than maxRetries allows`));
        assert.equal(result.error.exitCode, null, 'stopped by the run');
        // Qwen's record of its retry may come before the retried call.
        assert.ok(mainCalls(ctx).length >= (cli === 'qwen' ? 1 : 2), 'the CLI retried on its own');
      }));
  }

  for (const cli of Object.keys(agents.SUITE_AGENTS)) {
    const { version, agentType } = agents.AGENTS[cli];
    const name = `${cli} ${version}`;

    test(`${name}: a plain answer, with live events`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const events = [];
        const result = await run(ctx, { onEvent: (e) => events.push(e) });
        assert.equal(result.success, true, JSON.stringify(result.error));
        assert.equal(result.agentType, agentType);
        assert.equal(result.reply.text, PLAIN_TEXT);
        assert.equal(result.reply.status, 'success');
        assert.match(result.sessionId, SESSION_FORM[cli]);
        assert.equal(result.reply.sessionId, result.sessionId);
        assert.equal(result.attempts, 1);
        assert.equal(result.error, undefined);
        checkUsage(ctx, result, 1);
        assert.equal(events.filter((e) => e.type === 'text').map((e) => e.text).join(''), PLAIN_TEXT);
        // The prompt went on stdin, never in argv; it reached the API whole.
        assert.ok(strings(mainCalls(ctx)[0].body.messages).some((t) => t.includes('What UI framework should we use?')));
      }));

    test(`${name}: a tool call, then the answer`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'tool', async (ctx) => {
        const result = await run(ctx, { request: { prompt: 'Read notes.txt and tell me the launch code.' } });
        assert.equal(result.success, true, JSON.stringify(result.error));
        assert.equal(result.reply.text, TOOL_ANSWER);
        assert.equal(result.reply.toolUses.length, 1, JSON.stringify(result.reply.toolUses));
        const [tool] = result.reply.toolUses;
        assert.equal(tool.name, TOOL_NAMES[cli]);
        assert.equal(tool.status, 'success');
        assert.ok(tool.output.includes('4217'));
        assert.equal(mainCalls(ctx).length, 2);
        checkUsage(ctx, result, 2);
      }));

    test(`${name}: HTTP 400 is request_rejected, not retried`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'error400', async (ctx) => {
        const result = await run(ctx, { maxRetries: 1 });
        failedWith(result, 'request_rejected');
        assert.match(result.error.message, /HTTP 400/);
        assert.ok(result.error.message.includes(chat.ERROR_400.error.message), result.error.message);
        assert.equal(result.error.exitCode, 1);
        assert.equal(result.attempts, 1);
        assert.equal(result.reply.text, '');
        assert.match(result.sessionId, SESSION_FORM[cli]);
        assert.equal(mainCalls(ctx).length, 1);
      }));

    test(`${name}: HTTP 401 is auth_error`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'error401', async (ctx) => {
        const result = await run(ctx);
        failedWith(result, 'auth_error');
        assert.match(result.error.message, /HTTP 401/);
        // Copilot retries a 401 (`transient_auth_error`): stopped on that
        // retry, counted from its call_failure lines (maxRetries 0).
        assert.equal(result.error.exitCode, cli === 'copilot' ? null : 1);
        assert.equal(result.attempts, 1);
      }));

    test(`${name}: resume the session asked for; an unknown id is session_not_found`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const first = await run(ctx, { request: { prompt: 'First question: colours?' } });
        assert.equal(first.success, true, JSON.stringify(first.error));
        const second = await run(ctx, { request: { prompt: 'Second question: fonts?' }, sessionId: first.sessionId });
        assert.equal(second.success, true, JSON.stringify(second.error));
        assert.equal(second.sessionId, first.sessionId);
        assert.equal(second.requestedSessionId, first.sessionId);
        assert.equal(second.reply.text, PLAIN_TEXT);
        const resumed = turnAsking(ctx, 'Second question: fonts?');
        assert.ok(strings(resumed.body.messages).some((t) => t.includes('First question: colours?')), 'the first exchange was sent again');
        // Qwen's is this run's usage; Copilot's file counts the whole session.
        if (cli === 'qwen') checkUsage(ctx, second, 1);
        if (cli === 'copilot') checkUsage(ctx, second, 2);

        const calls = mainCalls(ctx).length;
        const unknown = await run(ctx, { request: { prompt: 'Third question' }, sessionId: UNKNOWN_ID[cli] });
        failedWith(unknown, 'session_not_found');
        assert.equal(unknown.requestedSessionId, UNKNOWN_ID[cli]);
        assert.match(unknown.error.message, UNKNOWN_SAID[cli]);
        assert.equal(unknown.error.exitCode, 1);
        assert.equal(mainCalls(ctx).length, calls, 'no API call for an unknown session');
      }));
  }

  test(`copilot ${agents.AGENTS.copilot.version}: resumed from another folder, it works in that folder`, { timeout: TEST_TIMEOUT_MS }, () =>
    within('copilot', 'plain', async (ctx) => {
      const first = await run(ctx, { request: { prompt: 'First question: colours?' } });
      assert.equal(first.success, true, JSON.stringify(first.error));
      const other = path.join(ctx.dir, 'other');
      fs.mkdirSync(other);
      const second = await run(ctx, { cd: other, request: { prompt: 'Second question: fonts?' }, sessionId: first.sessionId });
      assert.equal(second.success, true, JSON.stringify(second.error));
      assert.equal(second.sessionId, first.sessionId);
      // `--resume` alone would work in the session's first folder; `-C .` keeps it in `cd`.
      const prompt = JSON.stringify(turnAsking(ctx, 'Second question: fonts?').body.messages);
      assert.ok(prompt.includes(other), 'the resumed call names the new folder');
      assert.ok(!prompt.includes(ctx.cwd), 'and not the first one');
    }));

  test(`qwen ${agents.AGENTS.qwen.version}: a session resumed from another folder is session_not_found (sessions are per folder)`, { timeout: TEST_TIMEOUT_MS }, () =>
    within('qwen', 'plain', async (ctx) => {
      const first = await run(ctx, { request: { prompt: 'First question: colours?' } });
      assert.equal(first.success, true, JSON.stringify(first.error));
      const other = path.join(ctx.dir, 'other');
      fs.mkdirSync(other);
      const second = await run(ctx, { cd: other, request: { prompt: 'Second question' }, sessionId: first.sessionId });
      failedWith(second, 'session_not_found');
      assert.match(second.error.message, /No saved session found with ID/);
    }));

  test(`opencode ${agents.AGENTS.opencode.version}: a session resumed from another folder prints nothing (idle_timeout, nothing left running)`, { timeout: TEST_TIMEOUT_MS }, () =>
    within('opencode', 'plain', async (ctx) => {
      const first = await run(ctx, { request: { prompt: 'First question: colours?' } });
      assert.equal(first.success, true, JSON.stringify(first.error));
      const other = path.join(ctx.dir, 'other');
      fs.mkdirSync(other);
      const second = await run(ctx, { cd: other, request: { prompt: 'Second question' }, sessionId: first.sessionId, timeout: 20 });
      failedWith(second, 'idle_timeout');
      assert.equal(second.reply.text, '');
      assert.deepEqual(second.error.lastLines, []);
    }));

  test(`qwen ${agents.AGENTS.qwen.version}: exit 53 at --max-session-turns, with no result line, is incomplete`, { timeout: TEST_TIMEOUT_MS }, () =>
    within('qwen', 'tool', async (ctx) => {
      const result = await run(ctx, { request: { prompt: 'Read notes.txt and tell me the launch code.' }, extraArgs: ['--max-session-turns=1'] });
      failedWith(result, 'incomplete');
      assert.equal(result.error.exitCode, 53);
      assert.equal(result.reply.status, 'incomplete');
      assert.equal(result.attempts, 1);
      assert.match(result.error.message, /exited with code 53 without its final event/);
    }));

  test(`opencode ${agents.AGENTS.opencode.version}: killed before its step_finish reason stop, the run is incomplete`, { timeout: TEST_TIMEOUT_MS }, () =>
    within('opencode', 'toolStall', async (ctx) => {
      let killed = 0;
      const result = await run(ctx, {
        request: { prompt: 'Read notes.txt and tell me the launch code.' },
        // Once the tool ran, opencode is killed from outside (as an OOM
        // killer would): its output stops before the final step_finish.
        // The mock never answers the call that brings the tool's result
        // back, so the final step cannot be printed before the kill (with
        // `tool`, a loaded opencode once printed it in the same chunk).
        onEvent(event) {
          if (event.type !== 'toolUse' || event.toolUse.status !== 'success' || killed) return;
          for (const pid of processesWithHome(ctx.home)) {
            try {
              process.kill(pid, 'SIGKILL');
              killed += 1;
            } catch {}
          }
        },
      });
      assert.ok(killed > 0, 'opencode was running at its tool result');
      failedWith(result, 'incomplete');
      assert.equal(result.reply.status, 'incomplete');
      assert.equal(result.error.exitCode, null);
      assert.match(result.error.message, /was ended by SIGKILL without its final event/);
      assert.equal(result.reply.toolUses.length, 1);
    }));
});
