// A failure in seconds, by default: with runAgent's default options (no
// maxRetries, no timeout, no maxDuration; only what points the agent at the
// mock), an HTTP 500 on every model call ends `upstream_error` within 60 s,
// for each of the six agents over the CLI and over the Agent Client Protocol
// (12 pairs). runAgent's maxRetries (default 1) bounds the agents' own
// retries through configuration the run owns (Claude Code, Qwen Code's SDK,
// Gemini CLI's settings in the run's own home) or by counting the retries
// they tell of (the lines Codex prints, and Gemini CLI over its CLI too; the
// records of Qwen Code's telemetry, which the run writes to a file of its
// folder and reads as it grows), and their retry chatter is not progress
// for the idle timeout. See docs/agents.md.
//
// Each sandbox keeps the agent's own retries at its defaults (Codex's
// provider without request_max_retries/stream_max_retries, Gemini and Qwen
// without retry settings, no CLAUDE_CODE_MAX_RETRIES): what is tested is what
// a new user gets. Each pair has its own folder, HOME and mock (stopped by its
// PID) and checks that nothing with its HOME is left running, so pairs run
// side by side.
//
// FAST_FAILURE_LIMIT_S changes the bound and FAST_FAILURE_CONCURRENCY how
// many pairs run at once (to measure); `--test-name-pattern` picks pairs.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const harness = require('./harness.cjs');
const chat = require('./openai_chat_agents.cjs');
const { inFreshRun } = require('./processes.cjs');
const { ADAPTERS } = require('../acp/adapters.cjs');

const LIMIT_MS = Number(process.env.FAST_FAILURE_LIMIT_S || 60) * 1000;
const TEST_TIMEOUT_MS = LIMIT_MS + 90_000;
const CONCURRENCY = Number(process.env.FAST_FAILURE_CONCURRENCY || 6);
const BASE = path.join(harness.ROOT, 'target', 'fast-failure');
// codex-acp wants a model slug Codex knows (else a warning comes as text).
const ACP_MODELS = { ...harness.MODELS, codex: 'gpt-5.3-codex' };
const CHAT = ['qwen', 'copilot', 'opencode'];

/** The Anthropic, OpenAI Responses or Gemini mock, a sandbox with the agent's own retry settings left out. */
async function setUpCli(cli) {
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, `${cli}-`));
  const mock = await harness.startMock(harness.CLIS[cli].api, 'error500', dir);
  const box = harness.sandbox(cli, mock, dir);
  if (cli === 'codex') {
    const config = path.join(box.home, '.codex', 'config.toml');
    const kept = fs.readFileSync(config, 'utf8').split('\n').filter((l) => !/^(request|stream)_max_retries\b/.test(l));
    fs.writeFileSync(config, kept.join('\n'));
  }
  return { dir, home: box.home, env: box.env, cwd: fs.realpathSync(box.cwd), requests: () => mock.requests(), stop: () => mock.stop() };
}

/** The OpenAI Chat Completions mock, a sandbox with Qwen's SDK retries left at its default. */
async function setUpChat(cli) {
  fs.mkdirSync(BASE, { recursive: true });
  const ctx = await chat.freshRun(cli, 'error500', BASE);
  if (cli === 'qwen') {
    const file = path.join(ctx.home, '.qwen', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
    delete settings.model;
    fs.writeFileSync(file, JSON.stringify(settings));
  }
  return { ...ctx, requests: () => chat.readRequests(ctx.mock.log), stop: () => chat.stopMock(ctx.mock) };
}

function cleanUp(ctx) {
  ctx.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

const AGENT_TYPE = {
  ...Object.fromEntries(Object.entries(harness.CLIS).map(([c, a]) => [c, a.agentType])),
  ...Object.fromEntries(CHAT.map((c) => [c, chat.AGENTS[c].agentType])),
};

function command(cli, protocol) {
  if (CHAT.includes(cli)) return chat.executable(cli);
  return protocol === 'acp' ? ADAPTERS[cli] : harness.executable(cli);
}

function model(cli, protocol) {
  if (CHAT.includes(cli)) return undefined;
  return protocol === 'acp' ? ACP_MODELS[cli] : harness.MODELS[cli];
}

/** One run with default options, aborted by the caller at `abortMs`. */
async function runDefault(cli, protocol, ctx, abortMs) {
  const controller = new AbortController();
  const guard = setTimeout(() => controller.abort(), abortMs);
  const started = Date.now();
  try {
    // Only what a run needs to reach the mock: no maxRetries, no timeout, no maxDuration.
    const result = await pkg.runAgent(AGENT_TYPE[cli], { prompt: 'What UI framework should we use, and why?' }, {
      ...(protocol === 'acp' ? { protocol } : {}),
      cd: ctx.cwd,
      command: command(cli, protocol),
      model: model(cli, protocol),
      env: ctx.env,
      signal: controller.signal,
    });
    return { result, elapsed: Date.now() - started };
  } finally {
    clearTimeout(guard);
  }
}

describe('default options, HTTP 500 on every call', { concurrency: CONCURRENCY }, () => {
  for (const protocol of ['cli', 'acp']) {
    for (const cli of ['claude', 'codex', 'gemini', ...CHAT]) {
      const skip = CHAT.includes(cli) && !chat.available(cli) ? `${cli} is not installed (bash tests/cli/install_openai_chat_agents.sh)` : false;
      test(`${cli} over ${protocol}: upstream_error within ${LIMIT_MS / 1000} s`, { timeout: TEST_TIMEOUT_MS, skip }, (t) =>
        inFreshRun(() => (CHAT.includes(cli) ? setUpChat(cli) : setUpCli(cli)), cleanUp, async (ctx) => {
          // A pair that meets the bar ends by itself; past the bound (+30 s) it is aborted, so a failing test ends too.
          const { result, elapsed } = await runDefault(cli, protocol, ctx, LIMIT_MS + 30_000);
          const calls = ctx.requests().filter((r) => r.status === undefined || r.status >= 500);
          t.diagnostic(`${cli} over ${protocol}: ${result.error?.kind} after ${elapsed} ms, ${result.attempts} attempt(s), ${ctx.requests().length} request(s) to the mock`);
          assert.equal(result.success, false, JSON.stringify(result));
          assert.equal(result.error.kind, 'upstream_error', JSON.stringify(result.error));
          assert.ok(elapsed < LIMIT_MS, `${elapsed} ms`);
          assert.ok(calls.length >= 1, 'the mock was asked');
          if (cli === 'qwen') {
            // Stopped on the retries its telemetry recorded in the run's own
            // file; the user's settings keep their own telemetry choice.
            assert.match(result.error.message, /retried a failed API call 2 times \(HTTP 500\)/);
            const settings = JSON.parse(fs.readFileSync(path.join(ctx.home, '.qwen', 'settings.json'), 'utf8'));
            assert.deepEqual(settings.telemetry, { enabled: false });
          }
        }),
      );
    }
  }
});
