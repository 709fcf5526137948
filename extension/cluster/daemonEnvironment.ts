/**
 * The environment a daemon spawned by this window gets: the queue and LLM settings, and the
 * secrets from VS Code's SecretStorage. Secrets travel only here (the child's environment):
 * never in settings files, logs or task payloads.
 */
import * as vscode from 'vscode';

/** SecretStorage keys, and the variable each one becomes in the daemon's environment. */
export const SECRET_VARIABLES = {
  'peagen.redisPassword': 'PEAGEN_REDIS_PASSWORD',
  'peagen.apiKey.openai': 'OPENAI_API_KEY',
  'peagen.apiKey.anthropic': 'ANTHROPIC_API_KEY',
} as const;

export type SecretKey = keyof typeof SECRET_VARIABLES;

export async function daemonEnvironment(secrets: vscode.SecretStorage): Promise<Record<string, string>> {
  const settings = vscode.workspace.getConfiguration('peagen');
  const env: Record<string, string> = {};
  const queueUrl = settings.get<string>('queue.url', '').trim();
  if (queueUrl) env.QUEUE_URL = queueUrl;
  const baseUrl = settings.get<string>('llm.baseUrl', '').trim();
  if (baseUrl) env.OPENAI_BASE_URL = baseUrl;
  const model = settings.get<string>('llm.model', '').trim();
  if (model) {
    env.OPENAI_MODEL = model;
    env.ANTHROPIC_MODEL = model;
  }
  for (const [key, variable] of Object.entries(SECRET_VARIABLES)) {
    const value = await secrets.get(key);
    if (value) env[variable] = value;
  }
  return env;
}
