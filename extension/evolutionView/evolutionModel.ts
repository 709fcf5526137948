/**
 * What the Evolution view shows, shaped from the daemon's answers (ListRuns, GetElites,
 * RunProgress) without vscode: labels, descriptions, tooltips and the grouping of elites into
 * niches, so the wording and ordering are unit-tested and the tree provider only wires them up.
 */
import type { NicheElite, RunProgress, RunSummary } from '../../shared/evolution';
import { nicheLabel, type NicheAxes } from '../../shared/nicheLabel';
import { valueWithUnit } from '../../shared/objectiveText';
import type { GetElites } from '../../shared/protocol';

/** The text of one tree row, independent of vscode's TreeItem. */
export interface RowText {
  label: string;
  description: string;
  tooltip: string;
  contextValue: string;
}

export const RUN_RUNNING = 'peagen.run.running';
export const RUN = 'peagen.run';
export const NICHE = 'peagen.niche';
export const ELITE = 'peagen.elite';

/** A number as people read it: up to 4 significant digits, no exponent for everyday values. */
export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (value !== 0 && (Math.abs(value) >= 1e6 || Math.abs(value) < 1e-3)) return value.toExponential(2);
  return String(Number(value.toPrecision(4)));
}

/** An objective's value in its unit (`68.7%`, `12.3 ms`); a speedup's stays bare (`12.3`), as in the CLI. */
export function formatObjective(value: number | null | undefined, unit: string | undefined): string {
  return valueWithUnit(formatNumber(value), unit);
}

/** `HH:MM` of an ISO time, in the local time zone (runs are told apart by when they started). */
export function clockTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}

function isActive(state: RunSummary['state']): boolean {
  return state === 'running' || state === 'stopping';
}

/**
 * A run as listed, with its live progress (when the daemon pushed any) taking precedence:
 * a run's summary on disk lags behind what the daemon is doing.
 */
export function runRow(run: RunSummary, live: RunProgress | undefined): RowText {
  const state = live?.state ?? run.state;
  const best = live ? (live.best?.objective ?? null) : run.best;
  const evaluations = live?.evaluations ?? run.evaluations;
  const objectiveName = live?.objectiveName ?? 'best';
  const unit = live?.objectiveUnit;
  const description = [state, `${objectiveName} ${formatObjective(best, unit)}`, `${evaluations} evaluations`, `started ${clockTime(run.startedAt)}`].join(' · ');
  const tooltip = [
    `Run ${run.runId} of ${run.example}`,
    `State: ${state}${live?.stopReason ? ` (${live.stopReason})` : ''}`,
    `Started: ${run.startedAt}`,
    `Best ${objectiveName}: ${formatObjective(best, unit)}${live?.seedObjective != null ? ` (seed ${formatObjective(live.seedObjective, unit)})` : ''}`,
    `Evaluations: ${evaluations}${live ? `, generation ${live.generation}, mutator ${live.mutator}` : ''}`,
    `Directory: ${run.dir}`,
  ].join('\n');
  return { label: run.example, description, tooltip, contextValue: isActive(state) ? RUN_RUNNING : RUN };
}

/** One niche of a run with its elites (one per island), the strongest first. */
export interface NicheGroup {
  key: string;
  elites: NicheElite[];
  /** The run's best program is among them. */
  holdsBest: boolean;
}

/** Higher is better for `maximize`; failed programs (null) rank last either way. */
function compareObjectives(direction: 'maximize' | 'minimize', a: number | null, b: number | null): number {
  if (a === null && b === null) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return direction === 'maximize' ? b - a : a - b;
}

