/**
 * Which evaluator scores the selection: one of the workspace's peagen.example.json, or a new
 * one scaffolded beside the file (the daemon writes its content, ScaffoldEvaluator; this
 * window writes the files, opens them for review, and the command stops there).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXAMPLE_CONFIG_FILE } from '../../shared/evaluation';
import { OPENEVOLVE_EVALUATOR_FILE, OPENEVOLVE_PROGRAM_FILE } from '../../shared/openEvolveConfig';
import { ScaffoldEvaluator } from '../../shared/protocol';
import type { Services } from '../services';
import type { SelectionTarget } from './selectionTarget';

/** An example directory; `scaffolded` (files written, the user reviews them); `none` (no evaluation); undefined: cancelled. */
export type EvaluatorChoice = { exampleDir: string } | 'scaffolded' | 'none' | undefined;

interface EvaluatorItem extends vscode.QuickPickItem {
  choice: 'example' | 'scaffold' | 'none';
  exampleDir?: string;
}

/** `exampleConfig` names the example (its peagen.example.json or its directory) without asking. */
export function exampleDirOf(exampleConfig: string): string {
  return path.basename(exampleConfig) === EXAMPLE_CONFIG_FILE ? path.dirname(exampleConfig) : exampleConfig;
}

export async function pickEvaluator(services: Services, target: SelectionTarget, allowNone: boolean): Promise<EvaluatorChoice> {
  const exclude = '{**/.peagen/**,**/node_modules/**}';
  const found = await vscode.workspace.findFiles(`**/${EXAMPLE_CONFIG_FILE}`, exclude, 200);
  // Folders in OpenEvolve's layout are examples too (the daemon synthesises their config).
  const openEvolve = (await vscode.workspace.findFiles(`**/${OPENEVOLVE_EVALUATOR_FILE}`, exclude, 200))
    .map((uri) => path.dirname(uri.fsPath))
    .filter((dir) => fs.existsSync(path.join(dir, OPENEVOLVE_PROGRAM_FILE)) && !fs.existsSync(path.join(dir, EXAMPLE_CONFIG_FILE)));
  const fileDir = path.dirname(target.document.uri.fsPath);
  // The example holding the file first, then by distance.
  const examples = [...found.map((uri) => path.dirname(uri.fsPath)), ...openEvolve]
    .sort((a, b) => Number(!fileDir.startsWith(a)) - Number(!fileDir.startsWith(b)) || a.localeCompare(b));
  const fileName = path.basename(target.document.uri.fsPath);
  const scaffold = await services.daemon.request(ScaffoldEvaluator.type, { fileName, languageId: target.languageId, text: target.text, region: target.region });
  const items: EvaluatorItem[] = examples.map((dir) => {
    const detail = describeExample(dir);
    const ownConfig = fs.existsSync(path.join(dir, EXAMPLE_CONFIG_FILE));
    return {
      label: `$(beaker) ${path.basename(dir)}`,
      description: vscode.workspace.asRelativePath(path.join(dir, ownConfig ? EXAMPLE_CONFIG_FILE : OPENEVOLVE_EVALUATOR_FILE)),
      ...(detail && { detail }),
      choice: 'example',
      exampleDir: dir,
    };
  });
  if (scaffold.scaffold) {
    items.push({ label: `$(new-file) Scaffold an evaluator for ${scaffold.scaffold.functionName}…`, detail: `writes ${scaffold.scaffold.evaluator} and ${EXAMPLE_CONFIG_FILE} beside the file, for you to review`, choice: 'scaffold' });
  }
  if (allowNone) items.push({ label: '$(circle-slash) No evaluation', detail: 'propose the mutation without scoring it', choice: 'none' });
  if (items.length === 0) {
    throw new Error(`no peagen.example.json in the workspace and no evaluator can be scaffolded: ${scaffold.refused ?? 'select a whole function'}`);
  }
  const picked = await vscode.window.showQuickPick(items, { title: 'Peagen: which evaluator scores the selection?', placeHolder: 'an example (peagen.example.json) whose evaluator measures this code', matchOnDescription: true });
  if (!picked) return undefined;
  if (picked.choice === 'none') return 'none';
  if (picked.choice === 'example') return { exampleDir: picked.exampleDir! };
  await writeScaffold(target, scaffold.scaffold!);
  return 'scaffolded';
}

function describeExample(dir: string): string | undefined {
  if (!fs.existsSync(path.join(dir, EXAMPLE_CONFIG_FILE))) return `OpenEvolve layout: program ${OPENEVOLVE_PROGRAM_FILE}, scored by its ${OPENEVOLVE_EVALUATOR_FILE} (not hardened)`;
  try {
    const config = JSON.parse(fs.readFileSync(path.join(dir, EXAMPLE_CONFIG_FILE), 'utf8')) as { description?: string; program?: string };
    return [config.program && `program ${config.program}`, config.description].filter(Boolean).join(' — ');
  } catch {
    return undefined;
  }
}

/** Writes the scaffold beside the file (never over an existing example) and opens it for review. */
export async function writeScaffold(target: SelectionTarget, scaffold: NonNullable<ScaffoldEvaluator.Response['scaffold']>): Promise<string> {
  const dir = path.dirname(target.document.uri.fsPath);
  const { files, evaluator, functionName } = scaffold;
  const taken = Object.keys(files).filter((name) => fs.existsSync(path.join(dir, name)));
  if (taken.length > 0) throw new Error(`${taken.map((name) => path.join(dir, name)).join(', ')} already exist: pick that example in Evolve Selection, or move it away to scaffold a new one`);
  for (const [name, content] of Object.entries(files)) {
    // Names come from the daemon: each must be a plain file name beside the source file.
    if (path.basename(name) !== name || name === '..' || name === '.') throw new Error(`the daemon's scaffold names a file outside ${dir}: ${name}`);
    fs.writeFileSync(path.join(dir, name), content);
  }
  await vscode.window.showTextDocument(vscode.Uri.file(path.join(dir, EXAMPLE_CONFIG_FILE)), { preview: false, viewColumn: vscode.ViewColumn.Beside });
  await vscode.window.showTextDocument(vscode.Uri.file(path.join(dir, evaluator)), { preview: false, viewColumn: vscode.ViewColumn.Beside });
  void vscode.window.showInformationMessage(
    `Peagen scaffolded an evaluator for ${functionName}() in ${vscode.workspace.asRelativePath(dir)}: review ${evaluator} (correctness checks, the timed inputs in sample args), then run Evolve Selection again and pick it.`,
  );
  return dir;
}
