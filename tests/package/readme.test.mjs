// The README's JavaScript examples, run against the built package: every
// ```js block, as a CommonJS script in the repository (so `agent-context` is
// this package). A block must run without error or warning, and where a line
// `console.log(…); // X` says what it prints, the output must be X (`…`
// stands for any text, `\n` for a line break).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

/** The regex the `// X` comments of console.log lines make, or null when none says. */
function expectedOutput(code) {
  const said = code
    .split('\n')
    .map((line) => /^\s*console\.log\(.*\);\s*\/\/ (.*)$/.exec(line)?.[1])
    .filter((x) => x !== undefined);
  if (said.length === 0) return null;
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const parts = said.map((s) => escape(s).replace(/…/g, '[\\s\\S]*?').replace(/\\\\n/g, '\\n'));
  return new RegExp(`^${parts.join('\\n')}\\n$`);
}

test('the README has JavaScript examples', () => {
  assert.ok(blocks.length >= 4, `${blocks.length} js blocks`);
});

blocks.forEach((code, i) => {
  const first = code.split('\n').find((l) => l.trim() !== '');
  test(`README example ${i + 1} runs: ${first}`, () => {
    const run = spawnSync(process.execPath, ['--input-type=commonjs', '-e', code], { cwd: root, encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '');
    const expected = expectedOutput(code);
    if (expected) assert.match(run.stdout, expected);
  });
});
