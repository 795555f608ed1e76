#!/usr/bin/env node
// The `agent-context` command: the library from a shell.
//   exit 0: done; 2: bad usage or bad input (the error code says which); 1: anything else.
'use strict';
const fs = require('node:fs');
const { parseArgs } = require('node:util');
const lib = require('agent-context');

const AGENTS = ['claude-code', 'openai-codex', 'google-gemini', 'custom-agent'];

const HELP = {
  main: `usage: agent-context <command> [options]

commands:
  assemble   build the prompt an agent CLI is fed, from an AssemblerInput JSON
  messages   build the OpenAI-style message array from ContextBuildOptions JSON
  parse      read what an agent CLI printed (JSONL) and print its reply
  demo       print the prompt each agent type gets for the embedded sample

Run "agent-context <command> --help" for a command's options.
Input is read from --input FILE, or from standard input when there is none (or --input -).
Exit status: 0 done, 2 bad usage or bad input, 1 any other failure.
`,
  assemble: `usage: agent-context assemble --agent TYPE [--max-bytes N] [--report] [--json] [--input FILE|-]

Reads an AssemblerInput ({ contextMessages, currentMessage, teamTask, systemInstruction?,
instructionFileText?, maxBytes? }) and prints the prompt for the agent type.

  --agent TYPE      claude-code, openai-codex, google-gemini, or any other name (plain text)
  --max-bytes N     the byte budget (overrides the input's maxBytes; default 786432)
  --report          also print what the budget dropped and cut (to stderr, or inside --json)
  --json            print JSON: { prompt, systemFlag } (with --report: { output, report })
  --input FILE      read the input from FILE ("-" or none: standard input)

Without --json only the prompt is printed; Claude Code's systemFlag is then noted on stderr.
`,
  messages: `usage: agent-context messages [--input FILE|-]

Reads ContextBuildOptions ({ messages, mode, agent?, toolPolicy?, runContext?, settings? })
and prints the ContextBuildResult ({ messages, metadata }) as JSON.

  --input FILE      read the input from FILE ("-" or none: standard input)
`,
  parse: `usage: agent-context parse --agent TYPE [--json] [--input FILE|-]

Reads what an agent CLI printed (Gemini CLI -o stream-json, Claude Code --output-format
stream-json --verbose, Codex exec --json; any other agent: plain text) and prints the reply text.

  --agent TYPE      google-gemini, claude-code, openai-codex, or any other name (plain text)
  --json            print the whole reply: { text, sessionId, status, errors, toolUses, usage, nonJsonLines }
  --input FILE      read the output from FILE ("-" or none: standard input)

Exit status 0 when the run succeeded, 1 when it failed or ended early (the fatal errors
are printed on stderr), 2 for bad usage.
`,
  demo: `usage: agent-context demo

Prints the prompt (and system flag) each agent type gets for the embedded sample conversation.
`,
};

/** A failure with the exit status it deserves. */
class CliError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

const usageError = (message, command) => new CliError(`${message}\n\n${HELP[command] || HELP.main}`, 2);

function parse(command, argv, options) {
  try {
    return parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' }, ...options }, strict: true }).values;
  } catch (err) {
    throw usageError(err.message, command);
  }
}

/** Runs `work`, saying on stderr what it is doing only once it has taken over a second. */
async function withProgress(label, work) {
  const timer = setTimeout(() => process.stderr.write(`agent-context: ${label}…\n`), 1000);
  try {
    return await work();
  } finally {
    clearTimeout(timer);
  }
}

async function readInput(file) {
  return withProgress(file && file !== '-' ? `reading ${file}` : 'reading standard input', async () => {
    if (file && file !== '-') {
      try {
        return await fs.promises.readFile(file, 'utf8');
      } catch (err) {
        throw new CliError(`cannot read ${file}: ${err.message}`, 2);
      }
    }
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
  });
}

async function readJson(file) {
  const text = await readInput(file);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`the input is not valid JSON: ${err.message}`, 2);
  }
}

