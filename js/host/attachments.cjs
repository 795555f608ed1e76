// Attachments, Node only: the bytes moved before the core reads them
// (src/launch/attachments/). An image given by path is read (or its size or why
// it could not be read passed on, for the core to refuse); an image given
// as data is written to a file in the run's own folder when the agent runs
// over its CLI (most CLIs take image files); paths are made absolute from
// the agent's folder. Every decision (kinds, types, limits, how each agent
// takes them) is the core's.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

let maxBytes;
function maxImageBytes() {
  maxBytes ??= require('../core/agent_context_node.cjs').__attachmentMaxBytes();
  return maxBytes;
}

/** One image file's bytes, or what stops them: `{ _data }`, `{ _size }` or `{ _error }`. */
function readImage(file) {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return { _error: `${file} is not a file` };
    if (stat.size > maxImageBytes()) return { _size: stat.size };
    return { _data: fs.readFileSync(file).toString('base64') };
  } catch (err) {
    return { _error: err.message };
  }
}

/**
 * `attachments` as the core reads them. `cd`: the agent's folder, which
 * relative paths start from; `scratch`: a folder the caller creates and
 * removes, for images given as data (`null`: not written).
 */
function materialize(attachments, { cd, scratch }) {
  if (!Array.isArray(attachments)) return attachments; // the core names what is wrong
  return attachments.map((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const out = { ...item };
    const hasPath = typeof item.path === 'string' && item.path !== '';
    if (hasPath && (item.type === 'image' || item.type === 'resource_link')) out.path = path.resolve(cd, item.path);
    if (item.type !== 'image') return out;
    if (hasPath && item.data == null) Object.assign(out, readImage(out.path));
    else if (scratch && item.path == null && typeof item.data === 'string' && typeof item.mimeType === 'string') {
      const file = path.join(scratch, `attachment-${i}.${item.mimeType.split('/').pop().replace(/[^a-z0-9]/gi, '')}`);
      fs.mkdirSync(scratch, { recursive: true });
      fs.writeFileSync(file, Buffer.from(item.data, 'base64'));
      out._file = file;
    }
    return out;
  });
}

module.exports = { materialize };
