/**
 * Follows the runs this window started: a cancellable progress notification per run (Cancel
 * stops the run, which checkpoints), each new best child offered as a proposal, and at the end
 * a notification offering the best proposal's diff: the best reduced to its smallest diff from
 * the seed when the run reduced it, titled with what a reviewer needs (reviewTitle.ts).
 */
import * as vscode from 'vscode';
import type { RunProgress } from '../../shared/evolution';
import { GetProgram, StopRun } from '../../shared/protocol';
import type { WorkspaceParams } from '../services';
import type { Services } from '../services';
import { proposalForProgram } from './programTarget';
import { progressMessage } from './progressMessage';
import { runEndSummary } from './runEndSummary';
import { measuredTitle, reviewTitle } from './reviewTitle';
import { confirmationLine, isConfirmedGain } from '../../shared/gainText';

const ENDED: ReadonlySet<RunProgress['state']> = new Set(['finished', 'interrupted', 'failed']);

/** A best child of a run, as offered to the proposals. */
export interface OfferedProgram {
  programId: string;
  title: string;
  file: string;
  region: { startLine: number; endLine: number };
  /** The proposal's id; absent when the proposals refused it (see `error`). */
  proposalId?: string;
  error?: string;
  /** Why its proposal was taken back (superseded by a better child, or its gain was not measured to be one). */
  withdrawn?: string;
  /** Offered for Accept: its gain was measured to be one. Before that, it can only be looked at and rejected. */
  confirmed?: boolean;
}

/** What an offered best says until the run measures its gain again beside the seed. */
const NOT_YET_MEASURED = 'not yet measured';

export interface FollowedRunInfo {
  runId: string;
  runDir: string;
  progress: RunProgress | undefined;
  /** Ids of the proposals offered for this run's best children, oldest first. */
  proposals: string[];
  /** Every best child offered, oldest first (with why a proposal was not made, if it was not). */
  offers: OfferedProgram[];
}

interface FollowedRun extends FollowedRunInfo {
  /** The workspace the run was started for (what GetProgram names it by). */
  workspace: WorkspaceParams;
  label: string;
  offeredBest: string | undefined;
  offering: Promise<void>;
  ended: Promise<RunProgress>;
  end(progress: RunProgress): void;
}

