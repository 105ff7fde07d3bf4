import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildRecordArgs, describeExit, formatCommandLine, profileFileName, resolveTarget, shellQuote, splitCommandLine, substitute,
} from '../src/recordCommand';

test('splitCommandLine: words, quotes, escapes', () => {
  assert.deepEqual(splitCommandLine('python3 train.py --epochs 1'), ['python3', 'train.py', '--epochs', '1']);
  assert.deepEqual(splitCommandLine(`  a   'b c'  "d e" f\\ g `), ['a', 'b c', 'd e', 'f g']);
  assert.deepEqual(splitCommandLine(`"a \\"q\\" \\\\ \\$x" 'it''s'`), ['a "q" \\ $x', 'its']);
  assert.deepEqual(splitCommandLine(`x="1 2" '' ""`), ['x=1 2', '', '']);
  assert.deepEqual(splitCommandLine('$HOME ~ *.py'), ['$HOME', '~', '*.py']);
  assert.deepEqual(splitCommandLine(''), []);
  assert.throws(() => splitCommandLine(`a 'b`), /unterminated single quote/);
  assert.throws(() => splitCommandLine(`a "b`), /unterminated double quote/);
});

test('shellQuote / formatCommandLine round-trip through splitCommandLine', () => {
  const args = ['python3', '/tmp/my dir/app.py', "it's", '', '--x=1', 'a"b', '$HOME', 'ü'];
  const line = formatCommandLine(args);
  assert.equal(shellQuote('plain/path.py'), 'plain/path.py');
  assert.equal(shellQuote('a b'), "'a b'");
  assert.deepEqual(splitCommandLine(line), args);
});

test('substitute: ${file}, ${workspaceFolder}, ${fileDirname}, ${fileBasename}', () => {
  const subs = { file: '/w/src/app.py', workspaceFolder: '/w' };
  assert.equal(substitute('${file}', subs), '/w/src/app.py');
  assert.equal(substitute('--root=${workspaceFolder}/data', subs), '--root=/w/data');
  assert.equal(substitute('${fileDirname}|${fileBasename}', subs), '/w/src|app.py');
  assert.throws(() => substitute('${file}', {}), /no active file/);
  assert.equal(substitute('${unknown}', subs), '${unknown}');
});

test('resolveTarget: active Python file with the configured interpreter', () => {
  assert.deepEqual(resolveTarget({ command: [], pythonPath: '/venv/bin/python' }, '/w/a.py', {}), ['/venv/bin/python', '/w/a.py']);
  assert.deepEqual(resolveTarget({ command: undefined, pythonPath: '' }, '/w/a.py', {}), ['python3', '/w/a.py']);
  assert.throws(() => resolveTarget({ command: [], pythonPath: 'python3' }, undefined, {}), /Open a Python file/);
  assert.throws(() => resolveTarget({ command: '', pythonPath: 'python3' }, '/w/a.cpp', {}), /not a Python file \(a\.cpp\)/);
});

test('resolveTarget: strata.command as array or string wins', () => {
  const subs = { file: '/w/a.py', workspaceFolder: '/w' };
  assert.deepEqual(resolveTarget({ command: ['./bench', '--n', '3'], pythonPath: 'python3' }, undefined, subs), ['./bench', '--n', '3']);
  assert.deepEqual(resolveTarget({ command: 'python3 "${file}" --name \'a b\'', pythonPath: 'x' }, '/w/a.py', subs),
    ['python3', '/w/a.py', '--name', 'a b']);
  assert.throws(() => resolveTarget({ command: [1, 2], pythonPath: 'x' }, undefined, subs), /array of strings/);
  assert.throws(() => resolveTarget({ command: 42, pythonPath: 'x' }, undefined, subs), /array of strings/);
});

test('buildRecordArgs: options before --, target after', () => {
  assert.deepEqual(buildRecordArgs(['python3', 'a.py', '--wall'], { output: '/o/p.strata' }),
    ['record', '-o', '/o/p.strata', '--', 'python3', 'a.py', '--wall']);
  assert.deepEqual(buildRecordArgs(['./x'], { output: 'p', periodMs: 5, wall: true }),
    ['record', '-o', 'p', '--period-ms', '5', '--wall', '--', './x']);
  assert.deepEqual(buildRecordArgs(['./x'], { output: 'p', periodMs: 0 }), ['record', '-o', 'p', '--', './x']);
  assert.deepEqual(buildRecordArgs(['./x'], { output: 'p', periodMs: 0.4 }), ['record', '-o', 'p', '--period-ms', '1', '--', './x']);
  assert.throws(() => buildRecordArgs([], { output: 'p' }), /empty/);
});

test('describeExit: exit codes, signals passed through as 128+N', () => {
  assert.equal(describeExit(0, null), 'exited normally');
  assert.equal(describeExit(3, null), 'exited with code 3');
  assert.equal(describeExit(139, null), 'was killed by signal 11 (SIGSEGV)');
  assert.equal(describeExit(130, null), 'was killed by signal 2 (SIGINT)');
  assert.equal(describeExit(null, 'SIGKILL'), 'was killed by SIGKILL');
  assert.match(describeExit(127, null), /could not be started/);
});

test('profileFileName: script stem and a timestamp', () => {
  const d = new Date(2026, 0, 2, 3, 4, 5);
  assert.equal(profileFileName(['python3', '/w/train loop.py', '--x'], d), 'train_loop-20260102-030405.strata');
  assert.equal(profileFileName(['python3', '-u', 'b.py'], d), 'b-20260102-030405.strata');
  assert.equal(profileFileName(['./bench'], d), 'bench-20260102-030405.strata');
});

test('buildRecordArgs: PC sampling mode and period', () => {
  assert.deepEqual(buildRecordArgs(['./x'], { output: 'p', pcSampling: 'continuous' }),
    ['record', '-o', 'p', '--pc-sampling=continuous', '--', './x']);
  assert.deepEqual(buildRecordArgs(['./x'], { output: 'p', pcSampling: 'serialized', pcSamplingPeriod: 16 }),
    ['record', '-o', 'p', '--pc-sampling=serialized', '--pc-sampling-period=16', '--', './x']);
  assert.deepEqual(buildRecordArgs(['./x'], { output: 'p', pcSampling: 'off', pcSamplingPeriod: 16 }), ['record', '-o', 'p', '--', './x']);
  assert.deepEqual(buildRecordArgs(['./x'], { output: 'p', pcSampling: 'continuous', pcSamplingPeriod: 2 }),
    ['record', '-o', 'p', '--pc-sampling=continuous', '--', './x'], 'a period out of range is left to the CLI default');
});
