// What a model request the mocks receive is: the call of the agent's turn
// (`turn`), or one of the calls the agents make beside a turn, told apart by
// what the agents put in them (seen in the mocks' logs of real runs):
//
//   title       a name for the session: Claude Code ("You are naming a coding
//               session", a JSON schema of one `title`), Codex (its own thread,
//               "generate a very short title", a `title` schema), opencode
//               ("You are a title generator"), Factory's Droid ("generates
//               concise session titles")
//   suggestion  the next prompt the user might type, with the whole history
//               and the tools offered: Claude Code over ACP and Qwen Code
//               ("[SUGGESTION MODE: …" as the last user message)
//   memory      Qwen Code's memory extraction after a turn (its own system
//               prompt, tools of its own)
//   classifier  Qwen Code's auto-mode security classifier
//   compaction  a summary of the conversation: Claude Code's ("Your task is to
//               create a detailed summary"), Codex's (`/responses/compact`)
//   side        any other call of the model API that offers no tools (Gemini
//               CLI's `:generateContent` checks beside its stream)
//   count       token counting (Anthropic's count_tokens, Gemini's countTokens)
//   models      the model list (GET …/models)
//   other       anything else (a HEAD probe, a path no mock serves)
//
// The servers log each request with its kind, and the responders play their
// scenario on `turn` calls only: a side call gets a plain answer (unless the
// whole API fails: an error, a stall), and never counts as one of a
// scenario's calls (`stallOnce`, `marked500`, …). Tests pick the turn's own
// request by kind, never "the last request holding X".
'use strict';

// Each sign is where the agent puts it: at the start of one of the request's
// system blocks (or messages), or at the start of its last user message —
// never anywhere in the text, which also carries the environment (Claude
// Code's system prompt holds the folder's git log: a commit message naming a
// side call must not make a turn one).
const SYSTEM_SIGNS = [
  ['title', /^You are naming a coding session/], // Claude Code
  ['title', /^You are a title generator/], // opencode
  ['title', /^You are Droid, an AI software engineering agent built by Factory\.\s+You are a helper that generates concise session titles/], // Factory's Droid
  ['memory', /^You are now acting as the managed memory extraction subagent/], // Qwen Code
  ['classifier', /^You are a security classifier/], // Qwen Code's auto mode
];
const LAST_USER_SIGNS = [
  ['title', /^Your task is to generate a very short title/], // Codex
  ['suggestion', /^\[SUGGESTION MODE\b/], // Claude Code over ACP, Qwen Code
  ['compaction', /^Your task is to create a detailed summary of/], // Claude Code
];

/** The text of a message's content: a string, or blocks with `text` (or `content`). */
function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(textOf).join('\n');
  if (content && typeof content === 'object') return textOf(content.text ?? content.content ?? '');
  return '';
}

/** Each block's text: a string, or a list of strings or blocks with `text`. */
function blocksOf(content) {
  if (typeof content === 'string') return [content];
  if (Array.isArray(content)) return content.flatMap(blocksOf);
  if (content && typeof content === 'object') return blocksOf(content.text ?? content.content ?? []);
  return [];
}

/** Whether a JSON schema asks for an object of one `title` string (a title call's answer format). */
function asksForTitle(format) {
  const properties = Object.keys(format?.schema?.properties ?? format?.json_schema?.schema?.properties ?? {});
  return properties.length === 1 && properties[0] === 'title';
}

/** The kind of side call the system blocks' or the last user message's start names, or null. */
function named(systemBlocks, lastUser) {
  for (const block of systemBlocks) {
    const found = SYSTEM_SIGNS.find(([, sign]) => sign.test(block.trimStart()));
    if (found) return found[0];
  }
  return LAST_USER_SIGNS.find(([, sign]) => sign.test(lastUser.trimStart()))?.[0] ?? null;
}

const offersTools = (body) => Array.isArray(body?.tools) && body.tools.length > 0;
/** The text of the last user message among `items`. */
const lastOf = (items, isUser) => textOf((items ?? []).filter(isUser).at(-1)?.content);

/** Anthropic Messages (Claude Code). */
function anthropic({ url, body }) {
  if (url.startsWith('/v1/messages/count_tokens')) return 'count';
  if (!url.startsWith('/v1/messages')) return 'other';
  const kind = named(blocksOf(body?.system), lastOf(body?.messages, (m) => m.role === 'user'));
  if (kind) return kind;
  if (asksForTitle(body?.output_config?.format)) return 'title';
  return offersTools(body) ? 'turn' : 'side';
}

/** OpenAI Responses (Codex). */
function openai({ method, url, body }) {
  if (method === 'GET' && url.startsWith('/v1/models')) return 'models';
  if (url.startsWith('/v1/responses/compact')) return 'compaction';
  if (!url.startsWith('/v1/responses')) return 'other';
  const input = Array.isArray(body?.input) ? body.input : [];
  const system = [...blocksOf(body?.instructions), ...input.filter((i) => i.role === 'developer' || i.role === 'system').flatMap((i) => blocksOf(i.content))];
  const kind = named(system, lastOf(input, (i) => i.role === 'user'));
  if (kind) return kind;
  if (asksForTitle(body?.text?.format)) return 'title';
  return offersTools(body) ? 'turn' : 'side';
}

/** Gemini API (Gemini CLI): its turn streams; its checks beside it do not. */
function gemini({ url }) {
  if (url.includes(':countTokens')) return 'count';
  if (url.includes(':streamGenerateContent')) return 'turn';
  if (url.includes(':generateContent')) return 'side';
  return 'other';
}

/** OpenAI Chat Completions (Qwen Code, Copilot, opencode, Cline, Droid, pi, Kimi Code: the last two make no side call). */
function openaiChat({ method, url, body }) {
  if (method === 'GET' && /\/models\b/.test(url)) return 'models';
  if (!/\/chat\/completions$/.test(url.split('?')[0])) return 'other';
  const messages = body?.messages ?? [];
  const kind = named(messages.filter((m) => m.role === 'system').flatMap((m) => blocksOf(m.content)), lastOf(messages, (m) => m.role === 'user'));
  if (kind) return kind;
  if (asksForTitle(body?.response_format)) return 'title';
  return offersTools(body) ? 'turn' : 'side';
}

const KINDS = { anthropic, openai, gemini, 'openai-chat': openaiChat };

/** The kind of `request` (`{ method, url, body }`) sent to the mock of `api`. */
function requestKind(api, request) {
  return KINDS[api]({ method: request.method, url: request.url ?? '', body: request.body });
}

module.exports = { requestKind };
