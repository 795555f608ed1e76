// The PostgreSQL store's watchers (./pg-session-store.cjs's `watch`): one
// connection LISTENs for all of a store's watchers; each reads its record's
// lines after the last it read, once LISTEN is in place, on each NOTIFY that
// names its record, and again after that connection is lost and made again.
// No polling.
'use strict';

const { CHANNEL } = require('./pg-schema.cjs');
const { FOLLOW } = require('./pg-sql.cjs');
const { Dedicated } = require('./pg-connection.cjs');

/** The listener's reconnects: the first delay, doubled up to the last (ms). */
const RECONNECT_MS = [50, 5000];

/**
 * The store's watchers: one LISTEN connection for all of them, opened with
 * the first and closed with the last. Each watcher reads its record's new
 * lines when a NOTIFY names it, once LISTEN is in place, and again after a
 * reconnect.
 */
function watchers(q, own, isClosed) {
  /** id → Set of watchers `{ follow, from, incarnation, busy, again, stopped }` */
  const byId = new Map();
  let retry = RECONNECT_MS[0];
  let timer = null;
  let warned = false;
  const listener = new Dedicated({
    ...own,
    setup: async (client) => {
      client.on('notification', (message) => {
        if (message.channel !== CHANNEL) return;
        let id;
        try {
          id = JSON.parse(message.payload).id;
        } catch {
          return; // not one of ours
        }
        for (const w of byId.get(id) ?? []) pump(id, w);
      });
      await client.query(`LISTEN ${CHANNEL}`);
    },
    onLost: () => reconnect(),
  });

  function reconnect() {
    if (timer || byId.size === 0 || isClosed()) return;
    timer = setTimeout(() => {
      timer = null;
      listen();
    }, retry);
    timer.unref();
    retry = Math.min(retry * 2, RECONNECT_MS[1]);
  }

  /** LISTEN in place, then every watcher reads what it has not. */
  function listen() {
    listener.client().then(
      () => {
        retry = RECONNECT_MS[0];
        warned = false;
        for (const [id, set] of byId) for (const w of set) pump(id, w);
      },
      (err) => {
        // Once an outage: tried again, later and later, until it listens.
        if (!warned) process.emitWarning(`watching conversations: could not LISTEN (${err.message}); trying again until it can`, 'AgentContextWarning');
        warned = true;
        reconnect();
      },
    );
  }

  async function pump(id, w) {
    if (w.stopped) return;
    if (w.busy) {
      w.again = true;
      return;
    }
    w.busy = true;
    try {
      do {
        w.again = false;
        const { rows } = await q(FOLLOW, [id, w.from, w.incarnation]);
        if (rows.length === 0 || w.stopped) continue;
        if (rows[0].incarnation !== w.incarnation) w.incarnation = rows[0].incarnation;
        w.from = rows[rows.length - 1].line_no;
        w.follow.feed(`${rows.map((r) => r.line).join('\n')}\n`);
      } while (w.again && !w.stopped);
    } catch (err) {
      process.emitWarning(`watching conversation ${JSON.stringify(id)}: ${err.message}`, 'AgentContextWarning');
    } finally {
      w.busy = false;
    }
  }

  return {
    add(id, follow) {
      const w = { follow, from: 0, incarnation: null, busy: false, again: false, stopped: false };
      if (!byId.has(id)) byId.set(id, new Set());
      byId.get(id).add(w);
      if (listener.current) pump(id, w);
      else listen();
      return function unwatch() {
        w.stopped = true;
        const set = byId.get(id);
        set?.delete(w);
        if (set?.size === 0) byId.delete(id);
        if (byId.size === 0) {
          clearTimeout(timer);
          timer = null;
          listener.drop();
        }
      };
    },
    end() {
      byId.clear();
      clearTimeout(timer);
      return listener.end();
    },
  };
}

module.exports = { watchers };
