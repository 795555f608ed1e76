// Gemini API: POST /v1beta/models/{model}:streamGenerateContent?alt=sse
// answers `data: {"candidates":[…]}` chunks; `:countTokens` and the plain
// `:generateContent` are answered too in case the CLI asks.
//
// Besides the common scenarios, the Gemini tool's tests use:
//   stall        the stream starts (headers sent) and then stays silent
//   trickle      the stream sends a new piece of text every TRICKLE_MS, up to
//                TRICKLE_MAX pieces, and never finishes before that
//   error500     every call fails with HTTP 500
//   flaky500     the first call fails with HTTP 500, later calls answer `plain`
'use strict';
const { failsMarked, mcpToolName, MCP_NOTE, answerAfterNote, stall, NOTES_FILE, WRITE_FILE, WRITE_TEXT, PLAIN_PIECES, answerAfterTool, answerAfterWrite, sse, json, startSse } = require('./common.cjs');

let mainCalls = 0;
const TRICKLE_MS = 200;
const TRICKLE_MAX = 600; // two minutes at most: a test's max_duration ends it long before
const USAGE = { promptTokenCount: 120, candidatesTokenCount: 9, totalTokenCount: 129 };

function textChunk(text, last) {
  const candidate = { content: { role: 'model', parts: [{ text }] }, index: 0 };
  if (last) candidate.finishReason = 'STOP';
  return last ? { candidates: [candidate], usageMetadata: USAGE } : { candidates: [candidate] };
}

/** The text of every functionResponse the CLI sent back, or null when none. */
function toolOutput(body) {
  const parts = (body?.contents ?? []).flatMap((c) => c.parts ?? []);
  const responses = parts.filter((p) => p.functionResponse).map((p) => JSON.stringify(p.functionResponse.response));
  return responses.length ? responses.join('\n') : null;
}

function streamText(res, pieces) {
  startSse(res);
  pieces.forEach((piece, i) => sse(res, null, textChunk(piece, i === pieces.length - 1)));
  res.end();
}


/** A new piece of text every TRICKLE_MS (each one different, so no loop
 * detection fires), bounded by TRICKLE_MAX, stopped when the client leaves. */
function trickle(res) {
  startSse(res);
  let sent = 0;
  const timer = setInterval(() => {
    sent += 1;
    if (sent > TRICKLE_MAX) {
      clearInterval(timer);
      res.end();
      return;
    }
    sse(res, null, textChunk(`Still thinking about step ${sent}. `, false));
  }, TRICKLE_MS);
  res.on('close', () => clearInterval(timer));
}

function serverError(res) {
  json(res, 500, { error: { code: 500, message: 'Mock internal error, please retry.', status: 'INTERNAL' } });
}

function respond(req, res, scenario) {
  // The scenario's calls are the turn's, the stream (mocks/kinds.cjs).
  if (req.kind === 'count') return json(res, 200, { totalTokens: 120 });
  if (req.kind === 'side') return json(res, 200, textChunk('{}', true));
  if (req.kind !== 'turn') return json(res, 404, { error: { code: 404, message: `not mocked: ${req.url}`, status: 'NOT_FOUND' } });

  mainCalls += 1;
  if (scenario === 'flaky' && mainCalls === 1) {
    return json(res, 503, { error: { code: 503, message: 'Mock is overloaded, try again.', status: 'UNAVAILABLE' } });
  }
  if (scenario === 'error500' || (scenario === 'flaky500' && mainCalls === 1)) return serverError(res);
  if (scenario === 'marked500' && failsMarked(req.body, Array.isArray(req.body?.tools) && req.body.tools.length > 0)) return serverError(res);
  if (scenario === 'stall' || (scenario === 'stallOnce' && mainCalls === 1)) return stall(res);
  if (scenario === 'reject') return json(res, 400, { error: { code: 400, message: 'Mock rejects this request: temperature is out of range.', status: 'INVALID_ARGUMENT' } });
  if (scenario === 'auth') {
    return json(res, 401, { error: { code: 401, message: 'Mock: request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } });
  }
  if (scenario === 'quota' || (scenario === 'marked429' && failsMarked(req.body, Array.isArray(req.body?.tools) && req.body.tools.length > 0, 429))) {
    return json(res, 429, { error: { code: 429, message: 'Mock: resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } });
  }
  if (scenario === 'trickle') return trickle(res);
  if (scenario === 'error') {
    return json(res, 400, {
      error: { code: 400, message: 'Mock rejects this request: API key not valid.', status: 'INVALID_ARGUMENT' },
    });
  }
  if (scenario === 'tool') {
    const output = toolOutput(req.body);
    if (output === null) {
      startSse(res);
      sse(res, null, {
        candidates: [{
          content: { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { file_path: NOTES_FILE } } }] },
          finishReason: 'STOP',
          index: 0,
        }],
        usageMetadata: USAGE,
      });
      return res.end();
    }
    return streamText(res, [answerAfterTool(output)]);
  }
  if (scenario === 'mcp') {
    const output = toolOutput(req.body);
    const declared = (req.body?.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);
    const name = mcpToolName(declared);
    if (output === null && name) {
      startSse(res);
      sse(res, null, {
        candidates: [{ content: { role: 'model', parts: [{ functionCall: { name, args: { text: MCP_NOTE } } }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: USAGE,
      });
      return res.end();
    }
    return streamText(res, [output === null ? 'No record_note tool was offered.' : answerAfterNote(output)]);
  }
  if (scenario === 'write' || scenario === 'writeOutside') {
    const output = toolOutput(req.body);
    if (output === null) {
      const file = scenario === 'write' ? WRITE_FILE : `../${WRITE_FILE}`;
      startSse(res);
      sse(res, null, {
        candidates: [{
          content: { role: 'model', parts: [{ functionCall: { name: 'write_file', args: { file_path: file, content: WRITE_TEXT } } }] },
          finishReason: 'STOP',
          index: 0,
        }],
        usageMetadata: USAGE,
      });
      return res.end();
    }
    return streamText(res, [answerAfterWrite(output)]);
  }
  if (scenario === 'empty') return streamText(res, ['']);
  return streamText(res, PLAIN_PIECES);
}

module.exports = { respond };
