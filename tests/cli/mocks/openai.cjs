// OpenAI Responses API: POST /v1/responses with `stream: true` answers the
// event stream (response.created … response.completed); GET /v1/models lists
// one model.
'use strict';
const { failsMarked, valueFor, mcpToolName, MCP_NOTE, answerAfterNote, stall, NOTES_FILE, WRITE_FILE, WRITE_TEXT, PLAIN_PIECES, LONG_PIECES, answerAfterTool, answerAfterWrite, sse, json, startSse } = require('./common.cjs');

let counter = 0;
/** The turn's calls answered so far (`flaky`, `stallOnce`, …: mocks/kinds.cjs). */
let turnCalls = 0;
const USAGE = {
  input_tokens: 120, input_tokens_details: { cached_tokens: 20 },
  output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 129,
};

/** The output of every function call the CLI sent back, or null when none. */
function toolOutput(body) {
  const outputs = (body?.input ?? []).filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output').map((i) => JSON.stringify(i.output));
  return outputs.length ? outputs.join('\n') : null;
}

/** `items` (a message's text pieces, or a function call) → the event stream. */
function stream(res, items) {
  counter += 1;
  const id = `resp_mock_${counter}`;
  startSse(res);
  sse(res, 'response.created', { type: 'response.created', response: { id, status: 'in_progress' } });
  const done = [];
  items.forEach((item, outputIndex) => {
    if (item.pieces) {
      const itemId = `msg_mock_${counter}_${outputIndex}`;
      sse(res, 'response.output_item.added', {
        type: 'response.output_item.added', output_index: outputIndex,
        item: { type: 'message', id: itemId, role: 'assistant', status: 'in_progress', content: [] },
      });
      for (const delta of item.pieces) {
        sse(res, 'response.output_text.delta', {
          type: 'response.output_text.delta', item_id: itemId, output_index: outputIndex, content_index: 0, delta,
        });
      }
      const message = {
        type: 'message', id: itemId, role: 'assistant', status: 'completed',
        content: [{ type: 'output_text', text: item.pieces.join(''), annotations: [] }],
      };
      sse(res, 'response.output_item.done', { type: 'response.output_item.done', output_index: outputIndex, item: message });
      done.push(message);
    } else {
      const call = { type: 'function_call', id: `fc_mock_${counter}`, call_id: `call_mock_${counter}`, status: 'completed', ...item };
      sse(res, 'response.output_item.added', { type: 'response.output_item.added', output_index: outputIndex, item: call });
      sse(res, 'response.output_item.done', { type: 'response.output_item.done', output_index: outputIndex, item: call });
      done.push(call);
    }
  });
  sse(res, 'response.completed', { type: 'response.completed', response: { id, status: 'completed', output: done, usage: USAGE } });
  res.end();
}

/** The call that reads the notes, with the shell tool the CLI offers:
 * `exec_command` ({ cmd }), or `shell` ({ command: argv }) in the releases
 * before it (0.42.0 offers only `shell`). */
