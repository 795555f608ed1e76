// How a message names a value: `null`, `an array`, `an object`, `a string`,
// … One place for every JS file; it requires nothing (AgentTeam's file
// loads with the entry, bundled too).
'use strict';

/** A value as a message names it. */
function describe(value) {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

module.exports = { describe };
