// Strata VS Code extension: activate() registers each feature's module and returns the API the
// tests use. The features: the profile viewers (profileViewers.ts), what follows the current
// profile in the editor (profileFeedback.ts: line heat, status bar, diagnostics, the Strata
// Findings view), running and profiling (runCommands.ts, the `strata` launch type), the Strata Profiles view
// (profilesTree.ts), a run's processes (runProcessesView.ts), the in-kernel region timeline
// (regions/regionTraceCommands.ts), two runs compared (diffPanel.ts) and a distributed job's
// ranks on one timeline (rankTimelineCommand.ts).
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { loadAddon, type StrataAddon } from './addon';
import type { StrataDiagnostics } from './diagnostics';
import { registerDiff, type DiffApi } from './diffPanel';
import type { FindingsViewState } from './findingsView';
import type { LineHeatController } from './lineHeatDecorations';
import type { ViewerState } from './profileViewer';
import { registerProfileFeedback } from './profileFeedback';
import { openStartupProfile, registerProfileViewers } from './profileViewers';
import { registerProfilesTree } from './profilesTree';
import { registerRunProcesses, type RunProcessesApi } from './runProcessesView';
import { registerRegionTrace, type RegionTraceApi } from './regions/regionTraceCommands';
import { registerRankTimeline, type RankTimelineApi } from './rankTimelineCommand';
import { stopAllRuns } from './recordRun';
import { registerRunCommands } from './runCommands';

/** Returned from activate() for tests and other extensions. */
export interface StrataApi {
  openProfile(file: string): Promise<void>;
  viewers(): ViewerState[];
  /** The viewer whose profile drives line heat, the status bar and the diagnostics. */
  currentProfile(): string | undefined;
  lineHeat(): ReturnType<LineHeatController['state']>;
  diagnostics(): ReturnType<StrataDiagnostics['state']>;
  /** The Strata Findings view: every finding of the analyzed profile. */
  findings(): FindingsViewState;
  profiles(): string[];
  /** The Strata Processes view: the run listed and its processes. */
  runProcesses: RunProcessesApi;
  /** Opens every process of a run together (a folder, or a profile and its children). */
  openRun(runPath: string): Promise<void>;
  /** In-kernel region traces (timeline panels). */
  regionTraces: RegionTraceApi;
  /** Two runs compared (diff panels). */
  diffs: DiffApi;
  /** A distributed job's ranks on one timeline (panels). */
  rankTimelines: RankTimelineApi;
}

export function activate(context: vscode.ExtensionContext): StrataApi {
  const log = vscode.window.createOutputChannel('Strata');
  context.subscriptions.push(log);
  // Resolve symlinks: run from the repository through a link in an extensions folder, the
  // repo build (../build) is found relative to the real folder.
  let extensionDir = context.extensionUri.fsPath;
  try { extensionDir = fs.realpathSync(extensionDir); } catch { /* keep */ }
  const addon = (): StrataAddon => loadAddon(extensionDir);

  let viewers: ReturnType<typeof registerProfileViewers> | undefined;
  const regionTraces = registerRegionTrace(context, {
    extensionDir, extensionUri: context.extensionUri, log, currentProfile: () => viewers?.currentProfile(),
  });
  const feedback = registerProfileFeedback(context, log);
  const profilesTree = registerProfilesTree(context, addon, log);
  let runs: ReturnType<typeof registerRunProcesses> | undefined;
  viewers = registerProfileViewers(context, { addon, log, feedback, onProfileLoaded: (p) => runs?.follow(p) });
  const v0 = viewers;
  runs = registerRunProcesses(context, { addon, log, openRun: (p) => v0.openRun(p) });
  registerRunCommands(context, { extensionDir, log, addon, profilesTree, openProfile: viewers.open });
  openStartupProfile(viewers, log);
  const v1 = viewers;
  const diffs = registerDiff(context, { extensionUri: context.extensionUri, addon, log, currentProfile: () => v1.currentProfile() });
  const rankTimelines = registerRankTimeline(context, { extensionUri: context.extensionUri, log, rankRun: (p) => v1.rankRun(p) });

  const v = viewers;
  return {
    openProfile: v.open,
    viewers: v.states,
    currentProfile: v.currentProfile,
    lineHeat: () => feedback.lineHeat.state(),
    diagnostics: () => feedback.diagnostics.state(),
    findings: () => feedback.findings.state(),
    profiles: () => profilesTree.listed(),
    runProcesses: runs,
    openRun: v.openRun,
    regionTraces,
    diffs,
    rankTimelines,
  };
}

export function deactivate(): void {
  // Profiled programs run in their own process groups: do not leave them behind.
  stopAllRuns();
}
