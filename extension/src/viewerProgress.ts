// Progress of the viewer's long calls to the addon (opening a profile, building a view or a
// sandwich: seconds on a million-node profile): the webview gets a 'progress' record at once and
// four times a second until the call settles, then one that ends it; VS Code's status bar shows
// the window progress meanwhile. The calls run on the addon's worker threads: nothing here waits.
import * as vscode from 'vscode';
import type { Progress } from '../../webview/src/protocol';

const TICK_MS = 250;

export class ViewerProgress {
  private next = 1;
  /** Calls under way, by id: the latest is what a reloaded webview is shown. */
  private readonly active = new Map<number, Progress>();

  constructor(private readonly post: (p: Progress) => void) {}

  /** The progress shown now (the latest call under way), if any. */
  get current(): Progress | undefined { return [...this.active.values()].pop(); }

  /** Reports `work` under `label` ("Building the bottom-up view") until it settles. */
  track<T>(label: string, work: Promise<T>): Promise<T> {
    const id = this.next++;
    const started = Date.now();
    const report = (active: boolean) => {
      const p: Progress = { id, active, label, elapsedMs: Date.now() - started };
      if (active) this.active.set(id, p); else this.active.delete(id);
      this.post(p);
    };
    report(true);
    const timer = setInterval(() => report(true), TICK_MS);
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Strata: ${label}` },
      () => work.catch(() => undefined));
    return work.finally(() => { clearInterval(timer); report(false); });
  }
}
