// A failure in seconds, by default: for each built-in agent, over its CLI
// and over the Agent Client Protocol, through runAgent (every failure
// below) and through a session (openAgentSession, one prompt: nothing
// listening and HTTP 429), with default options and only `endpoint`
// pointing the agent at a model API on 127.0.0.1:
//
//   nothing listening on the port → network_error
//   HTTP 500 on every call        → upstream_error
//   HTTP 429 on every call        → quota_exceeded
//   HTTP 400 on every call        → request_rejected
//
// each within 60 s, and nothing listening within 5 s (a run from its call,
// a session's turn from its prompt: opening a session starts the agent,
// which takes what it takes). No maxRetries, no timeout, no maxDuration: the
// agents' own retries are at their defaults and what bounds them is the
// library's (docs/agents.md, "Every failure within a minute"). Each case has
// its own folder, empty HOME, mock (stopped by its PID) and checks that no
// process with its HOME is left running, so cases run side by side.
//
// One file per agent (tests/cli/fast_failure_<agent>.test.cjs) calls
// `fastFailureSuite(agent)`, so the files run at once. Run directly, this
// file runs one case and prints what came of it:
//
//   node tests/cli/fast_failure_suite.cjs <agent> <cli|acp> <run|session> <refused|500|429|400>
//
// FAST_FAILURE_LIMIT_S changes the bound (FAST_FAILURE_REFUSED_S the one of
// nothing listening), FAST_FAILURE_CONCURRENCY how many
// cases of a file run at once; `--test-name-pattern` picks cases.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const pkg = require('agent-context');
const harness = require('./harness.cjs');
const chat = require('./openai_chat_agents.cjs');
const { inFreshRun } = require('./processes.cjs');
const { ADAPTERS, CODEX_MODEL } = require('../acp/adapters.cjs');

const LIMIT_MS = Number(process.env.FAST_FAILURE_LIMIT_S || 60) * 1000;
/** Nothing listening on a loopback endpoint: asked before each attempt (docs/agents.md). */
const REFUSED_LIMIT_MS = Number(process.env.FAST_FAILURE_REFUSED_S || 5) * 1000;
/** A case that misses its bound is aborted this much later, so a failing test ends too. */
const ABORT_MARGIN_MS = 30_000;
const CONCURRENCY = Number(process.env.FAST_FAILURE_CONCURRENCY || 3);
const BASE = path.join(harness.ROOT, 'target', 'fast-failure'); // Codex refuses a CODEX_HOME under /tmp
const PROMPT = 'What UI framework should we use, and why?';

/**
 * Each agent: its type, the API family its mock speaks, the model named in
 * `endpoint`, its executable per protocol (none for a protocol it is not
 * driven over), and what its ACP mode needs beyond the endpoint.
 */
const AGENTS = {
  claude: { agentType: 'claude-code', api: 'anthropic', model: 'claude-mock-1', cli: () => harness.executable('claude'), acp: () => ADAPTERS.claude },
  codex: { agentType: 'openai-codex', api: 'openai', model: CODEX_MODEL, cli: () => harness.executable('codex'), acp: () => ADAPTERS.codex },
  gemini: { agentType: 'google-gemini', api: 'gemini', model: 'gemini-2.5-flash', cli: () => harness.executable('gemini'), acp: () => ADAPTERS.gemini },
  qwen: { agentType: 'qwen-code', api: 'chat', model: chat.MODEL, cli: () => chat.executable('qwen'), acp: () => chat.executable('qwen') },
  // Copilot's first run in a HOME unpacks ~235 MB into its cache: shared.
  copilot: { agentType: 'github-copilot', api: 'chat', model: chat.MODEL, cli: () => chat.executable('copilot'), acp: () => chat.executable('copilot'), env: { XDG_CACHE_HOME: process.env.AGENT_CLI_CACHE || path.join(os.homedir(), '.cache') } },
  opencode: { agentType: 'opencode', api: 'chat', model: chat.MODEL, cli: () => chat.executable('opencode'), acp: () => chat.executable('opencode') },
  cline: { agentType: 'cline', api: 'chat', model: chat.MODEL, acp: () => chat.executable('cline') },
  // Its ACP mode wants a Factory key before `session/new`; any value passes
  // offline, and nothing but the mock is reachable.
  droid: { agentType: 'factory-droid', api: 'chat', model: chat.MODEL, acp: () => chat.executable('droid'), env: { FACTORY_API_KEY: 'fk-placeholder-not-a-key' } },
  // Their install folder's `.bin` first on PATH: pi's ACP adapter finds
  // `pi` there, Kimi Code its Node.js 22.
  // Over ACP a failed model call ends pi's turn (its adapter's) and Kimi
  // Code's without a word, its cause unsaid: the failure is told, its kind
  // cannot be (nothing listening is asked before the prompt, so that one is
  // known).
  pi: {
    agentType: 'pi', api: 'chat', model: chat.MODEL, cli: () => chat.executable('pi'), acp: () => chat.acpExecutable('pi'), pathFirst: 'pi',
    kinds: { acp: { 500: 'process_error', 429: 'process_error', 400: 'process_error' } },
  },
  kimi: {
    agentType: 'kimi-code', api: 'chat', model: chat.MODEL, cli: () => chat.executable('kimi'), acp: () => chat.executable('kimi'), pathFirst: 'kimi',
    kinds: { acp: { 500: 'process_error', 429: 'process_error', 400: 'process_error' } },
  },
};

