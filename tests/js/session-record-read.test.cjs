// readSessionRecord on records the recorder wrote and on records it did not:
// every page of a well-formed record, and lines that only a line-by-line
// check places (an entry without a kind, a seq written twice, a line that
// holds two entries, garbage, bytes that are not UTF-8) read the same
// whether they come as text or bytes, and as the rule says: what is not an
// entry is skipped, a duplicate key is the last one, garbage is nothing.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { readSessionRecord } = require('agent-context');

const HEADER = '{"format":"agent-context/session-record","version":"1.1","sessionId":"s","agentType":"claude-code","createdAt":1}\n';
const entry = (seq, extra = {}) => `${JSON.stringify({ seq, at: 1000 + seq, kind: 'text', turn: 1, text: `t${seq}`, ...extra })}\n`;
const wellFormed = HEADER + Array.from({ length: 50 }, (_, i) => entry(i + 1)).join('');

test('every page of a record the recorder wrote: the entries after the cursor, at most limit, in order', () => {
  for (const [after, limit, seqs] of [
    [0, undefined, Array.from({ length: 50 }, (_, i) => i + 1)],
    [10, 5, [11, 12, 13, 14, 15]],
    [49, 10, [50]],
    [50, 10, []],
  ]) {
    const page = readSessionRecord(wellFormed, { after, limit });
    assert.deepEqual(page.entries.map((e) => e.seq), seqs);
    assert.equal(page.cursor, seqs.at(-1) ?? after);
    assert.equal(page.skipped, 0, 'nothing to skip in a well-formed record');
    assert.deepEqual(page.entries[0] ?? null, seqs.length ? JSON.parse(entry(seqs[0])) : null);
    assert.deepEqual(readSessionRecord(Buffer.from(wellFormed), { after, limit }), page, 'bytes read as the text');
  }
});

test('lines only a line-by-line check places are read by the rule, text or bytes', () => {
  const cases = [
    // Valid JSON, not an entry (no kind): skipped.
    [`${entry(1)}{"seq":2,"at":5}\n${entry(3)}`, [1, 3]],
    // A seq written twice: the last one is the entry's.
    [`${entry(1)}{"seq":2,"at":5,"kind":"text","seq":9}\n${entry(10)}`, [1, 9, 10]],
    // Two entries on one line, the second open across the next line.
    [`${entry(1)}{"seq":2,"at":1,"kind":"a"},{"seq":3,"at":1,"kind":"b","x":[1\n{"seq":4,"at":1,"kind":"c"}]}\n${entry(5)}`, [1, 5]],
    // Garbage and a blank line.
    [`${entry(1)}garbage\n\n[1]\n${entry(2)}`, [1, 2]],
    // A seq at or below the last one's.
    [`${entry(1)}${entry(3)}${entry(2)}${entry(4)}`, [1, 3, 4]],
    // A torn last line.
    [`${entry(1)}${entry(2)}{"seq":3,"at":1,"ki`, [1, 2]],
  ];
  for (const [body, seqs] of cases) {
    for (const record of [body, HEADER + body]) {
      const page = readSessionRecord(record);
      assert.deepEqual(page.entries.map((e) => e.seq), seqs, record);
      assert.deepEqual(readSessionRecord(Buffer.from(record), {}), page, record);
    }
  }
  // Bytes that are not UTF-8 in one entry: that entry alone is skipped.
  const bytes = Buffer.concat([Buffer.from(entry(1)), Buffer.from('{"seq":2,"at":1,"kind":"text","text":"'), Buffer.from([0xff]), Buffer.from('"}\n'), Buffer.from(entry(3))]);
  assert.deepEqual(readSessionRecord(bytes).entries.map((e) => e.seq), [1, 3]);
  // What was skipped is counted: garbage, and a seq written again below the last one.
  assert.equal(readSessionRecord(`${entry(1)}garbage\n${entry(2)}`).skipped, 1);
  assert.equal(readSessionRecord(`${entry(1)}${entry(3)}${entry(2)}${entry(4)}`).skipped, 1);
});
