// planTeamTurn through the binding: the plan's shape, what it reads and the
// errors that name the field.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { planTeamTurn, assemble, AgentContextError } = require('agent-context');

const transcript = [
  { from: 'kailai', to: 'carol', content: 'Write the parser' },
  { from: 'kailai', to: 'max', content: 'Review the tests' },
  { from: 'carol', content: 'Parser written' },
  { from: 'max', to: 'all', content: 'Tests pass' },
];
const carol = { id: 'carol', agentType: 'claude-code', systemInstruction: 'You are Carol' };

test('a first turn is what assemble gives for the member; a later one only what is new', () => {
  const full = planTeamTurn({ teamTask: 'Ship', transcript, member: carol, message: 'Go on' });
  const mine = transcript.filter((m) => m.to === undefined || m.to === 'all' || m.to === 'carol' || m.from === 'carol');
  assert.deepEqual(full.output, assemble('claude-code', { contextMessages: mine, currentMessage: 'Go on', teamTask: 'Ship', systemInstruction: 'You are Carol' }));
  assert.deepEqual([full.kind, full.mark, full.sent, full.dropped], ['full', 4, [0, 2, 3], []]);
  const later = planTeamTurn({ teamTask: 'Ship', transcript, member: carol, mark: 1 });
  assert.deepEqual(later.output, { prompt: '[CONTEXT]\n- max -> all: Tests pass', systemFlag: undefined });
  assert.ok('systemFlag' in later.output);
  assert.equal(later.kind, 'delta');
  assert.equal(planTeamTurn({ transcript, member: carol, mark: 1, fresh: true }).kind, 'full');
  assert.equal(later.report.messagesKept, 1);
});

test('errors name the field; unknown keys warn', () => {
  const invalid = (request, pattern) =>
    assert.throws(() => planTeamTurn(request), (err) => err instanceof AgentContextError && err.code === 'INVALID_INPUT' && pattern.test(err.message));
  invalid({ transcript, member: { agentType: 'claude-code' } }, /^request\.member\.id must be a string, got undefined$/);
  invalid({ transcript: [transcript[0], { from: 'x', content: 3 }], member: carol }, /^transcript\[1\]\.content must be a string, got a number$/);
  invalid({ transcript: 'no', member: carol }, /^transcript must be an array/);
  invalid({ transcript, member: carol, mark: 9 }, /the mark of member "carol" is 9, but the transcript has only 4 messages/);
  invalid({ transcript, member: carol, mark: 1.5 }, /^request\.mark must be a whole number/);
  invalid({ transcript, member: { ...carol, maxBytes: -1 } }, /^request\.member\.maxBytes must be a finite number >= 0/);
  invalid({ transcript, member: carol, mark: 4 }, /^nothing to send to member "carol"/);
  const warned = [];
  planTeamTurn({ transcript, member: carol, marks: 1 }, { logger: (m) => warned.push(m) });
  assert.deepEqual(warned, ["[agent-context] planTeamTurn's request has an unknown key \"marks\" (did you mean \"mark\"?); it is ignored"]);
  assert.throws(() => planTeamTurn({ transcript, member: { ...carol, maxBytes: 10 } }), (err) => err.code === 'BUDGET_EXCEEDED');
});
