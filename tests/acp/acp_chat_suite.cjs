// runAgent over the Agent Client Protocol (SPEC §12) on Qwen Code
// (`qwen --acp`), GitHub Copilot CLI (`copilot --acp`) and opencode
// (`opencode acp`), offline against the OpenAI Chat Completions mock
// (tests/cli/openai_chat_server.cjs). The CLIs are the ones
// tests/cli/install_openai_chat_agents.sh installs; a CLI that is not
// installed is skipped with the reason printed.
//
// One suite per agent, each run by its own test file
// (tests/acp/run_acp_<cli>.test.cjs), so that the test runner spreads the
// three agents' runs over its concurrent files like any other live file.
//
// Each test has its own folder with a fresh HOME pointing at its own mock,
// and checks that no process with that HOME is left running.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const chat = require('../cli/openai_chat_agents.cjs');
const { PLAIN_PIECES, WRITE_FILE, WRITE_TEXT } = require('../cli/mocks/common.cjs');
const { waitFor } = require('../cli/wait.cjs');
const { inFreshRun } = require('../cli/processes.cjs');
const { turnCalls, turnsAsking } = require('../cli/requests.cjs');

const TEST_TIMEOUT_MS = 240_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const UNKNOWN_ID = '3f1e2a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const CONCURRENCY = Number(process.env.ACP_TEST_CONCURRENCY || 3);
const BASE = path.join(chat.ROOT, 'target', 'acp-live');
const SYSTEM_MARK = 'Answer as the mock team lead (system mark 7741).';

/** A folder with notes.txt, a mock playing `scenario`, a fresh HOME; then nothing left running. */
function within(cli, scenario, body) {
  return inFreshRun(() => chat.freshRun(cli, scenario, BASE), chat.endFreshRun, body);
}

const requests = (ctx) => chat.readRequests(ctx.mock.log);
/** The calls of the agent's turns: not a side call beside them (a title holding the first prompt, Qwen's memory extraction and suggestion holding the history: the mock logs each call's kind). */
const turns = (ctx) => turnCalls(requests(ctx));
/** The first call of the turn asking `text` (its last user message holds it). */
const turnAsking = (ctx, text) => turnsAsking(requests(ctx), text)[0];
const strings = (value, out = []) => {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
};
/** Whether a tool result holding the notes went back to the model. */
const notesReachedModel = (ctx) => turns(ctx).some((r) => (r.body?.messages ?? []).some((m) => m.role === 'tool' && strings(m.content).some((s) => s.includes('4217'))));

function runAcp(ctx, { request, ...options } = {}) {
  return pkg.runAgent(chat.AGENTS[ctx.cli].agentType, request ?? { prompt: 'Which UI framework should we use?', systemFlag: SYSTEM_MARK }, {
    protocol: 'acp',
    cd: ctx.cwd,
    command: chat.executable(ctx.cli),
    env: ctx.env,
    timeout: 60,
    maxDuration: 150,
    maxRetries: 0,
    ...options,
  });
}

function succeeded(result) {
  assert.equal(result.success, true, JSON.stringify(result.error));
}

function failedWith(result, kind) {
  assert.equal(result.success, false, JSON.stringify(result));
  assert.equal(result.error.kind, kind, JSON.stringify(result.error));
}

