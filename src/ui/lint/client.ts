/**
 * The language client for dist/server.js (IPC). Settings reach the server through the extension's
 * own validated `dynamoSnapshot.lint` (ConfigService: one reader, workspace-trust aware) instead of a
 * second raw read; a settings change is forwarded as `workspace/didChangeConfiguration`.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import { SERVER_BUSY, ServerBusy, VALIDATION_REPORT, ValidationReport } from '../../shared/lspProtocol';
import type { Ctx } from '../context';
import { LintStatus } from './statusItem';

type ClientModule = typeof import('./languageClientModule');
let clientModule: ClientModule | undefined;

/** Loads dist/lintClient.js (beside this bundle) on first use. */
function languageClient(): ClientModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  clientModule ??= require(path.join(__dirname, 'lintClient.js')) as ClientModule;
  return clientModule;
}

export class LintService implements vscode.Disposable {
  readonly log = vscode.window.createOutputChannel('Dynamo Snapshot Lint', { log: true });
  readonly status = new LintStatus();
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;

  constructor(private readonly ctx: Ctx) {}

  get serverPath(): string {
    return path.join(this.ctx.extensionRoot, 'dist', 'server.js');
  }

  get languageClient(): LanguageClient | undefined {
    return this.client;
  }

  /** Starts the client unless linting is off; concurrent calls share one start. */
  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<void> {
    if (!this.ctx.config.settings.lint.enable) {
      this.status.disabled();
      return;
    }
    if (this.client) return;
    if (!fs.existsSync(this.serverPath)) {
      this.status.failed(`server bundle missing: ${this.serverPath}`);
      this.log.error(`cannot start the lint server: ${this.serverPath} does not exist (run npm run build)`);
      return;
    }
    this.status.starting();
    const { LanguageClient, State, TransportKind } = languageClient();
    const module = this.serverPath;
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6010'] } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'python' },
        { scheme: 'untitled', language: 'python' },
      ],
      outputChannel: this.log,
      middleware: {
        workspace: {
          configuration: (params, token, next) =>
            params.items.every((i) => i.section === 'dynamoSnapshot.lint') ? params.items.map(() => this.ctx.config.settings.lint) : next(params, token),
        },
      },
    };
    // Id `dynamoSnapshot` makes the client read `dynamoSnapshot.trace.server`.
    const client = new LanguageClient('dynamoSnapshot', 'Dynamo Snapshot Lint', serverOptions, clientOptions);
    this.client = client;
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) this.status.ready();
      else if (e.newState === State.Starting) this.status.starting();
      else if (e.newState === State.Stopped && this.client === client) this.status.failed('server stopped — use Restart');
    });
    client.onNotification(VALIDATION_REPORT, (raw: unknown) => {
      const r = ValidationReport.safeParse(raw);
      if (r.success) this.status.validated(r.data);
    });
    client.onNotification(SERVER_BUSY, (raw: unknown) => {
      const r = ServerBusy.safeParse(raw);
      if (r.success) this.status.busy(r.data.busy);
    });
    try {
      await client.start();
      this.log.info(`lint server started from ${module}`);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.status.failed(`server failed to start: ${message}`);
      this.log.error(`lint server failed to start: ${message}`);
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client && client.state !== languageClient().State.Stopped) await client.stop(2000).catch((e: unknown) => this.log.warn(`stopping the lint server: ${String(e)}`));
  }

  async restart(): Promise<void> {
    await this.starting?.catch(() => undefined);
    await this.stop();
    await this.start();
  }

  /** Settings changed: turn the server on/off, or let it re-pull `dynamoSnapshot.lint`. */
  async settingsChanged(): Promise<void> {
    if (!this.ctx.config.settings.lint.enable) {
      await this.stop();
      this.status.disabled();
    } else if (!this.client) await this.start();
    else {
      // A server that failed to start or stopped rejects this; its status already says so (and offers Restart).
      await this.client
        .sendNotification(languageClient().DidChangeConfigurationNotification.type, { settings: null })
        .catch((e: unknown) => this.log.warn(`settings changed, but the lint server is not running (use Restart): ${e instanceof Error ? e.message : String(e)}`));
    }
  }

  dispose(): void {
    this.status.dispose();
    this.log.dispose();
  }
}
