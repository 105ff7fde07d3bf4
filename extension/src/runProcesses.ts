// What the Strata Processes view shows of a recorded run's processes (the addon's runProcesses,
// in tree order): a tree by parent, each process labelled by pid and command and described by its
// own totals (CPU or wall time, samples, GPU time). Pure: no vscode import, unit-tested.
import type { ProcessTotal, RunProcess } from '../../native/addon/index';
import { formatValue } from '../../webview/src/model/format';

export interface ProcessNode {
  process: RunProcess;
  parent?: RunProcess;
  children: ProcessNode[];
}

/** Nests the processes by `depth` (the core lists a parent before its children). */
export function processTree(list: readonly RunProcess[]): ProcessNode[] {
  const roots: ProcessNode[] = [];
  const open: ProcessNode[] = [];   // open[d]: the latest node at depth d
  for (const p of list) {
    const d = Math.max(0, Math.min(p.depth, open.length));
    const node: ProcessNode = { process: p, children: [] };
    if (d === 0) roots.push(node);
    else { node.parent = open[d - 1].process; open[d - 1].children.push(node); }
    open.length = d;
    open.push(node);
  }
  return roots;
}

/** Shortens paths in a command to their base names (the tooltip has it whole). */
export function shortCommand(command: string, max = 60): string {
  let s = command.trim().split(/\s+/).map((w) => (/^\/[^\s]*[^/]$/.test(w) ? w.slice(w.lastIndexOf('/') + 1) : w)).join(' ');
  if (s.length > max) s = `${s.slice(0, max - 1)}…`;
  return s;
}

/** "pid 4242 · python3 worker.py" (a process that recorded no command: "pid 4242"). */
export function processLabel(p: RunProcess): string {
  const cmd = shortCommand(p.command);
  return cmd ? `pid ${p.pid} · ${cmd}` : `pid ${p.pid}`;
}

function total(p: RunProcess, name: string): ProcessTotal | undefined {
  return p.totals.find((t) => t.name === name);
}

/** "CPU 1.2 s · 120 samples · GPU 30 ms": the process's own time, samples and GPU time. */
export function processDescription(p: RunProcess): string {
  const parts: string[] = [];
  const cpu = total(p, 'cpu_time') ?? total(p, 'wall_time');
  if (cpu) {
    parts.push(`${cpu.name === 'wall_time' ? 'wall' : 'CPU'} ${formatValue(cpu.total, cpu.unit)}`);
    parts.push(`${formatValue(cpu.count, 'count')} sample${cpu.count === 1 ? '' : 's'}`);
  }
  const gpu = total(p, 'gpu_time');
  if (gpu) parts.push(`GPU ${formatValue(gpu.total, gpu.unit)}`);
  if (!parts.length) parts.push('no samples');
  return parts.join(' · ');
}

/** Every line of what is known about the process (the tree item's tooltip, plain text). */
export function processTooltip(p: RunProcess, parent?: RunProcess): string {
  const lines = [`pid ${p.pid}`, p.command || '(no command recorded)'];
  if (p.parentPid) lines.push(`started by pid ${p.parentPid}${p.parentProfile ? ` (${p.parentProfile})` : ''}${parent ? '' : ', whose profile is not here'}`);
  else lines.push('the run\'s first process');
  if (p.ended) lines.push(`ended: ${p.ended}`);
  for (const t of p.totals) lines.push(`${t.name}: ${formatValue(t.total, t.unit)} (${formatValue(t.count, 'count')} events)`);
  lines.push(p.path);
  return lines.join('\n');
}

/** "All 3 processes together": the item that opens the merged view. */
export function togetherLabel(count: number): string {
  return count === 1 ? 'The one process (as one tree)' : `All ${count} processes together`;
}
