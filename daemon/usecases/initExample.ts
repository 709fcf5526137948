/**
 * `peagen init FILE --function NAME`: a ready example for a function of the user's own code,
 * made beside it (default `.peagen/examples/<name>/`): the file with EVOLVE-BLOCK markers
 * around the function as the program, the file as it is as the reference every answer is
 * compared with, an evaluator built on the harness and peagen.example.json. The same scaffold
 * as the editor's "Scaffold an evaluator" (daemon/evaluation/scaffold/).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { toDocument } from '../../shared/lines';
import { functionLines, scaffoldFiles, type ScaffoldLanguage } from '../evaluation/scaffold/scaffoldExample';
import { selectionProgram } from './selectionProgram';

export const EXAMPLES_DIR = path.join('.peagen', 'examples');

/** The request cannot make an example; the message says what to write by hand instead. */
export class InitError extends Error {
  override name = 'InitError';
}

export interface InitRequest {
  file: string;
  functionName: string;
  /** Default: `<projectDir>/.peagen/examples/<example name>`. */
  outDir?: string;
  projectDir: string;
}

export interface InitResult {
  dir: string;
  name: string;
  /** The lines of the file the program evolves (0-based, end exclusive). */
  region: { startLine: number; endLine: number };
  files: string[];
}

const LANGUAGES: Record<string, ScaffoldLanguage> = { '.py': 'python', '.js': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript' };

export function initExample(request: InitRequest): InitResult {
  const file = path.resolve(request.file);
  const language = LANGUAGES[path.extname(file).toLowerCase()];
  if (!language) throw new InitError(`${file}: peagen init handles Python (.py) and JavaScript (.js, .mjs, .cjs) functions; for other languages write a peagen.example.json by hand (see examples/bad_sort)`);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new InitError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const region = functionLines(toDocument(text).lines, request.functionName, language);
  if (!region) {
    throw new InitError(
      `${path.basename(file)} defines no ${language === 'python' ? 'def' : 'function'} ${request.functionName} that peagen init can find (a top-level def, function, or const ${request.functionName} = (...) =>): name another function, or put EVOLVE-BLOCK-START / EVOLVE-BLOCK-END comment lines around the code and write a peagen.example.json by hand (see examples/bad_sort)`,
    );
  }
  const fileName = path.basename(file);
  const program = selectionProgram(text, region, language);
  const scaffold = scaffoldFiles({ fileName, text, functionName: request.functionName, language });
  const dir = path.resolve(request.outDir ?? path.join(request.projectDir, EXAMPLES_DIR, scaffold.config.name));
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) throw new InitError(`${dir} already holds files: evolve that example (peagen evolve run ${dir}), or name another with --out`);
  const files = { ...scaffold.files, [fileName]: program.code };
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return { dir, name: scaffold.config.name, region, files: Object.keys(files).sort() };
}
