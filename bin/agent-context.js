#!/usr/bin/env node
// The `agent-context` command: the library from a shell.
//   exit 0: done; 2: bad usage or bad input (the error code says which); 1: anything else.
'use strict';
const fs = require('node:fs');
const { parseArgs } = require('node:util');
const lib = require('agent-context');

// The registered agents (the core's registry), and for the demo one more
// name that shows the plain-text fallback.
const KNOWN = lib.knownAgents().map((a) => a.agentType);
/** The one agent type of AGENTS without a layout of its own: the demo shows the fallback. */
const FALLBACK_DEMO_AGENT = 'custom-agent';
const AGENTS = [...KNOWN, FALLBACK_DEMO_AGENT];

const HELP = {
  main: `usage: agent-context <command> [options]

commands:
  assemble   build the prompt an agent CLI is fed, from an AssemblerInput JSON
  messages   build the OpenAI-style message array from ContextBuildOptions JSON
  parse      read what an agent CLI printed (JSONL) and print its reply
  demo       print the prompt each agent type gets for the embedded sample
  run        run an agent CLI on a prompt (or an AssemblerInput) and print the AgentRun
  gemini     run Gemini CLI as a tool (runGeminiTool) and print the result envelope
  mcp        serve each agent found as a tool (claude, codex, gemini, …) over MCP on stdio
  acp        an ACP agent on stdio for an editor: this package's conversations, recorded
  serve      the same conversations over Streamable HTTP and WebSocket, with a token

Run "agent-context <command> --help" for a command's options; "agent-context --version"
prints the version.
Input is read from --input FILE, or from standard input when there is none (or --input -).
Exit status: 0 done, 2 bad usage or bad input, 1 any other failure.
`,
  assemble: `usage: agent-context assemble --agent TYPE [--max-bytes N] [--report] [--json] [--input FILE|-]
                          [--system-flag-file PATH]

Reads an AssemblerInput ({ contextMessages, currentMessage, teamTask, systemInstruction?,
instructionFileText?, maxBytes? }) and prints the prompt for the agent type.

  --agent TYPE      ${KNOWN.join(', ')}, or any other name (plain text)
  --max-bytes N     the byte budget (overrides the input's maxBytes; default 786432)
  --report          also print what the budget dropped and cut (to stderr, or inside --json)
  --json            print JSON: { prompt, systemFlag } (with --report: { output, report })
  --input FILE      read the input from FILE ("-" or none: standard input)
  --system-flag-file PATH
                    write Claude Code's systemFlag (for --append-system-prompt) to PATH;
                    an empty file for agent types without one

Without --json only the prompt is printed; Claude Code's systemFlag then goes to
--system-flag-file, or is noted on stderr.
`,
  messages: `usage: agent-context messages [--input FILE|-]

Reads ContextBuildOptions ({ messages, mode, agent?, toolPolicy?, runContext?, settings? })
and prints the ContextBuildResult ({ messages, metadata }) as JSON.

  --input FILE      read the input from FILE ("-" or none: standard input)
`,
  parse: `usage: agent-context parse --agent TYPE [--json] [--verbose] [--input FILE|-]

Reads what an agent CLI printed (its JSON lines: Claude Code --output-format stream-json
--verbose, Codex exec --json, Gemini CLI -o stream-json) and prints the reply text.

  --agent TYPE      ${KNOWN.join(', ')}
  --json            print the whole reply: { text, sessionId, status, errors, toolUses, usage, nonJsonLines }
  --input FILE      read the output from FILE ("-" or none: standard input)
  --verbose         also print on stderr each JSON line type the parser did not know, with its count

Exit status 0 when the run succeeded, 1 when it failed or ended early (the fatal errors
are printed on stderr), 2 for bad usage.
`,
  demo: `usage: agent-context demo

Prints the prompt (and system flag) each agent type gets for the embedded sample conversation.
`,
  gemini: `usage: agent-context gemini --cd DIR [--prompt TEXT | --input FILE|-] [options]

Runs Gemini CLI as a tool (runGeminiTool): the prompt on its standard input, in DIR, with
timeouts and retries, and prints the result envelope as JSON.

  --prompt TEXT          the task (PROMPT); without it, read from --input FILE or standard input
  --input FILE           read the prompt from FILE ("-": standard input)
  --cd DIR               Gemini CLI's working directory (cd); it must exist
  --sandbox MODE         read-only, workspace-write (default) or danger-full-access
  --no-yolo              approve edits only (approval mode auto_edit) instead of everything
  --session-id ID        resume this session (SESSION_ID)
  --model NAME           the model (default gemini-3-pro-preview)
  --timeout S            stop after S seconds without output (default 300)
  --max-duration S       limit for the whole call, retries included (default 1800)
  --max-retries N        retries after a transient failure (default 1)
  --return-all-messages  add all_messages: every event parsed from Gemini CLI's output
  --return-metrics       add metrics: duration, attempts, retries, tokens, tool calls
  --log-metrics          write the metrics as one JSON line to stderr
  --engineering-context  put ai/contracts/current.md, ai/engineering_codex.md and
                         ai/PROJECT_CONTEXT.md (those under DIR) before the prompt
  --gemini PATH          the gemini executable (default $AGENT_CONTEXT_GEMINI_BIN, else gemini on PATH)

The envelope is printed in every case; on failure its error also goes to stderr.
Exit status 0 on success, 2 for bad usage or invalid parameters, 1 for any other failure;
Ctrl-C aborts the call (its process group is killed) and exits 1.
`,
  run: `usage: agent-context run <agentType> --cd DIR [options] [--json] [--input FILE|-]
       agent-context run --agent-json JSON --cd DIR [options] [--json] [--input FILE|-]

Runs the agent's CLI (runAgent; --protocol acp: over the Agent Client Protocol) on the prompt read from --input or standard
input (with --json, an AssemblerInput assembled with the agent's layout, or an
AssemblerOutput) and prints the AgentRun as JSON.

options:
  --agent-json JSON     any ACP agent instead of an agent type: an agent definition
                        {"id","name","command","args","env"} or an ACP registry entry
                        (its npx or uvx distribution); it runs over ACP
  --cd DIR              the agent's working directory (required)
  --model NAME          the model
  --session ID          resume this session (another id coming back is session_not_found)
  --sandbox MODE        read-only, workspace-write or danger-full-access
  --yolo                skip approval prompts
  --command PATH        the executable (default the agent's command on PATH)
  --protocol P          cli (the agent's JSON output, default) or acp (the Agent Client
                        Protocol; permissions answered by --sandbox/--yolo, see README);
                        acp is the default, and the only one, for an agent driven over ACP only
  --timeout S           seconds without output before the run is stopped (default 300)
  --max-duration S      seconds for the whole call, retries included (default 1800)
  --max-retries N       retries of retryable failures, 0 to 10 (default 1)

Exit status: 0 success, 1 the agent failed (error.kind says why), 2 bad input.
`,
  acp: `usage: agent-context acp [--agent A] [--fallback B]... [--store DIR|URL] [--cd DIR]

An ACP agent on standard input and output, for an editor to start as an agent server (Zed,
JetBrains, Neovim, VS Code extensions): its sessions are this package's conversations, recorded
in the store, so a session loads, lists, resumes and forks whatever agent it ran on, fails over
to the next agent when one is over its quota, and comes back after a restart. Closing its
standard input ends it and every agent it started. Zed:

  "agent_servers": { "agent-context": { "type": "custom", "command": "npx", "args": ["agent-context", "acp"] } }

  --agent A       the agent of new conversations: an agent type (${KNOWN.join(', ')}),
                  or JSON: an agent definition, or {"agent": TYPE|DEFINITION, "options": {…}}
                  with its session options (model, command, env, …); default claude-code
  --fallback B    the agent to go on with when a turn fails for quota, auth, a missing command or
                  the model's API (the same forms as --agent); repeatable, tried in order
  --store DIR|URL where conversations are recorded: a folder (default ~/.agent-context/conversations)
                  or a PostgreSQL database, postgres://… (servers of a fleet sharing it; npm install pg)
  --cd DIR        the folder a conversation's cwd must lie in (default: any folder the editor names)
`,
  serve: `usage: agent-context serve [--port 7700] [--host 127.0.0.1] [--store DIR|URL]
                           [--token T] [--origin URL]... [--agent A] [--fallback B]... [--cd DIR]

Serves this package's conversations over Streamable HTTP and WebSocket on one URL (http://HOST:PORT/acp,
and the same with ws://): any ACP client, several at once on one conversation, and a browser page
through connectConversation. Every request carries the bearer token (Authorization: Bearer, or from
a browser the WebSocket subprotocol bearer.TOKEN); one is generated and printed once when not given.
Runs until interrupted (Ctrl-C), then closes every conversation and agent.

  --port N        the port (default 7700; 0: any free port)
  --host H        the address to listen on (default 127.0.0.1: this machine only)
  --store DIR|URL where conversations are recorded: a folder (default ~/.agent-context/conversations)
                  or a PostgreSQL database, postgres://… (servers of a fleet sharing it; npm install pg)
  --token T       the token (at least 16 of A-Z a-z 0-9 . _ ~ -); default: generated
  --origin URL    a browser origin allowed to connect (scheme://host[:port]); repeatable; none by default
  --agent A, --fallback B
                  as for "agent-context acp"
  --cd DIR        the folder conversations work in; a client's cwd must lie inside it (default: here)
`,
  mcp: `usage: agent-context mcp [--agents NAMES] [--agent-json JSON]... [--gemini PATH]

Serves the agents as tools over MCP (stdio): one tool per agent whose executable is found
(${lib.knownAgents().map((a) => a.mcpTool).join(', ')}). "gemini" is the Gemini tool (runGeminiTool),
its parameters and JSON Schema as geminiToolDefinition() gives them; the others take the same parameters plus
max_result_chars. Each call returns the envelope as JSON text; a result longer than
max_result_chars (default 20000) is cut in the middle and written whole to result_file.
For Claude Code:

  claude mcp add gemini -- npx agent-context mcp

  --agents NAMES  serve only these (tool names or agent types, comma-separated)
  --agent-json JSON
                  also serve this ACP agent (an agent definition or an ACP registry entry),
                  as a tool named by its id; repeatable. With it, only the agents --agents
                  names are served besides.
  --gemini PATH   the gemini executable (default $AGENT_CONTEXT_GEMINI_BIN, else gemini on PATH)
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

/**
 * The options in `argv`, or a usage error in our words (exit 2). A value that
 * starts with a dash (`--max-bytes -5`) is taken as the value, so that the
 * option's own check reports it.
 */
function parse(command, argv, options) {
  const all = { help: { type: 'boolean', short: 'h' }, ...options };
  const joined = [];
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].startsWith('--') ? argv[i].slice(2) : undefined;
    if (name !== undefined && all[name]?.type === 'string' && i + 1 < argv.length) {
      joined.push(`--${name}=${argv[++i]}`);
    } else {
      joined.push(argv[i]);
    }
  }
  try {
    return parseArgs({ args: joined, options: all, strict: true }).values;
  } catch (err) {
    throw usageError(optionError(command, all, err), command);
  }
}

/** Node's option-parser error, said our way. */
function optionError(command, options, err) {
  const quoted = /'([^']*)'/.exec(err.message)?.[1] ?? '';
  const flag = quoted.split(' ')[0];
  const known = Object.keys(options).map((name) => `--${name}`).join(', ');
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `Unknown option '${flag}' for ${command}; its options are ${known}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return options[flag.replace(/^-+/, '')]?.type === 'boolean'
        ? `${flag} takes no value`
        : `${flag} needs a value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument '${quoted}': ${command} takes options only (${known})`;
    default:
      return `bad options: ${err.message}`;
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
    'system-flag-file': { type: 'string' },
  });
  if (args.help) return write(HELP.assemble);
  if (!args.agent) throw usageError('assemble needs --agent TYPE', 'assemble');
  const maxBytes = args['max-bytes'] === undefined ? undefined : Number(args['max-bytes']);
  if (maxBytes !== undefined && (args['max-bytes'].trim() === '' || !Number.isFinite(maxBytes) || maxBytes < 0)) {
    throw usageError(`--max-bytes must be a number >= 0, got "${args['max-bytes']}"`, 'assemble');
  }
  const input = await readJson(args.input);
  if (maxBytes !== undefined) {
    const n = maxBytes;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new CliError('INVALID_INPUT: input must be an object', 2);
    }
    input.maxBytes = n;
  }
  const logger = { warn: (m) => process.stderr.write(`${m}\n`) };
  const { output, report } = args.report
    ? lib.assembleWithReport(args.agent, input, { logger })
    : { output: lib.assemble(args.agent, input, { logger }) };
  if (!KNOWN.includes(args.agent)) {
    process.stderr.write(`agent-context: "${args.agent}" is not a known agent (${KNOWN.join(', ')}); the prompt has the plain-text layout\n`);
  }
  if (args.json) {
    const out = { prompt: output.prompt, systemFlag: output.systemFlag };
    return write(JSON.stringify(args.report ? { output: out, report } : out, null, 2));
  }
  if (args['system-flag-file'] !== undefined) {
    // Written whenever asked (empty when the agent type has no system flag),
    // so that a script can always pass the file's content on.
    try {
      fs.writeFileSync(args['system-flag-file'], output.systemFlag ?? '');
    } catch (err) {
      throw new CliError(`cannot write ${args['system-flag-file']}: ${err.message}`, 1);
    }
  }
  write(output.prompt);
  if (output.systemFlag !== undefined && args['system-flag-file'] === undefined) {
    process.stderr.write(`agent-context: systemFlag (${Buffer.byteLength(output.systemFlag)} bytes) not printed; use --json or --system-flag-file PATH to get it\n`);
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
  const args = parse('parse', argv, { agent: { type: 'string' }, json: { type: 'boolean' }, verbose: { type: 'boolean' }, input: { type: 'string' } });
  if (args.help) return write(HELP.parse);
  if (!args.agent) throw usageError('parse needs --agent TYPE', 'parse');
  const reply = lib.parseAgentOutput(args.agent, await readInput(args.input));
  if (args.json) write(JSON.stringify(reply, null, 2));
  else if (reply.text) write(reply.text);
  for (const { type, count } of (args.verbose && reply.unknownEvents) || []) {
    process.stderr.write(`agent-context: ${count} line(s) of unknown event type ${JSON.stringify(type)}\n`);
  }
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
  for (const w of warnings) {
    // The sample shows on purpose what an agent type without a layout of its
    // own gets: the library's fallback warning, said as the information it is here.
    const fallback = w.includes(`"${FALLBACK_DEMO_AGENT}"`);
    process.stderr.write(
      fallback
        ? `agent-context demo: note: "${FALLBACK_DEMO_AGENT}" stands for any agent type without a layout of its own; it gets the plain-text prompt (assemble logs for it: ${w})\n`
        : `${w}\n`,
    );
  }
}

