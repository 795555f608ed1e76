// Gemini API: POST /v1beta/models/{model}:streamGenerateContent?alt=sse
// answers `data: {"candidates":[…]}` chunks; `:countTokens` and the plain
// `:generateContent` are answered too in case the CLI asks.
'use strict';
const { NOTES_FILE, PLAIN_PIECES, answerAfterTool, sse, json, startSse } = require('./common.cjs');

let mainCalls = 0;
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

function respond(req, res, scenario) {
  const url = req.url;
  if (url.includes(':countTokens')) return json(res, 200, { totalTokens: 120 });
  if (url.includes(':generateContent')) return json(res, 200, textChunk('{}', true));
  if (!url.includes(':streamGenerateContent')) return json(res, 404, { error: { code: 404, message: `not mocked: ${url}`, status: 'NOT_FOUND' } });

  mainCalls += 1;
  if (scenario === 'flaky' && mainCalls === 1) {
    return json(res, 503, { error: { code: 503, message: 'Mock is overloaded, try again.', status: 'UNAVAILABLE' } });
  }
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
  if (scenario === 'empty') return streamText(res, ['']);
  return streamText(res, PLAIN_PIECES);
}

module.exports = { respond };
