/**
 * The snapshot lint language server: `node dist/server.js --stdio` for any LSP client, or started by
 * the extension over IPC. Never imports `vscode`. Loads the tree-sitter wasm beside this bundle once,
 * keeps one incrementally edited tree per open document, pushes diagnostics, answers code actions.
 */
import path from 'node:path';
import {
  CodeActionKind,
  createConnection,
  DidChangeConfigurationNotification,
  ProposedFeatures,
  TextDocumentSyncKind,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { fileURLToPath } from 'node:url';
import { createParser } from '../lint/parser';
import { SHOW_DOCUMENTATION_COMMAND } from '../shared/lspProtocol';
import { codeActions, FIX_ALL_KIND } from './codeActions';
import { docUri } from './convert';
import { DocumentStore } from './documents';
import { SettingsCache } from './settings';
import { Validator } from './validator';

const connection = createConnection(ProposedFeatures.all);
const wasmDir = __dirname;
const parserReady = createParser(wasmDir);

let canPullConfig = false;
let canRegisterConfigChange = false;
let documentChanges = false;
let roots: string[] = [];
let folderUris: string[] = [];
let settings: SettingsCache | undefined;

connection.onInitialize(async (params): Promise<InitializeResult> => {
  const caps = params.capabilities;
  canPullConfig = !!caps.workspace?.configuration;
  canRegisterConfigChange = !!caps.workspace?.didChangeConfiguration?.dynamicRegistration;
  documentChanges = !!caps.workspace?.workspaceEdit?.documentChanges;
  folderUris = (params.workspaceFolders ?? []).map((f) => f.uri).concat(params.rootUri ? [params.rootUri] : []);
  roots = folderUris.filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
  const init = params.initializationOptions as { settings?: unknown } | undefined;
  settings = new SettingsCache(connection, () => canPullConfig, init?.settings, () => folderUris);
  // Fail initialize (and so show the error to the user) if the grammar cannot load.
  await parserReady;
  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND], resolveProvider: false },
      executeCommandProvider: { commands: [SHOW_DOCUMENTATION_COMMAND] },
    },
    serverInfo: { name: 'dynamo-snapshot-lint', version: '0.1.0' },
  };
});

void parserReady.then(
  (parser) => start(parser),
  (e: unknown) => connection.console.error(`cannot load tree-sitter from ${wasmDir}: ${e instanceof Error ? e.message : String(e)}`),
);

function start(parser: Awaited<typeof parserReady>): void {
  const store = new DocumentStore(parser);
  const docs = store.documents;
  let validator: Validator | undefined;
  const getValidator = (): Validator => (validator ??= new Validator(connection, store, settings!, () => roots));

  connection.onInitialized(() => {
    if (canRegisterConfigChange) void connection.client.register(DidChangeConfigurationNotification.type, { section: 'dynamoSnapshot.lint' });
    connection.console.info(`dynamo-snapshot lint server ready (node ${process.version}, wasm from ${path.relative(process.cwd(), wasmDir) || '.'})`);
  });

  connection.onDidChangeConfiguration(() => {
    settings?.clear();
    for (const doc of docs.all()) getValidator().schedule(doc, 'config');
  });

  // TextDocuments fires onDidChangeContent right after onDidOpen too; that one must not turn the
  // open's immediate validation into a debounced one.
  const opened = new Map<string, number>();
  docs.onDidOpen((e) => {
    opened.set(e.document.uri, e.document.version);
    getValidator().schedule(e.document, 'open');
  });
  docs.onDidChangeContent((e) => {
    if (opened.get(e.document.uri) === e.document.version) return;
    opened.delete(e.document.uri);
    getValidator().schedule(e.document, 'change');
  });
  docs.onDidSave((e) => getValidator().schedule(e.document, 'save'));
  docs.onDidClose((e) => {
    opened.delete(e.document.uri);
    getValidator().cancel(e.document.uri);
    store.close(e.document.uri);
  });

  connection.onCodeAction(async (params, token) => {
    const doc = docs.get(params.textDocument.uri);
    if (!doc || token.isCancellationRequested) return [];
    try {
      const analysis = await getValidator().analyzeNow(doc);
      if (token.isCancellationRequested) return [];
      return codeActions(params, { doc, analysis, documentChanges });
    } catch (e) {
      connection.console.warn(`code actions for ${doc.uri}: ${e instanceof Error ? e.message : String(e)}`);
      return [];
    }
  });

  connection.onExecuteCommand(async (params) => {
    if (params.command !== SHOW_DOCUMENTATION_COMMAND) return;
    const code = String(params.arguments?.[0] ?? '');
    const uri = docUri(code);
    if (!uri) return;
    const shown = await connection.window.showDocument({ uri, takeFocus: true }).catch(() => ({ success: false }));
    if (!shown.success) connection.console.info(`Documentation for ${code}: ${uri}`);
  });

  docs.listen(connection);
}

connection.listen();
