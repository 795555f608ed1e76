// Family: the session record. Its records are the core's recorder's own
// (the Node-only module's `__sessionRecordOfAcp`: a session recorded from
// an agent's ACP output), made from the real agents' recorded transcripts
// (tests/fixtures/acp/).
// - Reading: a 1 000-turn session's history with readSessionRecord (what a
//   store's read() and a restored session's history() do), against
//   JSON.parse of the same entries as JSON lines, in the same run; from the
//   file's bytes (as a store reads it) and from a string.
// - Size: one turn of 20 000 `session/update` lines per agent (the same
//   lines as the acp-parse family), its record against its reply's text and
//   thoughts plus its tools' input and output.
// The third bar of the record (recording adds at most 10 % host CPU to an
// ACP turn of 20 000 update lines) needs the session engine to record: it
// is not measured here yet.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { measure, report, smoke } from '../measure.mjs';

const require = createRequire(import.meta.url);
const pkg = require('agent-context');
const { __sessionRecordOfAcp, __Conversation: Conversation } = require('../../pkg/node/agent_context_node.js');
const FIXTURES = new URL('../../tests/fixtures/acp/', import.meta.url);

// Reading: Claude's recorded turns (a plain answer, a tool call), in turn.
const claude = ['plain.jsonl', 'tool.jsonl'].map((f) => readFileSync(new URL(`claude/0.101.0/${f}`, FIXTURES), 'utf8'));
const TURNS = smoke ? 50 : 1000;
const record = __sessionRecordOfAcp('claude-code', Array.from({ length: TURNS }, (_, i) => claude[i % 2]), 'Read the notes and tell me what they say.');
const bytes = Buffer.from(record, 'utf8');
const entryLines = record.split('\n').slice(1, -1);

const jsonParseText = () => {
  const lines = record.split('\n');
  const out = [];
  for (let i = 1; i < lines.length; i++) if (lines[i] !== '') out.push(JSON.parse(lines[i]));
  return out;
};
const jsonParseBytes = () => {
  const lines = bytes.toString('utf8').split('\n');
  const out = [];
  for (let i = 1; i < lines.length; i++) if (lines[i] !== '') out.push(JSON.parse(lines[i]));
  return out;
};
const readText = () => pkg.readSessionRecord(record).entries;
const readBytes = () => pkg.readSessionRecord(bytes).entries;

// Restoring the conversation as openConversation does: its machine from the
// record's bytes (parsed once), then its whole history as history() gives it.
const restore = () => {
  const machine = Conversation.restore({ id: 'bench', createdAt: 0, agent: 'claude-code', options: {} }, bytes, undefined, Date.now());
  const page = machine.history({});
  machine.free();
  return page.entries;
};

const expected = jsonParseText();
assert.equal(restore().length, expected.length, 'the restored history holds every entry');
assert.equal(expected.length, entryLines.length);
assert.deepEqual(readText(), expected);
assert.deepEqual(readBytes(), expected);
assert.equal(expected.filter((e) => e.kind === 'turnEnd').length, TURNS);

const options = { smoke, warmup: 5, minMs: 2000, maxIterations: 200 };
const baseText = measure(jsonParseText, options);
const baseBytes = measure(jsonParseBytes, options);
const coreText = measure(readText, options);
const coreBytes = measure(readBytes, options);
const coreRestore = measure(restore, options);
const scenario = `session record: ${TURNS}-turn history, ${expected.length} entries`;
const ms = (ns) => (ns / 1e6).toFixed(2);
report({ family: 'record', scenario, impl: 'JSON.parse, from bytes', entries: expected.length, bytes: bytes.length, ...baseBytes });
report({ family: 'record', scenario, impl: 'JSON.parse, from a string', entries: expected.length, bytes: bytes.length, ...baseText });
report({ family: 'record', scenario, impl: 'c, from bytes', entries: expected.length, bytes: bytes.length, ...coreBytes });
report({ family: 'record', scenario, impl: 'c, from a string', entries: expected.length, bytes: bytes.length, ...coreText });
for (const [how, core, base, required] of [
  ['from the file\'s bytes', coreBytes, baseBytes, 2],
  ['restored from the file\'s bytes (the conversation reopened, then its history)', coreRestore, baseBytes, 2],
  ['from a string', coreText, baseText, null],
]) {
  const ratio = core.medianNs / base.medianNs;
  report({
    family: 'record',
    scenario: `${scenario}, ${how}: ratio`,
    target: {
      name: `session record: read a ${TURNS}-turn history (${expected.length} entries, ${(bytes.length / 1e6).toFixed(1)} MB) ${how}: readSessionRecord / JSON.parse of its lines`,
      measured: `${ratio.toFixed(2)}× (${ms(core.medianNs)} ms vs ${ms(base.medianNs)} ms)`,
      required: required === null ? 'info' : `≤ ${required}×`,
      met: required === null ? null : ratio <= required,
    },
  });
}

// Size: one long turn per agent.
const AGENTS = { claude: 'claude-code', codex: 'openai-codex', gemini: 'google-gemini', qwen: 'qwen-code', copilot: 'github-copilot', opencode: 'opencode' };
const LINES = smoke ? 2_000 : 20_000;
for (const [dir, agentType] of Object.entries(AGENTS)) {
  const updates = [];
  for (const version of readdirSync(new URL(`${dir}/`, FIXTURES)).sort()) {
    for (const file of readdirSync(new URL(`${dir}/${version}/`, FIXTURES)).sort()) {
      for (const line of readFileSync(new URL(`${dir}/${version}/${file}`, FIXTURES), 'utf8').split('\n')) {
        if (line.includes('"method":"session/update"') && line.length <= 64 * 1024) updates.push(line);
      }
    }
  }
  const output = `${Array.from({ length: LINES }, (_, i) => updates[i % updates.length]).join('\n')}\n`;
  const reply = pkg.parseAgentOutput(agentType, output, { protocol: 'acp' });
  const held =
    Buffer.byteLength(reply.text) +
    Buffer.byteLength(reply.thoughts ?? '') +
    reply.toolUses.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t.input)) + Buffer.byteLength(t.output ?? ''), 0);
  const turn = __sessionRecordOfAcp(agentType, [output], 'Do the work.')
    .split('\n')
    .filter((l) => l !== '' && !/"kind":"(opened|request|closed)"/.test(l) && !l.startsWith('{"format"'));
  const recorded = turn.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  const ratio = recorded / held;
  // A turn holding little (Codex's repeated lines are a few short messages)
  // is mostly each entry's own fields: the bar is for a long turn.
  const long = held >= 4096;
  report({
    family: 'record',
    scenario: `session record size, ${agentType}: ratio`,
    target: {
      name: `session record: one ACP turn of ${LINES} update lines, ${agentType}: its record / its reply text + thoughts + tool input and output`,
      measured: `${ratio.toFixed(3)}× (${recorded} / ${held} bytes, ${turn.length} entries)`,
      required: long ? '≤ 1.5×' : 'info',
      met: long ? ratio <= 1.5 : null,
    },
  });
}
