#!/usr/bin/env node
// The live test files of scripts/test.sh, run so that a flake shows in
// every run's output without failing it, and a test that fails twice fails
// the run:
//
//   node scripts/live-tests.mjs [--concurrency N] [--flaky-log FILE] FILE...
//
// runs each file with node --test, N files at a time (each file's output
// printed whole once it ends, with its exit and time), then each file in
// which a test failed once more, alone. A test that failed and then passed
// is a flake: a line
//
//   FLAKY: <file> › <suite> › <test> — failed in 95.2 s (<why>), then passed alone in 41.0 s
//
// is printed (and appended to the flaky log, which scripts/test.sh prints
// again at the end of the run), and the step succeeds. A test that fails
// again fails it, and so does a file that failed with no test to name
// that then fails again.
//
// A file runs in a node --test of its own (as node --test runs each file in
// a process of its own), so that every test is known by the file that ran
// it: a suite shared by several files (tests/cli/fast_failure_suite.cjs)
// names itself as its tests' location.
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
const relative = (file) => path.relative(ROOT, path.resolve(ROOT, file));

/**
 * Runs one test file with node --test, its output kept and printed whole
 * once it ends. Resolves `{ file, code, ms, tests }`: the tests it ran,
 * each named by its suites (`key`), with whether it passed.
 */
function runFile(file) {
  const results = path.join(os.tmpdir(), `live-tests-${process.pid}-${Math.random().toString(36).slice(2)}.jsonl`);
  const human = process.stdout.isTTY ? 'spec' : 'tap';
  const args = ['--test', `--test-reporter=${human}`, '--test-reporter-destination=stdout', `--test-reporter=${REPORTER}`, `--test-reporter-destination=${results}`, file];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', reject);
    child.on('close', (exit, signal) => {
      const code = exit ?? (signal ? 128 : 1);
      const ms = Date.now() - started;
      process.stdout.write(`\n== ${relative(file)}: exit ${code} in ${seconds(ms)}\n`);
      process.stdout.write(Buffer.concat(output));
      let tests = [];
      try {
        tests = testsOf(file, fs.readFileSync(results, 'utf8'));
      } catch {
        // no line written: the file failed before any test ended
      }
      fs.rmSync(results, { force: true });
      resolve({ file: relative(file), code, ms, tests });
    });
  });
}

/** Runs `files`, `concurrency` at a time; resolves their runs in the files' order. */
async function runFiles(files, concurrency) {
  const runs = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const at = next;
      next += 1;
      runs[at] = await runFile(files[at]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  return runs;
}

/**
 * The tests the reporter's lines of `file` name, each keyed by the file and
 * its path of suite and test names: a test's subtests were reported just
 * before it, one nesting deeper.
 */
function testsOf(file, text) {
  const lines = text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const pending = [];
  const roots = [];
  for (const line of lines) {
    const node = { ...line, children: pending[line.nesting + 1] ?? [] };
    pending[line.nesting + 1] = [];
    (pending[line.nesting] ??= []).push(node);
    if (line.nesting === 0) roots.push(node);
  }
  const out = [];
  const walk = (node, names) => {
    const named = [...names, node.name];
    out.push({ key: `${relative(file)} › ${named.join(' › ')}`, suite: node.suite, passed: node.passed, ms: node.ms, failureType: node.failureType, message: node.message });
    for (const child of node.children) walk(child, named);
  };
  for (const root of roots) walk(root, []);
  return out;
}

/**
 * What failed in a run of a file: its tests that failed on their own (a
 * suite failed by its subtests is not one), or, if none is named and the
 * file failed, the file itself.
 */
function failuresOf(run) {
  const failed = run.tests.filter((t) => !t.passed && t.failureType !== 'subtestsFailed');
  if (failed.length === 0 && run.code !== 0) return [{ key: `${run.file} › (the file: exit ${run.code}, no failed test named)`, whole: true, ms: run.ms, failureType: 'exit', message: `exit ${run.code}` }];
  return failed.map((t) => ({ ...t, file: run.file }));
}

/**
 * Runs each file of `failed` once more, alone, and judges. Resolves
 * whether every failed test passed the second time.
 */
async function retry(failed, flakyLog) {
  const files = [...new Set(failed.map((t) => t.file))];
  const again = new Map();
  for (const file of files) {
    console.log(`\n== ${file}: a test failed; once more, alone`);
    again.set(file, await runFile(file));
  }
  const flaky = [];
  const twice = [];
  for (const test of failed) {
    const run = again.get(test.file);
    const second = test.whole ? { passed: run.code === 0, ms: run.ms, message: `exit ${run.code}` } : run.tests.find((t) => t.key === test.key);
    if (second?.passed) {
      flaky.push(`FLAKY: ${test.key} — failed in ${seconds(test.ms ?? 0)} (${test.failureType}: ${test.message}), then passed alone in ${seconds(second.ms ?? 0)}`);
    } else {
      twice.push(`FAILED TWICE: ${test.key} — ${test.message}; alone: ${second ? second.message : 'not run'}`);
    }
  }
  console.log('');
  for (const line of [...flaky, ...twice]) console.log(line);
  if (flakyLog && flaky.length > 0) fs.appendFileSync(flakyLog, `${flaky.join('\n')}\n`);
  return twice.length === 0;
}

/** One line of totals for the runs. */
function summary(runs, ms) {
  const tests = runs.flatMap((r) => r.tests).filter((t) => !t.suite);
  const failed = runs.flatMap(failuresOf);
  return `live-tests: ${runs.length} files, ${tests.length} tests, ${failed.length} failed, in ${seconds(ms)}`;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  let runs;
  if (options.retryFrom !== null) {
    runs = JSON.parse(fs.readFileSync(options.retryFrom, 'utf8'));
  } else {
    const started = Date.now();
    runs = await runFiles(options.files, options.concurrency);
    console.log(`\n${summary(runs, Date.now() - started)}`);
    if (options.results !== null) fs.writeFileSync(options.results, JSON.stringify(runs));
    if (options.defer) return runs.some((r) => r.code !== 0) ? 1 : 0;
  }
  const failed = runs.flatMap(failuresOf);
  if (failed.length === 0) return 0;
  return (await retry(failed, options.flakyLog)) ? 0 : 1;
}

process.exitCode = await main();
