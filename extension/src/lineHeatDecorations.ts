// Line heat in the editors: after each source line of the open profile, its inclusive time,
// GPU time and top stall reason ("▮ 12.3% cpu 1.2 s · gpu 30 ms"), and a background whose
// strength follows the line's share. "Strata: Toggle Line Heat" turns it on and off. The
// numbers are the core's line totals (Profile.lineTotals, one call for every metric), described
// by lineHeatModel.ts.
import * as vscode from 'vscode';
import type { Profile } from '../../native/addon/index';
import { heatMetrics, lineTotalsByMetric, LineHeat, matchProfileFile, type MetricHeat } from './lineHeatModel';
import { formatEditorValue } from '../../webview/src/model/format';

const BUCKETS = 10;

export class LineHeatController implements vscode.Disposable {
  private enabled: boolean;
  private heat: LineHeat | undefined;
  private heatFiles: string[] = [];
  private profilePath: string | undefined;
  private readonly cache = new Map<string, LineHeat>();   // profile path → heat
  private readonly types: vscode.TextEditorDecorationType[] = [];
  private readonly subs: vscode.Disposable[] = [];
  private seq = 0;
  /** Lines decorated per editor file, for tests and the status of the command. */
  private decorated = new Map<string, number>();

  constructor(private readonly log: vscode.OutputChannel) {
    this.enabled = vscode.workspace.getConfiguration('strata').get<boolean>('lineHeat.enabled', true);
    for (let b = 0; b < BUCKETS; b++) {
      const alpha = (0.04 + (0.36 * b) / (BUCKETS - 1)).toFixed(3);
      this.types.push(vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: `rgba(255, 110, 20, ${alpha})`,
        overviewRulerColor: b >= 3 ? `rgba(255, 110, 20, ${Math.min(1, Number(alpha) * 2.5).toFixed(2)})` : undefined,
        overviewRulerLane: vscode.OverviewRulerLane.Right,
        after: {
          color: new vscode.ThemeColor('editorCodeLens.foreground'),
          margin: '0 0 0 2.5em',
          fontStyle: 'normal',
        },
        rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
      }));
    }
    this.subs.push(
      vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('strata.lineHeat.enabled')) {
          this.enabled = vscode.workspace.getConfiguration('strata').get<boolean>('lineHeat.enabled', true);
          this.refresh();
        }
      }),
    );
  }

  get isEnabled(): boolean { return this.enabled; }

  toggle(): boolean {
    this.enabled = !this.enabled;
    this.refresh();
    return this.enabled;
  }

  /** Decorated line counts per file path (what the editors show now). */
  state(): { enabled: boolean; profile?: string; files: Record<string, number> } {
    return { enabled: this.enabled, profile: this.profilePath, files: Object.fromEntries(this.decorated) };
  }

  /** Shows the heat of `profile` (undefined: none). Views are built off the extension host's
   *  thread by the addon; a newer call wins over a slower older one. */
  async setProfile(profile: Profile | undefined, profilePath: string | undefined): Promise<void> {
    const seq = ++this.seq;
    if (!profile || !profilePath) {
      this.heat = undefined;
      this.profilePath = undefined;
      this.refresh();
      return;
    }
    let heat = this.cache.get(profilePath);
    if (!heat) {
      try {
        heat = await computeHeat(profile);
      } catch (e) {
        // A profile closed while the views were built, or a view that failed: no heat.
        this.log.appendLine(`[line heat] ${profilePath}: ${(e as Error).message}`);
        return;
      }
      this.cache.set(profilePath, heat);
    }
    if (seq !== this.seq) return;
    this.heat = heat;
    this.heatFiles = heat.files();
    this.profilePath = profilePath;
    this.refresh();
  }

  /** Forgets a profile (its file changed or its last viewer closed). */
  forget(profilePath: string): void {
    this.cache.delete(profilePath);
    if (this.profilePath === profilePath) void this.setProfile(undefined, undefined);
  }

  refresh(): void {
    this.decorated.clear();
    for (const editor of vscode.window.visibleTextEditors) this.decorate(editor);
  }

  private decorate(editor: vscode.TextEditor): void {
    const perBucket: vscode.DecorationOptions[][] = this.types.map(() => []);
    const heat = this.heat;
    const doc = editor.document;
    const recorded = this.enabled && heat && doc.uri.scheme === 'file' ? matchProfileFile(doc.uri.fsPath, this.heatFiles) : undefined;
    if (heat && recorded) {
      for (const [line, info] of heat.linesOf(recorded)) {
        if (line < 1 || line > doc.lineCount) continue;   // the file changed since the recording
        const b = Math.min(BUCKETS - 1, Math.floor(Math.sqrt(Math.max(0, info.share)) * BUCKETS));
        const hover = new vscode.MarkdownString(`**Strata** — ${recorded}:${line}\n\n| metric | value | share |\n| --- | --- | --- |\n` +
          info.values.map((v) => `| ${v.metric} | ${formatEditorValue(v.value, v.unit)} | ${(v.share * 100).toFixed(1)}% |`).join('\n'));
        perBucket[b].push({
          range: new vscode.Range(line - 1, 0, line - 1, 0),
          hoverMessage: hover,
          renderOptions: { after: { contentText: info.text } },
        });
      }
    }
    let n = 0;
    this.types.forEach((t, b) => { editor.setDecorations(t, perBucket[b]); n += perBucket[b].length; });
    if (n > 0) this.decorated.set(doc.uri.fsPath, n);
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    for (const t of this.types) t.dispose();
  }
}

/** The heat metrics' line totals, summed by the core in one call. */
async function computeHeat(profile: Profile): Promise<LineHeat> {
  const metrics = profile.metrics();
  const idx = heatMetrics(metrics).map((name) => metrics.findIndex((m) => m.name === name));
  const cols = await profile.lineTotals(idx);
  const lines = lineTotalsByMetric(cols);
  return new LineHeat(idx.map((m, k): MetricHeat => ({ metric: metrics[m].name, unit: metrics[m].unit, total: cols.totals[k], lines: lines[k] })));
}
