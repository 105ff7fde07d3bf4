// What each lane group (warp group, warp or thread set) of a region trace spends its time on:
// per group, each region's time over the group's outermost regions (a loop with an interval of
// its own counts once, not once more per iteration; regions nest and async loads overlap, so
// shares do not add up to 100%).
// In a warp-specialized kernel this tells which role waits for which. The same numbers as the
// `strata regions` text summary (native/cli/src/regions_command.cpp).
import type { RegionInterval, RegionLane } from '../protocol';

export interface RegionShare {
  region: number;
  name: string;
  /** Time in the region / the group's outermost time. */
  share: number;
  /** The region is outermost in some lane of the group (its share is the group's frame). */
  outermost: boolean;
  /** Other regions nest inside it (a loop, a phase): its time is theirs too. */
  container: boolean;
  /** An async region (issue to arrival): it overlaps the work rather than taking time from it. */
  async: boolean;
}

export interface GroupShare {
  group: number;
  lanes: number;
  /** Regions, largest share first. */
  regions: RegionShare[];
}

/** Per lane group, ordered by group; empty when all lanes are in one group. */
export function groupShares(lanes: RegionLane[], intervals: RegionInterval[]): GroupShare[] {
  interface Acc { lanes: number; top: number; ns: Map<number, number>; names: Map<number, string>; outer: Set<number>; container: Set<number>; async: Set<number> }
  const groups = new Map<number, Acc>();
  const get = (g: number): Acc => {
    let a = groups.get(g);
    if (!a) { a = { lanes: 0, top: 0, ns: new Map(), names: new Map(), outer: new Set(), container: new Set(), async: new Set() }; groups.set(g, a); }
    return a;
  };
  for (const l of lanes) get(l.group).lanes++;
  if (groups.size < 2) return [];
  // A loop marked with its iterations counts once, by its own interval; instances without an
  // enclosing interval of their id (Proton's repeated scopes) count themselves.
  const isIteration = (iv: RegionInterval) => typeof iv.iteration === 'number' && iv.iteration >= 0;
  const looped = new Set<string>();
  for (const iv of intervals) if (!isIteration(iv)) looped.add(`${lanes[iv.lane].group}:${iv.region}`);
  for (const iv of intervals) {
    const a = get(lanes[iv.lane].group);
    const d = iv.end_ns - iv.start_ns;
    if (iv.depth === 0) { a.top += d; a.outer.add(iv.region); }
    const parent = typeof iv.parent === 'number' && iv.parent >= 0 ? intervals[iv.parent] : undefined;
    if (parent && parent.region !== iv.region) a.container.add(parent.region);
    if (typeof iv.wait_ns === 'number' && iv.wait_ns >= 0) a.async.add(iv.region);
    if (isIteration(iv) && looped.has(`${lanes[iv.lane].group}:${iv.region}`)) continue;
    a.ns.set(iv.region, (a.ns.get(iv.region) ?? 0) + d);
    if (!a.names.has(iv.region)) a.names.set(iv.region, typeof iv.name === 'string' && iv.name ? iv.name : `region ${iv.region}`);
  }
  return [...groups.entries()].sort((x, y) => x[0] - y[0]).map(([group, a]) => ({
    group,
    lanes: a.lanes,
    regions: a.top > 0
      ? [...a.ns.entries()].map(([region, ns]) => ({
        region, name: a.names.get(region)!, share: ns / a.top,
        outermost: a.outer.has(region), container: a.container.has(region), async: a.async.has(region),
      }))
        .sort((x, y) => y.share - x.share)
      : [],
  }));
}

/** "wg 0: wait empty 53% · wg 1: mma 83%": each group's largest innermost synchronous region
 *  (not a container of others, not an async load overlapping the work, not the group's one
 *  outermost region); "each wg: compute 61–63%" when every group names the same region. */
export function groupHeadline(shares: GroupShare[], prefix: string): string {
  // An outermost region is the group's whole time unless the group has several (phases side by side).
  const tops = shares.map((g) => {
    const phases = g.regions.filter((r) => r.outermost).length > 1;
    return { g, r: g.regions.find((r) => (phases || !r.outermost) && !r.container && !r.async) };
  })
    .filter((x): x is { g: GroupShare; r: RegionShare } => x.r !== undefined);
  if (!tops.length) return '';
  const pct = (r: RegionShare) => `${Math.round(r.share * 100)}%`;
  if (tops.length === shares.length && tops.every((x) => x.r.name === tops[0].r.name)) {
    const ps = tops.map((x) => Math.round(x.r.share * 100));
    const lo = Math.min(...ps), hi = Math.max(...ps);
    return `each ${prefix}: ${tops[0].r.name} ${lo === hi ? `${lo}%` : `${lo}–${hi}%`}`;
  }
  return tops.map((x) => `${prefix} ${x.g.group}: ${x.r.name} ${pct(x.r)}`).join(' · ');
}
