// storeFromUrl(where), Node only: the store a command line names — a
// PostgreSQL URL (`postgres://…` or `postgresql://…`) is
// openPostgresSessionStore's, anything else a folder for openSessionStore:
// what a command's `--store` option opens.
'use strict';

const { inputError } = require('./session-store.cjs');
const { describe } = require('../host/describe.cjs');

/** Whether `where` names a PostgreSQL database. */
function isPostgresUrl(where) {
  return /^postgres(ql)?:\/\//i.test(where);
}

function storeFromUrl(where) {
  if (typeof where !== 'string' || where === '') throw inputError(`store must be a folder or a postgres:// URL, got ${describe(where)}`);
  if (isPostgresUrl(where)) return require('./pg-session-store.cjs').openPostgresSessionStore({ connectionString: where });
  return require('./session-store.cjs').openSessionStore(where);
}

module.exports = { storeFromUrl, isPostgresUrl };
