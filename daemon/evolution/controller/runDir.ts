/**
 * A run's directory, `.peagen/runs/<id>/`: everything needed to resume, replay and report
 * a run, and nothing else (never a key).
 *   run.json        what the run is (example, settings, stop conditions: shared/runManifest.ts)
 *   journal.jsonl   every event, append-only
 *   checkpoint.json the state after some event (atomic), for a fast resume
 *   llm.pack        every LLM exchange, content-addressed: a line `<sha256> <exchange JSON>`
 *                   each (replay answers from these; evodb/packFile.ts)
 *   programs.pack   every program admitted to the archive, a line `<id> <program JSON>` each
 *                   (the checkpoint names them by id)
 *   (runs made before the packs keep a file per record, llm/<sha>.json and programs/<id>.json,
 *   which are still read)
 *   best/<program>  the best program so far; once the run has ended, its minimal-diff reduction
 *                   when it has one (reduce/reduceBest.ts); a multi-file program: best/<path> for
 *                   each of its files
 *   best-full/<program> the best program with all its changes, beside a reduced best/
 *   report.md, report.json
 *   run.lock        the pid of the process using the run while it runs or is merged into (runLock.ts)
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { ExchangeHashSchema, type Program, ProgramIdSchema, ProgramSchema, RunIdSchema } from '../../../shared/evolution';
import { bundleProgram, unbundleProgram } from '../../../shared/programFiles';
import { programId } from '../../../shared/programId';
import { relativePathProblem } from '../../../shared/relativePath';
import { RUN_MANIFEST_FILE, type RunManifest, RunManifestSchema } from '../../../shared/runManifest';
import { JournalError, readJournal } from '../evodb/journal';
import { PackFile } from '../evodb/packFile';
import { ensurePeagenFolder } from '../../usecases/peagenFolder';
import type { LlmExchange } from '../mutation/Mutator';
import { type RunEvent, RunEventSchema } from '../runEvents';

/**
 * What to do about a run file that is not what Peagen wrote: only Peagen writes a run's
 * files, so the way back is a copy of the run, or a new run.
 */
const DAMAGED_RUN_ADVICE = "a run's files are written by Peagen alone: restore the run directory from a backup or copy, or start a new run (peagen evolve run EXAMPLE)";

/**
 * A file of a run directory is not what Peagen wrote there (edited, cut short, replaced by
 * something else). Everything read back from a run directory is checked like any input, and
 * refused with this error: the file, where in it, what is wrong and what to do. The CLI prints
 * the message alone, never a stack trace.
 */
export class DamagedRunError extends Error {
  override name = 'DamagedRunError';
  /** `problem` follows the file's name in the message (`is not JSON`), unless it names the file itself. */
  constructor(
    readonly file: string,
    problem: string,
    advice = DAMAGED_RUN_ADVICE,
  ) {
    super(`${problem.includes(file) ? '' : `${file} `}${problem}; ${advice}`);
  }
}

