// A node --test reporter (`--test-reporter=./scripts/live-tests-reporter.mjs`)
// for scripts/live-tests.mjs: one JSON line per test or suite that ended —
// its file, name, nesting, whether it passed, its duration, and for a
// failure its kind and the first line of its message. A test's subtests
// end before it does, in their order, file by file: that is how the runner
// names a test by its suites.
export default async function* liveTestsReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, name, nesting, details = {}, skip, todo } = event.data;
    const error = details.error;
    yield `${JSON.stringify({
      file,
      name,
      nesting,
      passed: event.type === 'test:pass',
      suite: details.type === 'suite',
      ms: details.duration_ms,
      skipped: Boolean(skip || todo),
      failureType: error?.failureType,
      message: error ? String(error.cause?.message ?? error.message ?? error).split('\n')[0].slice(0, 300) : undefined,
    })}\n`;
  }
}
