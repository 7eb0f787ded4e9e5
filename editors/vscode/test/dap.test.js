// `tissvm dap` driven by VS Code's own test client for debug adapters
// (@vscode/debugadapter-testsupport's DebugClient), as the editor drives it:
// launch, breakpoints with a condition, stepping, the stack, variables,
// evaluate, a gate answered from the console, stepping back, the end.
// Run by vm/tests/dap/vscode_client.rs with TISSVM (the binary) and
// TISS_DAP_DIR (a scratch directory) set: `npm run test:dap`.
'use strict';

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const tissvm = process.env.TISSVM;
const dir = process.env.TISS_DAP_DIR;
if (!tissvm || !dir) {
  console.error('TISSVM and TISS_DAP_DIR must be set (vm/tests/dap/vscode_client.rs sets them)');
  process.exit(2);
}

const plan = path.join(dir, 'plan.tiss');
fs.writeFileSync(
  plan,
  `TASK "editor"

STEP "Build" {
    VAR target = "release"
    RUN "echo building \${target}" TIMEOUT 10s
    ASSERT LAST_RUN.EXIT_CODE == 0
    PAUSE "Ship it?"
    LOG "shipped \${target}"
}
`,
);
const workdir = path.join(dir, 'ws');
fs.mkdirSync(workdir, { recursive: true });

async function main() {
  const dc = new DebugClient(tissvm, 'dap', 'tiss');
  dc.defaultTimeout = 20000;
  await dc.start();
  try {
    const launch = { plan, workdir, journal: path.join(dir, 'run.journal') };
    const built = dc.assertOutput('stdout', 'building release\n');
    // A breakpoint with a condition that holds.
    await Promise.all([
      dc
        .waitForEvent('initialized')
        .then(() =>
          dc.setBreakpointsRequest({
            source: { path: plan },
            breakpoints: [{ line: 6, condition: 'target == "release"' }, { line: 2 }],
          }),
        )
        .then((response) => {
          assert.strictEqual(response.body.breakpoints[0].verified, true);
          assert.strictEqual(response.body.breakpoints[1].line, 3, 'moved to the next statement');
          return dc.setBreakpointsRequest({
            source: { path: plan },
            breakpoints: [{ line: 6, condition: 'target == "release"' }],
          });
        })
        .then(() => dc.configurationDoneRequest()),
      dc.launch(launch),
      dc.assertStoppedLocation('breakpoint', { path: plan, line: 6 }),
    ]);
    await built;

    const trace = await dc.stackTraceRequest({ threadId: 1 });
    assert.deepStrictEqual(
      trace.body.stackFrames.map((f) => f.name),
      ['STEP "Build"', 'TASK "editor"'],
    );
    const scopes = await dc.scopesRequest({ frameId: trace.body.stackFrames[0].id });
    assert.deepStrictEqual(
      scopes.body.scopes.map((s) => s.name),
      ['Variables', 'LAST_RUN', 'COST'],
    );
    const vars = await dc.variablesRequest({ variablesReference: scopes.body.scopes[0].variablesReference });
    assert.strictEqual(vars.body.variables[0].name, 'target');
    assert.strictEqual(vars.body.variables[0].value, '"release"');
    const lastRun = await dc.variablesRequest({ variablesReference: scopes.body.scopes[1].variablesReference });
    assert.ok(lastRun.body.variables.some((v) => v.name === 'EXIT_CODE' && v.value === '0'));
    const holds = await dc.evaluateRequest({ expression: 'LAST_RUN.EXIT_CODE == 0', context: 'repl' });
    assert.strictEqual(holds.body.result, 'TRUE');

    // Step onto the gate, go back, forward again.
    await Promise.all([dc.nextRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { line: 7 })]);
    await Promise.all([dc.stepBackRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { line: 6 })]);
    await Promise.all([dc.nextRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { line: 7 })]);

    // The gate stops the run; the console answers it.
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.assertStoppedLocation('exception', { line: 7 })]);
    await Promise.all([
      dc.evaluateRequest({ expression: 'answer continue', context: 'repl' }),
      dc.assertOutput('stdout', 'shipped release\n'),
      dc.waitForEvent('terminated'),
    ]);
  } finally {
    await dc.stop();
  }
}

main().then(
  () => console.log('dap.test.js: passed'),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
