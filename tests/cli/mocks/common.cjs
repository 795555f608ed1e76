// What every mock API answers, whatever its wire format.
'use strict';

/** The file the tool scenario asks the CLI to read, and what it holds. */
const NOTES_FILE = 'notes.txt';
const NOTES_TEXT = 'The launch code is 4217.\n';

/** The file the write scenarios ask the CLI to write (`write`: in its
 * folder; `writeOutside`: in the folder above it), and what it writes. */
const WRITE_FILE = 'written.txt';
const WRITE_TEXT = 'Written by the mock.\n';

/** The answer after a write's result came back. */
function answerAfterWrite(toolOutput) {
  return `The write tool answered: ${JSON.stringify(String(toolOutput).slice(0, 300))}`;
}

/** The plain answer, sent in these pieces (deltas). */
const PLAIN_PIECES = ['Mock reply: ', 'use React ', 'for the dashboard.'];

/**
 * The long answer (scenario `long`): 64 numbered pieces of about 1 000
 * characters, some of them not ASCII — more than an MCP result may carry.
 */
const LONG_PIECES = Array.from({ length: 64 }, (_, i) => `[piece ${String(i).padStart(2, '0')}: ${'lorem ipsum dolor sit amet, '.repeat(35)}héllo 世界 🙂]\n`);

/** The answer after the tool result came back; it quotes what the tool read. */
function answerAfterTool(toolOutput) {
  return /4217/.test(toolOutput)
    ? 'The notes say the launch code is 4217.'
    : `The tool result did not contain the code: ${JSON.stringify(toolOutput.slice(0, 200))}`;
}

/** The `mcp` scenario: the tool it asks for, found in the request's tool
 * list by this suffix (each agent prefixes an MCP tool's name its own way:
 * `mcp__notes__record_note`, `notes__record_note`, `notes_record_note`, …),
 * the note it asks to record, and its answer once the tool's result is back. */
const MCP_TOOL_SUFFIX = 'record_note';
const MCP_NOTE = 'Launch window opens at 4217.';
function mcpToolName(names) {
  return names.find((n) => typeof n === 'string' && n.endsWith(MCP_TOOL_SUFFIX)) ?? null;
}
function answerAfterNote(toolOutput) {
  return /Noted: Launch window opens at 4217/.test(toolOutput)
    ? 'The note server recorded the launch window.'
    : `The note tool did not answer as expected: ${JSON.stringify(String(toolOutput).slice(0, 300))}`;
}

/**
 * A value in the shape `schema` asks for (scenario `structured`): the first
 * of an `enum`, a `const`, the smallest number allowed, an object with
 * every property it names. Enough for the schemas the tests give.
 */
function valueFor(schema, defs = schema?.$defs ?? {}) {
  if (!schema || typeof schema !== 'object') return null;
  if (schema.$ref) return valueFor(defs[schema.$ref.replace('#/$defs/', '')], defs);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branch = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branch)) return valueFor(branch[0], defs);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) {
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, valueFor(v, defs)]));
  }
  if (type === 'array') return schema.minItems ? Array.from({ length: schema.minItems }, () => valueFor(schema.items, defs)) : [];
  if (type === 'integer' || type === 'number') return schema.minimum ?? 0;
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  return 'mock'.padEnd(schema.minLength ?? 0, '!');
}

/** Writes one server-sent event. */
function sse(res, event, data) {
  if (event) res.write(`event: ${event}\n`);
  res.write(`data: ${JSON.stringify(data)}\n\n`);
}

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function startSse(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

/** Starts an event stream and sends nothing more; the client gives up or the mock exits. */
function stall(res) {
  startSse(res);
  res.flushHeaders();
}

/** How often each mark of the `marked500` and `marked429` scenarios has failed a call. */
const failedMarks = new Map();

/**
 * The `marked500` scenario (`status` 500) and the `marked429` one (`status`
 * 429): a call of the agent loop (`loopCall`: one that offers tools, not a
 * side call such as a session title) fails with HTTP `status` while its
 * body holds a mark `FAIL_<status>_TIMES_<n>_<id>` that has failed fewer
 * than n calls; every call holding it fails it once more. A prompt names
 * how often its own turn's model call fails, whatever calls came before it
 * or the history the agent sends again.
 */
function failsMarked(body, loopCall, status = 500) {
  if (!loopCall) return false;
  const pattern = new RegExp(`FAIL_${status}_TIMES_\\d+_[A-Za-z0-9]+`, 'g');
  const marks = new Set(JSON.stringify(body ?? {}).match(pattern) ?? []);
  for (const mark of marks) {
    const failed = failedMarks.get(mark) ?? 0;
    if (failed < Number(mark.split('_')[3])) {
      failedMarks.set(mark, failed + 1);
      return true;
    }
  }
  return false;
}

module.exports = { failsMarked, valueFor, MCP_TOOL_SUFFIX, MCP_NOTE, mcpToolName, answerAfterNote, stall, NOTES_FILE, NOTES_TEXT, WRITE_FILE, WRITE_TEXT, PLAIN_PIECES, LONG_PIECES, answerAfterTool, answerAfterWrite, sse, json, startSse };
