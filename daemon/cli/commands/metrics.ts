/** peagen metrics: prints the daemon's and worker pools' current metric values (issue 10). */
import type { Command } from 'commander';
import { notImplemented } from './notYet';

export function registerMetricsCommand(program: Command): void {
  program
    .command('metrics')
    .description('(not yet)')
    .action(() => notImplemented('metrics'));
}
