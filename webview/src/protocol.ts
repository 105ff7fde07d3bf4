// Messages between the extension host and the webview (versioned). The webview never reads
// files: everything it shows arrives here. The extension imports these types.
// v2: 'highlightSource' (the frames of one source line, from the editor's cursor).
export const PROTOCOL_VERSION = 2;

export type ViewName = 'top-down' | 'bottom-up';

/** Frame kinds, numeric values as in the profile format (native/format/.../layout.h). */
export const enum FrameKind {
  Root = 0, Python = 1, Native = 2, Operator = 3, GpuApi = 4, Kernel = 5, Pc = 6, Region = 7, Thread = 8,
}

/**
 * One view of a profile as columns. Nodes are in preorder: parent[i] < i, parent[0] = -1.
 * String columns index into `strings` (0 = "").
 */
export interface FlameData {
  view: ViewName;
  metric: string;          // e.g. "cpu_time"
  unit: string;            // e.g. "ns"
  total: number;           // inclusive value of the root
  strings: string[];
  parent: Int32Array;
  kind: Uint8Array;
  name: Uint32Array;
  file: Uint32Array;
  line: Uint32Array;
  module: Uint32Array;
  inclusive: Float64Array;
  exclusive: Float64Array;
}

/** extension -> webview */
export type HostMessage =
  | { type: 'profile'; version: number; title: string; metrics: string[]; data: FlameData }
  | { type: 'error'; message: string }
  | { type: 'highlight'; nodes: number[] }    // nodes to outline (e.g. frames of a source line)
  // v2: outline every frame at `file`:`line` (file as recorded in the profile, i.e. one of
  // FlameData.strings; line 1-based). Kept across view switches until the next one; file ""
  // clears it. Unlike 'highlight' it never changes the zoom: the cursor moving in an editor must
  // not move the graph under the user.
  | { type: 'highlightSource'; file: string; line: number };

/** webview -> extension */
export type WebviewMessage =
  | { type: 'ready'; version: number }
  | { type: 'openSource'; node: number; view: ViewName }
  | { type: 'requestView'; view: ViewName; metric: string };