/** `--timeout 5` as the number 5; the tool checks its range. */
function wholeNumber(args, name) {
  const value = args[name];
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim())) throw usageError(`--${name} must be a whole number, got "${value}"`, 'gemini');
  return Number(value);
}

/** SIGINT and SIGTERM abort `controller` instead of ending the process. */
function abortOnSignals(controller) {
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
}

async function gemini(argv) {
  const args = parse('gemini', argv, {
    prompt: { type: 'string' },
    input: { type: 'string' },
    cd: { type: 'string' },
    sandbox: { type: 'string' },
    'no-yolo': { type: 'boolean' },
    'session-id': { type: 'string' },
    model: { type: 'string' },
    timeout: { type: 'string' },
    'max-duration': { type: 'string' },
    'max-retries': { type: 'string' },
    'return-all-messages': { type: 'boolean' },
    'return-metrics': { type: 'boolean' },
    'log-metrics': { type: 'boolean' },
    'engineering-context': { type: 'boolean' },
    gemini: { type: 'string' },
  });
  if (args.help) return write(HELP.gemini);
  if (args.prompt !== undefined && args.input !== undefined) {
    throw usageError('give the prompt with --prompt or --input, not both', 'gemini');
  }
  let prompt = args.prompt ?? (await readInput(args.input));
  if (args['engineering-context'] && args.cd) {
    const block = lib.formatEngineeringContext(lib.readEngineeringContext(args.cd));
    if (block) prompt = `${block}\n\n${prompt}`;
  }
  const params = {
    PROMPT: prompt,
    cd: args.cd,
    sandbox: args.sandbox,
    yolo: args['no-yolo'] ? false : undefined,
    SESSION_ID: args['session-id'],
    model: args.model,
    return_all_messages: args['return-all-messages'],
    return_metrics: args['return-metrics'],
    timeout: wholeNumber(args, 'timeout'),
    max_duration: wholeNumber(args, 'max-duration'),
    max_retries: wholeNumber(args, 'max-retries'),
    log_metrics: args['log-metrics'],
  };
  for (const key of Object.keys(params)) if (params[key] === undefined) delete params[key];
  const controller = new AbortController();
  const release = abortOnSignals(controller);
  let envelope;
  try {
    envelope = await lib.runGeminiTool(params, { signal: controller.signal, command: args.gemini });
  } finally {
    release();
  }
  write(JSON.stringify(envelope, null, 2));
  if (!envelope.success) {
    process.stderr.write(`agent-context: gemini failed (${envelope.error_kind}): ${envelope.error}\n`);
    process.exitCode = envelope.error_kind === 'invalid_params' ? 2 : 1;
  }
}

