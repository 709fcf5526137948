/**
 * The keys of an OpenEvolve `config.yaml` that Peagen reads (docs/openevolve.md). The file
 * belongs to the peer engine and holds many more keys: every object is loose, so an unknown
 * key is kept (to be reported as ignored), never an error. Only the types of the keys Peagen
 * maps are checked, so a bad value is named before a run starts.
 */
import * as z from 'zod';

export const OPENEVOLVE_CONFIG_FILE = 'config.yaml';
export const OPENEVOLVE_PROGRAM_FILE = 'initial_program.py';
export const OPENEVOLVE_EVALUATOR_FILE = 'evaluator.py';
/** The metric OpenEvolve ranks programs by. */
export const OPENEVOLVE_DEFAULT_METRIC = 'combined_score';

const ModelSchema = z.looseObject({
  name: z.string().min(1),
  weight: z.number().positive().optional(),
  api_base: z.string().nullish(),
  api_key: z.string().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  max_tokens: z.number().int().positive().nullish(),
});
export type OpenEvolveModel = z.infer<typeof ModelSchema>;

export const OpenEvolveConfigSchema = z.looseObject({
  max_iterations: z.number().int().positive().optional(),
  random_seed: z.number().int().nonnegative().nullish(),
  /** false: the model rewrites the whole block instead of answering with SEARCH/REPLACE edits. */
  diff_based_evolution: z.boolean().optional(),
  llm: z
    .looseObject({
      models: z.array(ModelSchema).optional(),
      api_base: z.string().nullish(),
      /** A key is never read from a file: only a `${VARIABLE}` reference is used, naming where the key is. */
      api_key: z.string().nullish(),
      temperature: z.number().min(0).max(2).nullish(),
      max_tokens: z.number().int().positive().nullish(),
      // The older form: two models and their weights.
      primary_model: z.string().min(1).nullish(),
      primary_model_weight: z.number().positive().nullish(),
      secondary_model: z.string().min(1).nullish(),
      secondary_model_weight: z.number().nonnegative().nullish(),
    })
    .nullish(),
  evaluator: z
    .looseObject({
      /** Seconds for one evaluation. */
      timeout: z.number().positive().nullish(),
      cascade_evaluation: z.boolean().nullish(),
      cascade_thresholds: z.array(z.number()).nullish(),
    })
    .nullish(),
  database: z.looseObject({ num_islands: z.number().int().positive().nullish() }).nullish(),
  /** `system_message`: the problem as the model is told it. */
  prompt: z.looseObject({ system_message: z.string().nullish() }).nullish(),
  /**
   * Peagen's own section (OpenEvolve does not read it): the metric to maximise; `in_process`:
   * evaluate() gets the candidate's own path and imports it into its process, as in OpenEvolve,
   * instead of a stand-in (for an evaluator that reads the program's text or runs it as a script).
   */
  peagen: z
    .strictObject({
      objective: z.string().regex(/^[A-Za-z_][\w.-]*$/, 'a metric name').optional(),
      in_process: z.boolean().optional(),
    })
    .nullish(),
});
export type OpenEvolveConfig = z.infer<typeof OpenEvolveConfigSchema>;
