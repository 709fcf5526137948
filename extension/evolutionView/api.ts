/** The Evolution view, for tests and other extensions. */

/** One row of the Evolution view as a user sees it, with its children (all of them, as if expanded). */
export interface TreeNodeSnapshot {
  /** The row's stable id: `run:<runId>`, `niche:<runId>:<key>`, `elite:<runId>:...:<programId>`. */
  id: string;
  label: string;
  description: string;
  tooltip: string;
  contextValue: string;
  children: TreeNodeSnapshot[];
}

export interface EvolutionViewApi {
  /** The whole tree, runs → niches → elites, as the view would show it expanded. */
  snapshot(): Promise<TreeNodeSnapshot[]>;
  /** Shows the Evolution view with the run's row selected and expanded `levels` deep (default 2: its niches and their elites). */
  revealRun(runId: string, levels?: number): Promise<void>;
  /** How many times the tree has been told to refresh (for tests of its debouncing). */
  readonly refreshCount: number;
}
