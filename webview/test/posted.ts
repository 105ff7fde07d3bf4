// A message the webview posted, for comparing with what a test expects: the graph's width (v7,
// 'ready' and 'requestView'; it depends on the window) is checked to be a width and left out.
import assert from 'node:assert/strict';

export function withoutWidth<T>(m: T): T {
  if (!m || typeof m !== 'object' || !('width' in m)) return m;
  const { width, ...rest } = m as unknown as Record<string, unknown>;
  assert.ok(typeof width === 'number' && width > 0, `a width: ${String(width)}`);
  return rest as T;
}
