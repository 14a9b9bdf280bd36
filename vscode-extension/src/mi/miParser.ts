// A GDB/MI output parser (GDB manual, "GDB/MI Output Syntax"): one line in,
// one record out. Values are strings, tuples (objects) or lists; a list of
// `name=value` results becomes an array of single-key objects' values.
export type MIValue = string | MITuple | MIValue[];
export interface MITuple { [key: string]: MIValue }

export type MIRecordKind = 'result' | 'exec' | 'status' | 'notify' | 'console' | 'target' | 'log' | 'prompt';

export interface MIRecord {
  kind: MIRecordKind;
  token?: number;
  /** result/async class: done, error, running, stopped, thread-created... */
  cls?: string;
  results: MITuple;
  /** the text of a stream record (console, target, log) */
  text?: string;
}

const KIND_OF: Record<string, MIRecordKind> = {
  '^': 'result', '*': 'exec', '+': 'status', '=': 'notify', '~': 'console', '@': 'target', '&': 'log',
};

export class MIParseError extends Error {}

export function parseMILine(line: string): MIRecord {
  if (line.startsWith('(gdb)')) return { kind: 'prompt', results: {} };
  const p = new Cursor(line);
  let token: number | undefined;
  const digits = p.takeWhile((c) => c >= '0' && c <= '9');
  if (digits) token = Number(digits);
  const kind = KIND_OF[p.peek()];
  if (!kind) throw new MIParseError(`not an MI record: ${line}`);
  p.next();
  if (kind === 'console' || kind === 'target' || kind === 'log') {
    return { kind, token, results: {}, text: p.cString() };
  }
  const cls = p.takeWhile((c) => c !== ',');
  const results: MITuple = {};
  while (p.peek() === ',') {
    p.next();
    const [k, v] = p.result();
    results[k] = v;
  }
  return { kind, token, cls, results };
}

class Cursor {
  private i = 0;
  constructor(private readonly s: string) {}
  peek(): string { return this.s[this.i] ?? ''; }
  next(): string { return this.s[this.i++] ?? ''; }
  expect(c: string): void {
    if (this.next() !== c) throw new MIParseError(`expected '${c}' at ${this.i - 1} in: ${this.s}`);
  }
  takeWhile(ok: (c: string) => boolean): string {
    const start = this.i;
    while (this.i < this.s.length && ok(this.s[this.i])) this.i++;
    return this.s.slice(start, this.i);
  }
  result(): [string, MIValue] {
    const key = this.takeWhile((c) => c !== '=' && c !== ',' && c !== '}' && c !== ']');
    this.expect('=');
    return [key, this.value()];
  }
  value(): MIValue {
    const c = this.peek();
    if (c === '"') return this.cString();
    if (c === '{') return this.tuple();
    if (c === '[') return this.list();
    throw new MIParseError(`unexpected '${c}' at ${this.i} in: ${this.s}`);
  }
  tuple(): MITuple {
    this.expect('{');
    const t: MITuple = {};
    if (this.peek() === '}') { this.next(); return t; }
    for (;;) {
      const [k, v] = this.result();
      t[k] = v;
      const c = this.next();
      if (c === '}') return t;
      if (c !== ',') throw new MIParseError(`expected ',' or '}' in: ${this.s}`);
    }
  }
  list(): MIValue[] {
    this.expect('[');
    const out: MIValue[] = [];
    if (this.peek() === ']') { this.next(); return out; }
    for (;;) {
      const c = this.peek();
      // A list holds either values or results (name=value); keep the values.
      out.push(c === '"' || c === '{' || c === '[' ? this.value() : this.result()[1]);
      const d = this.next();
      if (d === ']') return out;
      if (d !== ',') throw new MIParseError(`expected ',' or ']' in: ${this.s}`);
    }
  }
  cString(): string {
    this.expect('"');
    let out = '';
    for (;;) {
      const c = this.next();
      if (c === '') throw new MIParseError(`unterminated string in: ${this.s}`);
      if (c === '"') return out;
      if (c !== '\\') { out += c; continue; }
      const e = this.next();
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        default:
          if (e >= '0' && e <= '7') {  // octal escape of a raw byte
            let oct = e;
            while (oct.length < 3 && this.peek() >= '0' && this.peek() <= '7') oct += this.next();
            out += String.fromCharCode(parseInt(oct, 8));
          } else {
            out += e;
          }
      }
    }
  }
}

/** Quotes a string as an MI c-string argument. */
export function miQuote(s: string): string {
  return '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') + '"';
}

export function str(v: MIValue | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
