import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, formatEditorValue } from '../../webview/src/model/format';
import { gpuSamplingNote, metaDuration, profileDescription } from '../src/profileDescription';

test('formatDuration and formatValue', () => {
  assert.equal(formatDuration(850), '850 ns');
  assert.equal(formatDuration(12_345), '12.3 us');
  assert.equal(formatDuration(4_560_000), '4.56 ms');
  assert.equal(formatDuration(1_234_000_000), '1.23 s');
  assert.equal(formatDuration(125e9), '2 min 5 s');
  assert.equal(formatEditorValue(3 * 1024 * 1024, 'bytes'), '3.00 MiB');
  assert.equal(formatEditorValue(1234, 'count'), '1,234');
  assert.equal(formatEditorValue(0.5, 'fraction'), '0.50 fraction');
});

test('profileDescription: duration and command from the meta', () => {
  assert.equal(profileDescription({ duration_ns: '1234000000', command: 'python3 train.py' }), '1.23 s · python3 train.py');
  assert.equal(profileDescription({ command: 'x' }), 'x');
  assert.equal(profileDescription({ duration_ns: '5e6', command: '/root/.pyenv/bin/python3 /w/ex/train_loop.py 60 --out=/tmp/x' }),
    '5.00 ms · python3 train_loop.py 60 --out=/tmp/x');
  assert.equal(profileDescription({}), '');
  assert.equal(profileDescription({ command: 'a'.repeat(100) }, 10), `${'a'.repeat(9)}…`);
  assert.equal(metaDuration({ duration_ns: 'nope' }), undefined);
});

test('gpuSamplingNote: the windows and the scale, or nothing for a fully traced profile', () => {
  assert.equal(gpuSamplingNote(null), '');
  assert.equal(gpuSamplingNote(undefined), '');
  assert.equal(gpuSamplingNote({ windowMs: 100, periodMs: 1000, scale: 10, windowsOpened: 1234, timeScale: 10, byOperatorCalls: false, fewWindows: false }),
    'Sampled GPU tracing: GPU work was traced in 100 ms windows every 1.00 s, 1,234 windows. GPU, sync and API ' +
    'times and bytes are estimates (what was traced ×10; low where tracing slows the program, as with many short ' +
    'launches); counts are what was traced.');
  const n = gpuSamplingNote({ windowMs: 30, periodMs: 100, scale: 100 / 30, windowsOpened: 1, timeScale: 100 / 30, byOperatorCalls: false, fewWindows: false });
  assert.match(n, /30\.0 ms windows every 100 ms, 1 window\./);
  assert.match(n, /×3\.33; /);
  assert.doesNotMatch(gpuSamplingNote({ windowMs: 10, periodMs: 100, scale: 10, windowsOpened: 0, timeScale: 10, byOperatorCalls: false, fewWindows: false }), /window\b|windows\./,
    'no count when the profile does not say');
  assert.match(gpuSamplingNote({ windowMs: 100, periodMs: 1000, scale: 12.68, windowsOpened: 8, timeScale: 10, byOperatorCalls: true, fewWindows: true }),
    /estimates \(what was traced ×12\.7, the share of operator calls made in windows; their share of time alone: ×10\); counts/,
    'a scale from operator calls says so, beside the time share');
  assert.match(gpuSamplingNote({ windowMs: 100, periodMs: 1000, scale: 10, windowsOpened: 3, timeScale: 10, byOperatorCalls: false, fewWindows: true }),
    /3 windows\..*counts are what was traced\. So few windows can leave a line's share of GPU time several points off: run longer for steadier shares\.$/,
    'few windows: said last');
  assert.doesNotMatch(gpuSamplingNote({ windowMs: 100, periodMs: 1000, scale: 10, windowsOpened: 30, timeScale: 10, byOperatorCalls: false, fewWindows: false }),
    /few windows/);
});
