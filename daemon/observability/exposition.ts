/**
 * Reads the Prometheus text exposition format (what /metrics serves) back into samples, for
 * `peagen metrics` and the tests. prom-client writes this format but has no reader; the
 * format is line based: `# TYPE name type`, `# HELP ...`, and `name{label="value",...} value`.
 */

export interface Sample {
  /** As exposed, with any `_bucket`, `_sum`, `_count` suffix. */
  name: string;
  labels: Record<string, string>;
  value: number;
  /** The family's declared type (`counter`, `gauge`, `histogram`, ...); `untyped` when none. */
  type: string;
  /** The family's name (a histogram's `_bucket` sample belongs to the histogram). */
  family: string;
}

const SAMPLE = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];

export function parseExposition(text: string): Sample[] {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const typeLine = /^#\s+TYPE\s+(\S+)\s+(\S+)/.exec(line);
      if (typeLine) types.set(typeLine[1]!, typeLine[2]!);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a metric sample: ${line.slice(0, 200)}`);
    const name = match[1]!;
    const family = familyOf(name, types);
    samples.push({ name, labels: parseLabels(match[2] ?? ''), value: parseValue(match[3]!), type: types.get(family) ?? 'untyped', family });
  }
  return samples;
}

function familyOf(name: string, types: Map<string, string>): string {
  if (types.has(name)) return name;
  for (const suffix of HISTOGRAM_SUFFIXES) {
    if (name.endsWith(suffix)) {
      const base = name.slice(0, -suffix.length);
      if (types.has(base)) return base;
    }
  }
  return name;
}

function parseValue(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  if (Number.isNaN(value) && text !== 'NaN') throw new Error(`not a sample value: ${text}`);
  return value;
}

/** `a="x",b="y \"q\""`: values escape `\\`, `\"` and `\n`. */
function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let index = 0;
  while (index < text.length) {
    const name = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"/.exec(text.slice(index));
    if (!name) break;
    index += name[0].length;
    let value = '';
    for (; index < text.length && text[index] !== '"'; index++) {
      if (text[index] === '\\' && index + 1 < text.length) {
        const next = text[++index];
        value += next === 'n' ? '\n' : next;
      } else {
        value += text[index];
      }
    }
    labels[name[1]!] = value;
    index++; // the closing quote
    const comma = /^\s*,?/.exec(text.slice(index));
    index += comma?.[0].length ?? 0;
  }
  return labels;
}

/** The value of one sample, or undefined; `labels` must match those given (others may differ). */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;
}

/** The sum over every sample of `name` whose labels include `labels`. */
export function sampleSum(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}
