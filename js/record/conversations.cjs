// A store's conversations, Node only: `listConversations` and
// `readConversation` over any store's `list`/`read` (the core groups 1.x
// chains, filters and pages; a store with its own methods answers them
// itself), a conversation found by one of its agent sessions, and a
// conversation's record taken to go on (its writer held, its bytes read
// once, for the core to parse once).
'use strict';

const core = () => require('../core/agent_context.cjs');

/** Every conversation of `store` matching `filter`, the latest updated first. */
async function listConversations(store, filter) {
  if (typeof store.listConversations === 'function') return store.listConversations(filter);
  return core().__conversationsOf(await store.list(), filter ?? {});
}

/** The bytes of conversation `id`'s record (a store's own, else its entries as lines again). */
async function recordBytes(store, id) {
  if (typeof store.bytes === 'function') return store.bytes(id);
  const { entries } = await store.read(id);
  return Buffer.from(entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
}

/** `{ entries, cursor, skipped }` of conversation `id`, each entry named by its agent session. */
async function readConversation(store, id, options) {
  if (typeof store.readConversation === 'function') return store.readConversation(id, options);
  return core().readConversationRecord(await recordBytes(store, id), options ?? {});
}

/** The conversation of `store` that agent session `sessionId` is a part of, or undefined. */
async function findConversation(store, sessionId) {
  const all = [...(await listConversations(store)), ...(await listConversations(store, { kind: 'team' }))];
  return all.find((c) => c.parts?.some((p) => p.sessionId === sessionId));
}

/** Conversation `id`'s record to go on: its writer taken (SESSION_LOCKED when another holds it), then its bytes. */
async function takeConversation(store, id) {
  const header = { format: 'agent-context/session-record', version: '2.0', conversationId: id, createdAt: Date.now() };
  const writer = await store.open(id, header);
  try {
    return { writer, bytes: await recordBytes(store, id) };
  } catch (err) {
    await writer.close();
    throw err;
  }
}

module.exports = { listConversations, readConversation, findConversation, takeConversation, recordBytes };
