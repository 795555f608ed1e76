// A team of Claude Code, Codex and Gemini CLI, each member on a model
// endpoint of its own given through the API (no environment written by
// hand: the test's names nothing of the agents'), stored with `toJSON` in
// one Node process and brought back with `fromJSON` in a new one, as an app
// restart does — over ACP and over the agents' own CLIs, offline against
// the mock APIs on 127.0.0.1. The mocks record every model request; after
// the restart each member's next request holds its instructions, once:
// Claude Code's in its system prompt (the team gives them again on every
// reopened session: Claude Code 2.1.318 keeps them in a resumed session,
// 2.1.83 — in Zed's adapter, ACP_ADAPTER_SCOPE=@zed-industries — does not),
// Codex's and Gemini CLI's in the first prompt the resumed session holds,
// or in a new session's full prompt where the agent cannot resume (Gemini
// CLI over ACP).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const harness = require('../cli/harness.cjs');
const { inFreshRun } = require('../cli/processes.cjs');
const { ADAPTERS, CODEX_MODEL } = require('./adapters.cjs');

const TEST_TIMEOUT_MS = 420_000;
const PROCESS_TIMEOUT_MS = 180_000;
const BASE = path.join(harness.ROOT, 'target', 'acp-team-restore'); // Codex refuses a CODEX_HOME under /tmp
const INSTRUCTIONS = {
  carol: 'You are Carol, the parser author (role-5150).',
  max: 'You are Max, the reviewer (role-6261).',
  lin: 'You are Lin, the release manager (role-7372).',
};
const MEMBERS = [
  { id: 'carol', cli: 'claude', agentType: 'claude-code', model: 'claude-mock-1', key: ['x-api-key', 'key-carol'] },
  { id: 'max', cli: 'codex', agentType: 'openai-codex', model: CODEX_MODEL, key: ['authorization', 'Bearer key-max'] },
  { id: 'lin', cli: 'gemini', agentType: 'google-gemini', model: 'gemini-2.5-flash', key: ['x-goog-api-key', 'key-lin'] },
];

// The calls of each agent's turns, as the mocks log their kind: not the
// side calls beside them (a session title, a suggestion of the next prompt).
const modelCalls = (ctx, cli) => ctx.mocks[cli].turns();

async function setUp() {
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, 'team-'));
  const home = path.join(dir, 'home');
  const work = path.join(dir, 'work');
  const tmp = path.join(dir, 'tmp');
  for (const d of [home, work, tmp]) fs.mkdirSync(d, { recursive: true });
  const mocks = {};
  for (const cli of ['claude', 'codex', 'gemini']) mocks[cli] = await harness.startMock(harness.CLIS[cli].api, 'plain', dir);
  const dead = 'http://127.0.0.1:9';
  const env = {
    PATH: process.env.PATH, HOME: home, TMPDIR: tmp, LANG: 'C.UTF-8', TERM: 'dumb',
    HTTP_PROXY: dead, HTTPS_PROXY: dead, http_proxy: dead, https_proxy: dead,
    NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost',
  };
  return { dir, home, cwd: fs.realpathSync(work), env, mocks };
}

function cleanUp(ctx) {
  for (const mock of Object.values(ctx.mocks)) mock.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

/** Each member's own session options: its endpoint and its executable. */
function ownOptions(ctx, protocol) {
  return MEMBERS.map((m) => {
    const origin = ctx.mocks[m.cli].baseUrl;
    return {
      id: m.id,
      command: protocol === 'acp' ? ADAPTERS[m.cli] : harness.executable(m.cli),
      endpoint: { baseUrl: m.cli === 'codex' ? `${origin}/v1` : origin, apiKey: m.key[1].replace('Bearer ', ''), model: m.model },
    };
  });
}

/** `job` run by ./team_process.cjs in a new Node process; resolves what it printed. */
function inNewProcess(ctx, job) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'team_process.cjs'), JSON.stringify(job)], {
      cwd: ctx.cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), PROCESS_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let result;
      try {
        result = JSON.parse(out.trim().split('\n').at(-1));
      } catch {
        return reject(new Error(`the team's process printed no result (exit ${code}): ${out}${err}`));
      }
      if (result.thrown) return reject(new Error(result.thrown));
      for (const turn of result.turns) assert.equal(turn.success, true, `${turn.member}: ${JSON.stringify(turn.error)}\n${err}`);
      resolve(result);
    });
  });
}

/** The text of the user's turns in a model request, oldest first, per API. */
function userTurns(cli, body) {
  const text = (blocks) => (typeof blocks === 'string' ? blocks : (blocks ?? []).map((b) => b.text ?? '').join('\n'));
  if (cli === 'claude') return body.messages.filter((m) => m.role === 'user').map((m) => text(m.content));
  if (cli === 'codex') return body.input.filter((i) => i.role === 'user').map((i) => text(i.content));
  return body.contents.filter((c) => c.role === 'user').map((c) => text(c.parts));
}

/** How many times `text` is in the request's body. */
const count = (body, text) => JSON.stringify(body).split(text).length - 1;

