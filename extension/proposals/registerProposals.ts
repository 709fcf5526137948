/** Proposals: the `peagen-proposal:` documents, their diffs, Accept/Reject, CodeLens and Problems. */
import * as vscode from 'vscode';
import { ProposalDiagnostics } from '../diagnostics/proposalDiagnostics';
import type { Services } from '../services';
import type { ProposalsApi } from './api';
import type { ProposalSink } from './proposal';
import { ProposalCodeLenses } from './proposalCodeLens';
import { ProposalCommands } from './proposalCommands';
import { ProposalActiveContext } from './proposalContext';
import { PROPOSAL_SCHEME, ProposalDocuments, proposalUri } from './proposalDocuments';
import { ProposalStore, summarize } from './proposalStore';

export function registerProposals(services: Omit<Services, 'proposals'>): { sink: ProposalSink; api: ProposalsApi; disposables: vscode.Disposable[] } {
  const store = new ProposalStore();
  const documents = new ProposalDocuments(store);
  const codeLenses = new ProposalCodeLenses(store);
  const diagnostics = new ProposalDiagnostics(store);
  const commands = new ProposalCommands(store, documents, diagnostics, services.output);
  const context = new ProposalActiveContext(store);

  const refreshFile = (key: string): void => {
    for (const record of store.openFor(key)) documents.refresh(record);
    codeLenses.refresh();
  };
  const disposables: vscode.Disposable[] = [
    documents,
    codeLenses,
    diagnostics,
    context,
    vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, documents),
    vscode.languages.registerCodeLensProvider([{ scheme: 'file' }, { scheme: 'untitled' }], codeLenses),
    ...commands.register(),
    store.onDidChange((record) => refreshFile(record.fileKey)),
    // The proposal document and the lenses follow the file: its diff shows only the proposal's change.
    vscode.workspace.onDidChangeTextDocument((event) => {
      const key = event.document.uri.toString();
      if (store.openFor(key).length > 0) refreshFile(key);
    }),
  ];

  const add: ProposalSink['add'] = async (input, options) => {
    const record = store.add(input);
    services.output.info(`proposal ${record.id} "${input.title}" for ${input.uri.fsPath} (lines ${input.region.startLine + 1}-${input.region.endLine})`);
    if (options?.open) await commands.open(record);
    return record.id;
  };
  const withdraw: ProposalSink['withdraw'] = (id, because) => {
    if (store.get(id)?.state !== 'open') return;
    store.withdraw(id, because);
    services.output.info(`proposal ${id} withdrawn: ${because}`);
  };
  const retitle: ProposalSink['retitle'] = (id, title) => store.retitle(id, title);
  const confirm: ProposalSink['confirm'] = (id, title) => {
    if (store.get(id)?.input.awaiting === undefined) return;
    store.confirm(id, title);
    services.output.info(`proposal ${id} offered for Accept: ${title}`);
  };
  const awaitMeasure: ProposalSink['await'] = (id, because) => store.await(id, because);
  const api: ProposalsApi = {
    list: () => store.all().map((record) => summarize(record, proposalUri(record).toString())),
    add,
    proposalActive: () => context.active,
  };
  return { sink: { add, withdraw, retitle, confirm, await: awaitMeasure }, api, disposables };
}
