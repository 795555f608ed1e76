// Anthropic Messages API: POST /v1/messages with `stream: true` answers the
// event stream (message_start … message_stop); without it, one JSON message.
'use strict';
const path = require('node:path');
const { failsMarked, valueFor, mcpToolName, MCP_NOTE, answerAfterNote, stall, NOTES_FILE, WRITE_FILE, WRITE_TEXT, PLAIN_PIECES, LONG_PIECES, answerAfterTool, answerAfterWrite, sse, json, startSse } = require('./common.cjs');

/** The question of the `ask` scenario. */
const ASK_QUESTION = {
  question: 'Which database should the service use?',
  header: 'Database',
  options: [
    { label: 'Postgres', description: 'A server, for many writers' },
    { label: 'SQLite', description: 'A file, for one writer' },
  ],
  multiSelect: false,
};

/** The summary the `compact` scenario answers Claude Code's compaction request with. */
const COMPACT_SUMMARY = 'The user asked the assistant to remember a flower.';

let counter = 0;
/** `compactAuto`: every answer reports a context nearly full (190 000 tokens of 200 000). */
let reportedUsage = {};
/** The turn's calls answered so far (`flaky`, `stallOnce`, …: mocks/kinds.cjs). */
let turnCalls = 0;
const USAGE = { input_tokens: 120, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

/** The text of every tool_result block the CLI sent back, or null when none. */
function toolOutput(body) {
  const blocks = (body?.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : []));
  const results = blocks.filter((b) => b.type === 'tool_result').map((b) => JSON.stringify(b.content));
  return results.length ? results.join('\n') : null;
}

/** `content` blocks → the stream of events that builds them. */
/** A stream that starts a text answer with `text`, then sends nothing more. */
function stallAfter(res, body, text) {
  counter += 1;
  startSse(res);
  sse(res, 'message_start', {
    type: 'message_start',
    message: { id: `msg_mock_${counter}`, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...USAGE, output_tokens: 1 } },
  });
  sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
}

