// Family: prefix stability (SPEC §14). A conversation grows by one ~1 KB
// message per call under a 100 KiB budget: call i sends messages 0..i-1 as
// context and message i as the current message. A call "hits" when its
// prompt starts with the previous call's prompt up to the end of that
// prompt's context section (and, for Claude, the systemFlag is the same):
// the part a provider's prefix cache can reuse. Reported per agent type,
// with cacheStable (default block 16) and without.
//   node bench/scenarios/cache.mjs [--smoke]
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { messages as makeMessages, rng, text } from '../data.mjs';
import { report, smoke } from '../measure.mjs';

const require = createRequire(import.meta.url);
const pkg = require('agent-context');
const AGENTS = ['claude-code', 'openai-codex', 'google-gemini', 'custom-agent'];
const quiet = { logger: () => {} };
const CALLS = smoke ? 300 : 2000;
const BUDGET = smoke ? 20 * 1024 : 100 * 1024;

// ~1 KB each, 800-1200 bytes, so that the minimum dropped does not move by
// exactly one every call.
const next = rng(19);
const history = makeMessages(CALLS, 1000, 19).map((m) => ({ ...m, content: m.content.slice(0, 800 + Math.floor(next() * 400)) }));
const fixed = {
  teamTask: text(next, 120),
  systemInstruction: `You are Carol, a UI/UX designer. ${text(next, 200)}`,
  instructionFileText: text(next, 600),
  maxBytes: BUDGET,
};

/** Where the prompt's context section ends: right before the message section. */
function contextEnd(prompt, messageSection) {
  assert.ok(prompt.endsWith(messageSection));
  return Math.max(0, prompt.length - messageSection.length - 2);
}

for (const agent of AGENTS) {
  const messageHeader = pkg.assemble(agent, { contextMessages: [], currentMessage: 'x' }, quiet).prompt.slice(0, -1);
  for (const [impl, options] of [
    ['cacheStable', { ...quiet, cacheStable: true }],
    ['default', quiet],
  ]) {
    let hits = 0;
    let full = 0; // calls after the budget first made a message drop
    let keptSum = 0;
    let forCache = 0;
    let previous = null;
    for (let i = 0; i < CALLS; i++) {
      const input = { ...fixed, contextMessages: history.slice(0, i), currentMessage: history[i].content };
      const out = pkg.assemble(agent, input, options);
      const size = Buffer.byteLength(out.prompt) + (out.systemFlag === undefined ? 0 : Buffer.byteLength(out.systemFlag));
      assert.ok(size <= BUDGET, `${agent} call ${i}: ${size} bytes`);
      if (previous !== null) {
        const head = previous.prompt.slice(0, contextEnd(previous.prompt, messageHeader + previous.message));
        if (out.prompt.startsWith(head) && out.systemFlag === previous.systemFlag) hits++;
      }
      if (i % 97 === 0 || i === CALLS - 1) {
        // The fast path's answer is the full path's (checked on a sample of calls).
        const withReport = pkg.assembleWithReport(agent, input, options);
        assert.deepEqual(withReport.output, out);
        keptSum += withReport.report.messagesKept;
        forCache += withReport.report.messagesDroppedForCache;
        if (withReport.report.messagesDropped > 0) full++;
      }
      previous = { prompt: out.prompt, systemFlag: out.systemFlag, message: input.currentMessage.trim() };
    }
    assert.ok(full > 0, 'the budget never dropped a message: the scenario tests nothing');
    report({
      family: 'cache',
      scenario: `cache prefix ${agent}`,
      impl,
      calls: CALLS,
      hits,
      share: hits / (CALLS - 1),
      budget: BUDGET,
      sampledKeptMean: keptSum / Math.ceil(CALLS / 97),
      sampledDroppedForCache: forCache,
    });
  }
}
