/**
 * The Evolution view's data: runs → niches → elites, asked of the daemon (ListRuns, GetElites)
 * and refreshed through one change event when the daemon pushes run progress or comes and goes.
 * Bursts of progress are coalesced into one refresh; nothing polls.
 */
import * as vscode from 'vscode';
import type { NicheElite, RunProgress, RunSummary } from '../../shared/evolution';
import type { NicheAxes } from '../../shared/nicheLabel';
import { GetElites, ListRuns } from '../../shared/protocol';
import type { DaemonConnection } from '../daemonConnection';
import { workspaceRef } from '../services';
import type { TreeNodeSnapshot } from './api';
import { eliteRow, nicheGroups, nicheRow, runRow, type NicheGroup, type RowText } from './evolutionModel';

export interface RunNode {
  kind: 'run';
  /** Top-level so that `peagen.stopRun` can take the node as it is (it reads `runId`). */
  runId: string;
  run: RunSummary;
}

export interface NicheNode {
  kind: 'niche';
  runId: string;
  group: NicheGroup;
  /** The run's objective and grid axes, as GetElites answered: what the niche's label is made of. */
  axes: NicheAxes;
  /** The run's best program, marked among the niche's elites. */
  bestId: string | null;
  parent: RunNode;
}

export interface EliteNode {
  kind: 'elite';
  runId: string;
  programId: string;
  objectiveName: string;
  objectiveUnit?: string;
  elite: NicheElite;
  isBest: boolean;
  parent: NicheNode;
}

export type EvolutionNode = RunNode | NicheNode | EliteNode;

/** Progress arriving within this window is one refresh: a run reports after every evaluation. */
const COALESCE_MS = 300;

const RUN_ICONS: Record<RunSummary['state'], string> = {
  running: 'sync~spin',
  stopping: 'loading~spin',
  finished: 'pass',
  interrupted: 'debug-pause',
  failed: 'error',
};

