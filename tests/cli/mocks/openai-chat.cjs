// OpenAI Chat Completions: POST …/chat/completions, streamed (`stream: true`,
// with `stream_options.include_usage` the last chunk carries the usage) or
// not; GET …/models lists one model. What Qwen Code, GitHub Copilot CLI and
// opencode call with an OpenAI-compatible provider.
//
// Scenarios: `plain` (PLAIN_PIECES), `tool` (a call of the CLI's own file-
// reading tool on the notes file, then an answer quoting its output),
// `shell` (a call of its shell tool, `cat notes.txt`, then an answer),
// `error400` (every call rejected, HTTP 400), `error500` (every call fails,
// HTTP 500), `error401` (a bad key), `error429` (rate limited), `write` /
// `writeOutside` (a call of its file-writing tool on WRITE_FILE in the notes'
// folder / the folder above, then an answer quoting the tool's result:
// Qwen's `write_file`, opencode's `apply_patch`). A call beside the turn (a
// title, Qwen's memory extraction and its suggestion of the next prompt,
// both with tools: mocks/kinds.cjs) is a side call: it gets SIDE_TEXT, with
// SIDE_USAGE, and is none of a scenario's calls.
// `stall`: every call gets its response headers and then nothing, ever.
// `stallOnce`: the first main call stalls so; the later ones are `plain`'s.
// `mcp`: a call of the tool whose name ends in `record_note` (an MCP
// server's, prefixed as the agent names it), then an answer quoting its result.
// `toolStall`: `tool`'s call of the file-reading tool, then the call that
// brings its result back stalls (the run can only end by a kill).
'use strict';
const path = require('node:path');
const { mcpToolName, MCP_NOTE, answerAfterNote, stall, PLAIN_PIECES, WRITE_FILE, WRITE_TEXT, answerAfterTool, answerAfterWrite, json, startSse } = require('./common.cjs');

const MODEL = 'gpt-mock';
/** Each main call's usage; its prompt tokens include 20 cached ones. */
const MAIN_USAGE = { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129, prompt_tokens_details: { cached_tokens: 20 } };
const SIDE_USAGE = { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 };
const SIDE_TEXT = 'Mock side answer';
const ERROR_400 = { error: { message: 'Mock rejects this request: bad parameter.', type: 'invalid_request_error', code: 'invalid_request' } };
const ERROR_500 = { error: { message: 'Mock server error: the model is unavailable.', type: 'server_error', code: 'server_error' } };
const ERROR_401 = { error: { message: 'Incorrect API key provided: sk-mock. You can find your API key in your account settings.', type: 'invalid_request_error', code: 'invalid_api_key' } };
const ERROR_429 = { error: { message: 'Rate limit reached for requests. Please try again later.', type: 'requests', code: 'rate_limit_exceeded' } };

/** The file-reading tools the CLIs offer, with the argument naming the path. */
const READ_TOOLS = [
  { name: 'read_file', path: ['absolute_path', 'file_path', 'path'] }, // Qwen Code
  { name: 'view', path: ['path'] }, // Copilot
  { name: 'read', path: ['filePath', 'path'] }, // opencode
  { name: 'read_files', path: ['files'], wrap: (p) => [{ path: p }] }, // Cline: { files: [{ path }] }
  { name: 'Read', path: ['file_path', 'path'] }, // Factory's Droid, Kimi Code
  { name: 'ReadFile', path: ['path'] }, // Kimi CLI 1.x
];

let counter = 0;
/** Main calls answered so far (`stallOnce`). */
let mainCalls = 0;

/** The call that writes `file` with the file-writing tool `body` offers, or null. */
function writeCall(body, file) {
  const names = (body.tools ?? []).map((t) => t.function?.name ?? t.name);
  if (names.includes('write_file')) return { name: 'write_file', arguments: JSON.stringify({ file_path: file, content: WRITE_TEXT }) };
  const patchText = `*** Begin Patch\n*** Add File: ${file}\n+${WRITE_TEXT.trimEnd()}\n*** End Patch`;
  if (names.includes('apply_patch')) return { name: 'apply_patch', arguments: JSON.stringify({ patchText }) };
  // Copilot offers apply_patch as a freeform (`custom`) tool: its input is the patch itself.
  if ((body.tools ?? []).some((t) => t.type === 'custom' && t.custom?.name === 'apply_patch')) return { name: 'apply_patch', custom: true, input: `${patchText}\n` };
  return null;
}

/** The shell tools the CLIs offer. */
const SHELL_TOOLS = ['run_shell_command', 'bash', 'run_commands', 'Execute', 'Shell', 'Bash'];

/** The shell call's arguments: Cline's `run_commands` takes a list; Droid's `Execute` wants a risk level. */
function shellArguments(tool) {
  if (tool === 'run_commands') return { commands: ['cat notes.txt'] };
  if (tool === 'Execute') return { command: 'cat notes.txt', summary: 'Read the notes file', riskLevel: 'low', riskLevelReason: 'It only reads a file.' };
  return { command: 'cat notes.txt', description: 'Read the notes' };
}

/** The shell tool `body` offers, or null. */
function shellTool(body) {
  const names = (body.tools ?? []).map((t) => t.function?.name ?? t.name);
  return SHELL_TOOLS.find((n) => names.includes(n)) ?? null;
}

/** The read tool `body` offers and its path argument, or null. */
function readTool(body) {
  for (const want of READ_TOOLS) {
    const tool = (body.tools ?? []).find((t) => (t.function?.name ?? t.name) === want.name);
    if (!tool) continue;
    const props = Object.keys(tool.function?.parameters?.properties ?? {});
    const arg = want.path.find((p) => props.includes(p)) ?? want.path[0];
    return { name: want.name, arg, wrap: want.wrap };
  }
  return null;
}

