// Turns whatever arrived through postMessage into a well-formed FlameData. Typed arrays
// normally survive structured cloning, but hosts (or tests, or JSON round trips) may send
// plain arrays or objects with numeric keys ({"0": 1, "1": 2}); all are accepted here.
// Throws an Error with a readable message when the data cannot be used.
import type { FlameData, FrameTable, NodePart, ViewName } from '../protocol';
import { checkFusedColumns } from './fusedLines';

type NumCtor<T> = { new (n: number): T; from(a: ArrayLike<number>): T };

function toTyped<T extends ArrayLike<number>>(v: unknown, ctor: NumCtor<T>, what: string): T {
  if (v instanceof (ctor as unknown as Function)) return v as T;
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return ctor.from(v as unknown as ArrayLike<number>);
  if (v instanceof ArrayBuffer) return ctor.from(new (ctor as unknown as { new (b: ArrayBuffer): ArrayLike<number> })(v));
  if (Array.isArray(v)) return ctor.from(v.map(Number));
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    // {length: n, 0: .., 1: ..} or {0: .., 1: ..}
    let n = typeof o.length === 'number' ? (o.length as number) : 0;
    if (!n) for (const k of Object.keys(o)) { const i = Number(k); if (Number.isInteger(i) && i >= n) n = i + 1; }
    const out = new ctor(n) as unknown as { [i: number]: number };
    for (let i = 0; i < n; i++) out[i] = Number(o[i] ?? 0);
    return out as unknown as T;
  }
  if (v === undefined || v === null) throw new Error(`profile data: column "${what}" is missing`);
  throw new Error(`profile data: column "${what}" is not an array`);
}

export function normalizeFlameData(raw: unknown): FlameData {
  if (!raw || typeof raw !== 'object') throw new Error('profile data is missing');
  const r = raw as Record<string, unknown>;
  const parent = toTyped(r.parent, Int32Array, 'parent');
  const n = parent.length;
  if (n === 0) throw new Error('profile data is empty (no nodes)');
  const col = <T extends ArrayLike<number>>(o: Record<string, unknown>, key: string, ctor: NumCtor<T>, len: number, optional = false, prefix = ''): T => {
    if (optional && (o[key] === undefined || o[key] === null)) return new ctor(len);
    const a = toTyped(o[key], ctor, prefix + key);
    if (a.length !== len) throw new Error(`profile data: column "${prefix}${key}" has ${a.length} entries, expected ${len}`);
    return a;
  };
  const inclusive = col(r, 'inclusive', Float64Array, n);
  const exclusive = col(r, 'exclusive', Float64Array, n, true);
  const frame = col(r, 'frame', Uint32Array, n, true);
  // Without a frame table every node is the one empty frame.
  const f = r.frames && typeof r.frames === 'object' ? r.frames as Record<string, unknown> : {};
  const kind = f.kind === undefined || f.kind === null ? new Uint8Array(1) : toTyped(f.kind, Uint8Array, 'frames.kind');
  const m = kind.length;
  const frames: FrameTable = {
    kind,
    name: col(f, 'name', Uint32Array, m, true, 'frames.'),
    file: col(f, 'file', Uint32Array, m, true, 'frames.'),
    line: col(f, 'line', Uint32Array, m, true, 'frames.'),
    module: col(f, 'module', Uint32Array, m, true, 'frames.'),
  };
  // v6 columns: absent from older hosts (frames are then coloured by kind alone).
  if (f.origin !== undefined && f.origin !== null) frames.origin = col(f, 'origin', Uint8Array, m, false, 'frames.');
  if (f.flags !== undefined && f.flags !== null) frames.flags = col(f, 'flags', Uint8Array, m, false, 'frames.');
  // v8: a fused kernel's lines (absent from older hosts and from views without fused frames).
  const fusedCol = (key: string): Uint32Array | undefined =>
    f[key] === undefined || f[key] === null ? undefined : toTyped(f[key], Uint32Array, 'frames.' + key);
  frames.fusedOffset = fusedCol('fusedOffset');
  frames.fusedFile = fusedCol('fusedFile');
  frames.fusedFunction = fusedCol('fusedFunction');
  frames.fusedLine = fusedCol('fusedLine');
  for (const k of ['fusedOffset', 'fusedFile', 'fusedFunction', 'fusedLine'] as const) if (!frames[k]) delete frames[k];
  for (let i = 0; i < n; i++) {
    if (frame[i] >= m) throw new Error(`profile data: node ${i} names frame ${frame[i]}; the frame table has ${m}`);
  }
  let strings: string[];
  if (Array.isArray(r.strings)) strings = r.strings.map((s) => (s == null ? '' : String(s)));
  else if (r.strings && typeof r.strings === 'object') {
    const o = r.strings as Record<string, unknown>;
    strings = [];
    for (const k of Object.keys(o)) { const i = Number(k); if (Number.isInteger(i) && i >= 0) strings[i] = String(o[k] ?? ''); }
    for (let i = 0; i < strings.length; i++) if (strings[i] === undefined) strings[i] = '';
  } else strings = [''];
  if (parent[0] !== -1) throw new Error('profile data: node 0 must be the root (parent -1)');
  for (let i = 1; i < n; i++) {
    const p = parent[i];
    if (p < 0 || p >= i) throw new Error(`profile data: node ${i} has parent ${p}; nodes must be in preorder`);
  }
  const ns = strings.length;
  for (const c of [frames.name, frames.file, frames.module]) for (let i = 0; i < m; i++) if (c[i] >= ns) c[i] = 0;
  checkFusedColumns(frames, m, ns);
  const view: ViewName = r.view === 'bottom-up' ? 'bottom-up' : 'top-down';
  const total = typeof r.total === 'number' && r.total > 0 ? r.total : inclusive[0];
  const out: FlameData = {
    view,
    metric: typeof r.metric === 'string' ? r.metric : '',
    unit: typeof r.unit === 'string' ? r.unit : '',
    total,
    strings,
    frames, parent, frame, inclusive, exclusive,
    frameFilter: r.frameFilter === 'python' ? 'python' : 'all',
    byFunction: r.byFunction === true,
  };
  // v7: a part of the view: the host's ids (ascending, as the host's preorder), children left out.
  if (r.node !== undefined && r.node !== null) {
    const node = col(r, 'node', Uint32Array, n, false);
    for (let i = 1; i < n; i++) if (node[i] <= node[i - 1]) throw new Error(`profile data: node ids must ascend (node ${i})`);
    out.node = node;
    out.more = col(r, 'more', Uint8Array, n, true);
    out.minValue = typeof r.minValue === 'number' && r.minValue > 0 ? r.minValue : 0;
  }
  if (typeof r.nodes === 'number' && Number.isInteger(r.nodes) && r.nodes >= n) out.nodes = r.nodes;
  if (typeof r.viewId === 'number' && Number.isInteger(r.viewId)) out.viewId = r.viewId;
  return out;
}

