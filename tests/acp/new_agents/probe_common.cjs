// Shared by the probe_<agent>.cjs scripts: runs one candidate agent over ACP
// (JSON-RPC 2.0, one object a line on stdio) offline against one of the
// repository's mock model APIs on 127.0.0.1, and prints what it saw.
//
// Installs nothing: each probe takes the agent's install folder from an
// environment variable (see its header). Per run: a folder under the OS temp
// dir with its own HOME (and XDG folders), a working folder holding
// notes.txt, a mock process (tests/cli/mock_server.cjs or
// tests/cli/openai_chat_server.cjs), a dead proxy for everything but
// loopback, the agent spawned in its own process group. At the end the
// agent's group is killed, then any process left whose environment names the
// run's HOME (a daemon the agent detached), then the mock — each by PID.
//
// What a probe does, per scenario: initialize → session/new →
// session/prompt (answering the agent's requests as tests/acp/record_acp.cjs
// does), then closes stdin and waits up to EOF_WAIT_MS to see whether the
// agent exits; then, when the agent advertised loadSession (or
// sessionCapabilities.resume), a second process loads (resumes) the session
// and sends a second prompt. RECORD=1 writes the first process's stdout,
// verbatim, to tests/fixtures/acp/<fixtureDir>/<version>/<scenario>.jsonl.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { processesWithHome } = require('../../cli/processes.cjs');

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI_TESTS = path.join(ROOT, 'tests', 'cli');
const NOTES_TEXT = 'The launch code is 4217.\n';
const MOCK_START_MS = 15_000;
const STEP_LIMIT_MS = Number(process.env.PROBE_STEP_MS || 90_000);
const EOF_WAIT_MS = 3_000;

const PROMPTS = {
  plain: 'What UI framework should we use, and why?',
  tool: 'Read notes.txt and tell me the launch code.',
  shell: 'Run cat notes.txt and tell me the launch code.',
  error: 'What UI framework should we use, and why?',
  again: 'And in one word?',
};

/**
 * Starts a mock. `mock` is `{ api: 'chat', scenario }` (the OpenAI Chat
 * Completions mock) or `{ api: 'anthropic' | 'openai' | 'gemini', scenario }`.
 */
function startMock(mock, dir, notesPath) {
  const log = path.join(dir, 'requests.jsonl');
  fs.writeFileSync(log, '');
  const args =
    mock.api === 'chat'
      ? [path.join(CLI_TESTS, 'openai_chat_server.cjs'), mock.scenario, log, notesPath]
      : [path.join(CLI_TESTS, 'mock_server.cjs'), mock.api, mock.scenario, log];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      kill(child.pid);
      reject(new Error('mock did not start'));
    }, MOCK_START_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mock exited with ${code}`));
    });
    readline.createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      const { port } = JSON.parse(line);
      resolve({ pid: child.pid, port, origin: `http://127.0.0.1:${port}`, log });
    });
  });
}

function kill(pid, signal = 'SIGTERM') {
  try {
    process.kill(pid, signal);
  } catch (err) {
    if (err.code !== 'ESRCH') throw err;
  }
}

function readRequests(log) {
  const text = fs.readFileSync(log, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** A run folder: HOME, work (with notes.txt), tmp; the base environment. */
function sandbox(label) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `acp-probe-${label}-`));
  const home = path.join(dir, 'home');
  const cwd = path.join(dir, 'work');
  const tmp = path.join(dir, 'tmp');
  for (const d of [home, cwd, tmp]) fs.mkdirSync(d, { recursive: true });
  const notesPath = path.join(cwd, 'notes.txt');
  fs.writeFileSync(notesPath, NOTES_TEXT);
  const dead = 'http://127.0.0.1:9';
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    USER: 'mock',
    TMPDIR: tmp,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    CI: '1',
    HTTP_PROXY: dead,
    HTTPS_PROXY: dead,
    ALL_PROXY: dead,
    http_proxy: dead,
    https_proxy: dead,
    all_proxy: dead,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
  };
  return { dir, home, cwd: fs.realpathSync(cwd), notesPath, env };
}

