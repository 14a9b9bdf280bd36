#!/usr/bin/env node
// bench/vscode: what the debug adapter adds to a step. The same moves are
// timed twice on one recording of tests/programs/timeline_counter: through
// the adapter over DAP (request -> `stopped` event -> stackTrace, as VS Code
// does) and through GDB/MI directly (command -> *stopped -> -stack-list-frames,
// the adapter's own GDB client without DAP). Prints one JSON object.
//   node bench/vscode/run.js BUILD [--moves N]
// Needs `make vscode` (or npx tsc + npm ci in vscode-extension/) first.
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const ext = path.resolve(__dirname, '../../vscode-extension');
const { DebugClient } = require(path.join(ext, 'node_modules/@vscode/debugadapter-testsupport'));
const { GdbClient } = require(path.join(ext, 'out/mi/gdbClient.js'));
const { SlsdbgCli } = require(path.join(ext, 'out/slsdbgCli.js'));

const build = path.resolve(process.argv[2] || 'build');
const movesArg = process.argv.indexOf('--moves');
const moves = movesArg > 0 ? Number(process.argv[movesArg + 1]) : 20;
const slsdbg = path.join(build, 'cli/slsdbg');
const prog = path.join(build, 'tests/programs/timeline_counter');
const src = path.resolve(__dirname, '../../tests/programs/timeline_counter.c');
const markLine = fs.readFileSync(src, 'utf8').split('\n').findIndex((l) => l.includes('tl_mark(i);')) + 1;

// Each op: a DAP request and the MI command it becomes.
const OPS = [
  { name: 'next', dap: (dc) => dc.nextRequest({ threadId: 1 }), mi: '-exec-next' },
  { name: 'reverse-next', dap: (dc) => dc.stepBackRequest({ threadId: 1 }), mi: '-exec-next --reverse' },
  { name: 'stepi', dap: (dc) => dc.nextRequest({ threadId: 1, granularity: 'instruction' }), mi: '-exec-next-instruction' },
  { name: 'reverse-stepi', dap: (dc) => dc.stepBackRequest({ threadId: 1, granularity: 'instruction' }), mi: '-exec-next-instruction --reverse' },
];
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const p95 = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]; };
const now = () => Number(process.hrtime.bigint()) / 1e6;

async function adapterSession(rec) {
  const dc = new DebugClient('node', path.join(ext, 'out/debugAdapter.js'), 'slsdbg', { env: { ...process.env, SLSDBG: slsdbg } });
  await dc.start();
  await dc.hitBreakpoint({ recording: rec, stopOnEntry: false }, { path: src, line: markLine });
  await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [] });
  return {
    async move(op) {
      const t0 = now();
      const stopped = dc.waitForEvent('stopped', 60000);
      await op.dap(dc);
      await stopped;
      await dc.stackTraceRequest({ threadId: 1, levels: 20 });
      return now() - t0;
    },
    stop: () => dc.stop(),
  };
}

async function gdbSession(rec) {
  const served = await new SlsdbgCli(slsdbg).serve(rec);
  const gdb = new GdbClient();
  gdb.start('gdb', [served.program]);
  for (const c of ['-gdb-set mi-async on', '-gdb-set pagination off', `-target-select remote ${served.socket}`,
    `-break-insert ${src}:${markLine}`]) await gdb.send(c);
  const stop = () => new Promise((resolve) => gdb.once('exec', function on(r) { if (r.cls === 'stopped') resolve(); else gdb.once('exec', on); }));
  let s = stop(); await gdb.send('-exec-continue'); await s;
  await gdb.send('-break-delete');
  return {
    async move(op) {
      const t0 = now();
      s = stop();
      await gdb.send(op.mi);
      await s;
      await gdb.send('-stack-list-frames 0 19');
      return now() - t0;
    },
    async stop() {
      gdb.kill();
      served.proc.kill('SIGTERM');
      fs.rmSync(served.dir, { recursive: true, force: true });
    },
  };
}

(async () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'slsdbg-bench-vscode-'));
  const rec = path.join(work, 'counter.rec');
  execFileSync(slsdbg, ['record', '-o', rec, '--', prog, '4', '0'], { stdio: 'ignore' });
  // Both sessions stop at the first tl_mark(i) and drop the breakpoint, so they
  // step the same path; their moves alternate, so load changes hit both alike.
  const g = await gdbSession(rec);
  const d = await adapterSession(rec);
  const gdb = {};
  const dap = {};
  for (let round = 0; round < moves; round++) {
    for (const op of OPS) {
      (gdb[op.name] ??= []).push(await g.move(op));
      (dap[op.name] ??= []).push(await d.move(op));
    }
  }
  await g.stop();
  await d.stop();
  const ops = {};
  for (const op of OPS) {
    ops[op.name] = {
      gdb_ms: { p50: +median(gdb[op.name]).toFixed(2), p95: +p95(gdb[op.name]).toFixed(2) },
      adapter_ms: { p50: +median(dap[op.name]).toFixed(2), p95: +p95(dap[op.name]).toFixed(2) },
      added_ms_p50: +(median(dap[op.name]) - median(gdb[op.name])).toFixed(2),
    };
  }
  fs.rmSync(work, { recursive: true, force: true });
  const worst = Math.max(...Object.values(ops).map((o) => o.added_ms_p50));
  console.log(JSON.stringify({ moves_per_op: moves, loadavg: os.loadavg().map((x) => +x.toFixed(2)), ops,
    worst_added_ms_p50: worst, goal_ms: 20, ok: worst <= 20 }, null, 2));
})().catch((e) => { console.error(`bench/vscode: ${e.message}`); process.exit(1); });
