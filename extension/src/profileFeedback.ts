// What follows the "current" profile (the viewer focused last) in the editor: line heat, the
// status bar item, the analyzers' diagnostics and the Strata Findings view; "Strata: Toggle Line Heat". With several
// viewers open, the one the user looked at last wins.
import * as vscode from 'vscode';
import { StrataDiagnostics } from './diagnostics';
import { registerFindingsView, type FindingsView } from './findingsView';
import { LineHeatController } from './lineHeatDecorations';
import type { ProfileViewer } from './profileViewer';
import { ProfileStatusBar } from './profileStatusBar';

export class ProfileFeedback {
  readonly lineHeat: LineHeatController;
  readonly statusBar = new ProfileStatusBar();
  readonly diagnostics: StrataDiagnostics;
  /** The profile whose findings the Problems view shows. */
  analyzed: string | undefined;
  private current: ProfileViewer | undefined;

  constructor(private readonly log: vscode.OutputChannel) {
    this.lineHeat = new LineHeatController(log);
    this.diagnostics = new StrataDiagnostics(log);
  }

  /** The viewer now current (undefined: none is open). */
  follow(v: ProfileViewer | undefined): void {
    this.current = v;
    const profile = v?.openProfile;
    this.statusBar.show(profile ? v!.profilePath : undefined, profile?.meta(), this.lineHeat.isEnabled, v?.gpuSampling);
    void this.lineHeat.setProfile(profile, v?.profilePath, v?.metricName);
    if (!profile) {
      this.analyzed = undefined;
      this.diagnostics.clear();
    } else if (this.analyzed !== v!.profilePath) {
      this.analyzed = v!.profilePath;
      void this.diagnostics.update(profile, v!.profilePath);
    }
  }

  /** The current viewer shows another metric: line heat is shaded by it. */
  metricChanged(v: ProfileViewer): void {
    if (v === this.current && v.openProfile) void this.lineHeat.setProfile(v.openProfile, v.profilePath, v.metricName);
  }

  /** A (re)loaded file: its heat and findings are recomputed if the file changed (the caches
   *  compare its modification time and size), else taken from the caches. */
  reloaded(profilePath: string): void {
    if (this.analyzed === profilePath) this.analyzed = undefined;
  }

  /** The last viewer of a profile closed: what was kept for it is released. */
  closed(profilePath: string): void {
    this.lineHeat.forget(profilePath);
    this.diagnostics.forget(profilePath);
    this.log.appendLine(`[viewer] closed the last viewer of ${profilePath}: its views, line heat and findings are released`);
  }

  toggleLineHeat(): void {
    const on = this.lineHeat.toggle();
    const c = this.current;
    this.statusBar.show(c?.openProfile ? c.profilePath : undefined, c?.openProfile?.meta(), on, c?.gpuSampling);
    void vscode.window.setStatusBarMessage(`Strata: line heat ${on ? 'on' : 'off'}`, 3000);
  }
}

export function registerProfileFeedback(context: vscode.ExtensionContext, log: vscode.OutputChannel): ProfileFeedback & { findings: FindingsView } {
  const feedback = new ProfileFeedback(log);
  const findings = registerFindingsView(context);
  context.subscriptions.push(feedback.lineHeat, feedback.statusBar, feedback.diagnostics,
    feedback.diagnostics.onDidChangeFindings(({ profile, nodes }) => findings.show(profile, nodes)),
    vscode.commands.registerCommand('strata.toggleLineHeat', () => feedback.toggleLineHeat()));
  return Object.assign(feedback, { findings });
}
