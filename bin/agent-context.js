#!/usr/bin/env node
// The `agent-context` command. `demo` prints the prompt each agent type gets
// for the embedded sample conversation.
'use strict';
const { assemble, sampleInput } = require('agent-context');

const AGENTS = ['claude-code', 'openai-codex', 'google-gemini', 'custom-agent'];

// A closed pipe (`agent-context demo | head`) ends the output quietly.
process.stdout.on('error', (err) => process.exit(err.code === 'EPIPE' ? 0 : 1));

function demo() {
  const input = sampleInput();
  const warnings = [];
  for (const agent of AGENTS) {
    const { prompt, systemFlag } = assemble(agent, input, { logger: (m) => warnings.push(m) });
    const bytes = Buffer.byteLength(prompt) + (systemFlag ? Buffer.byteLength(systemFlag) : 0);
    process.stdout.write(`===== ${agent} (${bytes} of ${input.maxBytes} bytes) =====\n`);
    if (systemFlag !== undefined) process.stdout.write(`--- systemFlag ---\n${systemFlag}\n--- prompt ---\n`);
    process.stdout.write(`${prompt}\n\n`);
  }
  for (const w of warnings) process.stderr.write(`${w}\n`);
}

function usage(stream) {
  stream.write('usage: agent-context demo\n  demo   print the prompt each agent type gets for the embedded sample\n');
}

const [command] = process.argv.slice(2);
if (command === 'demo') {
  demo();
} else if (command === '--help' || command === '-h' || command === undefined) {
  usage(process.stdout);
} else {
  process.stderr.write(`agent-context: unknown command "${command}"\n`);
  usage(process.stderr);
  process.exit(2);
}
