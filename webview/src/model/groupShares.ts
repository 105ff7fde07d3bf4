// What each lane group (warp group, warp or thread set) of a region trace spends its time on, as
// the decoder computed it (`groups` in `strata regions --format json`: the core's GroupShares,
// also the CLI's text summary): parsed defensively, and the toolbar's one-line headline.
import type { RegionGroupShare, RegionShare } from '../protocol';

const isShare = (r: unknown): r is RegionShare => !!r && typeof r === 'object' &&
  typeof (r as RegionShare).region === 'number' && typeof (r as RegionShare).share === 'number' && Number.isFinite((r as RegionShare).share);

/** The trace's `groups`, malformed entries left out; [] when absent (one group, or an older CLI). */
export function groupShares(groups: unknown): RegionGroupShare[] {
  if (!Array.isArray(groups)) return [];
  return groups.filter((g): g is RegionGroupShare => !!g && typeof g === 'object' && typeof g.group === 'number' && Array.isArray(g.regions))
    .map((g) => ({
      group: g.group,
      lanes: typeof g.lanes === 'number' ? g.lanes : 0,
      regions: g.regions.filter(isShare).map((r) => ({
        region: r.region, name: typeof r.name === 'string' ? r.name : `region ${r.region}`, share: r.share,
        outermost: r.outermost === true, container: r.container === true, async: r.async === true,
      })),
    }));
}

/** "wg 0: wait empty 60% · wg 1: mma 89%": each group's largest innermost synchronous region
 *  (not a container of others, not an async load overlapping the work, not the group's one
 *  outermost region). Groups naming the same region share one phrase: "each wg: compute 61–63%"
 *  when all do, else "warp 0–3: softmax 47–48% · warp 6: wait_slot 96%" (a warp-specialized
 *  kernel's consumer warps and its producer). */
export function groupHeadline(shares: RegionGroupShare[], prefix: string): string {
  // An outermost region is the group's whole time unless the group has several (phases side by side).
  const tops = shares.map((g) => {
    const phases = g.regions.filter((r) => r.outermost).length > 1;
    return { g, r: g.regions.find((r) => (phases || !r.outermost) && !r.container && !r.async) };
  })
    .filter((x): x is { g: RegionGroupShare; r: RegionShare } => x.r !== undefined);
  if (!tops.length) return '';
  const range = (ps: number[]) => {
    const lo = Math.min(...ps), hi = Math.max(...ps);
    return lo === hi ? `${lo}%` : `${lo}–${hi}%`;
  };
  // By region name, in the order the groups come.
  const byName = new Map<string, { groups: number[]; pcts: number[] }>();
  for (const { g, r } of tops) {
    const e = byName.get(r.name) ?? { groups: [], pcts: [] };
    e.groups.push(g.group);
    e.pcts.push(Math.round(r.share * 100));
    byName.set(r.name, e);
  }
  if (tops.length === shares.length && byName.size === 1) {
    const [[name, e]] = [...byName];
    return `each ${prefix}: ${name} ${range(e.pcts)}`;
  }
  return [...byName].map(([name, e]) => `${prefix} ${groupList(e.groups)}: ${name} ${range(e.pcts)}`).join(' · ');
}

/** 0–3 for a run of consecutive groups, else 0, 2, 5. */
function groupList(groups: number[]): string {
  const sorted = [...groups].sort((a, b) => a - b);
  const run = sorted.length > 1 && sorted.every((g, i) => i === 0 || g === sorted[i - 1] + 1);
  return run ? `${sorted[0]}–${sorted[sorted.length - 1]}` : sorted.join(', ');
}