/** The client's answer to an agent's request (as record_acp.cjs answers). */
function answer(method, params, cwd) {
  const inside = (p) => typeof p === 'string' && path.isAbsolute(p) && !path.relative(cwd, path.resolve(p)).startsWith('..');
  if (method === 'session/request_permission') {
    const options = params.options || [];
    const allow = options.find((o) => o.kind === 'allow_once') || options.find((o) => String(o.kind).startsWith('allow'));
    return allow
      ? { result: { outcome: { outcome: 'selected', optionId: allow.optionId } } }
      : { result: { outcome: { outcome: 'cancelled' } } };
  }
  if (method === 'fs/read_text_file') {
    if (!inside(params.path) || !fs.existsSync(params.path)) {
      return { error: { code: -32002, message: 'Resource not found', data: { uri: params.path } } };
    }
    let content = fs.readFileSync(params.path, 'utf8');
    if (params.line || params.limit) {
      const all = content.split('\n');
      const from = Math.max(0, (params.line || 1) - 1);
      content = all.slice(from, params.limit ? from + params.limit : undefined).join('\n');
    }
    return { result: { content } };
  }
  if (method === 'fs/write_text_file') {
    if (!inside(params.path)) return { error: { code: -32002, message: 'Resource not found', data: { uri: params.path } } };
    fs.writeFileSync(params.path, params.content);
    return { result: null };
  }
  return { error: { code: -32601, message: `Method not found: ${method}` } };
}

/**
 * Spawns the agent in its own process group and speaks JSON-RPC to it.
 * Returns `{ request(method, params), close(), exited(ms), kill(), stdout(),
 * seen }` where `seen` collects the agent's notifications and requests.
 */
function connect(command, args, { cwd, env, label }) {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const out = [];
  let stderr = '';
  let partial = '';
  let nextId = 0;
  let exit = null;
  const pending = new Map();
  const seen = { updates: [], requests: [], notifications: [], nonJson: [] };
  const send = (message) => {
    if (!child.stdin.destroyed) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  };
  child.stdin.on('error', () => {});
  child.stderr.on('data', (c) => {
    stderr += c.toString('utf8');
    if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
  });
  const exitWaiters = [];
  child.on('exit', (code, signal) => {
    exit = { code, signal, at: Date.now() };
    for (const w of exitWaiters) w();
    for (const [, p] of pending) p.resolve({ error: { code: 'exited', message: `agent exited (${code ?? signal})` } });
    pending.clear();
  });
  child.on('error', (err) => {
    stderr += `spawn error: ${err.message}\n`;
  });
  child.stdout.on('data', (chunk) => {
    out.push(chunk);
    partial += chunk.toString('utf8');
    let end;
    while ((end = partial.indexOf('\n')) >= 0) {
      const line = partial.slice(0, end);
      partial = partial.slice(end + 1);
      if (!line.trim()) continue;
      let m;
      try {
        m = JSON.parse(line);
      } catch {
        seen.nonJson.push(line.slice(0, 300));
        continue;
      }
      if (m.method && m.id !== undefined) {
        seen.requests.push({ method: m.method, params: m.params });
        send({ id: m.id, ...answer(m.method, m.params || {}, cwd) });
      } else if (m.method) {
        if (m.method === 'session/update') seen.updates.push(m.params?.update ?? {});
        else seen.notifications.push({ method: m.method, params: m.params });
      } else if (m.id !== undefined && pending.has(m.id)) {
        const p = pending.get(m.id);
        pending.delete(m.id);
        clearTimeout(p.timer);
        p.resolve(m);
      }
    }
  });
  return {
    pid: child.pid,
    request(method, params, limitMs = STEP_LIMIT_MS) {
      if (exit) return Promise.resolve({ error: { code: 'exited', message: 'agent exited before the request' } });
      nextId += 1;
      const id = nextId;
      const started = Date.now();
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          resolve({ error: { code: 'timeout', message: `${label}: no answer to ${method} within ${limitMs} ms` } });
        }, limitMs);
        pending.set(id, { resolve: (m) => resolve({ ...m, ms: Date.now() - started }), timer });
        send({ id, method, params });
      });
    },
    notify(method, params) {
      send({ method, params });
    },
    /** Closes stdin; resolves the ms until the agent exited, or null if it did not within `waitMs`. */
    closeStdin(waitMs = EOF_WAIT_MS) {
      const started = Date.now();
      child.stdin.end();
      if (exit) return Promise.resolve(0);
      return new Promise((resolve) => {
        const t = setTimeout(() => resolve(null), waitMs);
        exitWaiters.push(() => {
          clearTimeout(t);
          resolve(Date.now() - started);
        });
      });
    },
    kill() {
      kill(-child.pid, 'SIGKILL');
    },
    stdout: () => Buffer.concat(out),
    stderr: () => stderr,
    exit: () => exit,
    seen,
  };
}

