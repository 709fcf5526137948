/**
 * The Evolution view's inline actions on an elite: open its diff against the workspace file,
 * accept it, copy its code, show its lineage. Each takes the tree node (or any `{ runId,
 * programId }`, for tests and other commands) and reports failures in a notification.
 */
import * as vscode from 'vscode';
import { GetProgram } from '../../shared/protocol';
import { proposalForProgram } from '../evolve/programTarget';
import { type Services, type WorkspaceParams, workspaceRef } from '../services';
import { lineageSteps, type LineageStep } from './evolutionModel';

/** Which elite an action is about: an Evolution view elite node satisfies it. */
export interface EliteRef {
  runId: string;
  programId: string;
  /** The objective's name for labels (the view's nodes carry it). */
  objectiveName?: string;
  /** Its unit (`%`), when the example declares one. */
  objectiveUnit?: string;
}

/** Answers Show Lineage would ask for: `choose` a program id to open its diff, or null to show nothing. */
export interface ShowLineageOptions {
  choose?: string | null;
}

function eliteRef(argument: unknown): EliteRef {
  const ref = argument as Partial<EliteRef> | undefined;
  if (typeof ref?.runId !== 'string' || typeof ref.programId !== 'string') {
    throw new Error('choose an elite in the Evolution view (this command acts on an elite row)');
  }
  return {
    runId: ref.runId,
    programId: ref.programId,
    ...(typeof ref.objectiveName === 'string' && { objectiveName: ref.objectiveName }),
    ...(typeof ref.objectiveUnit === 'string' && { objectiveUnit: ref.objectiveUnit }),
  };
}

function folder(): WorkspaceParams {
  const workspace = workspaceRef();
  if (!workspace) throw new Error('open the folder that holds .peagen/runs first');
  return workspace;
}

export class EliteCommands {
  constructor(private readonly services: Services) {}

  register(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand('peagen.openEliteDiff', (node: unknown) => this.reporting('open the diff', () => this.openDiff(eliteRef(node)))),
      vscode.commands.registerCommand('peagen.acceptElite', (node: unknown) => this.reporting('accept the elite', () => this.accept(eliteRef(node)))),
      vscode.commands.registerCommand('peagen.copyElite', (node: unknown) => this.reporting('copy the code', () => this.copy(eliteRef(node)))),
      vscode.commands.registerCommand('peagen.showLineage', (node: unknown, options?: ShowLineageOptions) =>
        this.reporting('show the lineage', () => this.showLineage(eliteRef(node), options)),
      ),
    ];
  }

  /** Opens the elite as a proposal diff; returns the proposal's id. */
  async openDiff(ref: EliteRef, open = true): Promise<string> {
    const input = proposalForProgram(ref.runId, await this.program(ref));
    // Picked in the view: an elite, whichever run produced it.
    return this.services.proposals.add({ ...input, source: { ...input.source, kind: 'elite' } }, { open });
  }

  async accept(ref: EliteRef): Promise<string> {
    const id = await this.openDiff(ref, false);
    await vscode.commands.executeCommand('peagen.acceptProposal', id);
    return id;
  }

  /** Puts the elite's program source on the clipboard; returns it. */
  async copy(ref: EliteRef): Promise<string> {
    const { program } = await this.program(ref);
    await vscode.env.clipboard.writeText(program.code);
    void vscode.window.setStatusBarMessage(`Peagen: copied the code of ${program.id.slice(0, 12)}`, 3_000);
    return program.code;
  }

  /**
   * Lists the ancestors from the seed to the elite; choosing one opens its diff. Returns the
   * steps shown (for tests, with `options.choose` answering the pick).
   */
  async showLineage(ref: EliteRef, options: ShowLineageOptions = {}): Promise<LineageStep[]> {
    const { program, ancestors } = await this.program(ref);
    const steps = lineageSteps(ancestors, program, ref.objectiveName ?? 'objective', ref.objectiveUnit);
    let chosen: string | undefined;
    if ('choose' in options) chosen = options.choose ?? undefined;
    else {
      const items = steps.map((step) => ({ ...step, step }));
      const pick = await vscode.window.showQuickPick(items, {
        title: `Lineage of ${program.id.slice(0, 12)}: seed → elite (choose one to see its diff)`,
        matchOnDescription: true,
        matchOnDetail: true,
      });
      chosen = pick?.step.programId;
    }
    if (chosen) await this.openDiff({ ...ref, programId: chosen });
    return steps;
  }

  private program(ref: EliteRef): Promise<GetProgram.Response> {
    return this.services.daemon.request(GetProgram.type, { runId: ref.runId, ...folder(), programId: ref.programId });
  }

  private async reporting<T>(what: string, action: () => Promise<T>): Promise<T | undefined> {
    try {
      return await action();
    } catch (error) {
      const message = (error as Error).message;
      this.services.output.error(`could not ${what}: ${message}`);
      void vscode.window.showErrorMessage(`Peagen: could not ${what}: ${message}`);
      return undefined;
    }
  }
}
