// Reading what the mock APIs logged, the way every live test should: whole
// lines only, and the turn's own model calls, never a side call the agent
// makes beside a turn (a session title, a suggestion of the next prompt, a
// memory extraction: mocks/kinds.cjs names them, and the mocks log each
// request with its `kind`).
'use strict';
const fs = require('node:fs');

/**
 * The complete lines of a JSON-lines file, parsed ([] while it does not
 * exist). A writer appends a line at a time while a test polls the file: a
 * reader can see a long line half written (the kernel extends the file a
 * page at a time), so a last line without its newline is left for the next
 * read.
 */
function readJsonLines(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** The calls of the agent's turns among logged requests, in order. */
const turnCalls = (requests) => requests.filter((r) => r.kind === 'turn');

/** The text of a message's content: a string, or blocks with `text`. */
function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(textOf).join('\n');
  if (content && typeof content === 'object') return textOf(content.text ?? '');
  return '';
}

/**
 * The text of each user message of a model request, oldest first, whatever
 * the API: Anthropic's and Chat Completions' `messages`, the Responses
 * API's `input`, Gemini's `contents` (with `parts`).
 */
function userTexts(body) {
  if (Array.isArray(body?.messages)) return body.messages.filter((m) => m.role === 'user').map((m) => textOf(m.content));
  if (Array.isArray(body?.input)) return body.input.filter((i) => i.role === 'user').map((i) => textOf(i.content));
  if (Array.isArray(body?.contents)) return body.contents.filter((c) => c.role === 'user').map((c) => textOf(c.parts));
  return [];
}

/**
 * Whether a user message's text is only the agent's own notes to the model,
 * `<system-reminder>` blocks and nothing else: Kimi Code puts the date and
 * its permission mode so, as user messages after the prompt.
 */
const onlyReminders = (text) => /^(\s*<system-reminder>[\s\S]*?<\/system-reminder>)+\s*$/.test(text);

/**
 * The turn calls that ask the model about `needle`: whose last user message
 * holds it (the call that opens the turn carrying that prompt; a later call
 * of the same turn ends with a tool's result instead). A message that is
 * only the agent's reminders does not count as the last.
 */
const turnsAsking = (requests, needle) =>
  turnCalls(requests).filter((r) => (userTexts(r.body).filter((t) => !onlyReminders(t)).at(-1) ?? '').includes(needle));

module.exports = { readJsonLines, turnCalls, userTexts, turnsAsking, textOf };