/** Each failure: the kind it must end as, and the mock scenario per API family (none: nothing listens). */
const FAILURES = {
  refused: { kind: 'network_error', scenario: null },
  500: { kind: 'upstream_error', scenario: { anthropic: 'error500', openai: 'error500', gemini: 'error500', chat: 'error500' } },
  429: { kind: 'quota_exceeded', scenario: { anthropic: 'quota', openai: 'quota', gemini: 'quota', chat: 'error429' } },
  400: { kind: 'request_rejected', scenario: { anthropic: 'reject', openai: 'reject', gemini: 'reject', chat: 'error400' } },
};

const CHAT_AGENTS = ['qwen', 'copilot', 'opencode', 'cline', 'droid', 'pi', 'kimi'];

function installed(name) {
  if (CHAT_AGENTS.includes(name)) return chat.available(name);
  return true; // tests/agents, installed by npm test's setup
}

/** A port on 127.0.0.1 that nothing listens on: one the OS just gave and took back. */
function closedPort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The mock for `failure` (or a closed port), as `{ baseUrl, requests, stop }`. */
async function startMock(agent, failure, dir) {
  const scenario = FAILURES[failure].scenario?.[agent.api];
  const v1 = agent.api === 'openai' || agent.api === 'chat' ? '/v1' : '';
  if (!scenario) {
    const port = await closedPort();
    return { baseUrl: `http://127.0.0.1:${port}${v1}`, requests: () => [], stop: () => {} };
  }
  if (agent.api === 'chat') {
    const notes = path.join(dir, 'notes.txt');
    fs.writeFileSync(notes, chat.NOTES_TEXT);
    const m = await chat.startMock(scenario, dir, notes);
    return { baseUrl: `http://127.0.0.1:${m.port}/v1`, requests: () => chat.readRequests(m.log), stop: () => chat.stopMock(m) };
  }
  const m = await harness.startMock(agent.api, scenario, dir);
  return { baseUrl: `${m.baseUrl}${v1}`, requests: m.requests, stop: m.stop };
}

/** A folder with an empty HOME, a work folder and the mock; an environment naming nothing of the agent's but opencode's empty model catalogue (harness.cjs). */
async function setUp(name, failure) {
  const agent = AGENTS[name];
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, `${name}-${failure}-`));
  const home = path.join(dir, 'home');
  const work = path.join(dir, 'work');
  const tmp = path.join(dir, 'tmp');
  for (const d of [home, work, tmp]) fs.mkdirSync(d, { recursive: true });
  const mock = await startMock(agent, failure, dir);
  const env = { ...harness.testEnv(home, tmp), ...agent.env };
  if (agent.pathFirst) env.PATH = chat.pathFor(agent.pathFirst, env.PATH);
  return { name, agent, dir, home, cwd: fs.realpathSync(work), env, mock };
}