export class EvolutionTreeProvider implements vscode.TreeDataProvider<EvolutionNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  /** The latest progress of each run the daemon reported since this window connected. */
  private readonly live = new Map<string, RunProgress>();
  /** GetElites answers per run, until that run's progress says it changed. */
  private readonly elites = new Map<string, Promise<GetElites.Response>>();
  private readonly runNodes = new Map<string, RunNode>();
  /** ListRuns' answer, until the next refresh. */
  private runList: Promise<RunSummary[]> | undefined;
  private readonly staleRuns = new Set<string>();
  private allStale = false;
  private readonly rootLoadedEmitter = new vscode.EventEmitter<void>();
  /** The tree (or a snapshot) has just been given the list of runs. */
  readonly onDidLoadRuns = this.rootLoadedEmitter.event;
  private pending: ReturnType<typeof setTimeout> | undefined;
  private hasRuns: boolean | undefined;
  private refreshes = 0;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly daemon: DaemonConnection,
    private readonly output: vscode.LogOutputChannel,
  ) {
    let wasUp = this.daemonUp();
    this.subscriptions = [
      daemon.onRunProgress((progress) => {
        this.live.set(progress.runId, progress);
        this.refresh(progress.runId);
      }),
      daemon.onDidChangeState(() => {
        // running ⇄ busy flips with every status push; only coming and going matters here.
        const up = this.daemonUp();
        if (up === wasUp) return;
        wasUp = up;
        if (!up) this.live.clear();
        this.refresh();
      }),
    ];
  }

  get refreshCount(): number {
    return this.refreshes;
  }

  /** Schedules one refresh of the tree; `runId` names the run whose elites changed (else all). */
  refresh(runId?: string): void {
    if (runId === undefined) this.allStale = true;
    else this.staleRuns.add(runId);
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      // Forget what changed only now: until the tree is told, it shows (and snapshot()
      // reports) what it was last given.
      this.runList = undefined;
      if (this.allStale) this.elites.clear();
      for (const stale of this.staleRuns) this.elites.delete(stale);
      this.allStale = false;
      this.staleRuns.clear();
      this.refreshes++;
      this.changed.fire();
    }, COALESCE_MS);
  }

  getTreeItem(node: EvolutionNode): vscode.TreeItem {
    const row = this.rowOf(node);
    const item = new vscode.TreeItem(row.label, this.collapsibleState(node));
    item.id = this.idOf(node);
    item.description = row.description;
    item.tooltip = row.tooltip;
    item.contextValue = row.contextValue;
    if (node.kind === 'run') item.iconPath = new vscode.ThemeIcon(RUN_ICONS[this.live.get(node.runId)?.state ?? node.run.state]);
    else if (node.kind === 'niche') item.iconPath = new vscode.ThemeIcon('symbol-array');
    else item.iconPath = new vscode.ThemeIcon(node.isBest ? 'star-full' : 'symbol-method', node.isBest ? new vscode.ThemeColor('charts.yellow') : undefined);
    return item;
  }

  getParent(node: EvolutionNode): EvolutionNode | undefined {
    return node.kind === 'run' ? undefined : node.parent;
  }

  async getChildren(node?: EvolutionNode): Promise<EvolutionNode[]> {
    if (!node) return this.runs();
    if (node.kind === 'run') return this.niches(node);
    if (node.kind === 'niche') {
      return node.group.elites.map((elite) => ({
        kind: 'elite',
        runId: node.runId,
        programId: elite.program.id,
        objectiveName: node.axes.objectiveName,
        ...(node.axes.objectiveUnit !== undefined && { objectiveUnit: node.axes.objectiveUnit }),
        elite,
        isBest: elite.program.id === node.bestId,
        parent: node,
      }));
    }
    return [];
  }

  /** The tree as a user sees it fully expanded. */
  async snapshot(node?: EvolutionNode): Promise<TreeNodeSnapshot[]> {
    const nodes = await this.getChildren(node);
    return Promise.all(
      nodes.map(async (child) => {
        const row = this.rowOf(child);
        return { id: this.idOf(child), ...row, children: await this.snapshot(child) };
      }),
    );
  }

  /** The row of a run, or undefined when the daemon does not list it. */
  async findRun(runId: string): Promise<RunNode | undefined> {
    return (await this.runs()).find((run) => run.runId === runId);
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    this.changed.dispose();
    this.rootLoadedEmitter.dispose();
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  private daemonUp(): boolean {
    return this.daemon.state === 'running' || this.daemon.state === 'busy';
  }

  private async runs(): Promise<RunNode[]> {
    const workspace = workspaceRef();
    if (!workspace || !this.daemonUp()) return [];
    if (!this.runList) {
      const answer = this.daemon.request(ListRuns.type, workspace).then(({ runs }) => runs);
      answer.catch(() => {
        if (this.runList === answer) this.runList = undefined;
      });
      this.runList = answer;
    }
    let runs: RunSummary[];
    try {
      runs = [...(await this.runList)];
    } catch (error) {
      this.output.warn(`Evolution view: could not list the runs: ${(error as Error).message}`);
      return [];
    }
    this.setHasRuns(runs.length > 0);
    runs.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
    const nodes = runs.map((run) => {
      const node = this.runNodes.get(run.runId) ?? { kind: 'run', runId: run.runId, run };
      node.run = run;
      this.runNodes.set(run.runId, node);
      return node;
    });
    this.rootLoadedEmitter.fire();
    return nodes;
  }

  private elitesOf(runId: string): Promise<GetElites.Response> {
    let answer = this.elites.get(runId);
    const workspace = workspaceRef();
    if (!answer) {
      if (!workspace) return Promise.reject(new Error('open the folder that holds .peagen/runs'));
      answer = this.daemon.request(GetElites.type, { runId, ...workspace });
      // A failed answer is not kept: the next refresh asks again.
      answer.catch(() => {
        if (this.elites.get(runId) === answer) this.elites.delete(runId);
      });
      this.elites.set(runId, answer);
    }
    return answer;
  }

  private async niches(run: RunNode): Promise<NicheNode[]> {
    let response: GetElites.Response;
    try {
      response = await this.elitesOf(run.runId);
    } catch (error) {
      // A run whose first checkpoint is not written yet has no archive to read: not an error.
      this.output.debug(`Evolution view: no elites for run ${run.runId} yet: ${(error as Error).message}`);
      return [];
    }
    return nicheGroups(response).map(
      (group): NicheNode => ({
        kind: 'niche',
        runId: run.runId,
        group,
        axes: { objectiveName: response.objectiveName, objectiveUnit: response.objectiveUnit, features: response.features },
        bestId: response.bestId,
        parent: run,
      }),
    );
  }

  private rowOf(node: EvolutionNode): RowText {
    if (node.kind === 'run') return runRow(node.run, this.live.get(node.runId));
    if (node.kind === 'niche') return nicheRow(node.group, node.axes);
    return eliteRow(node.elite, node.parent.axes, node.isBest);
  }

  private idOf(node: EvolutionNode): string {
    if (node.kind === 'run') return `run:${node.runId}`;
    if (node.kind === 'niche') return `niche:${node.runId}:${node.group.key}`;
    return `elite:${node.runId}:${node.elite.niche}:${node.elite.island}:${node.programId}`;
  }

  private collapsibleState(node: EvolutionNode): vscode.TreeItemCollapsibleState {
    if (node.kind === 'elite') return vscode.TreeItemCollapsibleState.None;
    if (node.kind === 'niche') return node.group.holdsBest ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
    const state = this.live.get(node.runId)?.state ?? node.run.state;
    return state === 'running' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed;
  }

  private setHasRuns(hasRuns: boolean): void {
    if (hasRuns === this.hasRuns) return;
    this.hasRuns = hasRuns;
    void vscode.commands.executeCommand('setContext', 'peagen.hasRuns', hasRuns);
  }
}
