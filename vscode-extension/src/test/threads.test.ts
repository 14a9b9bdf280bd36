// The debug adapter on a recording made with `record --threads` (fixture
// thr_watch: the main thread stores 1 into `shared`, a writer thread stores
// 2 then 3, the main thread reads it after pthread_join). Stops name the
// thread GDB stopped in; threads and stack traces are per thread; a data
// breakpoint in reverse stops in the writer. Env as adapter.test.ts.
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { DebugProtocol } from '@vscode/debugprotocol';

const SLSDBG = process.env.SLSDBG ?? '';
const PROGRAMS = process.env.PROGRAMS ?? '';
const SOURCE = process.env.SLSDBG_SOURCE_DIR ?? path.resolve(__dirname, '../../..');
const ADAPTER = path.resolve(__dirname, '../debugAdapter.js');
const FIXTURE = path.join(SOURCE, 'tests/programs/thr_watch.c');

function lineOf(marker: string): number {
  const i = fs.readFileSync(FIXTURE, 'utf8').split('\n').findIndex((l) => l.includes(`/* ${marker} */`));
  assert.ok(i >= 0, `no line with ${marker}`);
  return i + 1;
}

describe('slsdbg debug adapter, a recording with threads', function () {
  this.timeout(60000);
  let work: string;
  let rec: string;
  let dc: DebugClient;

  before(function () {
    assert.ok(SLSDBG && fs.existsSync(SLSDBG), 'SLSDBG must point at the slsdbg binary');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'slsdbg-vscode-threads-'));
    rec = path.join(work, 'watch.rec');
    execFileSync(SLSDBG, ['record', '--threads', '-o', rec, '--', path.join(PROGRAMS, 'thr_watch')], { stdio: 'ignore' });
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  beforeEach(async () => {
    dc = new DebugClient('node', ADAPTER, 'slsdbg', { env: { ...process.env, SLSDBG, SLSDBG_DIR: path.join(work, 'store') } });
    dc.defaultTimeout = 20000;
    await dc.start();
  });
  afterEach(async () => { await dc.stop().catch(() => undefined); });

  async function stopAfter(p: Promise<unknown>): Promise<DebugProtocol.StoppedEvent> {
    const ev = dc.waitForEvent('stopped', 30000);
    await p;
    return (await ev) as DebugProtocol.StoppedEvent;
  }
  async function frames(threadId: number): Promise<DebugProtocol.StackFrame[]> {
    return (await dc.stackTraceRequest({ threadId })).body.stackFrames;
  }

  it('stops in the writer thread, lists both threads with their own stacks, and finds the writer with a data breakpoint in reverse', async () => {
    // hitBreakpoint reads the stack of the stopped event's thread: the writer's.
    await dc.hitBreakpoint({ recording: rec, stopOnEntry: false }, { path: FIXTURE, line: lineOf('WATCH_B3') });
    const threads = (await dc.threadsRequest()).body.threads;
    assert.strictEqual(threads.length, 2, JSON.stringify(threads));
    const ids = threads.map((t) => t.id);
    const writerId = Math.max(...ids);
    const mainId = Math.min(...ids);
    assert.strictEqual((await frames(writerId))[0].name, 'writer');
    assert.ok((await frames(mainId)).some((f) => f.name === 'main'), 'the main thread\'s stack has main');

    // To the main thread's read, after the writer ended.
    await dc.setBreakpointsRequest({ source: { path: FIXTURE }, breakpoints: [{ line: lineOf('WATCH_READ') }] });
    const atRead = await stopAfter(dc.continueRequest({ threadId: writerId }));
    assert.strictEqual(atRead.body.reason, 'breakpoint');
    assert.strictEqual(atRead.body.threadId, mainId);
    assert.strictEqual((await frames(mainId))[0].line, lineOf('WATCH_READ'));
    await dc.setBreakpointsRequest({ source: { path: FIXTURE }, breakpoints: [] });

    // Backwards with a data breakpoint: the writer's last store, in its thread.
    const info = await dc.dataBreakpointInfoRequest({ name: 'shared' });
    assert.ok(info.body.dataId);
    const set = await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId!, accessType: 'write' }] });
    assert.ok(set.body.breakpoints[0].verified, set.body.breakpoints[0].message);
    const hit = await stopAfter(dc.reverseContinueRequest({ threadId: mainId }));
    assert.strictEqual(hit.body.reason, 'data breakpoint');
    assert.match(hit.body.description ?? '', /shared changed \(3 → 2\)/);
    const writer = hit.body.threadId!;
    assert.notStrictEqual(writer, mainId, 'the store is reported in the writer thread');
    const top = (await frames(writer))[0];
    assert.strictEqual(top.name, 'writer');
    assert.strictEqual(top.line, lineOf('WATCH_B3'));

    // One line back in that thread: its first store.
    const back = await stopAfter(dc.stepBackRequest({ threadId: writer }));
    assert.strictEqual(back.body.threadId, writer);
    assert.strictEqual((await frames(writer))[0].line, lineOf('WATCH_B2'));
  });
});
