// `agent-context mcp`: an MCP server on stdin/stdout (the official v2
// server package, @modelcontextprotocol/server, required only here: a
// library user who never runs `agent-context mcp` never loads it) with one
// tool per agent whose executable is found. The tools, their
// names and parameters come from the core's registry (`__agentTools`):
// `gemini` is runGeminiTool exactly; `claude`, `codex`, `qwen`,
// `copilot`, `opencode` take the same parameters plus `max_result_chars`
// and run through runAgent. Each call answers with the Gemini tool's envelope as
// JSON text (`isError` when `success` is false), its `result` bounded by
// the core (`__AgentToolCall`); the whole reply of a cut result is written
// here to the file the envelope names (`result_file`).
// Shipped as pkg/node/mcp-server.cjs.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** While a call runs, a client that sent a progress token hears from it this often
 * (clients whose request timeout restarts on progress then wait as long as the run). */
const PROGRESS_MS = 5000;

/** Where cut results are written whole (kept: the caller reads them after the call). */
const RESULTS_DIR = path.join(os.tmpdir(), 'agent-context-results');

/** The core's tool list and call class (the Node-only second module). */
function toolCore() {
  return require('../core/agent_context_node.cjs');
}

/**
 * The tools to serve: every registry agent (or those `only` names, by tool
 * name or agent type) whose executable is found in `env`. `gemini` is
 * served when its executable is named (`command`, `$AGENT_CONTEXT_GEMINI_BIN`)
 * or found. Resolves `{ tools, missing }` (`missing`: the chosen agents'
 * tool names that were not found).
 */
async function findTools({ env, command, only, definitions = [] }) {
  const { resolveAgentCommand } = require('../host/agent-platform.cjs');
  const { COMMAND_ENV } = require('./gemini-tool.cjs');
  const all = toolCore().__agentTools();
  // With agent definitions (`--agent-json`) only the agents named besides them are served.
  const chosen = only || definitions.length ? all.filter((t) => only?.includes(t.name) || only?.includes(t.agentType)) : all;
  // Each definition's tool, named by its id (the core reads the definition; a bad one throws AgentContextError).
  chosen.push(...definitions.map((definition) => ({ ...toolCore().__definitionTool(definition), definition })));
  const found = await Promise.all(
    chosen.map(async (tool) => {
      if (tool.name === 'gemini' && (command || env[COMMAND_ENV])) return true;
      if (tool.definition) return (await resolveAgentCommand(undefined, { env, command: tool.command })).found;
      return (await resolveAgentCommand(tool.agentType, { env })).found;
    }),
  );
  return {
    tools: chosen.filter((_, i) => found[i]),
    missing: chosen.filter((_, i) => !found[i]).map((t) => t.name),
  };
}