/** The one main request of `cli` whose last user turn holds `needle`. */
function requestFor(ctx, cli, needle) {
  const found = modelCalls(ctx, cli).filter((r) => userTurns(cli, r.body).at(-1).includes(needle));
  assert.equal(found.length, 1, `one ${cli} request whose last user turn holds ${JSON.stringify(needle)}, found ${found.length}`);
  return found[0];
}

for (const protocol of ['acp', 'cli']) {
  test(`over ${protocol === 'acp' ? 'ACP' : 'the agents\' CLIs'}: stored in one process, brought back in another, each member's next request holds its instructions`, { timeout: TEST_TIMEOUT_MS }, () =>
    inFreshRun(setUp, cleanUp, async (ctx) => {
      const run = { env: ctx.env, protocol, timeout: 60, maxDuration: 120, maxRetries: 0 };
      const own = ownOptions(ctx, protocol);
      const members = MEMBERS.map((m, i) => ({ id: m.id, agentType: m.agentType, systemInstruction: INSTRUCTIONS[m.id], ...own[i] }));
      const first = await inNewProcess(ctx, {
        create: { teamTask: 'Ship the parser', cd: ctx.cwd, members, ...run },
        posts: MEMBERS.map((m) => ({ from: 'kailai', to: m.id, content: `First task, ${m.id}-8131` })),
        asks: MEMBERS.map((m) => ({ member: m.id })),
      });
      assert.deepEqual(first.turns.map((t) => t.kind), ['full', 'full', 'full']);
      const stored = JSON.stringify(first.json);
      assert.equal(first.json.version, 2);
      assert.deepEqual(first.json.members.map((m) => m.sessionOptions), MEMBERS.map(() => ['endpoint', 'command']));
      for (const m of MEMBERS) assert.ok(!stored.includes(m.key[1].replace('Bearer ', '')), `${m.id}'s key is not stored`);

      // The app restarts: the session options again, each member's own too.
      const second = await inNewProcess(ctx, {
        restore: { json: stored, options: { ...run, members: own } },
        posts: MEMBERS.map((m) => ({ from: 'kailai', to: m.id, content: `Next task, ${m.id}-9054` })),
        asks: MEMBERS.map((m) => ({ member: m.id })),
      });
      const kinds = Object.fromEntries(second.turns.map((t) => [t.member, t.kind]));
      const sessions = (r) => Object.fromEntries(r.turns.map((t) => [t.member, t.sessionId]));

      // Each member on its own endpoint: every model request (its turns' and
      // the side calls beside them) carries its key.
      for (const m of MEMBERS) {
        assert.ok(modelCalls(ctx, m.cli).length >= 2, `${m.id}'s agent called its mock`);
        const calls = ctx.mocks[m.cli].requests().filter((r) => r.kind !== 'other');
        for (const call of calls) assert.equal(call.headers[m.key[0]], m.key[1], `${m.id}'s key on its endpoint (${call.kind} call)`);
      }

      // Claude Code: the same session resumed, a delta, and the instructions in the system prompt again.
      assert.equal(kinds.carol, 'delta');
      assert.equal(sessions(second).carol, sessions(first).carol);
      const carol = requestFor(ctx, 'claude', 'carol-9054').body;
      assert.ok(JSON.stringify(carol.system).includes(INSTRUCTIONS.carol), `Claude's system prompt holds its instructions: ${JSON.stringify(carol.system).slice(0, 300)}`);
      assert.equal(count(carol, INSTRUCTIONS.carol), 1, 'once');
      const carolTurns = userTurns('claude', carol);
      assert.ok(!carolTurns.at(-1).includes('carol-8131'), 'only what is new is sent');
      assert.ok(carolTurns.slice(0, -1).some((t) => t.includes('carol-8131')), 'the first turn is in the resumed session');

      // Codex resumes its session: its first prompt, instructions first, is in the history.
      assert.equal(kinds.max, 'delta');
      const max = requestFor(ctx, 'codex', 'max-9054').body;
      const maxTurns = userTurns('codex', max);
      assert.equal(count(max, INSTRUCTIONS.max), 1, 'once');
      assert.ok(maxTurns.slice(0, -1).some((t) => t.includes(INSTRUCTIONS.max) && t.includes('max-8131')), `Codex's history holds its instructions: ${JSON.stringify(maxTurns).slice(0, 400)}`);

      // Gemini CLI: resumed over its CLI (the history holds them); over ACP
      // it cannot load a session after a restart: a new one, the full prompt.
      const lin = requestFor(ctx, 'gemini', 'lin-9054').body;
      const linTurns = userTurns('gemini', lin);
      assert.equal(count(lin, INSTRUCTIONS.lin), 1, 'once');
      if (protocol === 'cli') {
        assert.equal(kinds.lin, 'delta');
        assert.ok(linTurns.slice(0, -1).some((t) => t.includes(INSTRUCTIONS.lin)), `Gemini's history holds its instructions: ${JSON.stringify(linTurns).slice(0, 400)}`);
      } else {
        assert.equal(kinds.lin, 'full');
        assert.ok(linTurns.at(-1).includes(INSTRUCTIONS.lin) && linTurns.at(-1).includes('lin-8131'), 'the whole view again');
      }
    }));
}
