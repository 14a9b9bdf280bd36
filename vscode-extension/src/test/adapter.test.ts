// The debug adapter against real recordings: each test drives
// out/debugAdapter.js over DAP (DebugClient) on a recording of a fixture
// made here with `slsdbg record`. Env (set by ctest): SLSDBG, PROGRAMS,
// SLSDBG_SOURCE_DIR.
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { DebugProtocol } from '@vscode/debugprotocol';
import { SlsdbgCli } from '../slsdbgCli';
import { renderTimeline } from '../timeline/timelineHtml';

const SLSDBG = process.env.SLSDBG ?? '';
const PROGRAMS = process.env.PROGRAMS ?? '';
const SOURCE = process.env.SLSDBG_SOURCE_DIR ?? path.resolve(__dirname, '../../..');
const ADAPTER = path.resolve(__dirname, '../debugAdapter.js');
// A default wait for each event; the machine may be busy (ctest -j2 beside this).
const EVENT_TIMEOUT_MS = 20000;
const FIXTURE = path.join(SOURCE, 'tests/programs/timeline_counter.c');

function lineOf(text: string): number {
  const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(text));
  assert.ok(i >= 0, `no line with ${text}`);
  return i + 1;
}

const MARK_LINE = lineOf('tl_mark(i);');
const TOTAL_LINE = lineOf('tl_total += i * 3 + 1;');

