#!/usr/bin/env node
// Records ACP transcripts: the stdout of a real agent driven over the Agent
// Client Protocol (JSON-RPC 2.0, one object a line) against the offline
// mocks, saved verbatim as tests/fixtures/acp/<agent>/<version>/<scenario>.jsonl
// (the fixtures of the `protocol: 'acp'` parser).
//
//   node tests/acp/record_acp.cjs [gemini|claude|codex|qwen|copilot|opencode|pi|kimi …]
//
// Claude and Codex speak ACP through the adapters pinned in
// tests/agents/package.json, picked as the live tests pick them
// (tests/acp/adapters.cjs: the maintained @agentclientprotocol ones unless
// ACP_ADAPTER_SCOPE=@zed-industries). The other CLIs are the ones the live
// tests use (tests/cli/harness.cjs, tests/cli/openai_chat_agents.cjs); pi
// through its adapter `pi-acp` installed beside it (its fixtures named by
// the adapter's version, as Claude's and Codex's are).
//
// Scenarios: plain, tool (read notes.txt), error (HTTP 400; the OpenAI mock
// answers 500), error500 (Claude and Codex: an HTTP 500, the agent's retries
// off), and shell for
// Qwen, Copilot and opencode (a shell command, which Copilot asks permission
// for). ACP_SCENARIOS=plain,tool picks some.
//
// Each run: its mock on 127.0.0.1, its own HOME (the CLI tests' sandboxes),
// and this script started a second time as the driver (`--drive <command>
// <args…>`) inside that sandbox. The driver spawns the agent, sends
// initialize → session/new → session/prompt, answers the agent's requests
// (permission: the first "allow" option; fs inside the working folder,
// `resourceNotFound` outside it or for a missing file; anything else
// "method not found"), copies the agent's stdout to its own stdout byte for
// byte, and when the prompt's response (or error) arrives kills the agent's
// process group. Everything is bounded by RUN_LIMIT_MS.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const FIXTURES = path.join(ROOT, 'tests', 'fixtures', 'acp');
const { ADAPTERS: ADAPTER_BINS, ADAPTER_SCOPE, CODEX_MODEL } = require('./adapters.cjs');
const AGENT_MODULES = path.join(ROOT, 'tests', 'agents', 'node_modules');
// Codex wants its CODEX_HOME outside /tmp: every run lives under target/.
const RUNS = path.join(ROOT, 'target', 'acp-record');
const RUN_LIMIT_MS = 150_000;

const PROMPTS = {
  plain: 'What UI framework should we use, and why?',
  tool: 'Read notes.txt and tell me the launch code.',
  error: 'What UI framework should we use, and why?',
  error500: 'What UI framework should we use, and why?',
  // Qwen, Copilot, opencode: a shell command, which asks for permission.
  shell: 'Run cat notes.txt and tell me the launch code.',
};

function version(manifestDir) {
  return JSON.parse(fs.readFileSync(path.join(manifestDir, 'package.json'), 'utf8')).version;
}

/** Each agent: how it is started over ACP, its version, and its mocks. */
const AGENTS = {
  gemini: {
    family: 'harness',
    cli: 'gemini',
    command: () => [path.join(ROOT, 'tests', 'agents', 'node_modules', '.bin', 'gemini'), '--acp', '-m', 'gemini-2.5-flash'],
    version: () => version(path.join(ROOT, 'tests', 'agents', 'node_modules', '@google', 'gemini-cli')),
  },
  claude: {
    family: 'harness',
    cli: 'claude',
    command: () => [ADAPTER_BINS.claude],
    version: () => version(path.join(AGENT_MODULES, ADAPTER_SCOPE, 'claude-agent-acp')),
    env: { CLAUDE_CODE_MAX_RETRIES: '0' },
  },
  codex: {
    family: 'harness',
    cli: 'codex',
    command: () => [ADAPTER_BINS.codex],
    version: () => version(path.join(AGENT_MODULES, ADAPTER_SCOPE, 'codex-acp')),
  },
  qwen: { family: 'chat', cli: 'qwen', args: ['--acp'] },
  copilot: { family: 'chat', cli: 'copilot', args: ['--acp'] },
  opencode: { family: 'chat', cli: 'opencode', args: ['acp'] },
  pi: {
    family: 'chat',
    cli: 'pi',
    args: [],
    adapter: true,
    version: () => version(path.join(require('../cli/openai_chat_agents.cjs').binDir('pi'), '..', 'pi-acp')),
  },
  // Kimi CLI 1.x's probe fixtures are in kimi/: Kimi Code's have their own folder.
  kimi: { family: 'chat', cli: 'kimi', args: ['acp'], dir: 'kimi-code' },
};

/** The mock scenario each of our scenarios plays, per mock family. */
const MOCK_SCENARIO = {
  harness: { plain: 'plain', tool: 'tool', error: 'error', error500: 'error500' },
  chat: { plain: 'plain', tool: 'tool', error: 'error400', shell: 'shell' },
};

function driverInvocation(agentCommand, scenario) {
  return {
    command: process.execPath,
    args: [__filename, '--drive', scenario, ...agentCommand],
    stdin: '',
    files: [],
  };
}

