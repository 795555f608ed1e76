// AgentOutputParser#push: the core returns a chunk's events as
// [order, others, text] (src/wasm/agent_output_api.rs, `__push`): the text of
// every text event crosses once, as one string made from UTF-16 code units,
// and is cut here; the other events come as parsed JSON. Appended to both
// builds by scripts/finish-pkg.mjs.
function patchAgentOutputParser(Parser) {
  'use strict';
  const raw = Parser.prototype.__push;
  delete Parser.prototype.__push;
  Parser.prototype.push = function push(chunk) {
    const [order, others, text] = raw.call(this, chunk);
    const events = new Array(order.length);
    let at = 0;
    let other = 0;
    for (let i = 0; i < order.length; i++) {
      const units = order[i];
      if (units === 0) {
        events[i] = others[other++];
      } else {
        events[i] = { type: 'text', text: text.slice(at, at + units) };
        at += units;
      }
    }
    return events;
  };
}
