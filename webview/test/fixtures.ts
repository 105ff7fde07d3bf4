// Known profiles for the tests: root → main → {hot 75%, cold 25%}.
import type { FlameData } from '../src/protocol';

export const STRINGS = ['', 'all', 'main', 'hot', 'cold', 'train.py', 'kernels/hot.py', 'util/cold.py', 'python3.11'];

export function sampleData(view: 'top-down' | 'bottom-up' = 'top-down'): FlameData {
  return {
    view,
    metric: 'cpu_time',
    unit: 'ns',
    total: 1e9,
    strings: STRINGS.slice(),
    frames: {
      kind: Uint8Array.from([0, 1, 1, 2]),
      name: Uint32Array.from([1, 2, 3, 4]),
      file: Uint32Array.from([0, 5, 6, 7]),
      line: Uint32Array.from([0, 10, 20, 30]),
      module: Uint32Array.from([0, 8, 8, 0]),
    },
    parent: Int32Array.from([-1, 0, 1, 1]),
    frame: Uint32Array.from([0, 1, 2, 3]),
    inclusive: Float64Array.from([1e9, 1e9, 7.5e8, 2.5e8]),
    exclusive: Float64Array.from([0, 0, 7.5e8, 2.5e8]),
  };
}

/** Node ids in sampleData. */
export const ROOT = 0, MAIN = 1, HOT = 2, COLD = 3;
