// Line heat in the editors: after each source line of the open profile, its inclusive time,
// GPU time and top stall reason ("▮ 12.3% cpu 1.2 s · gpu 30 ms"), and a background whose
// strength follows the line's share. "Strata: Toggle Line Heat" turns it on and off. The
// numbers are the core's line totals (Profile.lineTotals, one call for every metric), described
// by lineHeatModel.ts.
import * as vscode from 'vscode';
import type { Profile } from '../../native/addon/index';
import { heatMetrics, lineTotalsByMetric, LineHeat, markdownText, matchProfileFile, type MetricHeat } from './lineHeatModel';
import { formatEditorValue } from '../../webview/src/model/format';
import { fileStamp } from './diagnostics';

const BUCKETS = 10;

export class LineHeatController implements vscode.Disposable {
  private enabled: boolean;
  private heat: LineHeat | undefined;
  private heatFiles: string[] = [];
  private profilePath: string | undefined;
  private readonly cache = new Map<string, LineHeat>();   // profile path → heat
  private readonly stamps = new Map<string, string>();    // profile path → its file's stamp then
  private readonly types: vscode.TextEditorDecorationType[] = [];
  private readonly subs: vscode.Disposable[] = [];
  private seq = 0;
  /** Lines decorated per editor file, for tests and the status of the command. */
  private decorated = new Map<string, number>();

  constructor(private readonly log: vscode.OutputChannel) {
    this.enabled = vscode.workspace.getConfiguration('strata').get<boolean>('lineHeat.enabled', true);
    for (let b = 0; b < BUCKETS; b++) {
      const alpha = (0.04 + (0.36 * b) / (BUCKETS - 1)).toFixed(3);
      // A bar in the gutter whose length follows the share: visible however long the line is.
      const bar = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect x="1" y="${15 - Math.max(2, Math.round(((b + 1) * 14) / BUCKETS))}" ` +
        `width="4" height="${Math.max(2, Math.round(((b + 1) * 14) / BUCKETS))}" fill="rgb(255,110,20)" fill-opacity="${Math.min(1, 0.35 + b * 0.07).toFixed(2)}"/></svg>`;
      this.types.push(vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        gutterIconPath: vscode.Uri.parse(`data:image/svg+xml;utf8,${encodeURIComponent(bar)}`),
        gutterIconSize: 'contain',
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

  /** Decorated line counts per file path (what the editors show now), the shading metric, the
   *  profiles whose heat is kept. */
  state(): { enabled: boolean; profile?: string; files: Record<string, number>; shading?: string; cached: string[] } {
    return { enabled: this.enabled, profile: this.profilePath, files: Object.fromEntries(this.decorated),
      shading: this.heat?.primary?.metric, cached: [...this.cache.keys()] };
  }

  /** Shows the heat of `profile` (undefined: none). Views are built off the extension host's
   *  thread by the addon; a newer call wins over a slower older one. */
  async setProfile(profile: Profile | undefined, profilePath: string | undefined, metric?: string): Promise<void> {
    const seq = ++this.seq;
    if (!profile || !profilePath) {
      this.heat = undefined;
      this.profilePath = undefined;
      this.refresh();
      return;
    }
    const stamp = fileStamp(profilePath);
    let heat = this.stamps.get(profilePath) === stamp ? this.cache.get(profilePath) : undefined;
    // A metric line heat does not sum by default (api_time, bytes, ...) is summed when chosen.
    const wanted = heatMetrics(profile.metrics(), metric);
    if (!heat || wanted.some((m) => !heat!.metrics.some((h) => h.metric === m))) {
      try {
        heat = await computeHeat(profile, wanted);
      } catch (e) {
        // A profile closed while the views were built, or a view that failed: no heat.
        this.log.appendLine(`[line heat] ${profilePath}: ${(e as Error).message}`);
        return;
      }
      this.cache.set(profilePath, heat);
      this.stamps.set(profilePath, stamp);
    }
    if (seq !== this.seq) return;
    this.heat = heat.withMetric(metric);
    if (this.heat.primary) this.log.appendLine(`[line heat] ${profilePath}: shaded by ${this.heat.primary.metric}`);
    this.heatFiles = heat.files();
    this.profilePath = profilePath;
    this.refresh();
  }

  /** Forgets a profile (its file changed or its last viewer closed). */
  forget(profilePath: string): void {
    this.cache.delete(profilePath);
    this.stamps.delete(profilePath);
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
        // Recorded paths are text, never markdown: escaped (a file named "[x](command:...)").
        const hover = new vscode.MarkdownString(`**Strata** — ${markdownText(recorded)}:${line}` +
          (info.shading ? ` — shaded by ${info.shading}` : '') + `\n\n| metric | value | share | backward | fused |\n| --- | --- | --- | --- | --- |\n` +
          info.values.map((v) => `| ${v.metric}${v.metric === info.shading ? ' ▮' : ''} | ${formatEditorValue(v.value, v.unit)} | ${(v.share * 100).toFixed(1)}% | ` +
            `${v.backward > 0 ? formatEditorValue(v.backward, v.unit) : ''} | ${v.fused > 0 ? formatEditorValue(v.fused, v.unit) : ''} |`).join('\n') +
          (info.values.some((v) => v.fused > 0) ? '\n\nfused: the time of torch.compile kernels that compute this line together with others' : ''));
        hover.isTrusted = false;
        hover.supportHtml = false;
        perBucket[b].push({
          // The whole line: its hover opens anywhere on the code, not only at its start.
          range: new vscode.Range(line - 1, 0, line - 1, doc.lineAt(line - 1).range.end.character),
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
async function computeHeat(profile: Profile, names: string[]): Promise<LineHeat> {
  const metrics = profile.metrics();
  const idx = names.map((name) => metrics.findIndex((m) => m.name === name));
  const cols = await profile.lineTotals(idx);
  const lines = lineTotalsByMetric(cols);
  const backward = lineTotalsByMetric(cols, 'backward');
  const fused = lineTotalsByMetric(cols, 'fused');
  return new LineHeat(idx.map((m, k): MetricHeat => ({
    metric: metrics[m].name, unit: metrics[m].unit, total: cols.totals[k], lines: lines[k], backward: backward[k],
    fused: fused[k],
  })));
}

