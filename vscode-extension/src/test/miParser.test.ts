// The MI parser on records GDB 13 prints (copied from a session with slsdbg).
import * as assert from 'assert';
import { MITuple, parseMILine } from '../mi/miParser';

describe('GDB/MI parser', () => {
  it('parses a stop with nested tuples and lists', () => {
    const r = parseMILine('*stopped,reason="breakpoint-hit",disp="keep",bkptno="1",frame={addr="0x0000556fe33ec1b3",func="main",args=[],' +
      'file="t.c",line="25",arch="i386:x86-64"},thread-id="1",stopped-threads="all"');
    assert.strictEqual(r.kind, 'exec');
    assert.strictEqual(r.cls, 'stopped');
    assert.strictEqual(r.results.reason, 'breakpoint-hit');
    assert.deepStrictEqual((r.results.frame as MITuple).args, []);
    assert.strictEqual((r.results.frame as MITuple).line, '25');
  });
  it('parses tokens, result lists and escapes', () => {
    const r = parseMILine('12^done,stack=[frame={level="0",func="f"},frame={level="1",func="main"}],s="a\\"b\\\\c\\n\\101"');
    assert.strictEqual(r.token, 12);
    assert.strictEqual(r.kind, 'result');
    assert.strictEqual(((r.results.stack as MITuple[])[1]).func, 'main');
    assert.strictEqual(r.results.s, 'a"b\\c\nA');
  });
  it('parses stream records and rejects garbage', () => {
    assert.strictEqual(parseMILine('@"slsdbg: the end\\n"').text, 'slsdbg: the end\n');
    assert.strictEqual(parseMILine('(gdb) ').kind, 'prompt');
    assert.throws(() => parseMILine('hello'));
    assert.throws(() => parseMILine('^done,x={a="1"'));
  });
});