/** The elites grouped by niche; niches ordered by their strongest elite, the best's niche first. */
export function nicheGroups(response: Pick<GetElites.Response, 'direction' | 'bestId' | 'elites'>): NicheGroup[] {
  const byKey = new Map<string, NicheElite[]>();
  for (const elite of response.elites) {
    const list = byKey.get(elite.niche) ?? [];
    list.push(elite);
    byKey.set(elite.niche, list);
  }
  const groups = [...byKey].map(([key, elites]): NicheGroup => {
    elites.sort((a, b) => compareObjectives(response.direction, a.program.objective, b.program.objective));
    return { key, elites, holdsBest: elites.some((elite) => elite.program.id === response.bestId) };
  });
  return groups.sort(
    (a, b) =>
      Number(b.holdsBest) - Number(a.holdsBest) ||
      compareObjectives(response.direction, a.elites[0]?.program.objective ?? null, b.elites[0]?.program.objective ?? null) ||
      a.key.localeCompare(b.key),
  );
}

/**
 * A niche named by the values it holds (`speedup 4–8x · loops 2 · 1–2 built-ins · recursive`), from the run's
 * axes as the daemon reports them; its key stays in the tooltip, as the journal and CLI write it.
 */
export function nicheRow(group: NicheGroup, axes: NicheAxes): RowText {
  const { objectiveName, objectiveUnit } = axes;
  const top = formatObjective(group.elites[0]?.program.objective ?? null, objectiveUnit);
  const count = group.elites.length;
  const label = nicheLabel(group.key, axes);
  return {
    label,
    description: `${objectiveName} ${top}${group.holdsBest ? ' · ★ best' : ''}${count > 1 ? ` · ${count} islands` : ''}`,
    tooltip: `Niche ${label}${group.key === '' ? '' : ` (${group.key})`}\n${count} elite${count === 1 ? '' : 's'}; the strongest has ${objectiveName} ${top}`,
    contextValue: NICHE,
  };
}

/** An elite under its niche; `axes` as for {@link nicheRow}, so its tooltip names the niche the same way. */
export function eliteRow(elite: NicheElite, axes: NicheAxes, isBest: boolean): RowText {
  const { objectiveName, objectiveUnit } = axes;
  const program = elite.program;
  const lineage = program.lineage;
  const value = formatObjective(program.objective, objectiveUnit);
  const label = `${isBest ? '★ ' : ''}${objectiveName} ${value}`;
  const description = [`generation ${lineage.generation}`, lineage.model ?? lineage.mutator, ...(isBest ? ['best of the run'] : [])].join(' · ');
  const tooltip = [
    `${isBest ? 'The best program of the run\n' : ''}${objectiveName}: ${value}${program.correct ? '' : ' (incorrect)'}`,
    `Generation ${lineage.generation}, mutator ${lineage.mutator}${lineage.model ? `, model ${lineage.model}` : ''}`,
    ...(program.measurements.length > 1 ? [`Measured ${program.measurements.length} times (median shown)`] : []),
    `Island ${elite.island}, niche ${nicheLabel(elite.niche, axes)}`,
    `Program ${program.id.slice(0, 12)}`,
  ].join('\n');
  return { label, description, tooltip, contextValue: ELITE };
}

/** One step of a lineage, seed first, as the Show Lineage list presents it. */
export interface LineageStep {
  programId: string;
  label: string;
  description: string;
  detail: string;
}

type ProgramSummary = Pick<NicheElite['program'], 'id' | 'objective' | 'correct' | 'lineage'>;

/** The ancestors (seed first) and the program itself, each with objective (in `objectiveUnit`, when known), mutator, model and generation. */
export function lineageSteps(ancestors: readonly ProgramSummary[], program: ProgramSummary, objectiveName: string, objectiveUnit?: string): LineageStep[] {
  return [...ancestors, program].map((step, index, all) => {
    const { lineage } = step;
    const role = index === 0 && lineage.parents.length === 0 ? 'seed' : index === all.length - 1 ? 'this elite' : `ancestor ${index}`;
    return {
      programId: step.id,
      label: `${objectiveName} ${formatObjective(step.objective, objectiveUnit)}${step.correct ? '' : ' (incorrect)'}`,
      description: `generation ${lineage.generation} · ${lineage.mutator}${lineage.model ? ` · ${lineage.model}` : ''}`,
      detail: `${role} · ${step.id.slice(0, 12)}${lineage.repairs > 0 ? ` · ${lineage.repairs} repair${lineage.repairs === 1 ? '' : 's'}` : ''}`,
    };
  });
}
