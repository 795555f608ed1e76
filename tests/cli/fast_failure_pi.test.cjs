// pi: nothing listening, HTTP 500, 429 and 400, each classified within 60 s
// with default options, over its CLI and over ACP, through runAgent and a
// session: the suite in ./fast_failure_suite.cjs (one file per agent, so
// the files run at once).
'use strict';
require('./fast_failure_suite.cjs').fastFailureSuite('pi');
