// Runs the slsdbg command line: record, info --json, bisect --json, dump,
// restore, and `replay --server` for the debug adapter. No VS Code API here,
// so the adapter, the timeline view and the tests share it.
import { ChildProcess, execFile, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export interface CheckpointInfo {
  id: number;
  time_ns: number;
  reason: string;
  segment_events: number;
  dirty_pages?: number;
  stop_us?: number;
}

export interface RecordingInfo {
  path: string;
  program: string;
  args?: string[];
  checkpoints: CheckpointInfo[];
  events: number;
  events_by_kind?: Record<string, number>;
  exit?: { status?: number; signal?: number | string };
  finished?: boolean;
  interval_ns?: number;
}

export interface Bookmark { name: string; moment: string }

function run(bin: string, args: string[], opts: { cwd?: string; timeoutMs?: number } = {}): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(bin, args, { cwd: opts.cwd, timeout: opts.timeoutMs ?? 0, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) {
        const line = (stderr || stdout || err.message).trim().split('\n').pop() ?? err.message;
        reject(new Error(`slsdbg ${args[0]}: ${line}`));
      } else {
        resolve({ stdout, stderr });
      }
    });
  });
}

export class SlsdbgCli {
  constructor(readonly bin: string = process.env.SLSDBG ?? 'slsdbg') {}

  async info(rec: string): Promise<RecordingInfo> {
    const { stdout } = await run(this.bin, ['info', rec, '--json']);
    return JSON.parse(stdout) as RecordingInfo;
  }

  /**
   * Records PROGRAM ARGS into slsdbg's own store ($SLSDBG_DIR, where `latest`
   * then names it) unless outDir is given; returns the recording's directory.
   */
  async record(program: string, args: string[], cwd?: string, outDir?: string): Promise<string> {
    const out = outDir ? ['-o', outDir] : [];
    const { stderr } = await run(this.bin, ['record', ...out, '--', program, ...args], { cwd });
    const m = /recorded .* in (\S+)\s*$/m.exec(stderr);
    if (!m && !outDir) throw new Error(`slsdbg record: cannot tell where the recording went: ${stderr.trim()}`);
    return path.resolve(cwd ?? '.', outDir ?? m![1]);
  }

  /** Starts `slsdbg replay REC --server unix:SOCK`; resolves once it listens. */
  serve(rec: string): Promise<{ proc: ChildProcess; socket: string; dir: string; program: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slsdbg-dap-'));
    fs.chmodSync(dir, 0o700);
    const socket = path.join(dir, 'replay.sock');
    const proc = spawn(this.bin, ['replay', rec, '--server', `unix:${socket}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    return new Promise((resolve, reject) => {
      let out = '';
      let err = '';
      const fail = (why: string) => { proc.kill('SIGKILL'); reject(new Error(why)); };
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /connect with: gdb (\S+)/.exec(out);
        if (out.includes('listening on') && m) resolve({ proc, socket, dir, program: m[1] });
      });
      proc.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
      proc.on('error', (e) => fail(`cannot run ${this.bin}: ${e.message}`));
      proc.on('exit', (code) => fail((err.trim().split('\n').pop() || out.trim()) || `slsdbg replay exited ${code}`));
    });
  }

  /**
   * `slsdbg bisect REC --expr EXPR --json`. Progress lines are printed by
   * slsdbg only on a terminal, so the run goes through `script` (a pty) when
   * it is there; onProgress gets each line.
   */
  bisect(rec: string, expr: string, onProgress: (line: string) => void, signal?: AbortSignal): Promise<any> {
    const args = ['bisect', rec, '--expr', expr, '--json'];
    const quoted = [this.bin, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const useScript = fs.existsSync('/usr/bin/script');
    const proc = useScript
      ? spawn('/usr/bin/script', ['-qefc', quoted, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TERM: 'dumb' } })
      : spawn(this.bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    signal?.addEventListener('abort', () => proc.kill('SIGINT'));
    return new Promise((resolve, reject) => {
      let out = '';
      let err = '';
      const onData = (d: Buffer) => {
        out += d.toString();
        for (const m of d.toString().matchAll(/bisect: ([^\r\n\x1b]+)/g)) onProgress(m[1]);
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', (d: Buffer) => { err += d.toString(); onData(d); });
      proc.on('exit', (code) => {
        const start = out.indexOf('{');
        const end = out.lastIndexOf('}');
        if (code === 0 && start >= 0 && end > start) {
          try { resolve(JSON.parse(out.slice(start, end + 1))); return; } catch { /* fall through */ }
        }
        const text = (err + out).replace(/\x1b\[K|\r/g, '\n').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('bisect: ') || /error|cannot|no /i.test(l));
        reject(new Error(text.pop() ?? `slsdbg bisect exited ${code}`));
      });
    });
  }

  /** `slsdbg restore REC --at K` in a terminal the caller provides: the command line. */
  restoreCommand(rec: string, checkpoint: number): string[] {
    return [this.bin, 'restore', rec, '--at', String(checkpoint)];
  }
}

/** A one-line summary of how the recording ended, for the timeline. */
export function endOfRecording(info: RecordingInfo): string {
  const last = info.checkpoints[info.checkpoints.length - 1];
  if (info.exit?.signal !== undefined) return `killed by signal ${info.exit.signal}`;
  if (info.exit?.status !== undefined) return `exited with status ${info.exit.status}`;
  return last ? `ends at checkpoint ${last.id} (${last.reason})` : 'empty';
}
