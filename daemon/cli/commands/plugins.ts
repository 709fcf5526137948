/** peagen plugins: lists discovered plugin packages and what the allow-list loads (issue 11). */
import type { Command } from 'commander';
import { notImplemented } from './notYet';

export function registerPluginsCommand(program: Command): void {
  program
    .command('plugins')
    .description('(not yet)')
    .action(() => notImplemented('plugins'));
}
