#!/usr/bin/env node
// The live test files of scripts/test.sh, run so that a flake shows in
// every run's output without failing it, and a test that fails twice fails
// the run:
//
//   node scripts/live-tests.mjs [--concurrency N] [--flaky-log FILE] FILE...
//
// runs the files with node --test (N at a time; its usual output on
// stdout), then each file in which a test failed once more, alone. A test
// that failed and then passed is a flake: a line
//
//   FLAKY: <file> › <suite> › <test> — failed in 95.2 s (<why>), then passed alone in 41.0 s
//
// is printed (and appended to the flaky log, which scripts/test.sh prints
// again at the end of the run), and the step succeeds. A test that fails
// again, or a file that failed with no failed test to name, fails it.
//
// A background run (the Gemini tool's) splits the two: `--defer --results
// FILE` runs once and keeps what happened; `--retry-from FILE` later runs
// its failed files again, alone, and judges as above.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPORTER = path.join(ROOT, 'scripts', 'live-tests-reporter.mjs');

function parseArgs(argv) {
  const options = { concurrency: 1, flakyLog: null, results: null, defer: false, retryFrom: null, files: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--concurrency') options.concurrency = Number(argv[++i]);
    else if (arg === '--flaky-log') options.flakyLog = argv[++i];
    else if (arg === '--results') options.results = argv[++i];
    else if (arg === '--defer') options.defer = true;
    else if (arg === '--retry-from') options.retryFrom = argv[++i];
    else if (arg.startsWith('--')) throw new Error(`live-tests: unknown option ${arg}`);
    else options.files.push(arg);
  }
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new Error('live-tests: --concurrency must be a whole number from 1');
  if (options.retryFrom === null && options.files.length === 0) throw new Error('live-tests: no test file given');
  if (options.defer && options.results === null) throw new Error('live-tests: --defer needs --results FILE');
  return options;
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Runs `files` with node --test, `concurrency` at a time, its usual output
 * on stdout and the reporter's lines in `results`. Resolves the exit code.
 */
function runFiles(files, concurrency, results) {
  fs.writeFileSync(results, '');
  const human = process.stdout.isTTY ? 'spec' : 'tap';
  const args = [
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-reporter=${human}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${REPORTER}`,
    `--test-reporter-destination=${results}`,
    ...files,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/**
 * The tests a run's reporter lines name, each with its path of suite and
 * test names within its file: a test's subtests were reported just before
 * it, one nesting deeper.
 */
function testsOf(results) {
  const lines = fs.readFileSync(results, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const pendingByFile = new Map();
  const roots = [];
  for (const line of lines) {
    const pending = pendingByFile.get(line.file) ?? [];
    pendingByFile.set(line.file, pending);
    const node = { ...line, children: pending[line.nesting + 1] ?? [] };
    pending[line.nesting + 1] = [];
    (pending[line.nesting] ??= []).push(node);
    if (line.nesting === 0) roots.push(node);
  }
  const out = [];
  const walk = (node, names) => {
    const named = [...names, node.name];
    out.push({ ...node, key: `${path.relative(ROOT, node.file ?? '') || node.file} › ${named.join(' › ')}`, children: undefined });
    for (const child of node.children) walk(child, named);
  };
  for (const root of roots) walk(root, []);
  return out;
}

/** The failures a run names on their own (a suite failed by its subtests is not one). */
const failuresOf = (tests) => tests.filter((t) => !t.passed && t.failureType !== 'subtestsFailed');

/**
 * Runs each file in which `failed` failed once more, alone, and judges.
 * Resolves whether every failed test passed the second time.
 */
async function retry(failed, flakyLog) {
  const files = [...new Set(failed.map((t) => t.file))].sort();
  const second = [];
  for (const file of files) {
    const rel = path.relative(ROOT, file);
    console.log(`\n== ${rel}: a test failed; once more, alone`);
    const results = path.join(os.tmpdir(), `live-tests-retry-${process.pid}-${second.length}.jsonl`);
    const started = Date.now();
    const code = await runFiles([file], 1, results);
    console.log(`== ${rel} alone: exit ${code} in ${seconds(Date.now() - started)}`);
    second.push(...testsOf(results));
    fs.rmSync(results, { force: true });
  }
  const flaky = [];
  const twice = [];
  for (const test of failed) {
    const again = second.find((t) => t.key === test.key);
    if (again?.passed) {
      flaky.push(`FLAKY: ${test.key} — failed in ${seconds(test.ms ?? 0)} (${test.failureType}: ${test.message}), then passed alone in ${seconds(again.ms ?? 0)}`);
    } else {
      twice.push(`FAILED TWICE: ${test.key} — ${test.message}; alone: ${again ? again.message : 'not run'}`);
    }
  }
  console.log('');
  for (const line of [...flaky, ...twice]) console.log(line);
  if (flakyLog && flaky.length > 0) fs.appendFileSync(flakyLog, `${flaky.join('\n')}\n`);
  return twice.length === 0;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const results = options.retryFrom ?? options.results ?? path.join(os.tmpdir(), `live-tests-${process.pid}.jsonl`);
  let code = 0;
  if (options.retryFrom === null) {
    code = await runFiles(options.files, options.concurrency, results);
    if (options.defer) return code;
  }
  const failed = failuresOf(testsOf(results));
  if (options.results === null && options.retryFrom === null) fs.rmSync(results, { force: true });
  if (failed.length === 0) {
    if (code !== 0 || options.retryFrom !== null) console.log(`live-tests: the run failed (exit ${code}) with no failed test to name`);
    return code !== 0 || options.retryFrom !== null ? 1 : 0;
  }
  return (await retry(failed, options.flakyLog)) ? 0 : 1;
}

process.exitCode = await main();
