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
 *  outermost region); "each wg: compute 61–63%" when every group names the same region. */
export function groupHeadline(shares: RegionGroupShare[], prefix: string): string {
  // An outermost region is the group's whole time unless the group has several (phases side by side).
  const tops = shares.map((g) => {
    const phases = g.regions.filter((r) => r.outermost).length > 1;
    return { g, r: g.regions.find((r) => (phases || !r.outermost) && !r.container && !r.async) };
  })
    .filter((x): x is { g: RegionGroupShare; r: RegionShare } => x.r !== undefined);
  if (!tops.length) return '';
  const pct = (r: RegionShare) => `${Math.round(r.share * 100)}%`;
  if (tops.length === shares.length && tops.every((x) => x.r.name === tops[0].r.name)) {
    const ps = tops.map((x) => Math.round(x.r.share * 100));
    const lo = Math.min(...ps), hi = Math.max(...ps);
    return `each ${prefix}: ${tops[0].r.name} ${lo === hi ? `${lo}%` : `${lo}–${hi}%`}`;
  }
  return tops.map((x) => `${prefix} ${x.g.group}: ${x.r.name} ${pct(x.r)}`).join(' · ');
}