/** `--timeout 1.5` as a number; the core checks its range. */
function seconds(args, name) {
  const value = args[name];
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(value.trim())) throw usageError(`--${name} must be a number, got "${value}"`, 'run');
  return Number(value);
}

/** `--agent-json`'s text as an object (the core reads and checks it). */
function agentJson(text, command) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw usageError(`--agent-json must be JSON (an agent definition or an ACP registry entry): ${err.message}`, command);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw usageError('--agent-json must be a JSON object (an agent definition or an ACP registry entry)', command);
  }
  return value;
}

async function runAgentCommand(argv) {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        cd: { type: 'string' },
        model: { type: 'string' },
        session: { type: 'string' },
        sandbox: { type: 'string' },
        yolo: { type: 'boolean' },
        command: { type: 'string' },
        protocol: { type: 'string' },
        timeout: { type: 'string' },
        'max-duration': { type: 'string' },
        'max-retries': { type: 'string' },
        json: { type: 'boolean' },
        input: { type: 'string' },
        'agent-json': { type: 'string' },
      },
    });
  } catch (err) {
    throw usageError(err.message, 'run');
  }
  const { values, positionals } = args;
  if (values.help) return write(HELP.run);
  const given = values['agent-json'] !== undefined;
  if (positionals.length !== (given ? 0 : 1)) throw usageError(given ? 'give an agent type or --agent-json, not both' : 'give one agent type (or --agent-json)', 'run');
  const agent = given ? agentJson(values['agent-json'], 'run') : positionals[0];
  if (values.cd === undefined) throw usageError('--cd is required', 'run');
  const request = values.json ? await readJson(values.input) : { prompt: await readInput(values.input) };
  const options = {
    cd: values.cd,
    model: values.model,
    sessionId: values.session,
    sandbox: values.sandbox,
    yolo: values.yolo,
    command: values.command,
    protocol: values.protocol,
    timeout: seconds(values, 'timeout'),
    maxDuration: seconds(values, 'max-duration'),
    maxRetries: seconds(values, 'max-retries'),
  };
  for (const key of Object.keys(options)) if (options[key] === undefined) delete options[key];
  const controller = new AbortController();
  const release = abortOnSignals(controller);
  let result;
  try {
    result = await lib.runAgent(agent, request, { ...options, signal: controller.signal });
  } finally {
    release();
  }
  write(JSON.stringify(result, null, 2));
  if (!result.success) {
    process.stderr.write(`agent-context: ${result.agentType} failed (${result.error.kind}): ${result.error.message}\n`);
    process.exitCode = result.error.kind === 'invalid_params' ? 2 : 1;
  }
}

