/**
 * The reader of the docs test (test/fixtures/docCommands.ts): it must find every `peagen`
 * command a page tells a reader to type, as the shell splits it, and nothing else.
 */
import * as assert from 'node:assert/strict';
import { docCommands, optionsIn, shellWords, synopses } from '../fixtures/docCommands';

const fence = (lang: string, ...lines: string[]): string => ['```' + lang, ...lines, '```'].join('\n');

describe('the docs test reads commands as the shell would', () => {
  it('splits words on quotes, escapes, comments and operators', () => {
    assert.deepEqual(shellWords(`peagen init stats.py --tests "python3 -m unittest"   # a comment`), ['peagen', 'init', 'stats.py', '--tests', 'python3 -m unittest']);
    assert.deepEqual(shellWords(`peagen task submit echo --payload '{"a": "b c"}'`), ['peagen', 'task', 'submit', 'echo', '--payload', '{"a": "b c"}']);
    assert.deepEqual(shellWords('npm ci && peagen evolve run x;peagen eval y | tee z'), ['npm', 'ci', '&&', 'peagen', 'evolve', 'run', 'x', ';', 'peagen', 'eval', 'y', '|', 'tee', 'z']);
    assert.deepEqual(shellWords('a\\ b "c\\"d" e#f'), ['a b', 'c"d', 'e#f']);
    assert.throws(() => shellWords('peagen init "open'), /unbalanced "/);
  });

  it('finds every peagen command of the shell blocks, with its line and the environment it needs', () => {
    const page = [
      'prose: peagen not-a-command',
      fence('text', 'peagen eval EXAMPLE [--seed N]'),
      fence('sh', 'npm ci && peagen evolve run examples/bad_sort --evaluations 40', 'npx peagen plugins', 'OPENAI_MODEL=m peagen mutate x \\', '  --n 2'),
      fence('bash', 'export QUEUE_URL=redis://h:6379', 'peagen daemon start'),
      fence('', 'peagen unlabelled'),
    ].join('\n');
    const found = docCommands(page, 'P.md').map(({ where, args, environment }) => ({ where, args: args.join(' '), environment }));
    assert.deepEqual(found, [
      { where: 'P.md:6', args: 'evolve run examples/bad_sort --evaluations 40', environment: [] },
      { where: 'P.md:7', args: 'plugins', environment: [] },
      { where: 'P.md:8', args: 'mutate x --n 2', environment: ['OPENAI_MODEL'] },
      { where: 'P.md:13', args: 'daemon start', environment: ['QUEUE_URL'] },
    ]);
  });

  it('reads a CLI reference: synopses with their continuation lines, options but not dashes in words', () => {
    const reference = fence('text', 'peagen worker start [--caps cpu] [--mode in-process|one-shot]', '                    [-v|--verbose]', 'not peagen --x');
    assert.deepEqual(synopses(reference), ['peagen worker start [--caps cpu] [--mode in-process|one-shot] [-v|--verbose]']);
    assert.deepEqual(optionsIn(synopses(reference)[0]!), ['--caps', '--mode', '-v', '--verbose']);
  });
});
