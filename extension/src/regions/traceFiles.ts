// What a picked file is and which files go with it. "Open Region Trace" takes a region buffer
// (`.bin`, read back after a launch) or a JSON: a decoded trace (`strata regions --format json`)
// or a harness sidecar (`{"names": "1=load;...", "clock_cycles_per_ns": 1.98}`, the buffer next
// to it). Names for a buffer come from `<stem>.names` or the sidecar `<stem>.json`; a calibration
// buffer (`<stem>.calibration.bin`, else `calibration.bin` in the same folder) makes the CLI
// replay with the measured cost per record. A Triton kernel's Proton trace (`name.chrome_trace`,
// or a JSON with Proton's "<kernel> Core<n> CTA<n>" processes) is decoded by
// `strata regions --proton` (issue 7, part 4). A profile (`.strata`, recorded with
// `strata record --regions`) carries its launches' buffers: `strata regions PROFILE --launch N`. Pure (the
// file system is injected), unit-tested.
import * as path from 'node:path';

export type JsonKind = 'trace' | 'sidecar' | 'proton' | 'other';

const PROTON_PID = / Core\d+ CTA\d+$/;

/** A decoded trace has "lanes" and "intervals" arrays; a sidecar has a "names" string. */
export function classifyJson(value: unknown): JsonKind {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'other';
  const o = value as Record<string, unknown>;
  if (Array.isArray(o.lanes) && Array.isArray(o.intervals)) return 'trace';
  if (typeof o.names === 'string') return 'sidecar';
  if (Array.isArray(o.traceEvents) && o.traceEvents.slice(0, 64).some((e) =>
    !!e && typeof e === 'object' && typeof (e as { pid?: unknown }).pid === 'string' && PROTON_PID.test((e as { pid: string }).pid))) return 'proton';
  return 'other';
}

/** x.bin → x; x.regions.json → x; x.json → x. */
export function stemOf(file: string): string {
  const base = file.replace(/\.json$/i, '').replace(/\.regions$/i, '');
  return base === file ? file.replace(/\.[^./\\]*$/, '') : base;
}

export interface TraceFiles {
  /** The region buffer to decode (or to export from). */
  buffer?: string;
  /** An already decoded trace (JSON). */
  decoded?: string;
  /** Where the names (and maybe the clock rate) come from. */
  namesFile?: string;
  /** A CalibrationKernel buffer for `--calibration`. */
  calibration?: string;
  /** `buffer` is a Proton trace (decoded with `--proton`). */
  proton?: boolean;
  /** `buffer` is a profile whose region buffers `strata regions PROFILE --launch N` decodes. */
  profile?: boolean;
}

export interface FileAccess {
  exists(p: string): boolean;
  /** Parsed JSON of `p`, or undefined when it is not JSON. */
  json(p: string): unknown;
}

/** The files for a picked path. Throws an Error with a message for the user. */
export function traceFilesFor(picked: string, fsx: FileAccess): TraceFiles {
  const stem = stemOf(picked);
  const namesFor = (skip: string): string | undefined => {
    const names = `${stem}.names`;
    if (fsx.exists(names)) return names;
    const side = `${stem}.json`;
    if (side !== skip && fsx.exists(side) && classifyJson(fsx.json(side)) === 'sidecar') return side;
    return undefined;
  };
  const calibrationFor = (buffer: string): string | undefined => {
    const own = `${stemOf(buffer)}.calibration.bin`;
    const shared = path.join(path.dirname(buffer), 'calibration.bin');
    return [own, shared].find((c) => c !== buffer && fsx.exists(c));
  };
  const withCalibration = (t: TraceFiles): TraceFiles => {
    const c = t.buffer ? calibrationFor(t.buffer) : undefined;
    return c ? { ...t, calibration: c } : t;
  };
  if (/\.strata$/i.test(picked)) return { buffer: picked, profile: true };
  if (/\.chrome_trace$/i.test(picked)) return { buffer: picked, proton: true, namesFile: namesFor(picked) };
  if (!/\.json$/i.test(picked)) return withCalibration({ buffer: picked, namesFile: namesFor(picked) });
  const value = fsx.json(picked);
  const kind = classifyJson(value);
  const bin = `${stem}.bin`;
  if (kind === 'trace') return withCalibration({ decoded: picked, buffer: fsx.exists(bin) ? bin : undefined, namesFile: namesFor(picked) });
  if (kind === 'proton') return { buffer: picked, proton: true };
  if (kind === 'sidecar') {
    if (!fsx.exists(bin)) throw new Error(`${path.basename(picked)} holds region names, but its buffer ${path.basename(bin)} is not next to it.`);
    return withCalibration({ buffer: bin, namesFile: picked });
  }
  throw new Error(`${path.basename(picked)} is not a region trace: expected a decoded trace ("lanes" and "intervals", from strata regions --format json) a sidecar with "names", or a Proton trace).`);
}
