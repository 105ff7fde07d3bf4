// The ranks panel's bars: each rank's run window split into compute / communication / startup /
// idle, as shares of the longest window (so ranks compare on one scale), with how the rank
// ended and whether the analyzers call it a straggler.
import type { RankRow, RanksData } from '../protocol';
import { formatDuration } from './format';

export type PhaseName = 'compute' | 'communication' | 'startup' | 'idle';
export const PHASES: readonly PhaseName[] = ['compute', 'communication', 'startup', 'idle'];

export interface RankBar {
  rank: number;
  label: string;            // "rank 2"
  /** Each phase's width as a share of the longest window (0..1), in PHASES order. */
  widths: number[];
  /** "compute 414.6 ms · communication 0 ns · …" for the bar's title. */
  title: string;
  ended: string;            // "" for a normal exit
  straggler: boolean;
  missing: boolean;         // a rank of the world size without a profile
  selected: boolean;
  /** Its median step as [compute, communication] shares of the longest median step; absent
   *  without steps. */
  step?: { widths: [number, number]; title: string; issuedLast: number };
}

function phaseNs(r: RankRow, p: PhaseName): number {
  const v = p === 'compute' ? r.computeNs : p === 'communication' ? r.communicationNs : p === 'startup' ? r.startupNs : r.idleNs;
  return Number.isFinite(v) && v > 0 ? v : 0;
}

/** One bar per rank (by rank number), the world size's missing ranks as empty bars. */
export function rankBars(d: RanksData): RankBar[] {
  const rows = Array.isArray(d.ranks) ? d.ranks : [];
  const scale = Math.max(1, ...rows.map((r) => PHASES.reduce((s, p) => s + phaseNs(r, p), 0)));
  const stragglers = new Set(d.stragglers ?? []);
  const pos = (v: number) => (Number.isFinite(v) && v > 0 ? v : 0);
  const stepScale = Math.max(1, ...rows.map((r) => (r.step ? pos(r.step.computeNs) + pos(r.step.communicationNs) : 0)));
  const bars: RankBar[] = rows.map((r) => ({
    rank: r.rank,
    label: `rank ${r.rank}`,
    widths: PHASES.map((p) => phaseNs(r, p) / scale),
    title: PHASES.map((p) => `${p} ${formatDuration(phaseNs(r, p))}`).join(' · ') +
      (r.overlapShare !== null && r.overlapShare !== undefined ? ` · overlap ${(r.overlapShare * 100).toFixed(0)}%` : '') +
      (r.host ? ` · ${r.host}` : ''),
    ended: r.ended ?? '',
    straggler: stragglers.has(r.rank),
    missing: false,
    selected: d.selected === r.rank,
    step: r.step && d.steps ? {
      widths: [pos(r.step.computeNs) / stepScale, pos(r.step.communicationNs) / stepScale],
      title: `median step: compute ${formatDuration(pos(r.step.computeNs))} · communication ${formatDuration(pos(r.step.communicationNs))}` +
        ` · issued the ${d.steps.collective} last in ${r.step.issuedLast} of ${d.steps.count} steps`,
      issuedLast: r.step.issuedLast,
    } : undefined,
  }));
  for (const rank of d.missing ?? []) {
    bars.push({ rank, label: `rank ${rank}`, widths: PHASES.map(() => 0), title: 'no profile', ended: 'no profile',
      straggler: false, missing: true, selected: false });
  }
  return bars.sort((a, b) => a.rank - b.rank);
}
