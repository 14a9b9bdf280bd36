// A GDB/MI client: runs `gdb -i=mi`, sends tokened commands and resolves each
// with its result record; async and stream records become events. Knows
// nothing of DAP (the session class translates).
import { ChildProcess, spawn } from 'child_process';
import { EventEmitter } from 'events';
import * as readline from 'readline';
import { MIRecord, MITuple, parseMILine } from './miParser';

export class MIError extends Error {
  constructor(message: string, readonly command: string) { super(message); }
}

export interface MIResult {
  cls: string;
  results: MITuple;
  /** console text printed while the command ran (e.g. for `monitor ...`) */
  console: string;
}

interface Pending {
  command: string;
  resolve: (r: MIResult) => void;
  reject: (e: Error) => void;
  console: string[];
}

/**
 * Events: 'exec' (MIRecord: *stopped, *running), 'notify' (=...), 'stream'
 * (MIRecord console/target/log), 'exit' (code).
 */
export class GdbClient extends EventEmitter {
  private proc?: ChildProcess;
  private nextToken = 1;
  private readonly pending = new Map<number, Pending>();
  private exited = false;
  /** Every line exchanged, for a failing test or a bug report. */
  readonly transcript: string[] = [];

  start(gdbPath: string, args: string[], cwd?: string): void {
    const proc = spawn(gdbPath, ['-i=mi', '-nx', '-q', ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc = proc;
    readline.createInterface({ input: proc.stdout! }).on('line', (l) => this.onLine(l));
    readline.createInterface({ input: proc.stderr! }).on('line', (l) =>
      this.emit('stream', { kind: 'log', results: {}, text: l + '\n' } as MIRecord));
    proc.on('error', (e) => this.onExit(-1, `cannot run ${gdbPath}: ${e.message}`));
    proc.on('exit', (code) => this.onExit(code ?? -1, `gdb exited (${code})`));
  }

  get running(): boolean { return !!this.proc && !this.exited; }

  /** Sends `-command args`; resolves on ^done/^running/^connected, rejects on ^error. */
  send(command: string): Promise<MIResult> {
    if (!this.proc || this.exited) return Promise.reject(new MIError('gdb is not running', command));
    const token = this.nextToken++;
    const line = `${token}${command}`;
    this.transcript.push('> ' + line);
    return new Promise((resolve, reject) => {
      this.pending.set(token, { command, resolve, reject, console: [] });
      this.proc!.stdin!.write(line + '\n');
    });
  }

  /** A CLI command through MI, its console output as the result. */
  async console(cli: string): Promise<string> {
    const r = await this.send(`-interpreter-exec console ${JSON.stringify(cli)}`);
    return r.console;
  }

  kill(): void {
    if (this.proc && !this.exited) this.proc.kill('SIGKILL');
  }

  private onLine(line: string): void {
    if (line.length === 0) return;
    this.transcript.push('< ' + line);
    if (this.transcript.length > 4000) this.transcript.splice(0, 1000);
    let rec: MIRecord;
    try {
      rec = parseMILine(line);
    } catch {
      this.emit('stream', { kind: 'log', results: {}, text: line + '\n' } as MIRecord);
      return;
    }
    switch (rec.kind) {
      case 'result': {
        const p = rec.token !== undefined ? this.pending.get(rec.token) : undefined;
        if (!p) return;
        this.pending.delete(rec.token!);
        const text = p.console.join('');
        if (rec.cls === 'error') {
          const msg = typeof rec.results.msg === 'string' ? rec.results.msg : 'error';
          p.reject(new MIError(text.trim() ? `${msg}\n${text.trim()}` : msg, p.command));
        } else {
          p.resolve({ cls: rec.cls ?? 'done', results: rec.results, console: text });
        }
        return;
      }
      case 'console':
      case 'target':
      case 'log':
        // Stream text belongs to the oldest command still waiting for its result.
        for (const p of this.pending.values()) { p.console.push(rec.text ?? ''); break; }
        this.emit('stream', rec);
        return;
      case 'exec':
        this.emit('exec', rec);
        return;
      case 'notify':
      case 'status':
        this.emit('notify', rec);
        return;
      default:
        return;
    }
  }

  private onExit(code: number, why: string): void {
    if (this.exited) return;
    this.exited = true;
    for (const p of this.pending.values()) p.reject(new MIError(why, p.command));
    this.pending.clear();
    this.emit('exit', code);
  }
}
