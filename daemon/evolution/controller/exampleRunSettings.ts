/**
 * What an example's own settings ask of a run (today: an OpenEvolve config.yaml), within what
 * the user configured. The user's flags and Peagen configuration win: config.yaml supplies the
 * seed, the islands and the models only where they leave a choice open, and every choice it
 * could not make is said once, before the run starts.
 */
import type { PeagenConfig } from '../../config';
import type { Example } from '../../evaluation/example';
import type { OpenEvolveSettings } from '../../evaluation/openEvolveLayout';
import { type BackendConfig, BackendConfigSchema } from '../llm/llmConfig';
import { isLocalUrl } from '../llm/pricing';

export interface ExampleRunSettings {
  /** The configuration the run uses: the user's, with the example's models where it names none. */
  config: PeagenConfig;
  seed?: number;
  islands?: number;
  notes: string[];
}

export interface ExampleRunOptions {
  /**
   * Whether the workers that will call the models are built from this run's configuration
   * (the CLI's own engine). A daemon's workers have their own models: the example's cannot
   * be added to them.
   */
  ownWorkers: boolean;
}

const OPENAI_KEY_ENV = 'OPENAI_API_KEY';

export function exampleRunSettings(example: Example, config: PeagenConfig, env: NodeJS.ProcessEnv, options: ExampleRunOptions): ExampleRunSettings {
  const openEvolve = example.openEvolve;
  if (!openEvolve) return { config, notes: [] };
  const notes: string[] = [];
  const settings: ExampleRunSettings = {
    config,
    notes,
    ...(openEvolve.randomSeed !== undefined && { seed: openEvolve.randomSeed }),
    ...(openEvolve.islands !== undefined && { islands: openEvolve.islands }),
  };
  const llm = openEvolve.llm;
  if (!llm) return settings;
  const file = openEvolve.configFile ?? 'config.yaml';
  if (config.llm.backends.length > 0) {
    notes.push(`${file}: its llm settings are not used: the llm section of peagen.json names the models`);
    return settings;
  }
  const llmConfig = {
    ...config.llm,
    ...(llm.temperature !== undefined && { temperature: llm.temperature }),
    ...(llm.allowRewrite && { allowRewrite: true }),
  };
  settings.config = { ...config, llm: llmConfig };
  if (llm.models.length === 0) return settings;
  const names = llm.models.map((model) => model.name).join(', ');
  const chosenByEnv = ['OPENAI_BASE_URL', 'OPENAI_MODEL'].filter((name) => (env[name] ?? '').trim() !== '');
  if (chosenByEnv.length > 0) {
    notes.push(`${file}: its models (${names}) are not used: ${chosenByEnv.join(' and ')} in the environment choose the model`);
    return settings;
  }
  if (!options.ownWorkers) {
    notes.push(`${file}: its models (${names}) are not used: the daemon's workers call the models configured for them (run with --sync to call the example's)`);
    return settings;
  }
  const backends = backendsOf(llm.models, file);
  const callable = backends.filter((backend) => (env[backend.apiKeyEnv ?? OPENAI_KEY_ENV] ?? '').trim() !== '' || (backend.baseUrl !== undefined && isLocalUrl(backend.baseUrl)));
  if (callable.length < backends.length) {
    const missing = backends.filter((backend) => !callable.includes(backend)).map((backend) => `${backend.model} (${backend.apiKeyEnv ?? OPENAI_KEY_ENV})`);
    notes.push(`${file}: models not called, their API key is not set in the environment: ${missing.join(', ')}`);
  }
  if (callable.length > 0) settings.config = { ...config, llm: { ...llmConfig, backends: callable } };
  return settings;
}

/** config.yaml's models as OpenAI-compatible backends (what OpenEvolve calls them as). */
function backendsOf(models: NonNullable<OpenEvolveSettings['llm']>['models'], file: string): BackendConfig[] {
  const used = new Set<string>();
  return models.map((model) => {
    const base = model.name.replace(/[^A-Za-z0-9._-]+/g, '-') || 'model';
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}-${n}`;
    used.add(name);
    const parsed = BackendConfigSchema.safeParse({
      name,
      provider: 'openai',
      model: model.name,
      weight: model.weight,
      ...(model.apiBase && { baseUrl: model.apiBase }),
      ...(model.apiKeyEnv && { apiKeyEnv: model.apiKeyEnv }),
      ...(model.temperature !== undefined && { temperature: model.temperature }),
      ...(model.maxTokens !== undefined && { maxTokens: model.maxTokens }),
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`${file}: llm model ${model.name}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`.trim());
    }
    return parsed.data;
  });
}