function write(text) {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

function reportLines(report) {
  return Object.entries(report).map(([key, value]) => `  ${key}: ${value}`).join('\n');
}

async function assemble(argv) {
  const args = parse('assemble', argv, {
    agent: { type: 'string' },
    'max-bytes': { type: 'string' },
    report: { type: 'boolean' },
    json: { type: 'boolean' },
    input: { type: 'string' },
  });
  if (args.help) return write(HELP.assemble);
  if (!args.agent) throw usageError('assemble needs --agent TYPE', 'assemble');
  const input = await readJson(args.input);
  if (args['max-bytes'] !== undefined) {
    const n = Number(args['max-bytes']);
    if (args['max-bytes'].trim() === '' || !Number.isFinite(n) || n < 0) {
      throw usageError(`--max-bytes must be a number >= 0, got "${args['max-bytes']}"`, 'assemble');
    }
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new CliError('INVALID_INPUT: input must be an object', 2);
    }
    input.maxBytes = n;
  }
  const logger = { warn: (m) => process.stderr.write(`${m}\n`) };
  const { output, report } = args.report
    ? lib.assembleWithReport(args.agent, input, { logger })
    : { output: lib.assemble(args.agent, input, { logger }) };
  if (args.json) {
    const out = { prompt: output.prompt, systemFlag: output.systemFlag };
    return write(JSON.stringify(args.report ? { output: out, report } : out, null, 2));
  }
  write(output.prompt);
  if (output.systemFlag !== undefined) {
    process.stderr.write(`agent-context: systemFlag (${Buffer.byteLength(output.systemFlag)} bytes) not printed; use --json to see it\n`);
  }
  if (report) process.stderr.write(`report:\n${reportLines(report)}\n`);
}

async function messages(argv) {
  const args = parse('messages', argv, { input: { type: 'string' } });
  if (args.help) return write(HELP.messages);
  const options = await readJson(args.input);
  write(JSON.stringify(lib.buildLlmMessagesFromConversation(options), null, 2));
}

async function parseOutput(argv) {
  const args = parse('parse', argv, { agent: { type: 'string' }, json: { type: 'boolean' }, input: { type: 'string' } });
  if (args.help) return write(HELP.parse);
  if (!args.agent) throw usageError('parse needs --agent TYPE', 'parse');
  const reply = lib.parseAgentOutput(args.agent, await readInput(args.input));
  if (args.json) write(JSON.stringify(reply, null, 2));
  else if (reply.text) write(reply.text);
  if (reply.status !== 'success') {
    const fatal = reply.errors.filter((e) => e.fatal).map((e) => e.message);
    process.stderr.write(`agent-context: the run ended with status ${reply.status}${fatal.length ? `: ${fatal.join('; ')}` : ''}\n`);
    process.exitCode = 1;
  }
}

function demo(argv) {
  const args = parse('demo', argv, {});
  if (args.help) return write(HELP.demo);
  const input = lib.sampleInput();
  const warnings = [];
  for (const agent of AGENTS) {
    const { prompt, systemFlag } = lib.assemble(agent, input, { logger: (m) => warnings.push(m) });
    const bytes = Buffer.byteLength(prompt) + (systemFlag ? Buffer.byteLength(systemFlag) : 0);
    process.stdout.write(`===== ${agent} (${bytes} of ${input.maxBytes} bytes) =====\n`);
    if (systemFlag !== undefined) process.stdout.write(`--- systemFlag ---\n${systemFlag}\n--- prompt ---\n`);
    process.stdout.write(`${prompt}\n\n`);
  }
  for (const w of warnings) process.stderr.write(`${w}\n`);
}

const COMMANDS = { assemble, messages, parse: parseOutput, demo };

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    return write(HELP.main);
  }
  const run = COMMANDS[command];
  if (!run) throw usageError(`unknown command "${command}"`, 'main');
  return run(rest);
}

// A closed pipe (`agent-context demo | head`) ends the output quietly.
process.stdout.on('error', (err) => process.exit(err.code === 'EPIPE' ? 0 : 1));

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof CliError) {
    process.stderr.write(`agent-context: ${err.message}\n`);
    process.exitCode = err.status;
  } else if (err && err.name === 'AgentContextError') {
    process.stderr.write(`agent-context: ${err.code}: ${err.message}\n`);
    process.exitCode = err.code === 'INTERNAL' ? 1 : 2;
  } else {
    process.stderr.write(`agent-context: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 1;
  }
});
