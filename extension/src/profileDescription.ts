// What the editor surfaces say about a profile (the profiles view, the status bar). Numbers are
// formatted by the webview's format module, the one source for both (formatDuration,
// formatEditorValue). Pure: no vscode import, unit-tested.
import type { GpuSampling } from '../../native/addon/index';
import { formatDuration } from '../../webview/src/model/format';

/** The duration of a recorded run from its meta (`duration_ns`), if there is one. */
export function metaDuration(meta: Readonly<Record<string, string>>): number | undefined {
  const d = Number(meta.duration_ns);
  return meta.duration_ns !== undefined && Number.isFinite(d) && d >= 0 ? d : undefined;
}

/** The profiles view's description of a profile: "1.23 s · python3 train.py 60". Paths in the
 *  command are shortened to their base names (the tooltip has the full command): in a narrow
 *  view the script's name matters, not where the interpreter lives. */
export function profileDescription(meta: Readonly<Record<string, string>>, maxCommand = 80): string {
  const parts: string[] = [];
  const d = metaDuration(meta);
  if (d !== undefined) parts.push(formatDuration(d));
  let cmd = (meta.command ?? '').trim().split(/\s+/)
    .map((w) => (/^\/[^\s]*[^/]$/.test(w) ? w.slice(w.lastIndexOf('/') + 1) : w)).join(' ');
  if (cmd.length > maxCommand) cmd = `${cmd.slice(0, maxCommand - 1)}…`;
  if (cmd) parts.push(cmd);
  return parts.join(' · ');
}

/** What sampled GPU tracing (the addon's gpuSampling()) means for the profile's numbers, in one
 *  line; '' when every launch was traced. */
export function gpuSamplingNote(s: GpuSampling | null | undefined): string {
  if (!s) return '';
  const windows = s.windowsOpened > 0 ? `, ${s.windowsOpened.toLocaleString('en-US')} window${s.windowsOpened === 1 ? '' : 's'}` : '';
  const x = (v: number) => Number(v.toPrecision(3)).toString();
  const basis = s.byOperatorCalls
    ? `what was traced ×${x(s.scale)}, the share of operator calls made in windows; their share of time alone: ×${x(s.timeScale ?? s.scale)}`
    : `what was traced ×${x(s.scale)}; low where tracing slows the program, as with many short launches`;
  // Few windows: each line's share comes from a few stretches of the run (the core's rule).
  const few = s.fewWindows
    ? ' So few windows can leave a line\'s share of GPU time several points off: run longer for steadier shares.'
    : '';
  return `Sampled GPU tracing: GPU work was traced in ${formatDuration(s.windowMs * 1e6)} windows every ` +
    `${formatDuration(s.periodMs * 1e6)}${windows}. GPU, sync and API times and bytes are estimates ` +
    `(${basis}); counts are what was traced.${few}`;
}