/** A zod error on one line, for a message that names the file and line already. */
function oneLine(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.message}${issue.path.length > 0 ? ` (at ${issue.path.join('.')})` : ''}`)
    .join('; ');
}

/** The journal's meta fields beside each event's own. */
const JournalLineSchema = z.object({ seq: z.number().int().positive(), at: z.string().optional() });

/** One event of a run's journal, checked, with its seq, its time and the line it is on. */
export interface JournalEntry {
  event: RunEvent;
  seq: number;
  at: string;
  line: number;
}

export const RUNS_DIR = path.join('.peagen', 'runs');
/** The name every command taking a run gives the run begun last in the project. */
export const LATEST_RUN = 'latest';

export class RunDir {
  private exchangePack?: PackFile;
  private programPack?: PackFile;

  constructor(readonly dir: string) {}

  private get exchanges(): PackFile {
    return (this.exchangePack ??= new PackFile(path.join(this.dir, 'llm.pack')));
  }
  private get programs(): PackFile {
    return (this.programPack ??= new PackFile(path.join(this.dir, 'programs.pack')));
  }

  get manifestFile(): string {
    return path.join(this.dir, RUN_MANIFEST_FILE);
  }
  get journalFile(): string {
    return path.join(this.dir, 'journal.jsonl');
  }
  get checkpointFile(): string {
    return path.join(this.dir, 'checkpoint.json');
  }
  get reportFile(): string {
    return path.join(this.dir, 'report.md');
  }
  get reportJsonFile(): string {
    return path.join(this.dir, 'report.json');
  }
  bestFile(program: string): string {
    return path.join(this.dir, 'best', path.basename(program));
  }
  /** The full best when best/ holds its reduction. */
  bestFullFile(program: string): string {
    return path.join(this.dir, 'best-full', path.basename(program));
  }

  get id(): string {
    return path.basename(this.dir);
  }

  static create(projectDir: string, exampleName: string, now = new Date()): RunDir {
    const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    const id = `${stamp}-${exampleName.replace(/[^A-Za-z0-9_-]/g, '_')}-${createHash('sha256').update(`${now.getTime()}${process.pid}${Math.random()}`).digest('hex').slice(0, 4)}`;
    const dir = path.join(path.resolve(projectDir), RUNS_DIR, id);
    // A run holds a copy of every candidate: never something for the user's git.
    ensurePeagenFolder(projectDir);
    fs.mkdirSync(dir, { recursive: true });
    return new RunDir(dir);
  }

  /**
   * A run named by its id alone (what clients and run files give): the id is checked before a
   * path is built from it, so no id names a directory outside the project's .peagen/runs.
   */
  static ofId(runId: string, projectDir: string): RunDir {
    const id = checkedId(RunIdSchema, runId, 'run id');
    const dir = path.join(path.resolve(projectDir), RUNS_DIR, id);
    if (!fs.existsSync(path.join(dir, RUN_MANIFEST_FILE))) throw new Error(`no run "${id}" under ${path.join(path.resolve(projectDir), RUNS_DIR)} (see \`peagen evolve list\`)`);
    return new RunDir(dir);
  }

  /**
   * A run as a user names it (the one resolver of every command that takes a run): its
   * directory, its id under the project's .peagen/runs, `latest` (the run begun last), or any
   * prefix of one id. Only a plain name is looked up as an id: `../x` joined to the runs
   * directory would name a directory outside it, so such a name counts only as the directory
   * it spells. An ambiguous prefix lists the runs it matches.
   */
  static resolve(run: string, projectDir: string): RunDir {
    const root = path.join(path.resolve(projectDir), RUNS_DIR);
    const candidates = [path.resolve(run), ...(RunDir.isIdForm(run) ? [path.join(root, run)] : [])];
    for (const dir of candidates) if (fs.existsSync(path.join(dir, RUN_MANIFEST_FILE))) return new RunDir(dir);
    if (!RunDir.isIdForm(run)) {
      throw new Error(`no run "${run}": ${path.resolve(run)} is not a run directory (it has no run.json), and "${run}" is not a run id (an id is a plain name under ${root}, like 20250101-120000-bad_sort-1a2b; list the runs with \`peagen evolve list\`)`);
    }
    const runs = RunDir.list(projectDir);
    if (run === LATEST_RUN) {
      const latest = runs.at(-1);
      if (!latest) throw new Error(`no runs under ${root} yet, so there is no latest one: start one with \`peagen evolve run EXAMPLE\` (or pass --project DIR where the runs are)`);
      return latest;
    }
    const matches = runs.filter((runDir) => runDir.id.startsWith(run));
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) {
      const shown = matches.slice(0, 10).map((runDir) => `  ${runDir.id}`);
      throw new Error(`"${run}" is the start of ${matches.length} run ids; type more of the one you mean:\n${shown.join('\n')}${matches.length > 10 ? `\n  … and ${matches.length - 10} more (peagen evolve list)` : ''}`);
    }
    throw new Error(`no run "${run}": no run id under ${root} is or begins with it (list the runs with \`peagen evolve list\`; \`latest\` names the last one)`);
  }

  /** Whether `name` has the form of a run id (RunIdSchema): a plain name, never a path. */
  static isIdForm(name: string): boolean {
    return RunIdSchema.safeParse(name).success;
  }

  /** The project's runs, oldest first (an id begins with its start time to the second; within one second, by run.json's createdAt). */
  static list(projectDir: string): RunDir[] {
    const root = path.join(path.resolve(projectDir), RUNS_DIR);
    if (!fs.existsSync(root)) return [];
    const started = (name: string): number => {
      try {
        // Read leniently: a damaged run.json is reported by whoever reads the run, not by the listing.
        const createdAt = (JSON.parse(fs.readFileSync(path.join(root, name, RUN_MANIFEST_FILE), 'utf8')) as { createdAt?: unknown }).createdAt;
        return typeof createdAt === 'string' ? Date.parse(createdAt) || 0 : 0;
      } catch {
        return 0;
      }
    };
    return fs
      .readdirSync(root)
      .filter((name) => fs.existsSync(path.join(root, name, RUN_MANIFEST_FILE)))
      .map((name) => ({ name, second: name.slice(0, 15), started: started(name) }))
      .sort((a, b) => (a.second < b.second ? -1 : a.second > b.second ? 1 : a.started - b.started || (a.name < b.name ? -1 : 1)))
      .map(({ name }) => new RunDir(path.join(root, name)));
  }

  writeManifest(manifest: RunManifest): void {
    fs.writeFileSync(this.manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  }

  /** The run's manifest, checked (paths in it name files of the run: only safe ones pass). @throws DamagedRunError */
  readManifest(): RunManifest {
    let text: string;
    try {
      text = fs.readFileSync(this.manifestFile, 'utf8');
    } catch (error) {
      throw new DamagedRunError(this.manifestFile, `cannot be read (${(error as Error).message})`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new DamagedRunError(this.manifestFile, `is not JSON (${(error as Error).message})`);
    }
    const parsed = RunManifestSchema.safeParse(raw);
    if (!parsed.success) throw new DamagedRunError(this.manifestFile, `is not a run manifest this Peagen can read: ${oneLine(parsed.error)}`);
    return parsed.data;
  }

  /**
   * Every event of the run's journal, in order, each checked against its schema.
   * @throws DamagedRunError naming the journal and the line that is not an event this Peagen wrote.
   */
  readEvents(): JournalEntry[] {
    let contents;
    try {
      contents = readJournal(this.journalFile);
    } catch (error) {
      if (!(error instanceof JournalError)) throw error;
      throw new DamagedRunError(this.journalFile, error.line === undefined ? error.message : `line ${error.line} is not a JSON object`);
    }
    let lastSeq = 0;
    return contents.events.map((raw, index) => {
      const line = contents.lines[index]!;
      const meta = JournalLineSchema.safeParse(raw);
      if (!meta.success) throw new DamagedRunError(this.journalFile, `line ${line} is not a journal event: ${oneLine(meta.error)}`);
      if (meta.data.seq <= lastSeq) throw new DamagedRunError(this.journalFile, `line ${line} has seq ${meta.data.seq}, after seq ${lastSeq} (the journal's events are numbered in order)`);
      lastSeq = meta.data.seq;
      const event = RunEventSchema.safeParse(raw);
      if (!event.success) throw new DamagedRunError(this.journalFile, `line ${line} is not a run event this Peagen can read: ${oneLine(event.error)}`);
      return { event: event.data, seq: meta.data.seq, at: meta.data.at ?? '', line };
    });
  }

  /** Stores an exchange under the sha256 of its content; returns the address. */
  putExchange(exchange: LlmExchange): string {
    const text = JSON.stringify(exchange);
    const hash = createHash('sha256').update(text).digest('hex');
    this.exchanges.put(hash, text);
    return hash;
  }

  getExchange(hash: string): LlmExchange {
    checkedId(ExchangeHashSchema, hash, 'exchange address');
    const { text, file } = this.record(this.exchanges, 'llm', hash);
    if (text === undefined) throw new DamagedRunError(file, `is missing the recorded LLM exchange ${hash.slice(0, 12)} the journal names`);
    if (createHash('sha256').update(text).digest('hex') !== hash) throw new DamagedRunError(file, `holds the recorded LLM exchange ${hash.slice(0, 12)}, which was modified (its content hash is not its name)`);
    try {
      return JSON.parse(text) as LlmExchange;
    } catch {
      throw new DamagedRunError(file, `holds the recorded LLM exchange ${hash.slice(0, 12)} as something that is not JSON`);
    }
  }

  /** Stores a program once, by id (it never changes once admitted to the archive). */
  putProgram(program: Program): void {
    this.programs.put(program.id, JSON.stringify(program));
  }

  /** A program the run stored, checked: its record must hold the program whose id (content hash) names it. @throws DamagedRunError */
  getProgram(id: string): Program {
    checkedId(ProgramIdSchema, id, 'program id');
    const { text, file } = this.record(this.programs, 'programs', id);
    if (text === undefined) throw new DamagedRunError(file, `is missing program ${id.slice(0, 12)}, which the run names`);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new DamagedRunError(file, `holds program ${id.slice(0, 12)} as something that is not JSON (${(error as Error).message})`);
    }
    const parsed = ProgramSchema.safeParse(raw);
    if (!parsed.success) throw new DamagedRunError(file, `holds program ${id.slice(0, 12)} as something that is not a program this Peagen can read: ${oneLine(parsed.error)}`);
    if (parsed.data.id !== id || programId(parsed.data.code) !== id) throw new DamagedRunError(file, `does not hold program ${id.slice(0, 12)} (its code was changed: its content hash is ${programId(parsed.data.code).slice(0, 12)})`);
    return parsed.data;
  }

  /** A record from its pack, or from the file per record a run made before the packs kept (`folder/<key>.json`). */
  private record(pack: PackFile, folder: 'llm' | 'programs', key: string): { text: string | undefined; file: string } {
    const text = pack.get(key);
    if (text !== undefined) return { text, file: pack.file };
    const legacy = path.join(this.dir, folder, `${key}.json`);
    try {
      return { text: fs.readFileSync(legacy, 'utf8'), file: legacy };
    } catch {
      return { text: undefined, file: pack.file };
    }
  }

  writeBest(program: string, code: string): void {
    writeAtomically(this.bestFile(program), code);
  }

  /** The files a best folder (best/, or best-full/ beside a reduced best) holds for the run's program: one, or each file of a multi-file program. */
  bestFiles(manifest: Pick<RunManifest, 'program' | 'programFiles'>, folder: BestFolder = 'best'): string[] {
    if (!manifest.programFiles) return [folder === 'best' ? this.bestFile(manifest.program) : this.bestFullFile(manifest.program)];
    return manifest.programFiles.map((file) => {
      // readManifest checked them; a manifest from anywhere else is checked here, before a path is built.
      const problem = relativePathProblem(file);
      if (problem) throw new DamagedRunError(this.manifestFile, `names a program file that is not inside the run's ${folder}/ folder: ${problem}`);
      return path.join(this.dir, folder, ...file.split('/'));
    });
  }

  /** Writes a best program: its file, or every file of a multi-file program (keeping their folders). */
  writeBestProgram(manifest: Pick<RunManifest, 'program' | 'programFiles'>, code: string, folder: BestFolder = 'best'): void {
    const targets = this.bestFiles(manifest, folder);
    if (!manifest.programFiles) return writeAtomically(targets[0]!, code);
    const texts = new Map(unbundleProgram(code).map((file) => [file.path, file.text]));
    manifest.programFiles.forEach((file, i) => writeAtomically(targets[i]!, texts.get(file) ?? ''));
  }

  /** A best program as its folder holds it (a multi-file program bundled again), or undefined when there is none. */
  readBestProgram(manifest: Pick<RunManifest, 'program' | 'programFiles'>, folder: BestFolder = 'best'): string | undefined {
    const targets = this.bestFiles(manifest, folder);
    try {
      if (!manifest.programFiles) return fs.readFileSync(targets[0]!, 'utf8');
      return bundleProgram(manifest.programFiles.map((file, i) => ({ path: file, text: fs.readFileSync(targets[i]!, 'utf8') })));
    } catch {
      return undefined;
    }
  }

  /**
   * The ended run's best for a reviewer: its reduction in best/ and the full best in
   * best-full/, or the full best alone in best/ (no best-full/ left from an older best).
   */
  writeReducedBest(manifest: Pick<RunManifest, 'program' | 'programFiles'>, full: string, reduced: string | undefined): void {
    if (reduced === undefined) {
      fs.rmSync(path.join(this.dir, 'best-full'), { recursive: true, force: true });
      this.writeBestProgram(manifest, full);
      return;
    }
    this.writeBestProgram(manifest, full, 'best-full');
    this.writeBestProgram(manifest, reduced);
  }
}

/** Where a run keeps a best program: best/, and best-full/ beside a reduced best. */
export type BestFolder = 'best' | 'best-full';

/** Replaces `file` by renaming a complete copy over it. */
function writeAtomically(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp`;
  fs.writeFileSync(temp, text);
  fs.renameSync(temp, file);
}

/** `value` when it has the id's form; otherwise an error saying so, before any path is built. */
function checkedId(schema: z.ZodString, value: string, what: 'run id' | 'program id' | 'exchange address'): string {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`"${value.slice(0, 80)}" is not ${what === 'exchange address' ? 'an' : 'a'} ${what}: ${parsed.error.issues[0]?.message ?? 'wrong form'}`);
  return parsed.data;
}
