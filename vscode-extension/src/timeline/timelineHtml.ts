// The Timeline view's HTML, from a recording's `slsdbg info --json` and the
// bookmarks: a pure function, so the view, the tests and the screenshot
// script render the same page. Clicking an entry posts {type:'goto', where}.
import { RecordingInfo, endOfRecording } from '../slsdbgCli';

export interface TimelineModel {
  info?: RecordingInfo;
  bookmarks: { name: string; moment: string }[];
  current?: string;      // the current moment, e.g. 3:0:0x401136:1
  status?: string;       // a line under the header (bisect progress, errors)
  bisect?: { moment?: string; checkpoint?: number; text: string };
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]!));

function ms(ns: number): string { return (ns / 1e6).toFixed(1) + ' ms'; }

export function renderTimeline(m: TimelineModel, nonce = 'slsdbg'): string {
  const head = `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}';">
<style>
body { font-family: var(--vscode-font-family, sans-serif); font-size: var(--vscode-font-size, 13px);
  color: var(--vscode-foreground, #ccc); background: var(--vscode-sideBar-background, #252526); margin: 0; padding: 6px 8px; }
h3 { font-size: 11px; text-transform: uppercase; letter-spacing: .05em; margin: 10px 0 4px; opacity: .8; }
.meta { opacity: .8; margin-bottom: 4px; } .status { color: var(--vscode-charts-yellow, #cca700); margin: 4px 0; }
.strip { position: relative; height: 28px; background: var(--vscode-editorWidget-background, #1e1e1e); border-radius: 3px; margin: 6px 0; }
.tick { position: absolute; top: 4px; width: 3px; height: 20px; background: var(--vscode-charts-blue, #3794ff); cursor: pointer; border-radius: 1px; }
.tick.exit, .tick.crash, .tick.signal, .tick.stop { background: var(--vscode-charts-red, #f14c4c); }
.tick.forced { background: var(--vscode-charts-purple, #b180d7); }
.tick.cur { outline: 2px solid var(--vscode-focusBorder, #007fd4); }
.bm { position: absolute; top: -2px; font-size: 10px; color: var(--vscode-charts-orange, #d18616); }
table { border-collapse: collapse; width: 100%; } td { padding: 2px 4px; white-space: nowrap; }
tr.row { cursor: pointer; } tr.row:hover { background: var(--vscode-list-hoverBackground, #2a2d2e); }
tr.cur { background: var(--vscode-list-activeSelectionBackground, #04395e); }
.num { text-align: right; font-variant-numeric: tabular-nums; } .reason { opacity: .85; }
.pill { display: inline-block; padding: 0 5px; border-radius: 8px; font-size: 11px; background: var(--vscode-badge-background, #4d4d4d); color: var(--vscode-badge-foreground, #fff); }
button { background: var(--vscode-button-background, #0e639c); color: var(--vscode-button-foreground, #fff); border: 0; padding: 3px 8px; margin: 2px 2px 2px 0; border-radius: 2px; cursor: pointer; }
.empty { opacity: .7; margin-top: 12px; }
</style></head><body>`;
  const script = `<script nonce="${nonce}">
const vscode = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : { postMessage: () => {} };
document.addEventListener('click', (e) => {
  const el = e.target.closest('[data-goto],[data-cmd]');
  if (!el) return;
  if (el.dataset.goto) vscode.postMessage({ type: 'goto', where: el.dataset.goto });
  else vscode.postMessage({ type: 'command', command: el.dataset.cmd });
});
</script>`;
  const buttons = `<div>${[['gotoMoment', 'Go to moment…'], ['bisect', 'Bisect invariant…'], ['dumpCore', 'Dump core here'],
    ['restore', 'Restore a live process here']].map(([c, t]) => `<button data-cmd="slsdbg.${c}">${t}</button>`).join('')}</div>`;
  if (!m.info) {
    return head + `<div class="empty">No recording: start a debug session of type <b>slsdbg</b>
      (a <code>recording</code> or a <code>program</code> to record).</div>` + (m.status ? `<div class="status">${esc(m.status)}</div>` : '') + script + '</body></html>';
  }
  const info = m.info;
  const cps = info.checkpoints;
  const total = Math.max(1, cps.length ? cps[cps.length - 1].time_ns : 1);
  const curCp = m.current ? Number(m.current.split(':')[0]) : undefined;
  const name = info.path.split('/').filter(Boolean).pop() ?? info.path;
  let html = head;
  html += `<div class="meta"><b>${esc(name)}</b> · ${esc(info.program.split('/').pop() ?? '')} ${esc((info.args ?? []).slice(1).join(' '))}</div>`;
  html += `<div class="meta">${cps.length} checkpoints · ${info.events} events · ${ms(total)} · ${esc(endOfRecording(info))}</div>`;
  if (m.current) html += `<div class="meta">now at <span class="pill">${esc(m.current)}</span></div>`;
  if (m.status) html += `<div class="status">${esc(m.status)}</div>`;
  html += buttons;
  html += '<div class="strip">';
  for (const c of cps) {
    const left = (c.time_ns / total) * 97;
    html += `<div class="tick ${esc(c.reason)}${c.id === curCp ? ' cur' : ''}" style="left:${left.toFixed(2)}%" data-goto="${c.id}" title="checkpoint ${c.id} · ${ms(c.time_ns)} · ${esc(c.reason)}"></div>`;
  }
  for (const b of m.bookmarks) {
    const k = Number(b.moment.split(':')[0]);
    const c = cps.find((x) => x.id === k);
    if (c) html += `<div class="bm" style="left:${((c.time_ns / total) * 97).toFixed(2)}%" data-goto="${esc(b.name)}" title="${esc(b.name)} = ${esc(b.moment)}">★</div>`;
  }
  html += '</div>';
  if (m.bisect) {
    const where = m.bisect.moment ?? (m.bisect.checkpoint !== undefined ? String(m.bisect.checkpoint) : '');
    html += `<h3>Bisect</h3><table><tr class="row" data-goto="${esc(where)}"><td>⚑ ${esc(m.bisect.text)}</td><td class="num">${esc(where)}</td></tr></table>`;
  }
  if (m.bookmarks.length) {
    html += '<h3>Bookmarks</h3><table>';
    for (const b of m.bookmarks) html += `<tr class="row" data-goto="${esc(b.name)}"><td>★ ${esc(b.name)}</td><td class="num">${esc(b.moment)}</td></tr>`;
    html += '</table>';
  }
  html += '<h3>Checkpoints</h3><table><tr><td>#</td><td class="num">time</td><td>reason</td><td class="num">events after</td></tr>';
  for (const c of cps) {
    html += `<tr class="row${c.id === curCp ? ' cur' : ''}" data-goto="${c.id}"><td>${c.id}</td><td class="num">${ms(c.time_ns)}</td>` +
      `<td class="reason">${esc(c.reason)}</td><td class="num">${c.segment_events}</td></tr>`;
  }
  html += '</table>';
  if (info.events_by_kind) {
    html += '<h3>Events</h3><div>' + Object.entries(info.events_by_kind).map(([k, n]) => `<span class="pill">${esc(k)} ${n}</span>`).join(' ') + '</div>';
  }
  return html + script + '</body></html>';
}
