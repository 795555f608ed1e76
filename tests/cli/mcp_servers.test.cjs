// `mcpServers` on runAgent, live: each of the six agents over its command
// line and over ACP, offline against its mock API (scenario `mcp`: the model
// calls the tool whose name ends in `record_note`, then answers quoting its
// result), with the tiny MCP server of ./mcp/note_server.cjs given for the
// run — over stdio, then over streamable HTTP (127.0.0.1) where the agent
// takes that transport. Each pair checks:
//   - the server's record file holds the call (the note the mock asked for);
//   - the reply lists the tool use (name ending in `record_note`, its input,
//     status `success`, the server's output);
//   - the agent's configuration under its HOME is untouched: every file the
//     HOME held before the run (the settings the sandbox wrote) is
//     byte-identical after it, and no user-level MCP configuration file of
//     the agent (MCP_CONFIG_FILES) mentions the run's servers afterwards;
//   - nothing with the run's HOME is left running.
// Where a pair cannot take a transport, the test asserts the INVALID_INPUT
// (an `invalid_params` run) naming the agent and the transport. And Qwen
// Code over ACP still offers the tool of an HTTP server that answers its
// `initialize` after 7 s (its own limit for a remote server is 5 s). And a
// server that exits at once, given to Claude Code beside the note server,
// is a note in the reply while the run goes on with the other.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { spawn } = require('node:child_process');
const pkg = require('agent-context');
const harness = require('./harness.cjs');
const chat = require('./openai_chat_agents.cjs');
const { MCP_NOTE } = require('./mocks/common.cjs');
const { inFreshRun } = require('./processes.cjs');
const { ADAPTERS, CODEX_MODEL } = require('../acp/adapters.cjs');

const TEST_TIMEOUT_MS = 480_000;
const CONCURRENCY = Number(process.env.MCP_TEST_CONCURRENCY || 4);
const NOTE_SERVER = path.join(__dirname, 'mcp', 'note_server.cjs');
// Under target/: codex-acp refuses a CODEX_HOME under /tmp.
const BASE = path.join(harness.ROOT, 'target', 'mcp-live');
const ANSWER = 'The note server recorded the launch window.';

/** Each agent's user-level MCP configuration files (relative to HOME): none may name the run's servers after it. */
const MCP_CONFIG_FILES = {
  claude: ['.claude.json', '.claude/settings.json', '.mcp.json'],
  codex: ['.codex/config.toml'],
  gemini: ['.gemini/settings.json'],
  qwen: ['.qwen/settings.json'],
  copilot: ['.copilot/mcp-config.json', '.copilot/config.json'],
  opencode: ['.config/opencode/opencode.json', '.config/opencode/opencode.jsonc', '.config/opencode/config.json'],
};

/** The transports each agent cannot take, by protocol, with the words of the refusal. */
const REFUSED = {
  cli: { codex: { sse: /Codex does not take MCP servers over sse/ } },
  acp: {},
};
/** Pairs that take no MCP server at all, with the words of the refusal (none
 * now: Gemini CLI takes them in the settings of the run's own home). */
const NONE = {
  cli: {},
  acp: {},
};

const CHAT = ['qwen', 'copilot', 'opencode'];
const AGENT_TYPE = { claude: 'claude-code', codex: 'openai-codex', gemini: 'google-gemini', qwen: 'qwen-code', copilot: 'github-copilot', opencode: 'opencode' };

/** A folder with a fresh HOME, a working folder and a mock playing `mcp`. */
async function setUp(cli) {
  fs.mkdirSync(BASE, { recursive: true });
  if (CHAT.includes(cli)) {
    const ctx = await chat.freshRun(cli, 'mcp', BASE);
    if (cli === 'qwen') {
      // Qwen Code stamps its settings with `$version: 4` on any run (with or
      // without MCP servers); written so already, the file stays as it is.
      const file = path.join(ctx.home, '.qwen', 'settings.json');
      fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), $version: 4 }));
    }
    return { ...ctx, stopMock: () => chat.stopMock(ctx.mock), command: { cli: chat.executable(cli), acp: chat.executable(cli) }, model: undefined };
  }
  const dir = fs.mkdtempSync(path.join(BASE, `${cli}-`));
  const mock = await harness.startMock(harness.CLIS[cli].api, 'mcp', dir);
  const box = harness.sandbox(cli, mock, dir, { geminiSettings: { general: { maxAttempts: 1 } } });
  if (cli === 'claude') {
    box.env.CLAUDE_CODE_MAX_RETRIES = '0';
    // `yolo` is Claude Code's bypassPermissions, which it refuses to root
    // unless told it runs in a sandbox (the test machines run as root).
    if (process.getuid?.() === 0) box.env.IS_SANDBOX = '1';
  }
  return {
    cli, dir, mock, env: box.env, home: box.home, cwd: fs.realpathSync(box.cwd),
    stopMock: () => mock.stop(),
    command: { cli: harness.executable(cli), acp: ADAPTERS[cli] },
    model: { cli: harness.MODELS[cli], acp: cli === 'codex' ? CODEX_MODEL : harness.MODELS[cli] },
  };
}

