#!/usr/bin/env node
// Records the fixtures of Qwen Code, GitHub Copilot CLI, opencode, pi and
// Kimi Code: the stdout of each real CLI on each scenario against the OpenAI
// Chat Completions mock, in tests/fixtures/cli/<agent-type>/<version>/<scenario>.jsonl
// (Copilot's usage file beside it as <scenario>.usage.json, Kimi Code's
// stderr of a failed run as <scenario>.stderr.txt), with run.json
// (which scenarios, their exit codes, when). Run after `npm run build`.
//
//   npm run record -- <package>@<version>     any release (tests/cli/record.cjs)
//   node tests/cli/record_openai_chat_agents.cjs [qwen|copilot|opencode|pi|kimi …]
//                                             the pinned releases, installed aside
//
// Scenarios: plain, tool, error400, error500, resume (a second run resuming
// the plain run's session), and each CLI's trap: qwen `max-turns` (exit 53,
// no result line), copilot `denied` (a denied tool, exit 0).
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { AGENTS, ROOT, executable } = require('./openai_chat_agents.cjs');
const { runChatScenario, cleanUp } = require('./openai_chat_scenarios.cjs');

const FIXTURES = path.join(ROOT, 'tests', 'fixtures', 'cli');

/** name → how to run it: the mock's scenario and invocation options. */
const SCENARIOS = {
  plain: { mock: 'plain' },
  tool: { mock: 'tool' },
  error400: { mock: 'error400' },
  // Within the mock's lifetime (180 s); opencode 1.17.18 retries a 500 for over 2 min.
  error500: { mock: 'error500', limitMs: 170_000 },
};
const TRAPS = {
  qwen: { 'max-turns': { mock: 'tool', options: { extraArgs: ['--max-session-turns=1'] } } },
  copilot: { denied: { mock: 'shell', options: { extraArgs: ['--deny-tool=shell'] } } },
  opencode: {},
  pi: {},
  kimi: {},
};
/** Agents whose failed run says why on stderr alone (Kimi Code): a failed run's stderr is kept beside its stdout as <scenario>.stderr.txt. */
const STDERR_TOO = ['kimi'];

/** `a` < `b`, both `x.y.z`. */
function older(a, b) {
  const [x, y] = [a, b].map((v) => v.split(/[.-]/).slice(0, 3).map(Number));
  for (let i = 0; i < 3; i += 1) if (x[i] !== y[i]) return x[i] < y[i];
  return false;
}

