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

/** A long template kernel name, as PyTorch's are (5,000+ characters). */
export const LONG_KERNEL = `void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<${'at::native::Functor<float>, '.repeat(180)}float>(at::TensorIteratorBase&)::{lambda(int)#1}>(int, at::native::Loader)`;

export const NAV_STRINGS = ['', 'all', '<module>', 'train', 'forward', LONG_KERNEL, '<stack truncated: depth limit>',
  '/ws/train.py', '/venv/lib/python3.12/site-packages/torch/nn/module.py'];

/**
 * A Python view of a training script (protocol v6: origins, a truncated stack):
 *   root 1300
 *   ├ <module> train.py:3 (user) 1000
 *   │  ├ train train.py:10 (user) 700
 *   │  │  └ forward module.py:5 (library) 400, self 100
 *   │  │     └ kernel (GPU) 300
 *   │  └ train train.py:12 (user) 300, self 200
 *   │     └ forward module.py:5 (library) 100
 *   └ <stack truncated: depth limit> 300
 */
export function navData(): FlameData {
  return {
    view: 'top-down', metric: 'cpu_time', unit: 'ns', total: 1300,
    strings: NAV_STRINGS.slice(),
    frames: {
      //        root  <module> train:10 forward kernel trunc train:12
      kind: Uint8Array.from([0, 1, 1, 1, 5, 2, 1]),
      name: Uint32Array.from([1, 2, 3, 4, 5, 6, 3]),
      file: Uint32Array.from([0, 7, 7, 8, 0, 0, 7]),
      line: Uint32Array.from([0, 3, 10, 5, 0, 0, 12]),
      module: Uint32Array.from([0, 0, 0, 0, 0, 0, 0]),
      origin: Uint8Array.from([0, 1, 1, 2, 4, 0, 1]),
      flags: Uint8Array.from([0, 0, 0, 0, 0, 1, 0]),
    },
    parent: Int32Array.from([-1, 0, 1, 2, 3, 1, 5, 0]),
    frame: Uint32Array.from([0, 1, 2, 3, 4, 6, 3, 5]),
    inclusive: Float64Array.from([1300, 1000, 700, 400, 300, 300, 100, 300]),
    exclusive: Float64Array.from([0, 0, 300, 100, 300, 200, 100, 300]),
    frameFilter: 'python', byFunction: false,
  };
}
/** Node ids in navData. */
export const NAV = { ROOT: 0, MODULE: 1, TRAIN: 2, FORWARD: 3, KERNEL: 4, TRAIN12: 5, FORWARD2: 6, TRUNC: 7 };