async function mcp(argv) {
  const args = parse('mcp', argv, { gemini: { type: 'string' }, agents: { type: 'string' }, 'agent-json': { type: 'string', multiple: true } });
  const definitions = (args['agent-json'] ?? []).map((text) => agentJson(text, 'mcp'));
  if (args.help) return write(HELP.mcp);
  let agents;
  if (args.agents !== undefined) {
    agents = args.agents.split(',').map((a) => a.trim()).filter(Boolean);
    const known = lib.knownAgents().flatMap((a) => [a.mcpTool, a.agentType]);
    const unknown = agents.filter((a) => !known.includes(a));
    if (!agents.length || unknown.length) {
      const tools = lib.knownAgents().map((a) => a.mcpTool).join(', ');
      throw usageError(`--agents ${unknown.length ? `names no agent: ${unknown.join(', ')}` : 'is empty'}; the tools are ${tools}`, 'mcp');
    }
  }
  const { serveMcp } = require('../pkg/node/mcp-server.cjs');
  const { version } = require('../package.json');
  const { closed, abortAll, tools, missing } = await serveMcp({ lib, version, command: args.gemini, agents, definitions });
  const notFound = missing.length ? `; not found: ${missing.join(', ')}` : '';
  process.stderr.write(`agent-context mcp: tools ${tools.length ? tools.join(', ') : 'none'}${notFound}\n`);
  const stop = () => {
    abortAll(); // kills the process groups of the calls in flight, at once
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await closed;
}

/** `--agent`/`--fallback`'s value: an agent type, or JSON (a definition, or `{ agent, options }`). */
function agentArg(text, flag, command) {
  if (!text.trim().startsWith('{')) {
    if (!KNOWN.includes(text)) throw usageError(`${flag} names no agent: ${text}; the agents are ${KNOWN.join(', ')}, or JSON (an agent definition, or {"agent", "options"})`, command);
    return text;
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw usageError(`${flag} must be an agent type or JSON: ${err.message}`, command);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw usageError(`${flag} must be an agent type or a JSON object`, command);
  return value;
}

/** The options `--agent`, `--fallback`, `--store` and `--cd` make for serveConversations. */
function conversationSettings(args, command) {
  // The default: the registry's first agent.
  const primary = agentArg(args.agent ?? KNOWN[0], '--agent', command);
  const [agent, agentOptions] = primary.agent !== undefined ? [primary.agent, primary.options ?? {}] : [primary, {}];
  const fallback = (args.fallback ?? []).map((text) => agentArg(text, '--fallback', command));
  const store = storeFor(args.store ?? require('node:path').join(require('node:os').homedir(), '.agent-context', 'conversations'));
  return { store, agent, fallback, sessionOptions: { ...agentOptions, ...(args.cd !== undefined && { cd: args.cd }) } };
}

/** The store of conversations: a folder, or a PostgreSQL database (`postgres://…`, the `pg` package installed). */
function storeFor(where) {
  return require('../pkg/node/store-from-url.cjs').storeFromUrl(where);
}

const CONVERSATION_OPTIONS = { agent: { type: 'string' }, fallback: { type: 'string', multiple: true }, store: { type: 'string' }, cd: { type: 'string' } };

async function acp(argv) {
  const args = parse('acp', argv, CONVERSATION_OPTIONS);
  if (args.help) return write(HELP.acp);
  const settings = conversationSettings(args, 'acp');
  const { serveConversationsOnStdio } = require('../pkg/node/serve-conversations.cjs');
  const served = await serveConversationsOnStdio(lib, settings, { confine: args.cd !== undefined });
  const stop = () => served.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await served.closed;
  // Standard input ended: every conversation and agent is closed.
  process.exit(0);
}

async function serve(argv) {
  const args = parse('serve', argv, { ...CONVERSATION_OPTIONS, port: { type: 'string' }, host: { type: 'string' }, token: { type: 'string' }, origin: { type: 'string', multiple: true } });
  if (args.help) return write(HELP.serve);
  const settings = conversationSettings(args, 'serve');
  const port = args.port === undefined ? undefined : Number(args.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) throw usageError(`--port must be a port number (0 to 65535), got ${args.port}`, 'serve');
  const server = await lib.serveConversations({
    ...settings,
    listen: { ...(port !== undefined && { port }), ...(args.host !== undefined && { host: args.host }) },
    ...(args.token !== undefined && { token: args.token }),
    ...(args.origin && { origins: args.origin }),
    logger: (message, level) => process.stderr.write(`agent-context serve: ${level === 'warn' ? 'warning: ' : ''}${message}\n`),
  });
  write(`agent-context serve: ${server.url} (WebSocket: ${server.url.replace(/^http/, 'ws')})`);
  // The token is said once, here, and only when it was generated.
  if (args.token === undefined) write(`token: ${server.token}`);
  await new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  process.exit(0);
}

const COMMANDS = { assemble, messages, parse: parseOutput, demo, gemini, run: runAgentCommand, mcp, acp, serve };

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    return write(HELP.main);
  }
  if (command === '--version' || command === '-V' || command === 'version') {
    return write(require('../package.json').version);
  }
  const run = COMMANDS[command];
  if (!run) {
    const what = command.startsWith('-') ? `unknown option "${command}"` : `unknown command "${command}"`;
    throw usageError(`${what}; the commands are ${Object.keys(COMMANDS).join(', ')}`, 'main');
  }
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