describe('slsdbg debug adapter', function () {
  this.timeout(60000);
  let work: string;
  let rec: string;      // timeline_counter 4 iterations, 1 ms sleeps: cheap to travel
  let longRec: string;  // CPU-bound iterations: a long reverse scan
  let oneSegment: string;  // one iteration spinning ~5 s of CPU in one segment
  let dc: DebugClient;

  before(function () {
    this.timeout(300000);  // the one-segment recording spins ~5 s of CPU (more under load)
    assert.ok(SLSDBG && fs.existsSync(SLSDBG), 'SLSDBG must point at the slsdbg binary');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'slsdbg-vscode-test-'));
    rec = path.join(work, 'counter.rec');
    execFileSync(SLSDBG, ['record', '-o', rec, '--', path.join(PROGRAMS, 'timeline_counter'), '4', '0'], { stdio: 'ignore' });
    longRec = path.join(work, 'long.rec');
    execFileSync(SLSDBG, ['record', '-o', longRec, '--', path.join(PROGRAMS, 'timeline_counter'), '6', '20000000'], { stdio: 'ignore' });
    oneSegment = path.join(work, 'one-segment.rec');
    execFileSync(SLSDBG, ['record', '-o', oneSegment, '--interval', '60000', '--', path.join(PROGRAMS, 'timeline_counter'), '1',
      '2000000000'], { stdio: 'ignore' });
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  beforeEach(async () => {
    dc = new DebugClient('node', ADAPTER, 'slsdbg', { env: { ...process.env, SLSDBG, SLSDBG_DIR: path.join(work, 'store') } });
    dc.defaultTimeout = EVENT_TIMEOUT_MS;
    await dc.start();
  });
  afterEach(async () => { await dc.stop().catch(() => undefined); });

  async function evaluate(expr: string, frameId?: number): Promise<string> {
    const r = await dc.evaluateRequest({ expression: expr, frameId, context: 'watch' });
    return r.body.result;
  }
  async function topFrame(): Promise<DebugProtocol.StackFrame> {
    const st = await dc.stackTraceRequest({ threadId: 1 });
    return st.body.stackFrames[0];
  }
  async function stopAfter(p: Promise<unknown>, timeout = 30000): Promise<DebugProtocol.StoppedEvent> {
    const ev = dc.waitForEvent('stopped', timeout);
    await p;
    return (await ev) as DebugProtocol.StoppedEvent;
  }
  async function launchAtEntry(recording: string): Promise<void> {
    const stopped = dc.waitForEvent('stopped', 30000);
    await Promise.all([dc.configurationSequence(), dc.launch({ recording, stopOnEntry: true })]);
    assert.strictEqual(((await stopped) as DebugProtocol.StoppedEvent).body.reason, 'entry');
  }
  async function launchAtBreakpoint(recording: string): Promise<void> {
    await dc.hitBreakpoint({ recording, stopOnEntry: false }, { path: FIXTURE, line: MARK_LINE });
  }

  it('hits a source breakpoint going forward', async () => {
    await launchAtBreakpoint(rec);
    const f = await topFrame();
    assert.strictEqual(f.name, 'main');
    assert.strictEqual(f.line, MARK_LINE);
    assert.strictEqual(await evaluate('i', f.id), '0');
    assert.strictEqual(await evaluate('tl_total', f.id), '1');
  });

  it('reverse-continues back to the previous hit, and shows that moment\'s variables', async () => {
    await launchAtBreakpoint(rec);
    await stopAfter(dc.continueRequest({ threadId: 1 }));
    const ev2 = await stopAfter(dc.continueRequest({ threadId: 1 }));
    assert.strictEqual(ev2.body.reason, 'breakpoint');
    assert.strictEqual(await evaluate('i', (await topFrame()).id), '2');
    const back = await stopAfter(dc.reverseContinueRequest({ threadId: 1 }));
    assert.strictEqual(back.body.reason, 'breakpoint');
    const f = await topFrame();
    assert.strictEqual(f.line, MARK_LINE);
    const scopes = await dc.scopesRequest({ frameId: f.id });
    const locals = scopes.body.scopes.find((s) => s.name === 'Locals')!;
    const vars = await dc.variablesRequest({ variablesReference: locals.variablesReference });
    const byName = new Map(vars.body.variables.map((v) => [v.name, v.value]));
    assert.strictEqual(byName.get('i'), '1');
    assert.strictEqual(await evaluate('tl_total', f.id), String(1 + 4));
  });

  it('steps back by a source line and by an instruction', async () => {
    await launchAtBreakpoint(rec);
    await stopAfter(dc.continueRequest({ threadId: 1 }));
    const pcAtMark = (await topFrame()).instructionPointerReference;
    const ev = await stopAfter(dc.stepBackRequest({ threadId: 1 }));
    assert.strictEqual(ev.body.reason, 'step');
    const f = await topFrame();
    assert.strictEqual(f.line, TOTAL_LINE);
    assert.strictEqual(await evaluate('i', f.id), '1');
    // The write on that line has not happened yet at its start: total of i=0.
    assert.strictEqual(await evaluate('tl_total', f.id), '1');
    await stopAfter(dc.nextRequest({ threadId: 1 }));
    assert.strictEqual((await topFrame()).instructionPointerReference, pcAtMark);
    await stopAfter(dc.stepBackRequest({ threadId: 1, granularity: 'instruction' }));
    const g = await topFrame();
    assert.strictEqual(g.line, TOTAL_LINE);
    assert.notStrictEqual(g.instructionPointerReference, pcAtMark);
    const dis = await dc.disassembleRequest({ memoryReference: g.instructionPointerReference!, instructionOffset: -2, instructionCount: 5 });
    assert.strictEqual(dis.body!.instructions[2].address.replace(/^0x0*/, ''), g.instructionPointerReference!.replace(/^0x0*/, ''));
  });

  it('steps in and out forward, and in and out backwards', async () => {
    await launchAtBreakpoint(rec);
    // The client sees each move's response before its stop, however short the move.
    const order: string[] = [];
    const ev = dc.waitForEvent('stopped').then(() => order.push('stopped'));
    await dc.stepInRequest({ threadId: 1 }).then(() => order.push('response'));
    await ev;
    assert.deepStrictEqual(order, ['response', 'stopped']);
    assert.strictEqual((await topFrame()).name, 'tl_mark');
    await stopAfter(dc.stepOutRequest({ threadId: 1 }));
    assert.strictEqual((await topFrame()).name, 'main');
    // Backwards: into tl_mark's return, then out to the call in main.
    await stopAfter(dc.customRequest('slsdbg.reverseStepIn'));
    assert.strictEqual((await topFrame()).name, 'tl_mark');
    await stopAfter(dc.customRequest('slsdbg.reverseStepOut'));
    const f = await topFrame();
    assert.strictEqual(f.name, 'main');
    assert.strictEqual(f.line, MARK_LINE);
  });

  it('reports the end of history as a stop, then finds the last write with a data breakpoint in reverse', async () => {
    await launchAtEntry(rec);
    const end = await stopAfter(dc.continueRequest({ threadId: 1 }));
    assert.strictEqual(end.body.reason, 'end of history');
    assert.match(end.body.description ?? '', /end of the recording.*exited with status 0/);
    const info = await dc.dataBreakpointInfoRequest({ name: 'tl_total' });
    assert.ok(info.body.dataId);
    const set = await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId!, accessType: 'write' }] });
    assert.ok(set.body.breakpoints[0].verified, set.body.breakpoints[0].message);
    const hit = await stopAfter(dc.reverseContinueRequest({ threadId: 1 }));
    assert.strictEqual(hit.body.reason, 'data breakpoint');
    const f = await topFrame();
    assert.strictEqual(f.line, TOTAL_LINE);
    assert.strictEqual(await evaluate('i', f.id), '3');
    // Once more backwards, then forwards again: the data breakpoint works both ways.
    await stopAfter(dc.reverseContinueRequest({ threadId: 1 }));
    assert.strictEqual(await evaluate('i', (await topFrame()).id), '2');
    const fwd = await stopAfter(dc.continueRequest({ threadId: 1 }));
    assert.strictEqual(fwd.body.reason, 'data breakpoint');
    // Going backwards stopped just before iteration 2's write; forwards runs it.
    assert.match(fwd.body.description ?? '', /tl_total changed \(5 → 12\)/);
    assert.strictEqual(await evaluate('i', (await topFrame()).id), '2');
  });

  it('pauses a long reverse scan where it has reached', async function () {
    await launchAtEntry(longRec);
    const cps = JSON.parse(execFileSync(SLSDBG, ['info', longRec, '--json']).toString()).checkpoints;
    const atEnd = dc.waitForEvent('stopped', 30000);
    await dc.customRequest('slsdbg.goto', { where: String(cps[cps.length - 1].id) });
    await atEnd;
    // tl_start runs once at the start: the reverse scan crosses every CPU-bound iteration.
    await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'tl_start' }] });
    const stopped = dc.waitForEvent('stopped', 20000).then((e) => e as DebugProtocol.StoppedEvent);
    await dc.reverseContinueRequest({ threadId: 1 });
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    await dc.pauseRequest({ threadId: 1 });
    // The engine polls for the interrupt at every checkpoint and event of the scan.
    const first = await stopped;
    const took = Date.now() - t0;
    // A pause that lands shows 'pause'; a scan that ends first shows the breakpoint.
    assert.ok(['pause', 'breakpoint'].includes(first.body.reason), `stopped for ${first.body.reason}`);
    console.log(`      pause: stopped for ${first.body.reason} ${took} ms after the request`);
    const f = await topFrame();
    assert.ok(f.name.length > 0);
    assert.match(await evaluate('tl_total', f.id), /^\d+$/);
  });

  it('pauses a continue deep inside one long segment', async function () {
    // No event or checkpoint for seconds: only the cut of the replay's wait
    // (process/wait_cut.h) stops it; the move is then undone.
    this.timeout(120000);
    await launchAtBreakpoint(oneSegment);
    const stopped = dc.waitForEvent('stopped', 60000).then((e) => e as DebugProtocol.StoppedEvent);
    await dc.continueRequest({ threadId: 1 });
    await new Promise((r) => setTimeout(r, 500));
    const t0 = Date.now();
    await dc.pauseRequest({ threadId: 1 });
    const first = await stopped;
    const took = Date.now() - t0;
    console.log(`      pause: stopped for ${first.body.reason} ${took} ms after the request`);
    assert.strictEqual(first.body.reason, 'pause');
    // Uncut, the continue replays the whole spin (seconds of CPU, more under load).
    assert.ok(took < 4000, `the pause took ${took} ms: it waited for the segment's end`);
    const f = await topFrame();
    assert.strictEqual(f.line, MARK_LINE);
    assert.strictEqual(await evaluate('i', f.id), '0');
  });

  it('goes to a checkpoint through the custom request', async () => {
    await launchAtBreakpoint(rec);
    const cps = JSON.parse(execFileSync(SLSDBG, ['info', rec, '--json']).toString()).checkpoints;
    const last = cps[cps.length - 1].id;
    const stopped = dc.waitForEvent('stopped');
    const r = await dc.customRequest('slsdbg.goto', { where: String(last) });
    assert.match(r.body.text, new RegExp(`now at ${last}:0:`));
    assert.strictEqual(((await stopped) as DebugProtocol.StoppedEvent).body.reason, 'goto');
    const when = await dc.customRequest('slsdbg.monitor', { command: 'when' });
    assert.match(when.body.text, new RegExp(`Current moment: ${last}:`));
    await assert.rejects(dc.customRequest('slsdbg.goto', { where: '999' }), /no checkpoint 999/);
  });

  it('bisects with progress, goes to the answer, and dumps a core there', async () => {
    const small = path.join(work, 'small.rec');
    execFileSync(SLSDBG, ['record', '-o', small, '--interval', '2', '--', path.join(PROGRAMS, 'timeline_counter'), '8', '0'], { stdio: 'ignore' });
    const progress: string[] = [];
    const report = await new SlsdbgCli(SLSDBG).bisect(small, 'tl_total < 20', (l) => progress.push(l));
    assert.ok(progress.some((l) => /probe \d+/.test(l)), `no progress lines: ${progress.join(' | ')}`);
    assert.match(report.moment, /^\d+:\d+:0x[0-9a-f]+:\d+$/);
    assert.strictEqual(report.refined.line, TOTAL_LINE);
    // The Timeline view renders that recording with its bisect answer.
    const info = await new SlsdbgCli(SLSDBG).info(small);
    const html = renderTimeline({ info, bookmarks: [], bisect: { moment: report.moment, text: 'first fails' } });
    for (const c of info.checkpoints) assert.ok(html.includes(`data-goto="${c.id}"`), `checkpoint ${c.id} missing`);
    assert.ok(html.includes(`data-goto="${report.moment}"`));
    await launchAtEntry(small);
    const stopped = dc.waitForEvent('stopped', 30000);
    await dc.customRequest('slsdbg.goto', { where: report.moment });
    await stopped;
    const f = await topFrame();
    const total = Number(await evaluate('tl_total', f.id));
    assert.ok(total >= 20 && total < 20 + 3 * 8 + 1, `tl_total ${total} at the first bad moment`);
    const core = path.join(work, 'here.core');
    await dc.customRequest('slsdbg.monitor', { command: `dump ${core}` });
    assert.strictEqual(fs.readFileSync(core).subarray(0, 4).toString('latin1'), '\x7fELF');
  });

  it('records a program, then stops at a conditional breakpoint in its replay', async () => {
    const stopped = dc.waitForEvent('stopped', 30000);
    await Promise.all([
      dc.waitForEvent('initialized', 30000).then(() => dc.setBreakpointsRequest({
        source: { path: FIXTURE }, breakpoints: [{ line: MARK_LINE, condition: 'i == 2' }] }))
        .then((r) => assert.ok(r.body.breakpoints[0].verified)).then(() => dc.configurationDoneRequest()),
      dc.launch({ program: path.join(PROGRAMS, 'timeline_counter'), args: ['3', '0'], stopOnEntry: false }),
    ]);
    const ev = (await stopped) as DebugProtocol.StoppedEvent;
    assert.strictEqual(ev.body.reason, 'breakpoint');
    assert.strictEqual(await evaluate('i', (await topFrame()).id), '2');
    // The recording went to slsdbg's store, where `latest` names it.
    const r = await dc.customRequest('slsdbg.recording');
    assert.strictEqual(fs.realpathSync(r.body.recording), fs.realpathSync(path.join(work, 'store', 'latest')));
  });

  it('launches "latest" from slsdbg\'s store', async () => {
    const store = path.join(work, 'latest-store');
    execFileSync(SLSDBG, ['record', '--', path.join(PROGRAMS, 'timeline_counter'), '2', '0'],
      { stdio: 'ignore', env: { ...process.env, SLSDBG_DIR: store } });
    await dc.stop();
    dc = new DebugClient('node', ADAPTER, 'slsdbg', { env: { ...process.env, SLSDBG, SLSDBG_DIR: store } });
    dc.defaultTimeout = EVENT_TIMEOUT_MS;
    await dc.start();
    await launchAtEntry('latest');
    const r = await dc.customRequest('slsdbg.recording');
    assert.strictEqual(fs.realpathSync(r.body.recording), fs.realpathSync(path.join(store, 'latest')));
  });

  it('gives an error message for a missing recording', async () => {
    await assert.rejects(dc.launch({ recording: path.join(work, 'missing.rec') }), /slsdbg: .*missing\.rec/);
  });
});
