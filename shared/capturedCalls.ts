/**
 * `peagen_inputs.json`: the arguments the project's tests called a function with, recorded by
 * `peagen init --tests` and read by the example's evaluator (the inputs every candidate's
 * answers are compared on before any drawn from the function's signature).
 */
import * as z from 'zod';

export const CapturedCallsSchema = z.object({
  /** Where the calls come from: the test command run once at init time. */
  source: z.literal('tests'),
  command: z.string().min(1),
  /** One entry per recorded call: its positional arguments as JSON data. */
  calls: z.array(z.array(z.unknown())),
  /**
   * What the original answered to each call when the tests ran (null when the answer is not
   * plain JSON data, or it raised): every evaluation checks the reference still gives it.
   */
  answers: z.array(z.object({ value: z.unknown() }).nullable()),
});
export type CapturedCalls = z.infer<typeof CapturedCallsSchema>;