export class RunTracker implements vscode.Disposable {
  private readonly runs = new Map<string, FollowedRun>();
  /** Progress of runs not (yet) followed: StartRun's first notifications can arrive before its answer. */
  private readonly early = new Map<string, RunProgress>();
  private lastRunId: string | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly services: Services) {
    this.subscription = services.daemon.onRunProgress((progress) => this.onProgress(progress));
  }

  /** The run this window started last, as it stands. */
  lastRun(): FollowedRunInfo | undefined {
    const run = this.lastRunId ? this.runs.get(this.lastRunId) : undefined;
    return run && { runId: run.runId, runDir: run.runDir, progress: run.progress, proposals: [...run.proposals], offers: run.offers.map((offer) => ({ ...offer })) };
  }

  /** Runs of this window still going, newest first. */
  activeRuns(): string[] {
    return [...this.runs.values()].filter((run) => !run.progress || !ENDED.has(run.progress.state)).map((run) => run.runId).reverse();
  }

  /** Starts following a run just started; shows its progress until it ends. */
  follow(runId: string, runDir: string, workspace: WorkspaceParams, label: string, evaluationsGoal: number | undefined): void {
    let end!: (progress: RunProgress) => void;
    const ended = new Promise<RunProgress>((resolve) => (end = resolve));
    const run: FollowedRun = { runId, runDir, workspace, label, progress: undefined, proposals: [], offers: [], offeredBest: undefined, offering: Promise.resolve(), ended, end };
    this.runs.set(runId, run);
    this.lastRunId = runId;
    this.updateContext();
    void this.showProgress(run, evaluationsGoal);
    const early = this.early.get(runId);
    this.early.delete(runId);
    if (early) this.onProgress(early);
  }

  async stop(runId: string): Promise<boolean> {
    const { stopping } = await this.services.daemon.request(StopRun.type, { runId });
    return stopping;
  }

  dispose(): void {
    this.subscription.dispose();
  }

  private onProgress(progress: RunProgress): void {
    const run = this.runs.get(progress.runId);
    if (!run) {
      this.early.set(progress.runId, progress);
      if (this.early.size > 50) this.early.delete(this.early.keys().next().value!);
      return;
    }
    if (run.progress && ENDED.has(run.progress.state)) return;
    run.progress = progress;
    if (progress.best && progress.best.id !== run.offeredBest) {
      const best = progress.best;
      run.offeredBest = best.id;
      run.offering = run.offering.then(() => this.offer(run, best.id));
    }
    const reduction = progress.reduction;
    // A gain not measured to be one is not offered (a run made before confirmation has none to ask).
    const measurable = !progress.confirmation || isConfirmedGain(progress.confirmation);
    if (ENDED.has(progress.state) && measurable && reduction?.reduced && reduction.reduced.id !== run.offeredBest) {
      // Offered last, so the end's "Open Best Proposal" opens the diff a reviewer can accept.
      const title = reviewTitle(progress, { ...reduction, reduced: reduction.reduced });
      const id = reduction.reduced.id;
      run.offeredBest = id;
      // Measured with the best's confirmation (reviewTitle gives its interval): offered for Accept when that was a gain.
      run.offering = run.offering.then(() => this.offer(run, id, title, isConfirmedGain(progress.confirmation)));
    }
    if (ENDED.has(progress.state)) {
      run.offering = run.offering.then(() => this.settleOffers(run, progress));
      run.end(progress);
      this.updateContext();
    }
  }

  /**
   * Offers one program of the run as a proposal (not opened: the user opens the ones they
   * like): awaiting its measurement unless `confirmed`, so that nothing is offered for Accept
   * on one noisy in-run figure. It supersedes the run's earlier offers still awaiting theirs:
   * one lens group per run, never a pile of them over the same lines.
   */
  private async offer(run: FollowedRun, programId: string, title?: string, confirmed = false): Promise<void> {
    const { output, daemon, proposals } = this.services;
    try {
      const answer = await daemon.request(GetProgram.type, { runId: run.runId, ...run.workspace, programId });
      if (answer.program.lineage.mutator === 'seed') return; // the unchanged selection is nothing to propose
      const input = { ...proposalForProgram(run.runId, answer), ...(title !== undefined && { title }), ...(!confirmed && { awaiting: NOT_YET_MEASURED }) };
      for (const earlier of run.offers) {
        if (earlier.proposalId === undefined || earlier.withdrawn !== undefined || earlier.confirmed) continue;
        earlier.withdrawn = confirmed ? 'superseded by the reduced best, measured again' : 'superseded by a better child of the run';
        proposals.withdraw(earlier.proposalId, earlier.withdrawn);
      }
      const offer: OfferedProgram = { programId, title: input.title, file: input.uri.fsPath, region: input.region, ...(confirmed && { confirmed }) };
      run.offers.push(offer);
      try {
        offer.proposalId = await proposals.add(input, { open: false });
        run.proposals.push(offer.proposalId);
      } catch (error) {
        offer.error = (error as Error).message;
        throw error;
      }
    } catch (error) {
      output.warn(`run ${run.runId}: could not offer program ${programId.slice(0, 12)} as a proposal: ${(error as Error).message}`);
    }
  }

  /**
   * As the run ends, its proposals follow the confirmation of its best: below the bar every one
   * is withdrawn (nothing to accept); with a gain, the best's proposal is offered for Accept,
   * titled with the measured interval; without a confirmation (the run was stopped first, or
   * asked for none) it stays awaiting, saying so: nothing unmeasured is ever offered for Accept.
   */
  private settleOffers(run: FollowedRun, progress: RunProgress): void {
    const confirmation = progress.confirmation;
    const { proposals } = this.services;
    for (const offer of run.offers) {
      if (!offer.proposalId || offer.withdrawn !== undefined || offer.confirmed) continue;
      if (!confirmation) {
        proposals.await(offer.proposalId, `not measured again: the run ended before confirming it; \`peagen evolve apply ${run.runId} --unconfirmed\` takes it all the same`);
        continue;
      }
      if (!isConfirmedGain(confirmation)) {
        offer.withdrawn = confirmationLine(progress.objectiveName, confirmation);
        proposals.withdraw(offer.proposalId, offer.withdrawn);
        continue;
      }
      if (offer.programId !== confirmation.programId) {
        offer.withdrawn = 'an earlier best, not measured again';
        proposals.withdraw(offer.proposalId, offer.withdrawn);
        continue;
      }
      offer.title = offer.title.includes('measured again') ? offer.title : `${offer.title} · ${measuredTitle(confirmation)}`;
      offer.confirmed = true;
      proposals.confirm(offer.proposalId, offer.title);
    }
  }

  private async showProgress(run: FollowedRun, evaluationsGoal: number | undefined): Promise<void> {
    let cancelled = false;
    const last = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Peagen: evolving ${run.label}`, cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => {
          cancelled = true;
          this.stop(run.runId).then(
            (stopping) =>
              void vscode.window.showInformationMessage(
                stopping
                  ? `Peagen: stopping run ${run.runId}; it checkpoints, and \`peagen evolve run --resume ${run.runId}\` continues it.`
                  : `Peagen: run ${run.runId} had already ended.`,
              ),
            (error: Error) => void vscode.window.showErrorMessage(`Peagen: could not stop run ${run.runId}: ${error.message}`),
          );
        });
        let reported = 0;
        const listener = this.services.daemon.onRunProgress((update) => {
          if (update.runId !== run.runId) return;
          const done = evaluationsGoal ? Math.min(100, (100 * update.evaluations) / evaluationsGoal) : undefined;
          progress.report({ message: progressMessage(update), ...(done !== undefined && { increment: Math.max(0, done - reported) }) });
          if (done !== undefined) reported = Math.max(reported, done);
        });
        try {
          if (run.progress) progress.report({ message: progressMessage(run.progress) });
          return await run.ended;
        } finally {
          listener.dispose();
        }
      },
    );
    await run.offering;
    void this.announceEnd(run, last, cancelled);
  }

  private async announceEnd(run: FollowedRun, last: RunProgress, cancelled: boolean): Promise<void> {
    const summary = runEndSummary(last);
    // Only a proposal offered for Accept (measured): a best never measured again is not "the best proposal".
    const bestProposal = run.offers.filter((offer) => offer.proposalId !== undefined && offer.withdrawn === undefined && offer.confirmed).at(-1)?.proposalId;
    if (last.confirmation && !isConfirmedGain(last.confirmation)) {
      // runEndSummary says "no measurable improvement ... nothing to accept".
      void vscode.window.showInformationMessage(summary);
      return;
    }
    if (!bestProposal) {
      const unmeasured = run.offers.some((offer) => offer.proposalId !== undefined && offer.withdrawn === undefined);
      if (unmeasured) void vscode.window.showInformationMessage(`${summary} Its best was not measured again, so nothing is offered for Accept (its diff stays open to look at).`);
      else if (!cancelled || last.state !== 'interrupted') void vscode.window.showInformationMessage(`${summary} No improvement over the selection to propose.`);
      return;
    }
    const choice = await vscode.window.showInformationMessage(summary, 'Open Best Proposal');
    if (choice === 'Open Best Proposal') await vscode.commands.executeCommand('peagen.openProposal', bestProposal);
  }

  private updateContext(): void {
    void vscode.commands.executeCommand('setContext', 'peagen.runActive', this.activeRuns().length > 0);
  }
}

