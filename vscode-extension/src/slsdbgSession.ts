// The DAP session for debug type `slsdbg`: translates DAP requests into GDB/MI
// commands for a GDB connected to `slsdbg replay REC --server unix:PATH`.
// The MI transport and parser live in mi/; slsdbg's command line in slsdbgCli.
import {
  Breakpoint, InitializedEvent, LoggingDebugSession, OutputEvent, Scope, Source, StackFrame,
  StoppedEvent, TerminatedEvent, Thread,
} from '@vscode/debugadapter';
import { DebugProtocol } from '@vscode/debugprotocol';
import { ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { GdbClient, MIError } from './mi/gdbClient';
import { MIRecord, MITuple, MIValue, miQuote, str } from './mi/miParser';
import { SlsdbgCli } from './slsdbgCli';
import { describeStop } from './stopReason';

export interface SlsdbgLaunchArgs extends DebugProtocol.LaunchRequestArguments {
  recording?: string;
  program?: string;
  args?: string[];
  cwd?: string;
  stopOnEntry?: boolean;
  slsdbg?: string;
  gdb?: string;
}

const PAUSE_NOTICE_MS = 3000;

type VarRef = { kind: 'locals'; thread: number; frame: number } | { kind: 'registers'; thread: number; frame: number }
  | { kind: 'varobj'; name: string };

export class SlsdbgSession extends LoggingDebugSession {
  private gdb = new GdbClient();
  private server?: ChildProcess;
  private serverDir?: string;
  private cli = new SlsdbgCli();
  private recording = '';
  private configured!: Promise<void>;
  private markConfigured!: () => void;
  private reverse = false;
  private pauseRequested = false;
  private textSinceRun = '';
  private sourceBreakpoints = new Map<string, number[]>();
  private functionBreakpoints: number[] = [];
  private dataBreakpoints: number[] = [];
  private refs = new Map<number, VarRef>();
  private nextRef = 1;
  private varobjs: string[] = [];
  private frameIds = new Map<number, { thread: number; frame: number }>();
  private ending = false;

  constructor() {
    super();
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
    this.configured = new Promise((r) => { this.markConfigured = r; });
  }

  protected initializeRequest(response: DebugProtocol.InitializeResponse): void {
    response.body = {
      supportsConfigurationDoneRequest: true,
      supportsStepBack: true,
      supportsSteppingGranularity: true,
      supportsConditionalBreakpoints: true,
      supportsFunctionBreakpoints: true,
      supportsDataBreakpoints: true,
      supportsEvaluateForHovers: true,
      supportsDisassembleRequest: true,
      supportsInstructionBreakpoints: false,
      supportsTerminateRequest: true,
      supportsGotoTargetsRequest: false,
    };
    this.sendResponse(response);
  }

  protected configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.markConfigured();
    this.sendResponse(response);
  }

  protected async launchRequest(response: DebugProtocol.LaunchResponse, args: SlsdbgLaunchArgs): Promise<void> {
    try {
      this.cli = new SlsdbgCli(args.slsdbg ?? process.env.SLSDBG ?? 'slsdbg');
      if (args.program) {
        this.sendEvent(new OutputEvent(`slsdbg: recording ${args.program} ${(args.args ?? []).join(' ')}\n`, 'console'));
        this.recording = await this.cli.record(args.program, args.args ?? [], args.cwd);
        this.sendEvent(new OutputEvent(`slsdbg: recorded ${this.recording}\n`, 'console'));
      } else if (args.recording) {
        this.recording = args.recording;
      } else {
        throw new Error('launch needs "recording" (a directory or "latest") or "program"');
      }
      // A clear error for a missing or damaged recording; info also resolves
      // names in slsdbg's store (`latest`), which replay may not.
      this.recording = (await this.cli.info(this.recording)).path || this.recording;
      const served = await this.cli.serve(this.recording);
      this.server = served.proc;
      this.serverDir = served.dir;
      this.server.on('exit', () => this.endSession('the replay server stopped'));
      this.gdb.on('exec', (r: MIRecord) => this.onExec(r));
      this.gdb.on('stream', (r: MIRecord) => this.onStream(r));
      this.gdb.on('exit', () => this.endSession('gdb exited'));
      this.gdb.start(args.gdb ?? process.env.SLSDBG_GDB ?? 'gdb', [served.program], args.cwd);
      await this.gdb.send('-gdb-set mi-async on');
      await this.gdb.send('-gdb-set pagination off');
      await this.gdb.send('-gdb-set remotetimeout 600');
      await this.gdb.send('-gdb-set breakpoint pending on');
      this.connecting = true;
      await this.gdb.send(`-target-select remote ${served.socket}`);
      this.connecting = false;
      this.sendEvent(new InitializedEvent());
      await Promise.race([this.configured, new Promise((r) => setTimeout(r, 5000))]);
      this.sendResponse(response);
      if (args.stopOnEntry ?? true) {
        this.sendEvent(this.stopped({ reason: 'entry', description: `start of ${path.basename(this.recording)}` }));
      } else {
        await this.run('-exec-continue', false);
      }
    } catch (e) {
      this.cleanup();
      this.sendErrorResponse(response, 3000, `slsdbg: ${(e as Error).message}`);
    }
  }

  private connecting = false;
  private stops = 0;

  // threadId: GDB's number of the thread that stopped (a recording with
  // threads stops in the thread that hit the breakpoint or wrote the data).
  private stopped(s: { reason: string; description: string; hitBreakpointIds?: number[] }, threadId = 1): StoppedEvent {
    const ev = new StoppedEvent(s.reason, threadId) as DebugProtocol.StoppedEvent;
    ev.body.description = s.description;
    ev.body.text = s.description;
    ev.body.allThreadsStopped = true;
    if (s.hitBreakpointIds) ev.body.hitBreakpointIds = s.hitBreakpointIds;
    return ev;
  }

  private onStream(r: MIRecord): void {
    this.textSinceRun += r.text ?? '';
    if (this.textSinceRun.length > 65536) this.textSinceRun = this.textSinceRun.slice(-32768);
    const category = r.kind === 'target' ? 'stdout' : r.kind === 'log' ? 'stderr' : 'console';
    this.sendEvent(new OutputEvent(r.text ?? '', category));
  }

  private onExec(r: MIRecord): void {
    if (r.cls === 'running') return;
    if (r.cls !== 'stopped' || this.connecting) return;
    this.stops++;
    const s = describeStop(r.results, this.textSinceRun, this.reverse, this.pauseRequested);
    this.pauseRequested = false;
    this.invalidateVariables();
    const thread = Number(str(r.results['thread-id']));
    const ev = this.stopped(s, Number.isInteger(thread) && thread > 0 ? thread : 1);
    // A short move can stop before its request is answered: the client must
    // see the response (running) before the stop, so hold the event until then.
    if (this.heldStops) this.heldStops.push(ev);
    else this.sendEvent(ev);
  }

  private heldStops?: StoppedEvent[];

  /** Starts an execution command; the stop arrives later as *stopped. */
  private async run(command: string, reverse: boolean): Promise<void> {
    this.reverse = reverse;
    this.textSinceRun = '';
    this.invalidateVariables();
    await this.gdb.send(command + (reverse ? ' --reverse' : ''));
  }

  /** Runs an execution command for a request: the response, then any stop held meanwhile. */
  private async exec(response: DebugProtocol.Response, command: string, reverse: boolean): Promise<void> {
    this.heldStops = [];
    try {
      await this.run(command, reverse);
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, 3001, (e as Error).message);
    } finally {
      const held = this.heldStops ?? [];
      this.heldStops = undefined;
      for (const ev of held) this.sendEvent(ev);
    }
  }

  /** A step of one thread: the request's (GDB's number), else GDB's current one. */
  private stepCommand(kind: 'next' | 'step', g?: DebugProtocol.SteppingGranularity, threadId?: number): string {
    const thread = threadId && threadId > 0 ? ` --thread ${threadId}` : '';
    if (g === 'instruction') return (kind === 'next' ? '-exec-next-instruction' : '-exec-step-instruction') + thread;
    return (kind === 'next' ? '-exec-next' : '-exec-step') + thread;
  }

  protected continueRequest(response: DebugProtocol.ContinueResponse): Promise<void> {
    response.body = { allThreadsContinued: true };
    return this.exec(response, '-exec-continue', false);
  }
  protected reverseContinueRequest(response: DebugProtocol.ReverseContinueResponse): Promise<void> {
    return this.exec(response, '-exec-continue', true);
  }
  protected nextRequest(response: DebugProtocol.NextResponse, a: DebugProtocol.NextArguments): Promise<void> {
    return this.exec(response, this.stepCommand('next', a.granularity, a.threadId), false);
  }
  protected stepBackRequest(response: DebugProtocol.StepBackResponse, a: DebugProtocol.StepBackArguments): Promise<void> {
    return this.exec(response, this.stepCommand('next', a.granularity, a.threadId), true);
  }
  protected stepInRequest(response: DebugProtocol.StepInResponse, a: DebugProtocol.StepInArguments): Promise<void> {
    return this.exec(response, this.stepCommand('step', a.granularity, a.threadId), false);
  }
  protected stepOutRequest(response: DebugProtocol.StepOutResponse, a: DebugProtocol.StepOutArguments): Promise<void> {
    return this.exec(response, '-exec-finish' + (a?.threadId > 0 ? ` --thread ${a.threadId}` : ''), false);
  }

  protected async pauseRequest(response: DebugProtocol.PauseResponse): Promise<void> {
    this.pauseRequested = true;
    try {
      await this.gdb.send('-exec-interrupt');
      this.sendResponse(response);
      // The engine cuts a move within tens of ms; what it cannot cut (undoing
      // a forward move cut in its first segment, `monitor goto`) ends later
      // on its own: say so rather than leave the user guessing.
      const stopsBefore = this.stops;
      setTimeout(() => {
        if (this.stops === stopsBefore && !this.ending) {
          this.sendEvent(new OutputEvent(`slsdbg: pause requested ${PAUSE_NOTICE_MS / 1000} s ago; the replay is still ` +
            'busy with what cannot be cut short (going back to where the move started, or a monitor command): ' +
            'it stops when that ends\n', 'stderr'));
        }
      }, PAUSE_NOTICE_MS);
    } catch (e) {
      this.sendErrorResponse(response, 3002, `pause: ${(e as Error).message}`);
    }
  }

  // Custom requests: reverse step in/out (DAP has only stepBack), travel and
  // monitor commands for the Timeline view.
  protected async customRequest(command: string, response: DebugProtocol.Response, args: any): Promise<void> {
    try {
      switch (command) {
        case 'slsdbg.reverseStepIn':
          return this.exec(response, this.stepCommand('step', args?.granularity), true);
        case 'slsdbg.reverseStepOut':
          return this.exec(response, '-exec-finish', true);
        case 'slsdbg.goto': {
          const where = String(args?.where ?? '').trim();
          if (!where) throw new Error('goto needs a checkpoint, a moment or a bookmark');
          const text = await this.monitor(`goto ${where}`);
          await this.gdb.console('maint flush register-cache');
          this.invalidateVariables();
          response.body = { text };
          this.sendResponse(response);
          this.sendEvent(this.stopped({ reason: 'goto', description: text.trim() }));
          return;
        }
        case 'slsdbg.monitor':
          response.body = { text: await this.monitor(String(args?.command ?? 'help')) };
          break;
        case 'slsdbg.recording':
          response.body = { recording: path.resolve(this.recording), slsdbg: this.cli.bin, bookmarks: await this.bookmarks() };
          break;
        default:
          return super.customRequest(command, response, args);
      }
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, 3003, (e as Error).message);
    }
  }

  /** `monitor CMD`; slsdbg prints refusals as text, so an "error"/"no " first line is an error. */
  private async monitor(cmd: string): Promise<string> {
    const text = await this.gdb.console(`monitor ${cmd}`);
    const first = text.trim().split('\n')[0] ?? '';
    if (/^(error|no checkpoint|no bookmark|goto needs|dump needs)/i.test(first)) throw new Error(first);
    return text;
  }

  private async bookmarks(): Promise<{ name: string; moment: string }[]> {
    const text = await this.gdb.console('monitor bookmarks').catch(() => '');
    const out: { name: string; moment: string }[] = [];
    for (const m of text.matchAll(/^\s+(\S+)\s+(\d+:\d+:0x[0-9a-f]+:\d+)\s*$/gm)) out.push({ name: m[1], moment: m[2] });
    return out;
  }

  // ---- breakpoints ----
  private async insertBreakpoint(location: string, condition?: string): Promise<DebugProtocol.Breakpoint> {
    try {
      const cond = condition ? `-c ${miQuote(condition)} ` : '';
      const r = await this.gdb.send(`-break-insert -f ${cond}${miQuote(location)}`);
      const b = r.results.bkpt as MITuple;
      const bp = new Breakpoint(true) as DebugProtocol.Breakpoint;
      bp.id = Number(str(b.number));
      const line = Number(str(b.line));
      if (Number.isFinite(line)) bp.line = line;
      const file = str(b.fullname);
      if (file) bp.source = new Source(path.basename(file), file);
      if (str(b.pending)) { bp.verified = false; bp.message = 'pending: not in the loaded code yet'; }
      return bp;
    } catch (e) {
      const bp = new Breakpoint(false) as DebugProtocol.Breakpoint;
      bp.message = (e as Error).message;
      return bp;
    }
  }

  private async deleteBreakpoints(ids: number[]): Promise<void> {
    const valid = ids.filter((n) => Number.isFinite(n));
    if (valid.length) await this.gdb.send(`-break-delete ${valid.join(' ')}`).catch(() => undefined);
  }

  protected async setBreakPointsRequest(response: DebugProtocol.SetBreakpointsResponse, args: DebugProtocol.SetBreakpointsArguments): Promise<void> {
    const file = args.source.path ?? args.source.name ?? '';
    await this.deleteBreakpoints(this.sourceBreakpoints.get(file) ?? []);
    const out: DebugProtocol.Breakpoint[] = [];
    for (const b of args.breakpoints ?? []) out.push(await this.insertBreakpoint(`${file}:${b.line}`, b.condition));
    this.sourceBreakpoints.set(file, out.map((b) => b.id ?? NaN));
    response.body = { breakpoints: out };
    this.sendResponse(response);
  }

  protected async setFunctionBreakPointsRequest(response: DebugProtocol.SetFunctionBreakpointsResponse, args: DebugProtocol.SetFunctionBreakpointsArguments): Promise<void> {
    await this.deleteBreakpoints(this.functionBreakpoints);
    const out: DebugProtocol.Breakpoint[] = [];
    for (const b of args.breakpoints) out.push(await this.insertBreakpoint(b.name, b.condition));
    this.functionBreakpoints = out.map((b) => b.id ?? NaN);
    response.body = { breakpoints: out };
    this.sendResponse(response);
  }

  protected async dataBreakpointInfoRequest(response: DebugProtocol.DataBreakpointInfoResponse, args: DebugProtocol.DataBreakpointInfoArguments): Promise<void> {
    let expr = args.name;
    const ref = args.variablesReference !== undefined ? this.refs.get(args.variablesReference) : undefined;
    if (ref?.kind === 'varobj') {
      const child = `${ref.name}.${args.name}`;
      const r = await this.gdb.send(`-var-info-path-expression ${child}`).catch(() => undefined);
      if (r) expr = str(r.results.path_expr) ?? expr;
    }
    response.body = { dataId: expr, description: expr, accessTypes: ['write', 'read', 'readWrite'], canPersist: true };
    this.sendResponse(response);
  }

  protected async setDataBreakpointsRequest(response: DebugProtocol.SetDataBreakpointsResponse, args: DebugProtocol.SetDataBreakpointsArguments): Promise<void> {
    await this.deleteBreakpoints(this.dataBreakpoints);
    const out: DebugProtocol.Breakpoint[] = [];
    for (const b of args.breakpoints) {
      const flag = b.accessType === 'read' ? '-r ' : b.accessType === 'readWrite' ? '-a ' : '';
      try {
        const r = await this.gdb.send(`-break-watch ${flag}${miQuote(b.dataId)}`);
        const w = (r.results.wpt ?? r.results['hw-rwpt'] ?? r.results['hw-awpt']) as MITuple;
        const id = Number(str(w.number));
        if (b.condition) await this.gdb.send(`-break-condition ${id} ${b.condition}`);
        const bp = new Breakpoint(true) as DebugProtocol.Breakpoint;
        bp.id = id;
        out.push(bp);
      } catch (e) {
        const bp = new Breakpoint(false) as DebugProtocol.Breakpoint;
        bp.message = (e as Error).message;
        out.push(bp);
      }
    }
    this.dataBreakpoints = out.map((b) => b.id ?? NaN);
    response.body = { breakpoints: out };
    this.sendResponse(response);
  }

  // ---- threads, stack, variables ----
  protected async threadsRequest(response: DebugProtocol.ThreadsResponse): Promise<void> {
    try {
      const r = await this.gdb.send('-thread-info');
      const threads = (r.results.threads as MITuple[] ?? []).map((t) =>
        new Thread(Number(str(t.id)), `${str(t['target-id']) ?? 'thread'} ${str(t.name) ?? ''}`.trim()));
      response.body = { threads: threads.length ? threads : [new Thread(1, 'main')] };
    } catch {
      response.body = { threads: [new Thread(1, 'main')] };
    }
    this.sendResponse(response);
  }

  protected async stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): Promise<void> {
    try {
      const low = args.startFrame ?? 0;
      const high = low + (args.levels || 1000) - 1;
      const r = await this.gdb.send(`-stack-list-frames --thread ${args.threadId} ${low} ${high}`);
      const frames = (r.results.stack as MITuple[] ?? []).map((f) => {
        const level = Number(str(f.level));
        const id = args.threadId * 100000 + level;
        this.frameIds.set(id, { thread: args.threadId, frame: level });
        const file = str(f.fullname);
        const source = file && fs.existsSync(file) ? new Source(path.basename(file), file) : undefined;
        const sf = new StackFrame(id, str(f.func) ?? str(f.addr) ?? '??', source, Number(str(f.line) ?? 0)) as DebugProtocol.StackFrame;
        sf.instructionPointerReference = str(f.addr);
        if (!source) sf.presentationHint = 'subtle';
        return sf;
      });
      response.body = { stackFrames: frames, totalFrames: frames.length };
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, 3004, (e as Error).message);
    }
  }

  private newRef(v: VarRef): number {
    const id = this.nextRef++;
    this.refs.set(id, v);
    return id;
  }

  private invalidateVariables(): void {
    this.refs.clear();
    for (const v of this.varobjs) void this.gdb.send(`-var-delete ${v}`).catch(() => undefined);
    this.varobjs = [];
  }

  protected scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    const f = this.frameIds.get(args.frameId) ?? { thread: 1, frame: 0 };
    response.body = {
      scopes: [
        new Scope('Locals', this.newRef({ kind: 'locals', ...f }), false),
        new Scope('Registers', this.newRef({ kind: 'registers', ...f }), true),
      ],
    };
    this.sendResponse(response);
  }

  private async varobjVariable(name: string, expr: string, thread: number, frame: number): Promise<DebugProtocol.Variable> {
    const r = await this.gdb.send(`-var-create --thread ${thread} --frame ${frame} - * ${miQuote(expr)}`);
    const vo = str(r.results.name)!;
    this.varobjs.push(vo);
    const numchild = Number(str(r.results.numchild) ?? '0');
    return {
      name, value: str(r.results.value) ?? '', type: str(r.results.type),
      variablesReference: numchild > 0 ? this.newRef({ kind: 'varobj', name: vo }) : 0,
      evaluateName: expr,
    };
  }

  protected async variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): Promise<void> {
    const ref = this.refs.get(args.variablesReference);
    const vars: DebugProtocol.Variable[] = [];
    try {
      if (ref?.kind === 'locals') {
        const r = await this.gdb.send(`-stack-list-variables --thread ${ref.thread} --frame ${ref.frame} --no-values`);
        for (const v of (r.results.variables as MITuple[]) ?? []) {
          const name = str(v.name)!;
          vars.push(await this.varobjVariable(name, name, ref.thread, ref.frame).catch((e) =>
            ({ name, value: `<${(e as Error).message}>`, variablesReference: 0 })));
        }
      } else if (ref?.kind === 'registers') {
        const names = ((await this.gdb.send('-data-list-register-names')).results['register-names'] as MIValue[]).map(String);
        const r = await this.gdb.send(`-data-list-register-values --thread ${ref.thread} --frame ${ref.frame} x`);
        for (const v of (r.results['register-values'] as MITuple[]) ?? []) {
          const name = names[Number(str(v.number))];
          if (name) vars.push({ name, value: str(v.value) ?? '', variablesReference: 0 });
          if (vars.length >= 24) break;  // the general registers, rip, eflags, segments
        }
      } else if (ref?.kind === 'varobj') {
        const r = await this.gdb.send(`-var-list-children --all-values ${ref.name}`);
        for (const c of (r.results.children as MITuple[]) ?? []) {
          const vo = str(c.name)!;
          const numchild = Number(str(c.numchild) ?? '0');
          vars.push({ name: str(c.exp) ?? vo, value: str(c.value) ?? '', type: str(c.type),
            variablesReference: numchild > 0 ? this.newRef({ kind: 'varobj', name: vo }) : 0 });
        }
      }
      response.body = { variables: vars };
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, 3005, (e as Error).message);
    }
  }

  protected async evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): Promise<void> {
    const f = args.frameId !== undefined ? this.frameIds.get(args.frameId) : undefined;
    try {
      // In the debug console, `-exec CMD` runs a GDB command (as cppdbg does); `monitor ...` too.
      const cli = args.context === 'repl' && /^(-exec\s+|monitor\s)/.exec(args.expression);
      if (cli) {
        const cmd = args.expression.replace(/^-exec\s+/, '');
        const text = await this.gdb.console(cmd);
        response.body = { result: text.trimEnd(), variablesReference: 0 };
      } else {
        const v = await this.varobjVariable(args.expression, args.expression, f?.thread ?? 1, f?.frame ?? 0);
        response.body = { result: v.value, type: v.type, variablesReference: v.variablesReference };
      }
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, 3006, (e as Error).message);
    }
  }

  protected async disassembleRequest(response: DebugProtocol.DisassembleResponse, args: DebugProtocol.DisassembleArguments): Promise<void> {
    try {
      const base = BigInt(args.memoryReference) + BigInt(args.offset ?? 0);
      const before = Math.max(0, -(args.instructionOffset ?? 0));
      const start = base - BigInt(before * 15 + 64);
      const end = base + BigInt((args.instructionCount + Math.max(0, args.instructionOffset ?? 0)) * 15 + 16);
      const r = await this.gdb.send(`-data-disassemble -s 0x${start.toString(16)} -e 0x${end.toString(16)} -- 0`);
      // Starting before the address may begin mid-instruction: align on the address.
      const insns = ((r.results.asm_insns as MITuple[]) ?? []).map((i) => ({
        address: str(i.address) ?? '0x0', instruction: str(i.inst) ?? '', symbol: str(i['func-name']),
      }));
      let at = insns.findIndex((i) => BigInt(i.address) >= base);
      if (at < 0) at = insns.length;
      const out: DebugProtocol.DisassembledInstruction[] = [];
      const first = at + (args.instructionOffset ?? 0);
      for (let k = 0; k < args.instructionCount; k++) {
        const i = insns[first + k];
        out.push(i ? { address: i.address, instruction: i.instruction, symbol: i.symbol }
          : { address: '0x0', instruction: '', presentationHint: 'invalid' } as DebugProtocol.DisassembledInstruction);
      }
      response.body = { instructions: out };
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, 3007, (e as Error).message);
    }
  }

  // ---- end ----
  protected async disconnectRequest(response: DebugProtocol.DisconnectResponse): Promise<void> {
    this.ending = true;
    await Promise.race([this.gdb.send('-gdb-exit').catch(() => undefined), new Promise((r) => setTimeout(r, 1000))]);
    this.cleanup();
    this.sendResponse(response);
  }

  protected async terminateRequest(response: DebugProtocol.TerminateResponse): Promise<void> {
    this.ending = true;
    this.cleanup();
    this.sendResponse(response);
    this.sendEvent(new TerminatedEvent());
  }

  private endSession(why: string): void {
    if (this.ending) return;
    this.ending = true;
    this.sendEvent(new OutputEvent(`slsdbg: ${why}\n`, 'console'));
    this.cleanup();
    this.sendEvent(new TerminatedEvent());
  }

  private cleanup(): void {
    this.gdb.kill();
    if (this.server && this.server.exitCode === null) this.server.kill('SIGTERM');
    if (this.serverDir) fs.rmSync(this.serverDir, { recursive: true, force: true });
    this.serverDir = undefined;
  }
}

export { MIError };
