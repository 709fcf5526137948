/** peagen render PROJECTS.yaml: expands template sets (issue 11; owned by the render helper). */
import type { Command } from 'commander';
import { notImplemented } from './notYet';

export function registerRenderCommand(program: Command): void {
  program
    .command('render')
    .description('(not yet)')
    .action(() => notImplemented('render'));
}
