#!/usr/bin/env node
// Records the fixtures in tests/fixtures/cli/: the stdout of a real CLI on
// each scenario, run offline against its mock API. Run it after
// `npm run build`.
//
//   npm run record -- <package>@<version> …
//     installs that release OUTSIDE the project (under
//     ~/.cache/agent-context/record/<package>@<version>, reused when present),
//     runs it on its scenarios and writes
//     tests/fixtures/cli/<cli>/<version>/<scenario>.jsonl and run.json
//     (which scenarios, their exit codes, when). Claude Code, Codex and
//     Gemini CLI run against their own APIs' mocks; Qwen Code, GitHub Copilot
//     CLI and opencode against the OpenAI Chat Completions mock, in
//     tests/fixtures/cli/<agent-type>/<version>/ (record_openai_chat_agents.cjs).
//   npm run record [-- --pinned claude|codex|gemini …]
//     records the pinned CLIs of tests/agents/node_modules (the live tests' versions) as
//     tests/fixtures/cli/<cli>-<scenario>.jsonl, and versions.json (all three, or
//     those named).
//
// Each run has its own HOME, talks only to its mock on 127.0.0.1, and has
// the CLI's own retries set low (harness.sandbox).
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const harness = require('./harness.cjs');
const { runScenario, cleanUp } = require('./scenarios.cjs');
const chatAgents = require('./openai_chat_agents.cjs');
const { recordRelease: recordChatRelease } = require('./record_openai_chat_agents.cjs');

const FIXTURES = path.join(harness.ROOT, 'tests', 'fixtures', 'cli');
const INSTALLS = path.join(os.homedir(), '.cache', 'agent-context', 'record');

/** Which scenarios each CLI is recorded on. Gemini CLI prints nothing of its
 * retries on stdout, so its `flaky` run would show nothing new; its `empty`
 * run shows the `error` event and a failed result with exit code 0. */
const RECORDED = {
  claude: ['plain', 'tool', 'error', 'flaky'],
  codex: ['plain', 'tool', 'error', 'flaky'],
  gemini: ['plain', 'tool', 'error', 'empty'],
};

/** Every CLI that can be recorded: `{ cli, pkg, bin, chat }` (`chat`: the
 * OpenAI Chat Completions agents). */
const RECORDABLE = [
  ...Object.entries(harness.CLIS).map(([cli, { pkg, bin }]) => ({ cli, pkg, bin, chat: false })),
  ...Object.entries(chatAgents.AGENTS).map(([cli, { pkg, bin }]) => ({ cli, pkg, bin, chat: true })),
];

/** `<package>@<version>` → `{ cli, pkg, bin, chat, version }`, or a usage error. */
function parseSpec(spec) {
  const at = spec.lastIndexOf('@');
  const pkg = spec.slice(0, at);
  const version = spec.slice(at + 1);
  const known = RECORDABLE.find((c) => c.pkg === pkg);
  if (at <= 0 || !known || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
    const names = RECORDABLE.map((c) => c.pkg).join(', ');
    throw new Error(`record: "${spec}" is not <package>@<version> with a package of ${names} and an exact version`);
  }
  return { ...known, version };
}

/** Installs `pkg@version` in its own directory outside the project (once);
 * returns the path of its executable. */
function install({ pkg, bin, version }) {
  const dir = path.join(INSTALLS, `${pkg.replace('/', '+')}@${version}`);
  const done = path.join(dir, '.installed');
  if (!fs.existsSync(done)) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), '{"private":true}\n');
    process.stdout.write(`installing ${pkg}@${version} in ${dir}\n`);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `${pkg}@${version}`], {
      cwd: dir,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    fs.writeFileSync(done, '');
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', ...pkg.split('/'), 'package.json'), 'utf8'));
  if (manifest.version !== version) throw new Error(`record: ${dir} holds ${pkg} ${manifest.version}, not ${version}`);
  return path.join(dir, 'node_modules', '.bin', bin);
}

/** Runs `cli` (the executable `command`) on each of its scenarios; `write`
 * gets each scenario's name and run. */
async function recordScenarios(cli, command, write) {
  const runs = {};
  for (const scenario of RECORDED[cli]) {
    const run = await runScenario(cli, scenario, { options: { command } });
    try {
      const file = write(scenario, run.result.stdout);
      runs[scenario] = { exitCode: run.result.code, bytes: run.result.stdout.length };
      process.stdout.write(
        `${path.relative(harness.ROOT, file)}: exit ${run.result.code}, ${run.result.stdout.length} bytes, status ${run.reply.status}${run.result.timedOut ? ', TIMED OUT' : ''}\n`,
      );
    } finally {
      cleanUp(run);
    }
  }
  return runs;
}

async function recordVersion(spec) {
  const target = parseSpec(spec);
  const command = install(target);
  if (target.chat) return recordChatRelease(target.cli, target.version, command);
  const dir = path.join(FIXTURES, target.cli, target.version);
  fs.mkdirSync(dir, { recursive: true });
  const runs = await recordScenarios(target.cli, command, (scenario, stdout) => {
    const file = path.join(dir, `${scenario}.jsonl`);
    fs.writeFileSync(file, stdout);
    return file;
  });
  const meta = { package: target.pkg, version: target.version, recorded: new Date().toISOString().slice(0, 10), runs };
  fs.writeFileSync(path.join(dir, 'run.json'), `${JSON.stringify(meta, null, 2)}\n`);
}

async function recordPinned(only = Object.keys(RECORDED)) {
  for (const cli of only) if (!RECORDED[cli]) throw new Error(`record: --pinned takes ${Object.keys(RECORDED).join(', ')}, got "${cli}"`);
  fs.mkdirSync(FIXTURES, { recursive: true });
  const file = path.join(FIXTURES, 'versions.json');
  const versions = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  for (const cli of only) {
    versions[harness.CLIS[cli].pkg] = harness.installedVersion(cli);
    await recordScenarios(cli, harness.executable(cli), (scenario, stdout) => {
      const file = path.join(FIXTURES, `${cli}-${scenario}.jsonl`);
      fs.writeFileSync(file, stdout);
      return file;
    });
  }
  fs.writeFileSync(file, `${JSON.stringify(versions, null, 2)}\n`);
}

async function main() {
  const specs = process.argv.slice(2);
  if (specs.length === 0) return recordPinned();
  if (specs[0] === '--pinned') return recordPinned(specs.length > 1 ? specs.slice(1) : undefined);
  const targets = specs.map(parseSpec); // every spec checked before anything runs
  for (const [i, spec] of specs.entries()) {
    process.stdout.write(`== ${targets[i].pkg} ${targets[i].version}\n`);
    await recordVersion(spec);
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
