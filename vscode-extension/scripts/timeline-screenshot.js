#!/usr/bin/env node
// Renders the Timeline view's HTML (out/timeline/timelineHtml.js, the code the
// view runs) for a real recording and screenshots it with headless Chromium:
//   node scripts/timeline-screenshot.js REC OUT.png [CURRENT-MOMENT]
// Needs `npx tsc -p .` first, `slsdbg` on PATH (or $SLSDBG) and Debian's chromium.
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { renderTimeline } = require('../out/timeline/timelineHtml');

const [rec, out, current] = process.argv.slice(2);
if (!rec || !out) { console.error('usage: timeline-screenshot.js REC OUT.png [MOMENT]'); process.exit(2); }
const slsdbg = process.env.SLSDBG || 'slsdbg';
const info = JSON.parse(execFileSync(slsdbg, ['info', rec, '--json']).toString());
// Bookmarks are not in `info --json`: read them as the adapter does, from `monitor bookmarks`.
let bookmarks = [];
try {
  const r = require('child_process').spawnSync(slsdbg, ['replay', rec, '--', '-nx', '-batch', '-ex', 'monitor bookmarks']);
  const text = r.stdout.toString() + r.stderr.toString();
  for (const m of text.matchAll(/^\s+(\S+)\s+(\d+:\d+:0x[0-9a-f]+:\d+)\s*$/gm)) bookmarks.push({ name: m[1], moment: m[2] });
} catch { /* none */ }
const html = renderTimeline({ info, bookmarks, current, status: process.env.TIMELINE_STATUS });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slsdbg-shot-'));
fs.writeFileSync(path.join(dir, 'timeline.html'), html);
const chromium = ['chromium', 'chromium-browser'].find((c) => { try { execFileSync('which', [c]); return true; } catch { return false; } });
if (!chromium) { console.error('chromium is not installed (apt-get install chromium)'); process.exit(1); }
execFileSync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--force-device-scale-factor=1',
  `--user-data-dir=${path.join(dir, 'profile')}`, '--window-size=360,720', `--screenshot=${path.resolve(out)}`,
  'file://' + path.join(dir, 'timeline.html')], { stdio: 'ignore' });
fs.rmSync(dir, { recursive: true, force: true });
console.log(`${out}: ${fs.statSync(out).size} bytes`);