function cleanUp(ctx) {
  ctx.mock.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

/** Default options: where, what, and the endpoint; nothing else. */
function optionsFor(ctx, protocol, signal) {
  return {
    protocol,
    cd: ctx.cwd,
    command: ctx.agent[protocol](),
    env: ctx.env,
    endpoint: { baseUrl: ctx.mock.baseUrl, apiKey: 'sk-fast-failure-test', model: ctx.agent.model },
    signal,
  };
}

/**
 * One case: a runAgent, or a session opened and prompted once (then
 * closed), aborted `ABORT_MARGIN_MS` after `limitMs`. Resolves `{ result,
 * elapsed, turn }`: the run's or the turn's result, or the error an open
 * threw as one; the time from the call, and for a session from its prompt.
 */
async function runCase(ctx, protocol, entry, limitMs = LIMIT_MS) {
  const controller = new AbortController();
  const started = Date.now();
  const guard = setTimeout(() => controller.abort(), limitMs + ABORT_MARGIN_MS);
  try {
    if (entry === 'run') {
      const result = await pkg.runAgent(ctx.agent.agentType, { prompt: PROMPT }, optionsFor(ctx, protocol, controller.signal));
      const elapsed = Date.now() - started;
      return { result, elapsed, turn: elapsed };
    }
    const { signal, ...options } = optionsFor(ctx, protocol);
    let session;
    try {
      session = await pkg.openAgentSession(ctx.agent.agentType, options);
    } catch (err) {
      const elapsed = Date.now() - started;
      return { result: { success: false, error: { kind: err.kind ?? err.code, message: err.message, lastLines: err.lastLines }, opened: false }, elapsed, turn: elapsed };
    }
    try {
      const onAbort = () => session.cancel().catch(() => {});
      controller.signal.addEventListener('abort', onAbort);
      const prompted = Date.now();
      const result = await session.prompt(PROMPT);
      controller.signal.removeEventListener('abort', onAbort);
      return { result, elapsed: Date.now() - started, turn: Date.now() - prompted };
    } finally {
      await session.close();
    }
  } finally {
    clearTimeout(guard);
  }
}

/**
 * A session's failures: nothing listening (asked before its prompt, not
 * before its run) and one HTTP failure the agent retries (429, the one a
 * conversation fails over on). Its other HTTP failures are the run's: the
 * same agent output read by the same turn, an agent start each for nothing.
 */
const SESSION_FAILURES = ['refused', '429'];

/** The cases of one agent: every protocol it is driven over × entry × failure. */
function cases(name) {
  const agent = AGENTS[name];
  const out = [];
  for (const protocol of ['cli', 'acp']) {
    if (!agent[protocol]) continue;
    for (const entry of ['run', 'session']) {
      for (const failure of Object.keys(FAILURES)) {
        if (entry === 'session' && !SESSION_FAILURES.includes(failure)) continue;
        out.push({ protocol, entry, failure });
      }
    }
  }
  return out;
}

function describeResult(name, c, { result, elapsed, turn }, ctx) {
  const e = result.error ?? {};
  const prompt = c.entry === 'session' ? ` (its turn ${(turn / 1000).toFixed(1)} s)` : '';
  return `${name} ${c.protocol} ${c.entry} ${c.failure}: ${result.success ? 'success' : e.kind} after ${(elapsed / 1000).toFixed(1)} s${prompt}, ${result.attempts ?? '-'} attempt(s), ${ctx.mock.requests().length} request(s): ${(e.message ?? '').slice(0, 300)}`;
}

/** The suite of one agent. */
function fastFailureSuite(name) {
  const skip = installed(name) ? false : `${name} is not installed (bash tests/cli/install_openai_chat_agents.sh)`;
  describe(`${name}: every failure classified in time, default options`, { concurrency: CONCURRENCY, skip }, () => {
    for (const c of cases(name)) {
      const kind = AGENTS[name].kinds?.[c.protocol]?.[c.failure] ?? FAILURES[c.failure].kind;
      const bound = c.failure === 'refused' ? `${REFUSED_LIMIT_MS / 1000} s${c.entry === 'session' ? ' from the prompt' : ''}` : `${LIMIT_MS / 1000} s`;
      test(`${name} over ${c.protocol}, ${c.entry}: ${c.failure === 'refused' ? 'nothing on the port' : `HTTP ${c.failure}`} → ${kind} within ${bound}`, { timeout: LIMIT_MS + ABORT_MARGIN_MS + 60_000 }, (t) =>
        inFreshRun(() => setUp(name, c.failure), cleanUp, async (ctx) => {
          const outcome = await runCase(ctx, c.protocol, c.entry);
          t.diagnostic(describeResult(name, c, outcome, ctx));
          const { result, elapsed, turn } = outcome;
          assert.equal(result.success, false, JSON.stringify(result));
          assert.equal(result.error.kind, kind, JSON.stringify(result.error));
          assert.ok(elapsed < LIMIT_MS, `${elapsed} ms`);
          if (c.failure === 'refused') assert.ok(turn < REFUSED_LIMIT_MS, `${turn} ms${c.entry === 'session' ? ' from the prompt' : ''}`);
          if (c.failure !== 'refused') assert.ok(ctx.mock.requests().length >= 1, 'the mock was asked');
          // Words that are true: no exit code for an agent that answered
          // with an error and still ran, no HTTP status where none came.
          if (c.protocol === 'acp') assert.doesNotMatch(result.error.message, /exit code/, result.error.message);
          if (c.failure === 'refused') assert.doesNotMatch(result.error.message, /HTTP \d{3}/, result.error.message);
        }),
      );
    }
  });
}

module.exports = { fastFailureSuite, AGENTS, FAILURES, setUp, cleanUp, runCase, cases };

if (require.main === module) {
  const [name, protocol, entry, failure] = process.argv.slice(2);
  if (!AGENTS[name] || !AGENTS[name][protocol] || !['run', 'session'].includes(entry) || !FAILURES[failure]) {
    process.stderr.write(`usage: fast_failure_suite.cjs ${Object.keys(AGENTS).join('|')} cli|acp run|session ${Object.keys(FAILURES).join('|')}\n`);
    process.exit(2);
  }
  (async () => {
    const ctx = await setUp(name, failure);
    try {
      const outcome = await runCase(ctx, protocol, entry);
      console.log(describeResult(name, { protocol, entry, failure }, outcome, ctx));
      console.log(JSON.stringify({ error: outcome.result.error, reply: outcome.result.success ? outcome.result.reply : undefined, requests: ctx.mock.requests().map((r) => r.url) }, null, 1));
    } finally {
      if (!process.env.KEEP) cleanUp(ctx);
      else console.log(`kept ${ctx.dir}`);
    }
  })();
}