/** Runs one scenario of a Gemini/Claude/Codex agent; resolves its result. */
async function runHarness(agent, scenario) {
  const harness = require('../cli/harness.cjs');
  fs.mkdirSync(RUNS, { recursive: true });
  const dir = fs.mkdtempSync(path.join(RUNS, `${agent.cli}-${scenario}-`));
  const mock = await harness.startMock(harness.CLIS[agent.cli].api, MOCK_SCENARIO.harness[scenario], dir);
  try {
    const { env, cwd, home } = harness.sandbox(agent.cli, mock, dir);
    if (agent.cli === 'codex') {
      // A model slug Codex knows, and the mock's answers come back whatever the slug.
      const config = path.join(home, '.codex', 'config.toml');
      let toml = `model = "${CODEX_MODEL}"\n${fs.readFileSync(config, 'utf8')}`;
      // As the live tests: Codex's stream retries off (error: one retry left on).
      if (scenario === 'error500') toml = toml.replace('stream_max_retries = 1', 'stream_max_retries = 0');
      fs.writeFileSync(config, toml);
    }
    return await harness.run(driverInvocation(agent.command(), scenario), {
      cwd,
      env: { ...env, ...agent.env },
      timeoutMs: RUN_LIMIT_MS + 10_000,
    });
  } finally {
    mock.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs one scenario of a Qwen/Copilot/opencode agent; resolves its result. */
async function runChat(agent, scenario) {
  const chat = require('../cli/openai_chat_agents.cjs');
  const run = await chat.runAgentCli(
    agent.cli,
    MOCK_SCENARIO.chat[scenario],
    (ctx) => driverInvocation([agent.adapter ? chat.acpExecutable(agent.cli) : ctx.executable, ...agent.args], scenario),
    { limitMs: RUN_LIMIT_MS + 10_000 },
  );
  chat.cleanUp(run);
  return run.result;
}

async function record(name, scenarios) {
  const agent = AGENTS[name];
  const agentVersion =
    agent.family === 'chat' && !agent.version ? require('../cli/openai_chat_agents.cjs').AGENTS[agent.cli].version : agent.version();
  const dir = path.join(FIXTURES, agent.dir ?? name, agentVersion);
  fs.mkdirSync(dir, { recursive: true });
  for (const scenario of scenarios) {
    if (!MOCK_SCENARIO[agent.family][scenario]) continue;
    const started = Date.now();
    const result = agent.family === 'chat' ? await runChat(agent, scenario) : await runHarness(agent, scenario);
    const file = path.join(dir, `${scenario}.jsonl`);
    fs.writeFileSync(file, result.stdout);
    const lines = result.stdout.toString('utf8').split('\n').filter(Boolean).length;
    process.stdout.write(
      `${path.relative(ROOT, file)}: ${lines} lines, ${result.stdout.length} bytes, ${Date.now() - started} ms, driver exit ${result.code}${result.timedOut ? ', TIMED OUT' : ''}\n`,
    );
    if (result.code !== 0) process.stdout.write(`  driver stderr: ${result.stderr.slice(-2000)}\n`);
  }
}

// ---- the driver: runs inside the sandbox, speaks ACP to the agent ----

/** The agent's request answered: `{ result }` or `{ error }`. */
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

function drive(scenario, command, args) {
  const cwd = process.cwd();
  const agent = spawn(command, args, { cwd, env: process.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const send = (message) => agent.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const pending = new Map();
  let nextId = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      nextId += 1;
      pending.set(nextId, resolve);
      send({ id: nextId, method, params });
    });
  let finished = false;
  const finish = (code) => {
    if (finished) return;
    finished = true;
    try {
      process.kill(-agent.pid, 'SIGKILL');
    } catch {}
    process.stdout.write('', () => process.exit(code));
  };
  const limit = setTimeout(() => {
    process.stderr.write('driver: run limit reached\n');
    finish(3);
  }, RUN_LIMIT_MS);
  agent.stderr.on('data', (c) => process.stderr.write(c));
  agent.stdin.on('error', () => {});
  agent.on('error', (err) => {
    process.stderr.write(`driver: ${err.message}\n`);
    finish(4);
  });
  agent.on('exit', (code, signal) => {
    if (!finished) process.stderr.write(`driver: agent exited early (${code ?? signal})\n`);
    setTimeout(() => finish(5), 200);
  });
  let partial = '';
  agent.stdout.on('data', (chunk) => {
    process.stdout.write(chunk); // verbatim
    partial += chunk.toString('utf8');
    let end;
    while ((end = partial.indexOf('\n')) >= 0) {
      const line = partial.slice(0, end);
      partial = partial.slice(end + 1);
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      if (message.method && message.id !== undefined) {
        send({ id: message.id, ...answer(message.method, message.params || {}, cwd) });
      } else if (message.id !== undefined && pending.has(message.id)) {
        const resolve = pending.get(message.id);
        pending.delete(message.id);
        resolve(message);
      }
    }
  });
  (async () => {
    const init = await request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      clientInfo: { name: 'agent-context-recorder', version: '0.0.0' },
    });
    if (init.error) return finish(6);
    const session = await request('session/new', { cwd, mcpServers: [] });
    if (session.error) return finish(7);
    const prompt = await request('session/prompt', {
      sessionId: session.result.sessionId,
      prompt: [{ type: 'text', text: PROMPTS[scenario] }],
    });
    clearTimeout(limit);
    // Late notifications after the response are part of the transcript.
    setTimeout(() => finish(0), 300);
  })();
}

if (process.argv[2] === '--drive') {
  const [scenario, command, ...args] = process.argv.slice(3);
  drive(scenario, command, args);
} else {
  const names = process.argv.slice(2);
  const chosen = names.length ? names : Object.keys(AGENTS);
  for (const n of chosen) if (!AGENTS[n]) throw new Error(`record_acp: unknown agent "${n}" (${Object.keys(AGENTS).join(', ')})`);
  const scenarios = (process.env.ACP_SCENARIOS || 'plain,tool,error,error500,shell').split(',');
  (async () => {
    for (const n of chosen) {
      try {
        await record(n, scenarios);
      } catch (err) {
        process.stdout.write(`${n}: ${err.stack}\n`);
      }
    }
  })();
}
