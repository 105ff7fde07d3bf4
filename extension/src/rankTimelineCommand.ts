// "Strata: Show Rank Timeline" (strata.showRankTimeline, also the ranks panel's Timeline button):
// the ranks of the distributed job's run a viewer shows (the one named, else the viewer focused
// last) on one timeline in a panel beside it: per rank its steps, collective calls and GPU
// streams, from the addon's rankTimeline. One panel per run (asked again: revealed). Every
// failure is one notification.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Profile, RankRunInfo } from '../../native/addon/index';
import { RANK_TIMELINE_MAX_SLICES, toRankTimelineData } from './rankTimeline';
import { RankTimelinePanel } from './rankTimelinePanel';

/** A distributed job's run open in a viewer: its folder, its merged profile (the viewer's: not
 *  closed here) and its ranks. */
export interface OpenRankRun { path: string; profile: Profile; info: RankRunInfo }

export interface RankTimelineApi {
  /** Open panels (tests): the run, whether the webview asked for its data, how many slices,
   *  the last source opened. */
  panels(): { run: string; ready: boolean; slices: number; lastSource: { file: string; line: number; name: string } | null }[];
}

export function registerRankTimeline(context: vscode.ExtensionContext, deps: {
  extensionUri: vscode.Uri; log: vscode.OutputChannel;
  /** The run at `runPath` open in a viewer, else (no path) the one of the viewer focused last. */
  rankRun: (runPath?: string) => OpenRankRun | undefined;
}): RankTimelineApi {
  const panels = new Map<string, RankTimelinePanel>();

  const show = async (runPath?: string): Promise<void> => {
    const run = deps.rankRun(runPath);
    if (!run) {
      void vscode.window.showInformationMessage('Strata: the rank timeline shows a distributed job\'s run: open its folder with "Strata: Open Run (all processes)" first.');
      return;
    }
    const open = panels.get(run.path);
    if (open) { open.reveal(); return; }
    let timeline;
    try {
      timeline = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Strata: the ranks of ${path.basename(run.path)} on one timeline` },
        () => run.profile.rankTimeline(RANK_TIMELINE_MAX_SLICES));
    } catch (e) {
      const msg = (e as Error).message ?? String(e);
      deps.log.appendLine(`[rank timeline] ${run.path}: ${msg}`);
      void vscode.window.showErrorMessage(`Strata: ${path.basename(run.path)}: the rank timeline failed: ${msg}`);
      return;
    }
    if (!timeline) {
      void vscode.window.showInformationMessage(`Strata: ${path.basename(run.path)} is not a distributed job's run: it has no rank timeline.`);
      return;
    }
    if (panels.has(run.path)) { panels.get(run.path)!.reveal(); return; }   // asked twice while it was made
    const data = toRankTimelineData(timeline, run.info);
    if (data.lane.length === 0) {
      // No recorded collective calls (an older runtime's profiles) and no GPU work: no steps either.
      void vscode.window.showInformationMessage(`Strata: ${path.basename(run.path)}: its ranks recorded no collective calls and no GPU ` +
        'activity: nothing to place on a timeline.' + (data.ranksWithoutClock.length ? ` Ranks without a start clock: ${data.ranksWithoutClock.join(', ')}.` : ''));
      return;
    }
    deps.log.appendLine(`[rank timeline] ${run.path}: ${data.lanes.length} lanes, ${data.lane.length} slices` +
      (data.truncated ? `, ${data.truncated} left out` : '') + (data.ranksWithoutClock.length ? `, ranks without a clock: ${data.ranksWithoutClock.join(', ')}` : ''));
    const panel = vscode.window.createWebviewPanel('strata.rankTimeline', `Strata: ${path.basename(run.path)} ranks timeline`,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false }, { enableScripts: true, retainContextWhenHidden: false });
    panels.set(run.path, new RankTimelinePanel(panel, run.path, data, deps.extensionUri, deps.log, (p) => {
      if (panels.get(p.runPath) === p) panels.delete(p.runPath);
    }));
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('strata.showRankTimeline', async (arg?: unknown) => {
      const given = arg instanceof vscode.Uri ? arg.fsPath : typeof arg === 'string' && arg ? arg : undefined;
      await show(given);
    }),
    { dispose: () => { for (const p of panels.values()) p.panel.dispose(); } },
  );

  return {
    panels: () => [...panels.values()].map((p) => ({
      run: p.runPath, ready: p.isReady, slices: p.data.lane.length,
      lastSource: p.lastSource && { file: p.lastSource.file, line: p.lastSource.line, name: p.lastSource.name },
    })),
  };
}
