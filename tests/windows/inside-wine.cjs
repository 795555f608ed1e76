'use strict';
// Runs under the official Windows node.exe in Wine (tests/windows/wine.test.mjs
// starts it). Loads the built pkg/node, resolves the stub agent behind its
// npm .cmd shim with resolveAgentCommand, runs it through the process layer
// with awkward arguments and a prompt on stdin, aborts a sleeping one, does
// the same through runAgent('claude-code', …) (found by name), and
// writes what it saw to a JSON file: Node's own stdout is unusable under
// Wine (EBADF on a pipe), so nothing is printed.
const fs = require('node:fs');
const path = require('node:path');

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const report = { platform: process.platform, steps: {} };
const save = () => fs.writeFileSync(config.resultFile, JSON.stringify(report, null, 2));

const pkg = require(path.join(config.pkgDir, 'agent_context.js'));
const { spawnAgent } = require(path.join(config.pkgDir, 'spawn-agent.cjs'));

const env = { ...process.env, PATH: `${config.shimDir};${config.nodeDir};${process.env.PATH ?? ''}` };
delete env.Path; // one PATH, whatever its case was

async function main() {
  const resolved = await pkg.resolveAgentCommand('claude-code', { env });
  report.steps.resolve = resolved;
  save();
  if (!resolved.found) return;

  // What Node does with the shim itself: refuses it without a shell.
  const direct = await spawnAgent({ file: resolved.path, args: ['x'], cwd: config.workDir, env, stdin: '' }).exited;
  report.steps.spawnCmdDirectly = direct;

  let stdout = '';
  let stderr = '';
  const run = spawnAgent(
    { file: resolved.file, args: [...resolved.args, ...config.awkward], cwd: config.workDir, env: { ...env, ...resolved.env }, stdin: config.prompt },
    { onStdout: (c) => (stdout += c), onStderr: (c) => (stderr += c) },
  );
  report.steps.run = { ...(await run.exited), stdout, stderr };
  save();

  const pidFile = path.join(config.workDir, 'pids.json');
  const sleeper = spawnAgent({
    file: resolved.file,
    args: [...resolved.args, '--sleep', pidFile, '--grandchild'],
    cwd: config.workDir,
    env: { ...env, ...resolved.env },
    stdin: 'wait',
  });
  const pids = await pidsIn(pidFile);
  const alive = (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const before = pids.map(alive);
  const started = Date.now();
  const killedBy = await sleeper.kill();
  const exited = await Promise.race([sleeper.exited, new Promise((r) => setTimeout(() => r('still running after 10 s'), 10_000))]);
  report.steps.abort = { killedBy, pids, aliveBefore: before, exited, aliveAfter: pids.map(alive), killMs: Date.now() - started };
  save();

  // runAgent: `claude` found by name through the shim, the awkward values as
  // the model and as extraArgs, the prompt on stdin, the reply parsed.
  const agentRun = await pkg.runAgent('claude-code', { prompt: config.prompt }, { cd: config.workDir, env, model: config.model, extraArgs: config.awkward, maxRetries: 0, timeout: 60, maxDuration: 120 });
  report.steps.runAgent = agentRun;
  save();

  // runAgent aborted while the stub (and its child) sleep.
  const runPidFile = path.join(config.workDir, 'run-pids.json');
  const controller = new AbortController();
  const aborted = pkg.runAgent('claude-code', { prompt: 'wait' }, { cd: config.workDir, env, extraArgs: ['--sleep', runPidFile, '--grandchild'], signal: controller.signal, maxRetries: 0, timeout: 60, maxDuration: 120 });
  const runPids = await pidsIn(runPidFile);
  const runBefore = runPids.map(alive);
  const abortedAt = Date.now();
  controller.abort();
  const abortedRun = await Promise.race([aborted, new Promise((r) => setTimeout(() => r('still running after 10 s'), 10_000))]);
  // The job object may take a moment to end the grandchild after its parent.
  for (let i = 0; i < 40 && runPids.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
  report.steps.runAgentAbort = { pids: runPids, aliveBefore: runBefore, run: abortedRun, aliveAfter: runPids.map(alive), abortMs: Date.now() - abortedAt };
  save();
}

/** The pids the stub wrote to `file`, once it has (up to 10 s; `[]` if never). */
async function pidsIn(file) {
  for (let i = 0; i < 200; i++) {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return [];
}

main()
  .catch((err) => {
    report.error = String(err && err.stack);
  })
  .finally(() => {
    report.done = true;
    save();
    // The aborted stub is gone; nothing else keeps this process alive but
    // make sure it ends.
    setTimeout(() => process.exit(0), 100);
  });