/** The envelope's result within its limit; a cut one written whole to `result_file`. */
function bound(call, envelope, toolName) {
  const file = path.join(RESULTS_DIR, `${toolName}-${new Date().toISOString().replace(/[:.]/g, '-')}-${Math.random().toString(36).slice(2, 10)}.txt`);
  const { envelope: bounded, fullResult } = call.bound(envelope, file);
  if (fullResult === undefined || fullResult === null) return bounded;
  try {
    fs.mkdirSync(RESULTS_DIR, { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, fullResult, { mode: 0o600 });
    return bounded;
  } catch (err) {
    return call.withoutResultFile(bounded, err.code || err.message);
  }
}

/** One tool call: the core reads the parameters, runs the agent, writes the envelope. */
async function callTool({ lib, tool, args, signal, command }) {
  const { __AgentToolCall } = toolCore();
  const started = Date.now();
  const call = tool.definition ? __AgentToolCall.forDefinition(tool.definition, args ?? {}) : new __AgentToolCall(tool.name, args ?? {});
  try {
    const plan = call.plan();
    let envelope;
    if (plan === undefined) envelope = call.invalidEnvelope(Date.now() - started);
    else if (plan.gemini !== undefined) envelope = await lib.runGeminiTool(plan.gemini, { signal, command });
    else {
      const events = call.keepsEvents() ? [] : undefined;
      const onEvent = events && ((event) => events.push(event));
      const { runAgent } = require('./agent-run.cjs');
      const done = await runAgent(lib, tool.definition ?? tool.agentType, { prompt: plan.prompt }, { ...plan.options, signal, onEvent }, (result, ms) => call.runEnvelope(result, events, ms));
      if (done.metricsLine) process.stderr.write(`${done.metricsLine}\n`);
      envelope = done.envelope;
    }
    return bound(call, envelope, tool.name);
  } finally {
    call.free();
  }
}

/**
 * Serves until the client goes away. `lib` is the package's Node entry;
 * `command` the gemini executable (or undefined for the default); `agents`
 * the tool names or agent types to serve (default: every one found, or
 * none when `definitions` are given); `definitions` agent definitions or ACP
 * registry entries, one tool each, named by its id.
 * Resolves `{ closed, abortAll, tools, missing }`: `closed` settles when
 * the transport closes, and `abortAll()` aborts every call in flight
 * (their process groups are killed at once).
 */
async function serveMcp({ lib, version, command, agents, definitions, env = process.env }) {
  const { Server, ProtocolError, ProtocolErrorCode } = require('@modelcontextprotocol/server');
  const { StdioServerTransport } = require('@modelcontextprotocol/server/stdio');

  const { tools, missing } = await findTools({ env, command, only: agents, definitions });
  const byName = new Map(tools.map((t) => [t.name, t]));
  const names = lib.knownAgents().reduce((m, a) => m.set(a.agentType, a.name), new Map());
  for (const tool of tools) if (tool.definition) names.set(tool.agentType, tool.definition.name ?? tool.agentType);
  const inFlight = new Set();
  const server = new Server({ name: 'agent-context', version }, { capabilities: { tools: {} } });

  server.setRequestHandler('tools/list', async () => ({
    tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { signal, notify } = ctx.mcpReq;
    const { name, arguments: args } = request.params;
    const tool = byName.get(name);
    if (!tool) {
      const served = tools.length ? tools.map((t) => `"${t.name}"`).join(', ') : 'none (no agent was found)';
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool "${name}": this server's tools are ${served}`);
    }
    // The client's cancellation, or the server closing, aborts the call.
    const controller = new AbortController();
    const onCancel = () => controller.abort();
    signal.addEventListener('abort', onCancel, { once: true });
    inFlight.add(controller);
    const token = request.params._meta?.progressToken ?? ctx.mcpReq._meta?.progressToken;
    const started = Date.now();
    const who = tool.name === 'gemini' ? 'Gemini CLI' : names.get(tool.agentType);
    const ticker =
      token === undefined
        ? undefined
        : setInterval(() => {
            const seconds = Math.round((Date.now() - started) / 1000);
            const params = { progressToken: token, progress: seconds, message: `${who} has been running for ${seconds} s` };
            notify({ method: 'notifications/progress', params }).catch(() => {});
          }, PROGRESS_MS);
    try {
      const envelope = await callTool({ lib, tool, args, signal: controller.signal, command: tool.name === 'gemini' ? command : undefined });
      return { content: [{ type: 'text', text: JSON.stringify(envelope, null, 2) }], isError: !envelope.success };
    } finally {
      clearInterval(ticker);
      inFlight.delete(controller);
      signal.removeEventListener('abort', onCancel);
    }
  });

  const abortAll = () => {
    for (const controller of inFlight) controller.abort();
  };
  const closed = new Promise((resolve) => {
    server.onclose = () => {
      abortAll();
      resolve();
    };
  });
  await server.connect(new StdioServerTransport());
  // The SDK's transport does not watch for the end of its input: the client is gone.
  process.stdin.once('end', () => server.close());
  return { closed, abortAll, tools: tools.map((t) => t.name), missing };
}

module.exports = { serveMcp, findTools };
