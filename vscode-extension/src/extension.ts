// VS Code side: the Timeline webview view in Run and Debug and the slsdbg
// commands (go to moment, bisect, dump core, restore). The debug adapter
// itself runs in its own process (out/debugAdapter.js, package.json).
import * as vscode from 'vscode';
import { SlsdbgCli } from './slsdbgCli';
import { TimelineModel, renderTimeline } from './timeline/timelineHtml';

class TimelineView implements vscode.WebviewViewProvider {
  private view?: vscode.WebviewView;
  model: TimelineModel = { bookmarks: [] };
  recording?: string;
  cli = new SlsdbgCli();

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true };
    view.webview.onDidReceiveMessage(async (msg) => {
      if (msg.type === 'goto') await gotoMoment(this, String(msg.where));
      if (msg.type === 'command') await vscode.commands.executeCommand(String(msg.command));
    });
    this.render();
  }

  render(): void {
    if (this.view) this.view.webview.html = renderTimeline(this.model, Math.random().toString(36).slice(2));
  }

  /** Re-reads the recording (info --json), bookmarks and the current moment through the session. */
  async refresh(session = slsdbgSession()): Promise<void> {
    if (!session) { this.model = { bookmarks: [], status: this.model.status }; this.render(); return; }
    try {
      const r = await session.customRequest('slsdbg.recording');
      this.recording = r.recording;
      this.cli = new SlsdbgCli(r.slsdbg);
      const when = await session.customRequest('slsdbg.monitor', { command: 'when' });
      const m = /Current moment: (\S+)/.exec(when.text ?? '');
      this.model = { ...this.model, info: await this.cli.info(r.recording), bookmarks: r.bookmarks ?? [], current: m?.[1] };
    } catch (e) {
      this.model.status = (e as Error).message;
    }
    this.render();
  }
}

function slsdbgSession(): vscode.DebugSession | undefined {
  const s = vscode.debug.activeDebugSession;
  return s?.type === 'slsdbg' ? s : undefined;
}

function needSession(): vscode.DebugSession | undefined {
  const s = slsdbgSession();
  if (!s) void vscode.window.showErrorMessage('slsdbg: start a debug session of type slsdbg first');
  return s;
}

async function gotoMoment(view: TimelineView, where: string): Promise<void> {
  const s = needSession();
  if (!s || !where) return;
  try {
    await s.customRequest('slsdbg.goto', { where });
  } catch (e) {
    void vscode.window.showErrorMessage(`slsdbg: goto ${where}: ${(e as Error).message}`);
  }
  await view.refresh(s);
}

export function activate(context: vscode.ExtensionContext): void {
  const view = new TimelineView();
  context.subscriptions.push(
    vscode.window.registerWebviewViewProvider('slsdbg.timeline', view),
    vscode.debug.registerDebugAdapterTrackerFactory('slsdbg', {
      createDebugAdapterTracker: (session) => ({
        onDidSendMessage: (m: { type: string; event?: string }) => {
          if (m.type === 'event' && m.event === 'stopped') void view.refresh(session);
        },
      }),
    }),
    vscode.debug.onDidTerminateDebugSession(() => void view.refresh()),
    vscode.commands.registerCommand('slsdbg.refreshTimeline', () => view.refresh()),
    vscode.commands.registerCommand('slsdbg.reverseStepIn', () => slsdbgSession()?.customRequest('slsdbg.reverseStepIn')),
    vscode.commands.registerCommand('slsdbg.reverseStepOut', () => slsdbgSession()?.customRequest('slsdbg.reverseStepOut')),
    vscode.commands.registerCommand('slsdbg.gotoMoment', async () => {
      const where = await vscode.window.showInputBox({
        prompt: 'Go to: a checkpoint K, a moment K:E:0xPC:N, or a bookmark name', placeHolder: '12 or 3:5:0x401136:2',
      });
      if (where) await gotoMoment(view, where.trim());
    }),
    vscode.commands.registerCommand('slsdbg.bisect', async () => {
      const s = needSession();
      if (!s || !view.recording) return;
      const expr = await vscode.window.showInputBox({ prompt: 'Invariant (a C expression over globals; true = good)', placeHolder: 'balance >= 0' });
      if (!expr) return;
      const rec = view.recording;
      try {
        const report = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: 'slsdbg bisect', cancellable: true },
          (progress, token) => {
            const abort = new AbortController();
            token.onCancellationRequested(() => abort.abort());
            return view.cli.bisect(rec, expr, (line) => progress.report({ message: line }), abort.signal);
          });
        if (report.outcome === 'never_bad' || (!report.moment && !report.first_bad)) {
          void vscode.window.showInformationMessage(`slsdbg bisect: "${expr}" holds everywhere (${report.outcome})`);
          return;
        }
        const where: string = report.moment ?? String(report.first_bad.checkpoint);
        const loc = report.refined ? ` at ${report.refined.function ?? '?'} ${report.refined.file ?? ''}:${report.refined.line ?? ''}` : '';
        view.model.bisect = { moment: report.moment, checkpoint: report.first_bad?.checkpoint, text: `"${expr}" first fails${loc}` };
        view.render();
        const go = await vscode.window.showInformationMessage(`slsdbg bisect: "${expr}" first fails at ${where}${loc}`, 'Go there');
        if (go) await gotoMoment(view, where);
      } catch (e) {
        void vscode.window.showErrorMessage((e as Error).message);
      }
    }),
    vscode.commands.registerCommand('slsdbg.dumpCore', async () => {
      const s = needSession();
      if (!s) return;
      const uri = await vscode.window.showSaveDialog({ title: 'Write an ELF core of this moment', filters: { Core: ['core'] } });
      if (!uri) return;
      try {
        const r = await s.customRequest('slsdbg.monitor', { command: `dump ${uri.fsPath}` });
        void vscode.window.showInformationMessage(`slsdbg: ${String(r.text).trim() || 'core written to ' + uri.fsPath}`);
      } catch (e) {
        void vscode.window.showErrorMessage(`slsdbg: dump: ${(e as Error).message}`);
      }
    }),
    vscode.commands.registerCommand('slsdbg.restore', async () => {
      const s = needSession();
      if (!s || !view.recording) return;
      await view.refresh(s);
      const k = Number((view.model.current ?? '0').split(':')[0]);
      // A live process resumes from the checkpoint that starts the current segment.
      const term = vscode.window.createTerminal({ name: `slsdbg restore @${k}` });
      term.sendText(view.cli.restoreCommand(view.recording, k).map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' '));
      term.show();
    }),
  );
}

export function deactivate(): void { /* the sessions end their own processes */ }
