// Turns GDB's *stopped record (and the text printed just before it) into a
// DAP stop: reason and description. The end of history (program exit, crash,
// end of the recording, and its start when going backwards) is a stop, never
// a termination: reverse execution goes on from there.
import { MITuple, str } from './mi/miParser';

export interface DapStop {
  reason: string;
  description: string;
  hitBreakpointIds?: number[];
  /** true when the replay cannot go further in the direction it went */
  endOfHistory: boolean;
}

export function describeStop(rec: MITuple, textBefore: string, reverse: boolean, pauseRequested: boolean): DapStop {
  const reason = str(rec.reason) ?? '';
  const note = slsdbgNote(textBefore);
  const noHistory = reason === 'no-history' || /No more reverse-execution history/.test(textBefore);
  if (noHistory || reason.startsWith('exited')) {
    const description = reverse
      ? 'start of the recording (no history before this moment)'
      : `end of the recording: ${note ?? 'no history after this moment'}`;
    return { reason: 'end of history', description, endOfHistory: true };
  }
  switch (reason) {
    case 'breakpoint-hit': {
      const n = Number(str(rec.bkptno));
      return { reason: 'breakpoint', description: 'breakpoint', hitBreakpointIds: Number.isFinite(n) ? [n] : undefined, endOfHistory: false };
    }
    case 'watchpoint-trigger':
    case 'read-watchpoint-trigger':
    case 'access-watchpoint-trigger': {
      const wpt = (rec.wpt ?? rec.hw_awpt ?? rec.hw_rwpt) as MITuple | undefined;
      const n = Number(str(wpt?.number));
      const value = rec.value as MITuple | undefined;
      const change = value ? ` (${str(value.old) ?? str(value.value) ?? '?'} → ${str(value.new) ?? str(value.value) ?? '?'})` : '';
      return { reason: 'data breakpoint', description: `${str(wpt?.exp) ?? 'watched memory'} changed${change}`,
        hitBreakpointIds: Number.isFinite(n) ? [n] : undefined, endOfHistory: false };
    }
    case 'end-stepping-range':
    case 'function-finished':
      return { reason: 'step', description: reverse ? 'stepped back' : 'step', endOfHistory: false };
    case 'signal-received': {
      const sig = str(rec['signal-name']) ?? 'signal';
      if (sig === 'SIGINT' || sig === '0' || pauseRequested) return { reason: 'pause', description: 'paused', endOfHistory: false };
      return { reason: 'exception', description: `${sig}: ${str(rec['signal-meaning']) ?? ''}`.trim(), endOfHistory: false };
    }
    default:
      if (pauseRequested) return { reason: 'pause', description: note ? `paused: ${note}` : 'paused', endOfHistory: false };
      return { reason: 'step', description: note ?? (reason || 'stopped'), endOfHistory: false };
  }
}

/** The last "slsdbg: ..." line the server printed (target stream). */
export function slsdbgNote(text: string): string | undefined {
  const lines = text.split('\n').filter((l) => l.startsWith('slsdbg: '));
  return lines.length ? lines[lines.length - 1].slice('slsdbg: '.length).trim() : undefined;
}
