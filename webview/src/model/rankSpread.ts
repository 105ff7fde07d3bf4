// What a tooltip says of one frame across a distributed job's ranks: min / median / max of the
// drawn metric and which ranks hold the extremes, and how far the heaviest rank is from the median.
import type { RankSpreadData } from '../protocol';
import { formatValue } from './format';

/** The spread as tooltip rows (none when the node has fewer than two ranks' values). */
export function spreadRows(s: RankSpreadData | undefined, unit: string): [string, string][] {
  if (!s || !Array.isArray(s.values) || s.values.length < 2) return [];
  const f = (v: number) => formatValue(v, unit);
  const rows: [string, string][] = [
    ['Ranks', `min ${f(s.min)} (rank ${s.minRank}) · median ${f(s.median)} · max ${f(s.max)} (rank ${s.maxRank})`],
  ];
  if (s.max > 0 && s.max > s.median) {
    rows.push(['Heaviest rank', s.median > 0
      ? `rank ${s.maxRank}: ${(s.max / s.median).toFixed(1)}× the median`
      : `rank ${s.maxRank} (the median rank has none)`]);
  }
  return rows;
}

/** The node's value per rank, rank order, for the details pane. */
export function spreadByRank(s: RankSpreadData | undefined): { rank: number; value: number; max: boolean }[] {
  if (!s || !Array.isArray(s.values)) return [];
  return s.ranks.map((rank, i) => ({ rank, value: s.values[i] ?? 0, max: rank === s.maxRank && s.max > s.min }))
    .sort((a, b) => a.rank - b.rank);
}
