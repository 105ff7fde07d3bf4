import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, formatEditorValue } from '../../webview/src/model/format';
import { metaDuration, profileDescription } from '../src/profileDescription';

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