function stream(res, body, blocks, stopReason) {
  counter += 1;
  startSse(res);
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id: `msg_mock_${counter}`, type: 'message', role: 'assistant', model: body.model, content: [],
      stop_reason: null, stop_sequence: null, usage: { ...USAGE, ...reportedUsage, output_tokens: 1 },
    },
  });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of block.pieces) {
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
      }
    } else {
      sse(res, 'content_block_start', {
        type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      sse(res, 'content_block_delta', {
        type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 9 } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function message(res, body, text) {
  counter += 1;
  json(res, 200, {
    id: `msg_mock_${counter}`, type: 'message', role: 'assistant', model: body?.model, content: [{ type: 'text', text }],
    stop_reason: 'end_turn', stop_sequence: null, usage: USAGE,
  });
}

function respond(req, res, scenario) {
  if (req.kind === 'count') return json(res, 200, { input_tokens: 120 });
  if (req.kind === 'other') return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `not mocked: ${req.url}` } });

  // The scenario's calls are the turn's (mocks/kinds.cjs): a side call (a
  // session title, a suggestion of the next prompt, …) fails only where
  // every call does, and is answered plainly.
  const turn = req.kind === 'turn';
  if (turn) turnCalls += 1;
  if (scenario === 'flaky' && turn && turnCalls === 1) {
    return json(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Mock is overloaded, try again.' } });
  }
  if (scenario === 'error500' || (scenario === 'flaky500' && turn && turnCalls === 1)) {
    return json(res, 500, { type: 'error', error: { type: 'api_error', message: 'Mock internal error, please retry.' } });
  }
  if (scenario === 'marked500' && failsMarked(req.body, turn)) {
    return json(res, 500, { type: 'error', error: { type: 'api_error', message: 'Mock internal error, please retry.' } });
  }
  if (scenario === 'auth') {
    return json(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
  }
  if (scenario === 'quota' || (scenario === 'marked429' && failsMarked(req.body, turn, 429))) {
    return json(res, 429, { type: 'error', error: { type: 'rate_limit_error', message: 'Mock rate limit: too many requests.' } });
  }
  // stallOnce: the first call of the turn (Claude's ACP adapter also asks
  // for a session title, in parallel); stallSecond: the second (a turn
  // after a good one) starts its answer, then goes silent.
  if (scenario === 'stall' || (scenario === 'stallOnce' && turn && turnCalls === 1)) return stall(res);
  if (scenario === 'stallSecond' && turn && turnCalls === 2) return stallAfter(res, req.body ?? {}, 'Let me think');
  if (scenario === 'reject') return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'Mock rejects this request: temperature is out of range.' } });
  if (scenario === 'error') {
    return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'Mock rejects this request: prompt is not allowed.' } });
  }
  const body = req.body ?? {};
  if (scenario === 'compactAuto') reportedUsage = { input_tokens: 30000, cache_read_input_tokens: 160000 };
  if ((scenario === 'compact' || scenario === 'compactAuto') && /create a detailed summary of the conversation so far/.test(JSON.stringify(body.messages ?? []))) {
    // Claude Code compacting its context: its summary, framed as it asks.
    const text = `<analysis>The user named a word.</analysis>\n<summary>\n${COMPACT_SUMMARY}\n</summary>`;
    if (!body.stream) return message(res, body, text);
    return stream(res, body, [{ type: 'text', pieces: [text] }], 'end_turn');
  }
  if (!body.stream) return message(res, body, PLAIN_PIECES.join(''));
  if (!turn) return stream(res, body, [{ type: 'text', pieces: PLAIN_PIECES }], 'end_turn');
  if (scenario === 'tool') {
    const output = toolOutput(body);
    if (output === null) {
      // Claude Code's Read tool takes an absolute path: the working
      // directory Claude Code states in its prompt.
      const cwd = findCwd(body);
      return stream(res, body, [
        { type: 'text', pieces: ['Let me read the notes.'] },
        { type: 'tool_use', id: 'toolu_mock_1', name: 'Read', input: { file_path: path.join(cwd, NOTES_FILE) } },
      ], 'tool_use');
    }
    return stream(res, body, [{ type: 'text', pieces: [answerAfterTool(output)] }], 'end_turn');
  }
  if (scenario === 'mcp') {
    const output = toolOutput(body);
    const name = mcpToolName((body.tools ?? []).map((t) => t.name));
    if (output === null && name) {
      return stream(res, body, [
        { type: 'text', pieces: ['Let me record the note.'] },
        { type: 'tool_use', id: 'toolu_mock_mcp', name, input: { text: MCP_NOTE } },
      ], 'tool_use');
    }
    return stream(res, body, [{ type: 'text', pieces: [output === null ? 'No record_note tool was offered.' : answerAfterNote(output)] }], 'end_turn');
  }
  if (scenario === 'write' || scenario === 'writeOutside') {
    const output = toolOutput(body);
    if (output === null) {
      const cwd = findCwd(body);
      const file = scenario === 'write' ? path.join(cwd, WRITE_FILE) : path.join(path.dirname(cwd), WRITE_FILE);
      return stream(res, body, [
        { type: 'text', pieces: ['Let me write the file.'] },
        { type: 'tool_use', id: 'toolu_mock_w', name: 'Write', input: { file_path: file, content: WRITE_TEXT } },
      ], 'tool_use');
    }
    return stream(res, body, [{ type: 'text', pieces: [answerAfterWrite(output)] }], 'end_turn');
  }
  if (scenario === 'ask') {
    // The model asks the user through Claude Code's AskUserQuestion tool
    // (over ACP its adapter turns it into a form elicitation), then quotes
    // the answer the tool returned.
    const offered = (body.tools ?? []).some((t) => t.name === 'AskUserQuestion');
    const output = toolOutput(body);
    if (offered && output === null) {
      return stream(res, body, [
        { type: 'text', pieces: ['Let me ask.'] },
        { type: 'tool_use', id: 'toolu_mock_ask', name: 'AskUserQuestion', input: { questions: [ASK_QUESTION] } },
      ], 'tool_use');
    }
    if (offered) return stream(res, body, [{ type: 'text', pieces: [`The user answered: ${output}`] }], 'end_turn');
  }
  if (scenario === 'structured') {
    // Claude Code's `--json-schema` offers a tool the answer must be given
    // through: it is called once with a value of the schema's shape.
    const tool = (body.tools ?? []).find((t) => t.name === 'StructuredOutput');
    if (tool && toolOutput(body) === null) {
      return stream(res, body, [
        { type: 'tool_use', id: 'toolu_mock_structured', name: 'StructuredOutput', input: valueFor(tool.input_schema) },
      ], 'tool_use');
    }
    if (tool) return stream(res, body, [{ type: 'text', pieces: ['Answered in the requested shape.'] }], 'end_turn');
  }
  return stream(res, body, [{ type: 'text', pieces: scenario === 'long' ? LONG_PIECES : PLAIN_PIECES }], 'end_turn');
}

/** The working directory Claude Code states in its prompt (in `system` or a system-role message). */
function findCwd(body) {
  const texts = [];
  const walk = (v) => {
    if (typeof v === 'string') texts.push(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk([body.system, body.messages]);
  const match = /Primary working directory: (\S+)/.exec(texts.join('\n'));
  return match ? match[1] : '/nonexistent';
}

module.exports = { respond, COMPACT_SUMMARY };