/** The tool results the CLI sent back, joined, or null. */
function toolResults(body) {
  const results = (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
  return results.length ? results.join('\n') : null;
}

function chunk(id, delta, finish, extra = {}) {
  return { id, object: 'chat.completion.chunk', created: 1767225600, model: MODEL, choices: [{ index: 0, delta, finish_reason: finish }], ...extra };
}

/** Streams `pieces` of text and/or one tool call, then the usage chunk. */
function stream(res, body, { pieces = [], call = null, usage }) {
  counter += 1;
  const id = `chatcmpl-mock-${counter}`;
  startSse(res);
  const write = (data) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  write(chunk(id, { role: 'assistant', content: '' }, null));
  for (const piece of pieces) write(chunk(id, { content: piece }, null));
  if (call?.custom) {
    write(chunk(id, { tool_calls: [{ index: 0, id: `call_mock_${counter}`, type: 'custom', custom: { name: call.name, input: '' } }] }, null));
    write(chunk(id, { tool_calls: [{ index: 0, custom: { input: call.input } }] }, null));
  } else if (call) {
    write(chunk(id, { tool_calls: [{ index: 0, id: `call_mock_${counter}`, type: 'function', function: { name: call.name, arguments: '' } }] }, null));
    write(chunk(id, { tool_calls: [{ index: 0, function: { arguments: call.arguments } }] }, null));
  }
  write(chunk(id, {}, call ? 'tool_calls' : 'stop'));
  if (body.stream_options?.include_usage) write({ id, object: 'chat.completion.chunk', created: 1767225600, model: MODEL, choices: [], usage });
  res.write('data: [DONE]\n\n');
  res.end();
}

/** The same answer as one JSON body (`stream: false`). */
function whole(res, { pieces = [], usage }) {
  counter += 1;
  json(res, 200, {
    id: `chatcmpl-mock-${counter}`, object: 'chat.completion', created: 1767225600, model: MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content: pieces.join('') }, finish_reason: 'stop' }],
    usage,
  });
}

function respond(req, res, scenario, notesPath) {
  const { url, body } = req;
  if (req.kind === 'models') {
    return json(res, 200, { object: 'list', data: [{ id: MODEL, object: 'model', created: 1767225600, owned_by: 'mock' }] });
  }
  if (req.kind === 'other') {
    return json(res, 404, { error: { message: `not mocked: ${req.method} ${url}`, type: 'invalid_request_error' } });
  }
  if (scenario === 'stall') return stall(res);
  if (scenario === 'error400') return json(res, 400, ERROR_400);
  if (scenario === 'error500') {
    // Retry soon, as a server may say: the OpenAI SDK's clients (opencode,
    // Copilot) then retry within milliseconds instead of their own backoff
    // (opencode's 500 run: ~96 s -> ~4 s, Copilot's ~18 s -> ~6 s), the same
    // number of times. Qwen Code's own retry loop does not read it.
    res.setHeader('retry-after-ms', '10');
    return json(res, 500, ERROR_500);
  }
  if (scenario === 'error401') return json(res, 401, ERROR_401);
  if (scenario === 'error429') {
    // When to try again, in seconds, as a rate-limited API says it.
    res.setHeader('retry-after', '1');
    return json(res, 429, ERROR_429);
  }
  const main = req.kind === 'turn';
  if (main) mainCalls += 1;
  if (scenario === 'stallOnce' && main && mainCalls === 1) return stall(res);
  let answer;
  if (!main) answer = { pieces: [SIDE_TEXT], usage: SIDE_USAGE };
  else if (scenario === 'tool' || scenario === 'toolStall') {
    const results = toolResults(body);
    const tool = readTool(body);
    if (results !== null && scenario === 'toolStall') return stall(res);
    if (results === null && tool) {
      answer = { call: { name: tool.name, arguments: JSON.stringify({ [tool.arg]: tool.wrap ? tool.wrap(notesPath) : notesPath }) }, usage: MAIN_USAGE };
    } else {
      answer = { pieces: [answerAfterTool(results ?? '')], usage: MAIN_USAGE };
    }
  } else if (scenario === 'shell') {
    const results = toolResults(body);
    const tool = shellTool(body);
    if (results === null && tool) {
      answer = { call: { name: tool, arguments: JSON.stringify(shellArguments(tool)) }, usage: MAIN_USAGE };
    } else {
      answer = { pieces: [answerAfterTool(results ?? '')], usage: MAIN_USAGE };
    }
  } else if (scenario === 'mcp') {
    const results = toolResults(body);
    const name = mcpToolName((body.tools ?? []).map((t) => t.function?.name ?? t.name));
    if (results === null && name) answer = { call: { name, arguments: JSON.stringify({ text: MCP_NOTE }) }, usage: MAIN_USAGE };
    else answer = { pieces: [results === null ? 'No record_note tool was offered.' : answerAfterNote(results)], usage: MAIN_USAGE };
  } else if (scenario === 'write' || scenario === 'writeOutside') {
    const results = toolResults(body);
    const folder = path.dirname(notesPath);
    const call = writeCall(body, path.join(scenario === 'write' ? folder : path.dirname(folder), WRITE_FILE));
    if (results === null && call) answer = { call, usage: MAIN_USAGE };
    else answer = { pieces: [answerAfterWrite(results ?? '')], usage: MAIN_USAGE };
  } else answer = { pieces: PLAIN_PIECES, usage: MAIN_USAGE };
  if (body?.stream) return stream(res, body, answer);
  return whole(res, answer);
}

module.exports = { respond, MODEL, MAIN_USAGE, SIDE_USAGE, SIDE_TEXT, ERROR_400, ERROR_500, ERROR_401, ERROR_429 };