function readNotesCall(body) {
  const offered = (body?.tools ?? []).map((t) => t.name);
  if (!offered.includes('exec_command') && offered.includes('shell')) {
    return { name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', `cat ${NOTES_FILE}`] }) };
  }
  return { name: 'exec_command', arguments: JSON.stringify({ cmd: `cat ${NOTES_FILE}` }) };
}

/** The call of the MCP note tool the request offers, or null: Codex 0.169
 * offers an MCP server's tools in a namespace (`mcp__notes`), and a call of
 * one names both. Tools a search found (`tool_search_output` in the input)
 * count as offered. */
function noteCall(body) {
  const found = (body?.input ?? []).filter((i) => i.type === 'tool_search_output').flatMap((i) => i.tools ?? []);
  for (const tool of [...(body?.tools ?? []), ...found]) {
    if (mcpToolName([tool.name])) return { name: tool.name };
    const inner = mcpToolName((tool.tools ?? []).map((t) => t.name));
    if (tool.type === 'namespace' && inner) return { name: inner, namespace: tool.name };
  }
  return null;
}

/** True when the request offers a client-side `tool_search` (Codex defers
 * MCP tools behind it for the models that support it) and no search was made yet. */
function searchesTools(body) {
  return (body?.tools ?? []).some((t) => t.type === 'tool_search') && !(body?.input ?? []).some((i) => i.type === 'tool_search_output');
}

function respond(req, res, scenario) {
  if (req.kind === 'models') {
    return json(res, 200, { object: 'list', data: [{ id: 'gpt-mock', object: 'model', owned_by: 'mock' }] });
  }
  if (req.kind === 'other') return json(res, 404, { error: { message: `not mocked: ${req.url}`, type: 'invalid_request_error' } });

  // The scenario's calls are the turn's (mocks/kinds.cjs): a side call
  // (Codex's title for a new thread, …) fails only where every call does,
  // and is answered plainly.
  const turn = req.kind === 'turn';
  if (turn) turnCalls += 1;
  if (scenario === 'flaky' && turn && turnCalls === 1) {
    return json(res, 503, { error: { message: 'Mock is overloaded, try again.', type: 'server_error', code: 'server_error' } });
  }
  if (scenario === 'flaky500' && turn && turnCalls === 1) {
    return json(res, 500, { error: { message: 'Mock internal error, please retry.', type: 'server_error', code: 'server_error' } });
  }
  if (scenario === 'marked500' && failsMarked(req.body, turn)) {
    return json(res, 500, { error: { message: 'Mock internal error, please retry.', type: 'server_error', code: 'server_error' } });
  }
  if (scenario === 'auth') {
    return json(res, 401, { error: { message: 'Incorrect API key provided: sk-mock.', type: 'invalid_request_error', code: 'invalid_api_key' } });
  }
  if (scenario === 'quota' || (scenario === 'marked429' && failsMarked(req.body, turn, 429))) {
    return json(res, 429, { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', code: 'insufficient_quota' } });
  }
  if (scenario === 'stall' || (scenario === 'stallOnce' && turn && turnCalls === 1) || (scenario === 'stallSecond' && turn && turnCalls === 2)) return stall(res);
  if (scenario === 'reject') return json(res, 400, { error: { message: 'Mock rejects this request: temperature is out of range.', type: 'invalid_request_error', code: null } });
  if (scenario === 'error' || scenario === 'error500') {
    return json(res, 500, { error: { message: 'Mock server error: the model is unavailable.', type: 'server_error', code: 'server_error' } });
  }
  if (!turn) return stream(res, [{ pieces: PLAIN_PIECES }]);
  if (scenario === 'tool') {
    const output = toolOutput(req.body);
    if (output === null) {
      return stream(res, [{ pieces: ['Let me read the notes.'] }, readNotesCall(req.body)]);
    }
    return stream(res, [{ pieces: [answerAfterTool(output)] }]);
  }
  if (scenario === 'mcp') {
    const output = toolOutput(req.body);
    const call = noteCall(req.body);
    if (output === null && call) {
      return stream(res, [{ pieces: ['Let me record the note.'] }, { ...call, arguments: JSON.stringify({ text: MCP_NOTE }) }]);
    }
    if (output === null && searchesTools(req.body)) {
      return stream(res, [{ type: 'tool_search_call', execution: 'client', arguments: { query: 'record_note', limit: 8 } }]);
    }
    return stream(res, [{ pieces: [output === null ? 'No record_note tool was offered.' : answerAfterNote(output)] }]);
  }
  if (scenario === 'write' || scenario === 'writeOutside') {
    const output = toolOutput(req.body);
    if (output === null) {
      // Codex edits with its freeform `apply_patch` tool; paths are relative to its folder.
      const file = scenario === 'write' ? WRITE_FILE : `../${WRITE_FILE}`;
      const patch = `*** Begin Patch\n*** Add File: ${file}\n+${WRITE_TEXT.trimEnd()}\n*** End Patch\n`;
      return stream(res, [{ pieces: ['Let me write the file.'] }, { type: 'custom_tool_call', name: 'apply_patch', input: patch }]);
    }
    return stream(res, [{ pieces: [answerAfterWrite(output)] }]);
  }
  // Codex's `--output-schema` is the answer's format: its text is JSON of that shape.
  const format = req.body?.text?.format;
  if (scenario === 'structured' && format?.type === 'json_schema') {
    return stream(res, [{ pieces: [JSON.stringify(valueFor(format.schema))] }]);
  }
  return stream(res, [{ pieces: scenario === 'long' ? LONG_PIECES : PLAIN_PIECES }]);
}

module.exports = { respond };