/** Whether the release at `command` lists `flag` in its `--help`. */
function knowsFlag(command, flag, env) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-help-'));
  try {
    const out = spawnSync(command, ['--help'], {
      env: { PATH: process.env.PATH, HOME: home, COPILOT_OFFLINE: 'true', ...env },
      encoding: 'utf8',
      timeout: 120_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return `${out.stdout}${out.stderr}`.includes(flag);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** Drops the arguments `drop(arg)` picks from an invocation, and its outputs. */
function without(drop) {
  return (invocation) => ({
    ...invocation,
    args: invocation.args.filter((a) => !drop(a)),
    outputs: (invocation.outputs ?? []).filter((o) => !invocation.args.some((a) => drop(a) && a.includes(o.path))),
  });
}

/**
 * What a release needs to run the same scenarios (each seen on a recorded
 * release; docs/cli-versions.md): `{ env, edit }` for runChatScenario.
 * `command` is the release's executable in its install folder.
 */
function adaptTo(cli, version, command) {
  const changes = {};
  // Copilot's native binary runs the newest release unpacked in
  // $XDG_CACHE_HOME/copilot/pkg instead of itself: each release gets its own
  // cache beside its install, where it unpacks itself (~235 MB) once.
  if (cli === 'copilot') {
    changes.env = { XDG_CACHE_HOME: path.join(command, '..', '..', '..', 'cache') };
    // 1.0.67 has no --usage-output-file (1.0.89 has): no usage file then.
    if (!knowsFlag(command, '--usage-output-file', changes.env)) {
      changes.edit = without((a) => a.startsWith('--usage-output-file'));
    }
  }
  // Qwen Code before 0.21 (0.15.10, 0.12.0) sends its calls to HTTP(S)_PROXY
  // even for 127.0.0.1, ignoring NO_PROXY: no proxy (the mock is local).
  if (cli === 'qwen' && older(version, '0.21.0')) changes.env = { HTTP_PROXY: null, HTTPS_PROXY: null };
  // Qwen Code 0.12.0 has no --append-system-prompt (it prints its help and
  // exits): the system prompt goes ahead of the prompt on stdin.
  if (cli === 'qwen' && older(version, '0.15.0')) {
    changes.edit = (invocation) => {
      const flag = '--append-system-prompt=';
      const system = invocation.args.find((a) => a.startsWith(flag));
      if (!system) return invocation;
      return {
        ...invocation,
        args: invocation.args.filter((a) => a !== system),
        stdin: `${system.slice(flag.length)}\n\n${invocation.stdin}`,
      };
    };
  }
  return changes;
}

/**
 * Runs `cli` (the executable `command`, release `version`) on every
 * scenario and writes the fixtures into `dir`; resolves
 * `{ scenario: { exitCode, bytes, ms } }`.
 */
async function recordAgent(cli, { dir, command, version }) {
  const { env, edit } = adaptTo(cli, version, command);
  fs.mkdirSync(dir, { recursive: true });
  const runs = {};
  const save = (name, run) => {
    // A run killed at its time limit is no fixture: run.json says so.
    if (run.result.timedOut) {
      for (const f of [`${name}.jsonl`, `${name}.usage.json`]) fs.rmSync(path.join(dir, f), { force: true });
      runs[name] = { timedOut: true, ms: run.result.ms, requests: run.requests.length };
    } else {
      fs.writeFileSync(path.join(dir, `${name}.jsonl`), run.result.stdout);
      if (run.outputs.usage) fs.writeFileSync(path.join(dir, `${name}.usage.json`), run.outputs.usage);
      if (STDERR_TOO.includes(cli) && run.result.code !== 0) fs.writeFileSync(path.join(dir, `${name}.stderr.txt`), run.result.stderr);
      runs[name] = { exitCode: run.result.code, bytes: run.result.stdout.length, ms: run.result.ms, requests: run.requests.length };
    }
    process.stdout.write(
      `${path.relative(ROOT, dir)}/${name}.jsonl: exit ${run.result.code}, ${run.result.stdout.length} bytes, ${run.result.ms} ms, status ${run.reply.status}${run.result.timedOut ? ', TIMED OUT' : ''}\n`,
    );
  };
  const recordOne = async (name, spec) => {
    const run = await runChatScenario(cli, spec.mock, { options: spec.options, limitMs: spec.limitMs, command, env, edit });
    try {
      save(name, run);
    } finally {
      cleanUp(run);
    }
  };
  const jobs = Object.entries({ ...SCENARIOS, ...TRAPS[cli] }).map(([name, spec]) => recordOne(name, spec));
  jobs.push(
    (async () => {
      const first = await runChatScenario(cli, 'plain', {
        overrides: { currentMessage: 'First question: colours?' },
        command,
        env,
        edit,
      });
      try {
        const second = await runChatScenario(cli, 'plain', {
          reuse: first,
          overrides: { currentMessage: 'Second question: fonts?' },
          options: { sessionId: first.reply.sessionId },
          command,
          env,
          edit,
        });
        save('resume-first', first);
        save('resume', second);
      } finally {
        cleanUp(first);
      }
    })(),
  );
  await Promise.all(jobs);
  // In a stable order, whatever order the runs ended in.
  return Object.fromEntries(Object.keys(runs).sort().map((k) => [k, runs[k]]));
}

/** The fixture folder of `cli` at `version`. */
function fixtureDir(cli, version) {
  return path.join(FIXTURES, AGENTS[cli].agentType, version);
}

/** Records `cli` at `version` (its executable `command`), with run.json. */
async function recordRelease(cli, version, command) {
  const dir = fixtureDir(cli, version);
  const runs = await recordAgent(cli, { dir, command, version });
  const meta = { package: AGENTS[cli].pkg, version, recorded: new Date().toISOString().slice(0, 10), runs };
  fs.writeFileSync(path.join(dir, 'run.json'), `${JSON.stringify(meta, null, 2)}\n`);
}

module.exports = { recordRelease, adaptTo };

if (require.main === module) {
  const clis = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(AGENTS);
  Promise.all(clis.map((cli) => recordRelease(cli, AGENTS[cli].version, executable(cli)))).catch((err) => {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  });
}
