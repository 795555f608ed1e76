// The bad-input matrix (tests/matrix/matrix.mjs) through the package, in Node.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as pkg from 'agent-context';
import { runMatrix } from '../matrix/matrix.mjs';

test('bad-input matrix in Node', { timeout: 300_000 }, () => {
  const summary = runMatrix(pkg);
  console.log(`matrix (node): ${summary.total} cases, ${summary.results} results, ${summary.errors} AgentContextErrors`);
  assert.deepEqual(summary.failures, []);
  assert.ok(summary.total > 1000);
});
