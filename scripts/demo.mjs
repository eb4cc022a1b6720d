// The main job on the built-in local demo worker: build, run the snapshot workflow headless on
// `local-demo` (the report prints here), then open VS Code with the extension and the demo workspace.
//   node scripts/demo.mjs [--no-open] [--port N]
// Desktop `code` on PATH: opens it as an Extension Development Host. Otherwise: installs the packaged
// extension into a private extensions folder of the offline host (code-server 1.100.3), serves it on
// 127.0.0.1 and prints the URL; Ctrl-C stops it.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const workspace = path.join(root, 'demo');
const args = process.argv.slice(2);
const noOpen = args.includes('--no-open');
const portArg = args.includes('--port') ? Number(args[args.indexOf('--port') + 1]) : 0;

const step = (what) => console.log(`\n[demo] ${what}`);
const must = (r, what) => { if (r.status !== 0) { console.error(`[demo] ${what} failed (exit ${r.status})`); process.exit(1); } };

step('building the extension');
must(spawnSync(process.execPath, ['scripts/build.mjs', '--no-tests'], { cwd: root, stdio: 'inherit' }), 'build');

step('running the snapshot smoke test on the local demo worker (node dist/cli.js run --worker local-demo)');
const run = spawnSync(process.execPath, [path.join(root, 'dist/cli.js'), 'run', '--worker', 'local-demo'], { cwd: workspace, stdio: 'inherit' });
console.log(`[demo] workflow exit status ${run.status} (0 = every step passed or warned)`);
if (noOpen) process.exit(run.status ?? 1);

const code = spawnSync('sh', ['-c', 'command -v code'], { encoding: 'utf8' }).stdout.trim();
if (code) {
  step('opening VS Code with the extension and the demo workspace');
  spawn(code, [`--extensionDevelopmentPath=${root}`, workspace], { stdio: 'ignore', detached: true }).unref();
  process.exit(0);
}

const hostDir = path.join(root, 'test/vscode-host');
if (!fs.existsSync(path.join(hostDir, 'node_modules/code-server'))) {
  console.error('[demo] no `code` on PATH and the offline VS Code host is not installed: run `bash scripts/setup.sh --demo`');
  process.exit(1);
}
step('packaging the extension and installing it into the offline VS Code host');
fs.mkdirSync(path.join(root, 'dist-vsix'), { recursive: true }); // vsce does not create the output folder (fresh clone)
must(spawnSync('npm', ['run', '--silent', 'package'], { cwd: root, stdio: 'inherit' }), 'package');
const state = path.join(root, '.cache/demo-host');
const env = { ...process.env, EXTENSIONS_GALLERY: '{}', XDG_CONFIG_HOME: path.join(state, 'config'), XDG_DATA_HOME: path.join(state, 'data') };
const entry = path.join(hostDir, 'node_modules/code-server/out/node/entry.js');
must(spawnSync(process.execPath, [entry, '--extensions-dir', path.join(state, 'extensions'), '--install-extension', path.join(root, 'dist-vsix/dynamo-snapshot-workbench.vsix'), '--force'], { env, stdio: 'inherit' }), 'install');

const port = portArg || await new Promise((r) => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => r(p)); }); });
const server = spawn(process.execPath, [entry, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
  '--disable-getting-started-override', '--user-data-dir', path.join(state, 'user-data'), '--extensions-dir', path.join(state, 'extensions'), workspace], { env, stdio: ['ignore', 'pipe', 'pipe'] });
let log = '';
const onData = (d) => {
  log += d;
  if (/HTTP server listening/.test(log) && !onData.done) {
    onData.done = true;
    step(`VS Code is serving the demo workspace at http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    console.log('[demo] open that URL in a browser; Ctrl-C stops the server.');
  }
};
server.stdout.on('data', onData);
server.stderr.on('data', onData);
const stop = () => { server.kill('SIGTERM'); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.on('exit', (c) => process.exit(c ?? 0));
