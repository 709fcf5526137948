/**
 * "Peagen: Set Redis Password" and "Peagen: Set API Key": a password input box, the answer kept
 * in VS Code's SecretStorage (an empty answer deletes it), then the daemon this window spawns
 * is restarted so that its environment has the new value. The value is never logged, never
 * shown, never written to settings; a daemon elsewhere keeps its own secrets, and we say so.
 */
import * as vscode from 'vscode';
import type { DaemonConnection } from '../daemonConnection';
import { SECRET_VARIABLES, type SecretKey } from './daemonEnvironment';

export type ApiKeyProvider = 'openai' | 'anthropic';

/** The command's argument, so tests (and other extensions) need no input box. */
export interface SecretCommandOptions {
  /** The secret; '' deletes it. */
  value?: string;
  /** For Set API Key: whose key. */
  provider?: ApiKeyProvider;
}

/** What the command did (the value itself is never returned). */
export interface SecretCommandResult {
  key: SecretKey;
  saved: boolean;
  /** True when the window's own daemon was restarted with the new environment. */
  restarted: boolean;
}

const PROVIDERS: { provider: ApiKeyProvider; label: string; detail: string }[] = [
  { provider: 'openai', label: 'OpenAI', detail: 'OPENAI_API_KEY; also for OpenAI-compatible servers (peagen.llm.baseUrl) that want a key' },
  { provider: 'anthropic', label: 'Anthropic', detail: 'ANTHROPIC_API_KEY' },
];

function asOptions(argument: unknown): SecretCommandOptions {
  if (typeof argument !== 'object' || argument === null) return {};
  const { value, provider } = argument as Record<string, unknown>;
  return {
    ...(typeof value === 'string' && { value }),
    ...((provider === 'openai' || provider === 'anthropic') && { provider }),
  };
}

export function registerSecretCommands(secrets: vscode.SecretStorage, output: vscode.LogOutputChannel, daemon: DaemonConnection): vscode.Disposable[] {
  const setSecret = async (key: SecretKey, what: string, value: string | undefined): Promise<SecretCommandResult | undefined> => {
    if (value === undefined) return undefined; // the input box was dismissed
    try {
      if (value === '') await secrets.delete(key);
      else await secrets.store(key, value);
    } catch (error) {
      void vscode.window.showErrorMessage(`Peagen: could not save the ${what} in VS Code's secret storage: ${(error as Error).message}`);
      return undefined;
    }
    output.info(`${what} ${value ? 'saved in' : 'deleted from'} VS Code's secret storage`);
    return { key, saved: value !== '', restarted: await applyToDaemon(what, SECRET_VARIABLES[key]) };
  };

  /** Restarts the window's own daemon; a daemon elsewhere keeps its own secrets. */
  const applyToDaemon = async (what: string, variable: string): Promise<boolean> => {
    const configured = vscode.workspace.getConfiguration('peagen').get<string>('daemon.address', '').trim();
    if (configured || daemon.where !== 'spawned by this window') {
      const source = configured ? 'peagen.daemon.address' : 'started outside this window (peagen daemon start)';
      void vscode.window.showInformationMessage(
        `Peagen: this window uses the daemon at ${daemon.where} (${source}); its secrets are its own: set ${variable} in that daemon's environment. ` +
          `The ${what} saved here goes to a daemon this window starts itself.`,
      );
      return false;
    }
    await vscode.commands.executeCommand('peagen.restartDaemon');
    return true;
  };

  const ask = (title: string, prompt: string): Thenable<string | undefined> =>
    vscode.window.showInputBox({ title, prompt, password: true, ignoreFocusOut: true, placeHolder: 'leave empty to delete the stored value' });

  return [
    vscode.commands.registerCommand('peagen.setRedisPassword', async (argument?: unknown) => {
      const options = asOptions(argument);
      const value =
        options.value ??
        (await ask(
          'Peagen: Redis Password',
          'Password of the Redis server in peagen.queue.url. Kept in VS Code\'s secret storage; the daemon this window starts gets it in its environment.',
        ));
      return setSecret('peagen.redisPassword', 'Redis password', value);
    }),
    vscode.commands.registerCommand('peagen.setApiKey', async (argument?: unknown) => {
      const options = asOptions(argument);
      const provider =
        options.provider ??
        (await vscode.window.showQuickPick(PROVIDERS, { title: 'Peagen: Set API Key', placeHolder: 'Whose API key?', ignoreFocusOut: true }))?.provider;
      if (!provider) return undefined;
      const name = PROVIDERS.find((entry) => entry.provider === provider)?.label ?? provider;
      const value =
        options.value ??
        (await ask(`Peagen: ${name} API Key`, `Kept in VS Code's secret storage; the daemon this window starts gets it in its environment, never a task or a sandbox.`));
      return setSecret(`peagen.apiKey.${provider}`, `${name} API key`, value);
    }),
  ];
}
