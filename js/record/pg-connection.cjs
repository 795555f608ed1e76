// A connection of the PostgreSQL store's own (./pg-session-store.cjs):
// the one that holds its writers' advisory locks, and the one that
// LISTENs. Opened on first use and kept; its socket keeps the process
// alive only while a query runs on it (an open writer or watcher does not,
// as with the file store). When it is lost — the database restarted, the
// network dropped, the server ended it — `onLost(err)` is told once, and
// the next query opens a new one.
'use strict';

class Dedicated {
  /**
   * `open()`: a connected pg Client; `release(client, err)`: lets it go
   * (ends it, or destroys a pool's); `setup(client)`: its session's
   * settings, before any other query; `onLost(err)`: it went away unasked.
   */
  constructor({ open, release, setup, onLost }) {
    this.open = open;
    this.release = release;
    this.setup = setup;
    this.onLost = onLost ?? (() => {});
    /** The connection being opened or open: `{ opening, client, dropped }`. */
    this.slot = null;
    this.busy = 0;
    this.closed = false;
  }

  /** The open connection, or null. */
  get current() {
    return this.slot?.client ?? null;
  }

  /** The connection, opened when there is none. */
  client() {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    if (!this.slot) {
      const slot = { opening: null, client: null, dropped: false };
      this.slot = slot;
      slot.opening = this.connect(slot);
      slot.opening.catch(() => {
        if (this.slot === slot) this.slot = null;
      });
    }
    return this.slot.opening;
  }

  async connect(slot) {
    const client = await this.open();
    let gone = false;
    const lose = (err) => {
      if (gone) return;
      gone = true;
      if (slot.dropped) return; // drop() lets it go
      if (this.slot === slot) this.slot = null;
      this.release(client, err ?? new Error('the connection ended'));
      this.onLost(err ?? new Error('the connection to the database ended'));
    };
    client.on('error', lose);
    client.on('end', () => lose());
    try {
      await this.setup(client);
    } catch (err) {
      lose(err);
      throw err;
    }
    slot.client = client;
    if (this.busy === 0) client.unref?.();
    return client;
  }

  /** Runs a query on the connection (the process kept alive meanwhile). */
  async query(text, values) {
    const client = await this.client();
    this.busy++;
    client.ref?.();
    try {
      return await client.query(text, values);
    } finally {
      if (--this.busy === 0) client.unref?.();
    }
  }

  /** Closes the connection for now (its session's locks and LISTEN go with it); the next query opens another. */
  async drop() {
    const slot = this.slot;
    this.slot = null;
    if (!slot) return;
    slot.dropped = true;
    const client = await slot.opening.catch(() => null);
    // Its ending keeps the process alive until it is done.
    client?.ref?.();
    if (client) await this.release(client);
  }

  /** Closes the connection for good. */
  async end() {
    this.closed = true;
    await this.drop();
  }
}

module.exports = { Dedicated };