function tearDown(ctx) {
  ctx.stopMock();
  for (const server of ctx.httpServers ?? []) {
    try {
      process.kill(server.pid, 'SIGTERM');
    } catch {}
  }
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

/** Starts the note server over HTTP (`initializeDelayMs`: its `initialize` answered that late); resolves `{ pid, url }`. Stopped by PID in tearDown. */
function startHttpServer(ctx, record, initializeDelayMs = 0) {
  const env = { ...process.env, NOTE_INITIALIZE_DELAY_MS: String(initializeDelayMs) };
  const child = spawn(process.execPath, [NOTE_SERVER, '--http', record], { stdio: ['ignore', 'pipe', 'inherit'], env });
  (ctx.httpServers ??= []).push({ pid: child.pid });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the note server did not start')), 15_000);
    child.once('exit', (code) => reject(new Error(`the note server exited with ${code}`)));
    readline.createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ pid: child.pid, url: `http://127.0.0.1:${JSON.parse(line).port}/mcp` });
    });
  });
}

/** Every file under `root` (relative path → sha256), symlinks not followed. */
function hashTree(root) {
  const out = {};
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile()) out[path.relative(root, full)] = crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex');
    }
  };
  walk(root);
  return out;
}

function readRecord(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

function run(ctx, protocol, mcpServers) {
  return pkg.runAgent(AGENT_TYPE[ctx.cli], { prompt: 'Record the launch window in the team notes.' }, {
    protocol,
    cd: ctx.cwd,
    command: ctx.command[protocol],
    model: ctx.model?.[protocol],
    env: ctx.env,
    yolo: true,
    // opencode prints nothing until a tool call has finished: on a loaded
    // machine (four pairs at once) 60 s of silence was seen once.
    timeout: 120,
    maxDuration: 200,
    maxRetries: 0,
    mcpServers,
  });
}

/** The run called the note server once and its reply shows that tool use. */
function assertNoteRecorded(result, record, transport) {
  assert.equal(result.success, true, JSON.stringify(result.error ?? result.reply, null, 1));
  const calls = readRecord(record);
  assert.equal(calls.length, 1, `the ${transport} server was called once: ${JSON.stringify(calls)} ${JSON.stringify(result.reply)}`);
  assert.equal(calls[0].transport, transport);
  assert.deepEqual(calls[0].arguments, { text: MCP_NOTE });
  const uses = result.reply.toolUses.filter((u) => /record_note/.test(u.name));
  assert.equal(uses.length, 1, `the reply lists the tool use: ${JSON.stringify(result.reply.toolUses)}`);
  const [use] = uses;
  assert.equal(use.status, 'success', JSON.stringify(use));
  assert.match(JSON.stringify(use.input), /Launch window opens at 4217/, JSON.stringify(use));
  assert.match(use.output ?? '', /Noted: Launch window opens at 4217/, JSON.stringify(use));
  assert.equal(result.reply.text.trim().endsWith(ANSWER), true, JSON.stringify(result.reply.text));
  return calls[0];
}

/** The HOME's files from before are unchanged, and no MCP configuration file of the agent names the run's servers. */
function assertHomeUntouched(ctx, before, marks) {
  const after = hashTree(ctx.home);
  for (const [file, hash] of Object.entries(before)) assert.equal(after[file], hash, `${file} under HOME is unchanged`);
  for (const rel of MCP_CONFIG_FILES[ctx.cli]) {
    const file = path.join(ctx.home, rel);
    if (!fs.existsSync(file)) continue;
    const text = fs.readFileSync(file, 'utf8');
    for (const mark of marks) assert.ok(!text.includes(mark), `${rel} does not name the run's server (${mark})`);
  }
}

for (const protocol of ['cli', 'acp']) {
  describe(`mcpServers over ${protocol}`, { concurrency: CONCURRENCY }, () => {
    for (const cli of ['claude', 'codex', 'gemini', 'qwen', 'copilot', 'opencode']) {
      const skip = CHAT.includes(cli) && !chat.available(cli) ? `${cli} is not installed (tests/cli/install_openai_chat_agents.sh)` : false;
      test(`${cli}: a stdio server, then an http one, called; the HOME's configuration untouched`, { timeout: TEST_TIMEOUT_MS, skip }, () =>
        inFreshRun(() => setUp(cli), tearDown, async (ctx) => {
          const before = hashTree(ctx.home);
          const stdioRecord = path.join(ctx.dir, 'notes-stdio.jsonl');
          const stdio = { name: 'notes', command: process.execPath, args: [NOTE_SERVER], env: { MCP_NOTE_RECORD: stdioRecord } };
          if (NONE[protocol][cli]) {
            const refused = await run(ctx, protocol, [stdio]);
            assert.equal(refused.success, false);
            assert.equal(refused.error.kind, 'invalid_params', JSON.stringify(refused.error));
            assert.match(refused.error.message, NONE[protocol][cli]);
            assert.equal(refused.attempts, 0, 'nothing was started');
            assert.deepEqual(readRecord(stdioRecord), []);
            assertHomeUntouched(ctx, before, [NOTE_SERVER, stdioRecord]);
            return;
          }
          const first = await run(ctx, protocol, [stdio]);
          assertNoteRecorded(first, stdioRecord, 'stdio');

          const httpRecord = path.join(ctx.dir, 'notes-http.jsonl');
          const server = await startHttpServer(ctx, httpRecord);
          const http = { name: 'webnotes', type: 'http', url: server.url, headers: { 'X-Note-Token': 'token-7' } };
          const second = await run(ctx, protocol, [http]);
          const call = assertNoteRecorded(second, httpRecord, 'http');
          assert.equal(call.headers['x-note-token'], 'token-7', 'the headers reached the server');

          const refused = REFUSED[protocol][cli]?.sse;
          if (refused) {
            const sse = await run(ctx, protocol, [{ name: 'ssenotes', type: 'sse', url: server.url }]);
            assert.equal(sse.success, false);
            assert.equal(sse.error.kind, 'invalid_params', JSON.stringify(sse.error));
            assert.match(sse.error.message, refused);
            assert.match(sse.error.message, /"ssenotes"/);
          }
          assertHomeUntouched(ctx, before, [NOTE_SERVER, server.url, stdioRecord]);
        }));
    }
  });
}

// Qwen Code gives a remote MCP server 5 s of its own to connect and list
// its tools, then goes on without it; the run gives it as long as a stdio
// server gets (30 s). A server that answers `initialize` after 7 s still
// reaches the model, over ACP (where its servers are discovered before the
// session answers).
describe('a remote MCP server slow to start', () => {
  const skip = chat.available('qwen') ? false : 'qwen is not installed (tests/cli/install_openai_chat_agents.sh)';
  test('qwen over acp: its initialize answered after 7 s, its tool still reaches the model', { timeout: TEST_TIMEOUT_MS, skip }, () =>
    inFreshRun(() => setUp('qwen'), tearDown, async (ctx) => {
      const record = path.join(ctx.dir, 'notes-slow.jsonl');
      const server = await startHttpServer(ctx, record, 7_000);
      const result = await run(ctx, 'acp', [{ name: 'slownotes', type: 'http', url: server.url }]);
      assertNoteRecorded(result, record, 'http');
    }));
});

// Claude Code lists each server in its init line with its status; one that
// did not connect is a note of the reply (the run goes on without it).
describe('an MCP server that does not start', () => {
  test('claude over cli: a stdio server that exits at once is a note; the other server is called', { timeout: TEST_TIMEOUT_MS }, () =>
    inFreshRun(() => setUp('claude'), tearDown, async (ctx) => {
      const record = path.join(ctx.dir, 'notes-stdio.jsonl');
      const result = await run(ctx, 'cli', [
        { name: 'notes', command: process.execPath, args: [NOTE_SERVER], env: { MCP_NOTE_RECORD: record } },
        { name: 'broken', command: process.execPath, args: ['-e', 'process.exit(3)'] },
      ]);
      assertNoteRecorded(result, record, 'stdio');
      const notes = result.reply.errors.filter((e) => e.code === 'mcp_server');
      assert.deepEqual(
        notes.map((e) => [e.fatal, e.message]),
        [[false, 'MCP server "broken" is not connected (failed): the agent runs without its tools']],
        JSON.stringify(result.reply.errors),
      );
    }));
});