/** Counts of `session/update` kinds (`sessionUpdate`). */
function kinds(updates) {
  const counts = {};
  for (const u of updates) counts[u.sessionUpdate] = (counts[u.sessionUpdate] || 0) + 1;
  return counts;
}

/** The agent's text from `agent_message_chunk` updates. */
function agentText(updates) {
  return updates
    .filter((u) => u.sessionUpdate === 'agent_message_chunk' && u.content?.type === 'text')
    .map((u) => u.content.text)
    .join('');
}

/** What a model request looked like, in one line. */
function describeRequest(r) {
  const b = r.body || {};
  const tools = (b.tools || []).map((t) => t.function?.name ?? t.name ?? t.functionDeclarations?.map((f) => f.name).join('+') ?? t.type);
  return {
    method: r.method,
    url: r.url,
    model: b.model,
    stream: b.stream,
    tools: tools.length,
    toolNames: tools.slice(0, 40),
    messages: (b.messages || b.input || b.contents || []).length,
    userAgent: r.headers?.['user-agent'],
  };
}

/** Kills what is left of a run: the agent's group, then any process naming the run's HOME, by PID. */
async function killLeftovers(conn, home) {
  if (conn) conn.kill();
  const left = [];
  for (let i = 0; i < 20; i += 1) {
    const pids = processesWithHome(home).filter((p) => p !== process.pid);
    if (!pids.length) break;
    for (const pid of pids) {
      if (!left.includes(pid)) left.push(pid);
      kill(pid, 'SIGKILL');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return left;
}

/**
 * Runs one scenario. `agent`:
 *   { name, fixtureDir, version, mock: { api, scenario? },
 *     setup(run) -> { command, args, env },   // run: { home, cwd, notesPath, env, mock }
 *     newSessionParams?(run), promptText?(scenario), secondPrompt?: boolean }
 */
async function probe(agent, scenario, { record = false } = {}) {
  const run = sandbox(`${agent.name}-${scenario}`);
  const mockScenario = agent.mockScenario?.[scenario] ?? scenario;
  let mock;
  let conn;
  const report = { agent: agent.name, version: agent.version, scenario, mockScenario };
  const leftovers = [];
  try {
    mock = await startMock({ api: agent.mock.api, scenario: mockScenario }, run.dir, run.notesPath);
    run.mock = mock;
    const { command, args, env } = agent.setup(run);
    // PROBE_ENV='{"NAME":"value"}' adds variables to the agent's environment (experiments).
    const spawnEnv = { ...run.env, ...env, ...JSON.parse(process.env.PROBE_ENV || '{}') };
    conn = connect(command, args, { cwd: run.cwd, env: spawnEnv, label: agent.name });
    const started = Date.now();
    const init = await conn.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      clientInfo: { name: 'agent-context-probe', version: '0.0.0' },
    });
    report.initialize = init.error ? { error: init.error } : { ms: init.ms, ...init.result };
    if (init.error) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
    const newParams = { cwd: run.cwd, mcpServers: [], ...(agent.newSessionParams?.(run) ?? {}) };
    const session = await conn.request('session/new', newParams);
    if (session.error) {
      report.sessionNew = { error: session.error };
      throw new Error(`session/new failed: ${JSON.stringify(session.error)}`);
    }
    const sessionId = session.result.sessionId;
    report.sessionNew = { ms: session.ms, ...session.result };
    const before = conn.seen.updates.length;
    const prompt = await conn.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: PROMPTS[scenario] }] });
    report.prompt = prompt.error ? { error: prompt.error, ms: prompt.ms } : { ms: prompt.ms, ...prompt.result };
    await new Promise((r) => setTimeout(r, 300)); // late notifications belong to the transcript
    const turn = conn.seen.updates.slice(before);
    report.promptText = agentText(turn);
    report.updateKinds = kinds(conn.seen.updates);
    report.toolCalls = turn.filter((u) => u.sessionUpdate === 'tool_call').map((u) => ({ title: u.title, kind: u.kind, status: u.status }));
    report.otherUpdates = conn.seen.updates
      .filter((u) => !['agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update'].includes(u.sessionUpdate))
      .map((u) => JSON.stringify(u).slice(0, 400));
    if (agent.secondPrompt && !prompt.error) {
      const b2 = conn.seen.updates.length;
      const again = await conn.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: PROMPTS.again }] });
      report.secondPrompt = again.error ? { error: again.error } : { ms: again.ms, stopReason: again.result.stopReason, text: agentText(conn.seen.updates.slice(b2)) };
    }
    report.agentRequests = conn.seen.requests.map((r) => r.method);
    report.otherNotifications = conn.seen.notifications.map((n) => n.method);
    report.nonJsonStdout = conn.seen.nonJson.slice(0, 5);
    const eofMs = await conn.closeStdin();
    report.exitsOnStdinEof = eofMs === null ? `no (still running ${EOF_WAIT_MS} ms after EOF)` : `yes, after ${eofMs} ms`;
    report.totalMs = Date.now() - started;
    if (record) {
      const file = path.join(ROOT, 'tests', 'fixtures', 'acp', agent.fixtureDir, agent.version, `${scenario}.jsonl`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, conn.stdout());
      report.recorded = path.relative(ROOT, file);
    }
    leftovers.push(...(await killLeftovers(conn, run.home)));
    conn = null;

    // A second process: load or resume the session, then prompt again.
    const caps = report.initialize.agentCapabilities || {};
    const how = caps.loadSession ? 'session/load' : caps.sessionCapabilities?.resume ? 'session/resume' : null;
    if (how && !prompt.error && agent.tryLoad !== false) {
      conn = connect(command, args, { cwd: run.cwd, env: spawnEnv, label: `${agent.name} (2)` });
      const init2 = await conn.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
        clientInfo: { name: 'agent-context-probe', version: '0.0.0' },
      });
      if (!init2.error) {
        if (caps.sessionCapabilities?.list) {
          const list = await conn.request('session/list', { cwd: run.cwd });
          report.sessionList = list.error ? { error: list.error } : (list.result.sessions || []).map((s) => ({ sessionId: s.sessionId, title: s.title }));
        }
        const loaded = await conn.request(how, { sessionId, cwd: run.cwd, mcpServers: [] });
        const replayed = conn.seen.updates.length;
        const b3 = conn.seen.updates.length;
        const again = loaded.error ? null : await conn.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: PROMPTS.again }] });
        const requests = readRequests(mock.log);
        const last = requests[requests.length - 1];
        report.reopen = {
          method: how,
          result: loaded.error ? { error: loaded.error } : { ms: loaded.ms, ...loaded.result },
          replayedUpdates: replayed,
          replayedKinds: kinds(conn.seen.updates.slice(0, replayed)),
          prompt: again && (again.error ? { error: again.error } : { stopReason: again.result.stopReason, text: agentText(conn.seen.updates.slice(b3)) }),
          lastModelRequestMessages: last ? describeRequest(last).messages : null,
        };
      } else report.reopen = { method: how, error: init2.error };
    }
    report.modelRequests = readRequests(mock.log).map(describeRequest);
  } catch (err) {
    report.failure = err.message;
    if (mock) report.modelRequests = readRequests(mock.log).map(describeRequest);
  } finally {
    if (conn) {
      report.stderrTail = conn.stderr().slice(-1500);
      report.stdoutTail = conn.stdout().toString('utf8').slice(-1500);
    }
    leftovers.push(...(await killLeftovers(conn, run.home)));
    if (leftovers.length) report.killedLeftoverPids = leftovers;
    if (mock) kill(mock.pid);
    if (!process.env.PROBE_KEEP) fs.rmSync(run.dir, { recursive: true, force: true });
    else report.kept = run.dir;
  }
  return report;
}

/** Runs the scenarios named in PROBE_SCENARIOS (or `defaults`), printing each report as JSON. */
async function main(agent, defaults) {
  const scenarios = (process.env.PROBE_SCENARIOS || defaults.join(',')).split(',');
  const record = process.env.RECORD === '1';
  for (const scenario of scenarios) {
    const report = await probe(agent, scenario, { record });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  }
}

/** The version in an installed package's package.json. */
function packageVersion(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
}

/** The install folder named by `envVar`, or an exit with a usage line. */
function installDir(envVar, hint) {
  const dir = process.env[envVar];
  if (!dir || !fs.existsSync(dir)) {
    process.stderr.write(`set ${envVar} to the scratch install folder (${hint})\n`);
    process.exit(2);
  }
  return path.resolve(dir);
}

module.exports = { probe, main, packageVersion, installDir, PROMPTS, ROOT };
