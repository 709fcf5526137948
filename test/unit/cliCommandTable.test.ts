import * as assert from 'node:assert/strict';
import { Command } from 'commander';
import { COMMANDS, commandsFor } from '../../daemon/cli/commandTable';

const ALL = COMMANDS.map(([name]) => name);

describe('the CLI loads the command groups a command line needs (commandTable)', () => {
  it('only the group a command names, wherever the global options are', () => {
    assert.deepEqual(commandsFor(['evolve', 'run', 'examples/bad_sort']), ['evolve']);
    assert.deepEqual(commandsFor(['--json', '--config', 'peagen.json', 'daemon', 'start']), ['daemon']);
    assert.deepEqual(commandsFor(['--config=peagen.json', '-v', 'task', 'submit', 'echo']), ['task']);
    assert.deepEqual(commandsFor(['queue', '--help']), ['queue']);
    assert.deepEqual(commandsFor(['help', 'worker']), ['worker']);
  });

  it('none for --version, all of them for help, no command or an unknown one', () => {
    assert.deepEqual(commandsFor(['--version']), []);
    assert.deepEqual(commandsFor(['-V', '--json']), []);
    assert.deepEqual(commandsFor(['--version', '--help']), ALL);
    assert.deepEqual(commandsFor(['--help']), ALL);
    assert.deepEqual(commandsFor([]), ALL);
    assert.deepEqual(commandsFor(['help']), ALL);
    assert.deepEqual(commandsFor(['evolv', 'run']), ALL, 'commander suggests the right name from all of them');
    // The value of --config is not a command name, even when it looks like one.
    assert.deepEqual(commandsFor(['--config', 'evolve']), ALL);
    assert.deepEqual(commandsFor(['--', 'evolve']), ALL);
  });

  it('each entry registers the command of its name, and nothing else', async () => {
    for (const [name, load] of COMMANDS) {
      const program = new Command('peagen');
      (await load())(program);
      assert.deepEqual(
        program.commands.map((command) => command.name()),
        [name],
      );
    }
  });
});
