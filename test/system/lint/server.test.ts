/**
 * `node dist/server.js --stdio` with a scripted LSP client: settings pulled through
 * workspace/configuration and re-pulled on didChangeConfiguration (severity override, enable, an
 * invalid value named in the log), the rule-page link pointing at a real file, fix-all through
 * codeAction, the validation report, and a clean exit on shutdown/exit.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../../support/paths';
import { LspClient } from './lspClient';

const server = path.join(repoRoot, 'dist', 'server.js');
const TEXT = 'import sys\n\n\nasync def run(c):\n    if not await c.wait_for_restore():\n        sys.exit(0)\n';

test('settings, documentation links, fix-all and the validation report over stdio', async () => {
  const client = new LspClient(server);
  try {
    const init = (await client.initialize('file:///ws')) as { capabilities: { codeActionProvider: { codeActionKinds: string[] } } };
    assert.deepEqual(init.capabilities.codeActionProvider.codeActionKinds, ['quickfix', 'source.fixAll.dynamoSnapshot']);
    const uri = 'file:///ws/pkg/snapshot.py';
    const report = client.waitFor((m) => m.method === 'dynamoSnapshot/validationReport');
    const first = client.diagnostics(uri, 1);
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text: TEXT } });
    const d = (await first).diagnostics as unknown as { code: string; severity: number; codeDescription: { href: string } }[];
    assert.equal(d.length, 1);
    assert.equal(d[0]!.severity, 1);
    assert.ok(fs.existsSync(fileURLToPath(d[0]!.codeDescription.href)), `${d[0]!.codeDescription.href} exists`);
    const r = (await report).params as { uri: string; ms: number; findings: number; state: string; skipped: boolean };
    assert.deepEqual({ ...r, ms: 0 }, { uri, version: 1, ms: 0, findings: 1, state: 'ok', skipped: false });

    // A severity override arrives through workspace/configuration after didChangeConfiguration.
    client.settings = { severity: { SNAP001: 'hint' } };
    const hinted = client.diagnostics(uri, 1);
    client.notify('workspace/didChangeConfiguration', { settings: null });
    assert.equal(((await hinted).diagnostics[0] as unknown as { severity: number }).severity, 4);

    // An invalid value falls back to its default and is named in the log.
    client.settings = { severity: { SNAP001: 'loud' }, run: 'onType' };
    const log = client.waitFor((m) => m.method === 'window/logMessage' && /dynamoSnapshot\.lint\.severity/.test((m.params as { message: string }).message));
    const back = client.diagnostics(uri, 1);
    client.notify('workspace/didChangeConfiguration', { settings: null });
    assert.equal(((await back).diagnostics[0] as unknown as { severity: number }).severity, 1);
    assert.match(((await log).params as { message: string }).message, /using its default/);

    const fixAll = await client.request<{ kind: string; edit: { documentChanges: { textDocument: { version: number }; edits: { newText: string }[] }[] } }[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [], only: ['source.fixAll'] },
    });
    assert.equal(fixAll.length, 1);
    assert.equal(fixAll[0]!.kind, 'source.fixAll.dynamoSnapshot');
    assert.equal(fixAll[0]!.edit.documentChanges[0]!.textDocument.version, 1);
    assert.deepEqual(fixAll[0]!.edit.documentChanges[0]!.edits.map((e) => e.newText), ['import os\n', 'sys.stdout.flush(); sys.stderr.flush()\n        os._exit(0)']);

    // Turned off: diagnostics are withdrawn.
    client.settings = { enable: false };
    const off = client.diagnostics(uri, 1);
    client.notify('workspace/didChangeConfiguration', { settings: null });
    assert.equal((await off).diagnostics.length, 0);

    // A file without exit-like names is reported as skipped, never parsed.
    client.settings = null;
    const quietUri = 'file:///ws/quiet.py';
    const skipped = client.waitFor((m) => m.method === 'dynamoSnapshot/validationReport' && (m.params as { uri: string }).uri === quietUri);
    client.notify('textDocument/didOpen', { textDocument: { uri: quietUri, languageId: 'python', version: 1, text: 'print("hello")\n' } });
    assert.equal(((await skipped).params as { skipped: boolean }).skipped, true);
  } finally {
    assert.equal(await client.shutdown(), 0, `server exit status; stderr: ${client.stderr}`);
  }
});
