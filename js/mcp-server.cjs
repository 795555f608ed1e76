// `agent-context mcp`: an MCP server on stdin/stdout (the official v2
// server package, @modelcontextprotocol/server, required only here: a
// library user who never runs `agent-context mcp` never loads it) with one tool, `gemini`,
// which is runGeminiTool: seed 003's parameters and JSON Schema in, the
// envelope out as JSON text (`isError` when `success` is false).
// Shipped as pkg/node/mcp-server.cjs.
'use strict';

/** While a call runs, a client that sent a progress token hears from it this often
 * (clients whose request timeout restarts on progress then wait as long as the run). */
const PROGRESS_MS = 5000;

/**
 * Serves until the client goes away. `lib` is the package's Node entry;
 * `command` the gemini executable (or undefined for the default). Resolves
 * `{ closed, abortAll }`: `closed` settles when the transport closes, and
 * `abortAll()` aborts every call in flight (their process groups are killed
 * at once).
 */
async function serveMcp({ lib, version, command }) {
  const { Server, ProtocolError, ProtocolErrorCode } = require('@modelcontextprotocol/server');
  const { StdioServerTransport } = require('@modelcontextprotocol/server/stdio');

  const definition = lib.geminiToolDefinition();
  const inFlight = new Set();
  const server = new Server({ name: 'agent-context', version }, { capabilities: { tools: {} } });

  server.setRequestHandler('tools/list', async () => ({ tools: [definition] }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { signal, notify } = ctx.mcpReq;
    const { name, arguments: args } = request.params;
    if (name !== definition.name) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool "${name}": this server has one tool, "${definition.name}"`);
    }
    // The client's cancellation, or the server closing, aborts the call.
    const controller = new AbortController();
    const onCancel = () => controller.abort();
    signal.addEventListener('abort', onCancel, { once: true });
    inFlight.add(controller);
    const token = request.params._meta?.progressToken ?? ctx.mcpReq._meta?.progressToken;
    const started = Date.now();
    const ticker =
      token === undefined
        ? undefined
        : setInterval(() => {
            const seconds = Math.round((Date.now() - started) / 1000);
            const params = { progressToken: token, progress: seconds, message: `Gemini CLI has been running for ${seconds} s` };
            notify({ method: 'notifications/progress', params }).catch(() => {});
          }, PROGRESS_MS);
    try {
      const envelope = await lib.runGeminiTool(args ?? {}, { signal: controller.signal, command });
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
  return { closed, abortAll };
}

module.exports = { serveMcp };
