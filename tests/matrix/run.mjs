// Runs the matrix on the web build; the page is served under a strict
// Content-Security-Policy (no 'unsafe-eval', no inline script), as an
// Electron renderer or a careful page would be.
import init, * as lib from '/pkg/web/agent_context.js';
import { runMatrix } from './matrix.mjs';

try {
  await init();
  window.matrixResult = runMatrix(lib);
} catch (err) {
  window.matrixResult = { total: 0, failures: [`could not run: ${err && err.stack}`] };
}
document.getElementById('out').textContent = JSON.stringify(window.matrixResult, null, 2);
