// A distributed job's run in the viewer (pure: no vscode): the addon's ranks, phases and a node's
// spread over the ranks as the webview's typed records (protocol v10), and which ranks the
// analyzers call stragglers (the straggler rule's typed `rank` evidence, never its message).
import type { Findings, RankInfo, RankPhases, RankRunInfo, RankSpread, RankSteps } from '../../native/addon/index';
import type { RankRow, RanksData, RankSpreadData } from '../../webview/src/protocol';

function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The ranks panel's data: each rank's phases, its median step (when the ranks recorded their
 *  collectives) and how it ended, the missing ranks. */
export function toRanksData(info: RankRunInfo, phases: readonly RankPhases[], stragglers: readonly number[],
  selected: number | null, steps?: RankSteps): RanksData {
  const stepped = steps && steps.steps.length > 0 ? steps.steps : undefined;
  const byRank = new Map(phases.map((p) => [p.rank, p]));
  const ranks: RankRow[] = info.ranks.map((r: RankInfo, k) => {
    const p = byRank.get(r.rank);
    const row: RankRow = {
      rank: r.rank, host: r.host, ended: r.ended,
      windowNs: p?.windowNs ?? 0, computeNs: p?.computeNs ?? 0, communicationNs: p?.communicationNs ?? 0,
      startupNs: p?.startupNs ?? 0, idleNs: p?.idleNs ?? 0, overlapShare: p?.overlapShare ?? null,
    };
    // A step's columns are per rank in ranks() order (the k-th rank here).
    if (stepped) {
      row.step = {
        computeNs: median(stepped.map((s) => s.computeNs[k] ?? 0)),
        communicationNs: median(stepped.map((s) => s.communicationNs[k] ?? 0)),
        issuedLast: stepped.filter((s) => s.lastRank === r.rank).length,
      };
    }
    return row;
  });
  const d: RanksData = { metric: phases[0]?.metric ?? '', ranks, missing: [...info.missingRanks], stragglers: [...stragglers], selected };
  if (stepped) d.steps = { collective: steps!.collective, file: steps!.file, line: steps!.line, count: stepped.length };
  return d;
}

/** A node's spread as plain arrays (typed arrays do not survive the webview's message). */
export function toSpreadData(s: RankSpread): RankSpreadData {
  return { ranks: Array.from(s.ranks), values: Array.from(s.values), min: s.min, median: s.median, max: s.max,
    minRank: s.minRank, maxRank: s.maxRank };
}

/** The ranks named by the straggler rule's findings, ascending. */
export function stragglerRanks(doc: Pick<Findings, 'findings'> | undefined): number[] {
  const out = new Set<number>();
  for (const f of doc?.findings ?? []) {
    if (f.rule !== 'straggler') continue;
    const r = f.evidence?.find((e) => e.name === 'rank')?.value;
    if (typeof r === 'number' && Number.isInteger(r) && r >= 0) out.add(r);
  }
  return [...out].sort((a, b) => a - b);
}

/** The profiles to open to see one rank alone: its process and its workers. */
export function rankProfiles(info: RankRunInfo, rank: number): { path: string; withWorkers: boolean } | undefined {
  const r = info.ranks.find((x) => x.rank === rank);
  if (!r || r.profiles.length === 0) return undefined;
  return { path: r.profiles[0], withWorkers: r.profiles.length > 1 };
}