/** The suite of `cli` ('qwen', 'copilot' or 'opencode'). */
module.exports = function acpChatSuite(cli) {
  const skip = chat.available(cli) ? false : `${cli} is not installed (tests/cli/install_openai_chat_agents.sh)`;
  describe(`runAgent over ACP: ${cli}`, { concurrency: CONCURRENCY, skip }, () => {
    test('hello, the instructions inline; then the session resumed; an unknown id is session_not_found', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const first = await runAcp(ctx);
        succeeded(first);
        assert.equal(first.reply.text, PLAIN_TEXT);
        assert.ok(first.sessionId, JSON.stringify(first));
        assert.equal(first.reply.status, 'success');
        assert.ok(turns(ctx).some((r) => strings(r.body?.messages).some((s) => s.includes(`${SYSTEM_MARK}\n\nWhich UI framework`))), 'the instructions open the prompt');
        const second = await runAcp(ctx, { sessionId: first.sessionId, request: { prompt: 'And for the admin pages?' } });
        succeeded(second);
        assert.equal(second.sessionId, first.sessionId);
        // The first turn's answer went back to the model with the second prompt.
        const last = turnAsking(ctx, 'And for the admin pages?');
        assert.ok(last, 'the second prompt reached the model');
        assert.ok(last.body.messages.some((m) => m.role === 'assistant' && strings(m.content).some((s) => s.includes(PLAIN_TEXT))));
        const unknown = await runAcp(ctx, { sessionId: cli === 'opencode' ? 'ses_unknown0000000000000000' : UNKNOWN_ID });
        failedWith(unknown, 'session_not_found');
      }));

    test('the same prompt and mock answer give the same reply.text over cli and over acp', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const request = { prompt: 'Which UI framework should we use?' };
        const overAcp = await runAcp(ctx, { request });
        const overCli = await pkg.runAgent(chat.AGENTS[cli].agentType, request, {
          cd: ctx.cwd, command: chat.executable(cli), env: ctx.env, timeout: 60, maxDuration: 150, maxRetries: 0,
        });
        succeeded(overAcp);
        succeeded(overCli);
        assert.equal(overAcp.reply.text, overCli.reply.text);
        assert.equal(overAcp.reply.text, PLAIN_TEXT);
      }));

    test('an HTTP 500 fails the run', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'error500', async (ctx) => {
        // Qwen's retries are recorded by its telemetry in the run's own file,
        // read while it runs, opencode's by its error log on stderr: the
        // first is one more than maxRetries 0. Copilot retries in silence
        // before it answers the error.
        const result = await runAcp(ctx, { timeout: 160, maxDuration: 170 });
        assert.equal(result.success, false, JSON.stringify(result));
        assert.equal(result.error.kind, 'upstream_error', JSON.stringify(result.error));
        if (cli === 'qwen') assert.match(result.error.message, /Qwen Code retried a failed API call 1 times \(HTTP 500\), more than maxRetries/);
        // Its log names no status, its words a 5xx's ("Mock server error").
        else if (cli === 'opencode') assert.match(result.error.message, /opencode retried a failed API call 1 times \(upstream_error\), more than maxRetries/);
        else assert.match(result.error.message, /Mock server error/);
      }));

    test('a read allowed by the policy reaches the model', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'tool', async (ctx) => {
        const result = await runAcp(ctx, { sandbox: 'read-only' });
        succeeded(result);
        assert.ok(notesReachedModel(ctx), 'the notes went back to the model');
        assert.match(result.reply.text, /The notes say the launch code is 4217\./);
      }));

    test('a shell command: rejected by onPermission, allowed by yolo', { timeout: TEST_TIMEOUT_MS }, async () => {
      await within(cli, 'shell', async (ctx) => {
        const asked = [];
        await runAcp(ctx, { onPermission: (r) => (asked.push(r), 'reject') });
        // Qwen runs a read-only command (`cat`) without asking even in its 'default' mode
        // (docs/acp.md); Copilot asks, and so does opencode with the OPENCODE_PERMISSION runAgent sets.
        if (cli === 'qwen') assert.equal(asked.length, 0, 'qwen asked nothing for cat');
        else {
          assert.ok(asked.length > 0, `${cli} asked`);
          assert.equal(notesReachedModel(ctx), false, 'rejected: the command did not run');
        }
      });
      await within(cli, 'shell', async (ctx) => {
        const result = await runAcp(ctx, { yolo: true });
        succeeded(result);
        assert.ok(notesReachedModel(ctx), 'allowed: the command ran');
      });
    });

    // The mock writes with Qwen's `write_file`, opencode's `apply_patch` and Copilot's
    // freeform (`custom`) `apply_patch`.
    test('a write: allowed by workspace-write, rejected by onPermission, refused outside cd', { timeout: TEST_TIMEOUT_MS }, async () => {
      await within(cli, 'write', async (ctx) => {
        const result = await runAcp(ctx, { sandbox: 'workspace-write' });
        succeeded(result);
        assert.equal(fs.readFileSync(path.join(ctx.cwd, WRITE_FILE), 'utf8'), WRITE_TEXT);
        assert.match(result.reply.text, /The write tool answered/);
      });
      await within(cli, 'write', async (ctx) => {
        const asked = [];
        await runAcp(ctx, { sandbox: 'read-only', onPermission: (r) => (asked.push(r), 'reject') });
        assert.equal(asked.length, 1, `${cli} asked`);
        assert.equal(asked[0].toolCall.kind, 'edit');
        assert.equal(fs.existsSync(path.join(ctx.cwd, WRITE_FILE)), false, 'rejected: nothing written');
      });
      await within(cli, 'writeOutside', async (ctx) => {
        const result = await runAcp(ctx);
        assert.ok(JSON.stringify(result.reply.toolUses).includes(WRITE_FILE), `${cli} tried the write: ${JSON.stringify(result.reply.toolUses)}`);
        assert.equal(fs.existsSync(path.join(path.dirname(ctx.cwd), WRITE_FILE)), false, 'nothing written outside cd');
      });
    });

    // The model never answers, so the abort ends the run wherever it lands (a
    // fast agent, Copilot, once finished a plain turn within the 1.5 s).
    test('abort while starting or waiting on the model: the tree killed, nothing left running', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'stall', async (ctx) => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 1500);
        const result = await runAcp(ctx, { signal: controller.signal });
        failedWith(result, 'aborted');
      }));

    test('abort during the turn (the agent retrying a 500): session/cancel, then the end', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'error500', async (ctx) => {
        const controller = new AbortController();
        const pending = runAcp(ctx, { signal: controller.signal, request: { prompt: 'Abort me (mark 5521).' } });
        await waitFor(() => turns(ctx).some((r) => strings(r.body?.messages).some((s) => s.includes('mark 5521'))), 60_000, `${cli} to send the prompt to the model`);
        const abortedAt = Date.now();
        controller.abort();
        const result = await pending;
        failedWith(result, 'aborted');
        // Cancelled, or killed 5 s after the cancel at the latest.
        assert.ok(Date.now() - abortedAt < 10_000, `${Date.now() - abortedAt} ms`);
      }));
  });
};