/** A 'nodes' message's part, checked like a view's columns; throws with a readable message. */
export function normalizeNodePart(raw: unknown, frameCount: number): NodePart {
  if (!raw || typeof raw !== 'object') throw new Error('view part is missing');
  const r = raw as Record<string, unknown>;
  const parent = toTyped(r.parent, Int32Array, 'parent');
  const n = parent.length;
  if (n === 0 || parent[0] !== -1) throw new Error('view part: node 0 must be its root');
  for (let i = 1; i < n; i++) if (parent[i] < 0 || parent[i] >= i) throw new Error(`view part: node ${i} has parent ${parent[i]}`);
  const col = <T extends ArrayLike<number>>(key: string, ctor: NumCtor<T>): T => {
    const a = toTyped(r[key], ctor, key);
    if (a.length !== n) throw new Error(`view part: column "${key}" has ${a.length} entries, expected ${n}`);
    return a;
  };
  const frame = col('frame', Uint32Array);
  for (let i = 0; i < n; i++) if (frame[i] >= frameCount) throw new Error(`view part: node ${i} names frame ${frame[i]}; the frame table has ${frameCount}`);
  const node = col('node', Uint32Array);
  for (let i = 1; i < n; i++) if (node[i] <= node[i - 1]) throw new Error(`view part: node ids must ascend (node ${i})`);
  const out: NodePart = {
    parent, frame, node,
    inclusive: col('inclusive', Float64Array), exclusive: col('exclusive', Float64Array), more: col('more', Uint8Array),
    minValue: typeof r.minValue === 'number' && r.minValue > 0 ? r.minValue : 0,
  };
  // A diff's part: A's value and the match of each node.
  if (r.baseline !== undefined) out.baseline = col('baseline', Float64Array);
  if (r.match !== undefined) out.match = col('match', Uint8Array);
  return out;
}
