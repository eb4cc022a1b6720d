// Packages the VSIX (production bundles), checks that it holds exactly what runs, reports its size and
// file count, and installs it into each offline VS Code host that is installed.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOSTS } from '../test/vscode-host/hosts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vsix = path.join(root, 'dist-vsix', 'dynamo-snapshot-workbench.vsix');
const results = [];
const check = (name, fn) => {
  try { fn(); results.push([name, true]); console.log(`  ✔ ${name}`); } catch (e) { results.push([name, false]); console.log(`  ✖ ${name}: ${e.message}`); }
};

check('vsce package', () => {
  fs.rmSync(vsix, { force: true });
  fs.mkdirSync(path.dirname(vsix), { recursive: true });
  execFileSync('npm', ['run', '--silent', 'package'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  if (!fs.existsSync(vsix)) throw new Error('no VSIX written');
});

let files = [];
check('VSIX holds only what runs', () => {
  const py = `import zipfile,sys,json; z=zipfile.ZipFile(sys.argv[1]); print(json.dumps([[i.filename,i.file_size] for i in z.infolist()]))`;
  files = JSON.parse(execFileSync('python3', ['-c', py, vsix], { encoding: 'utf8' }));
  const names = files.map(([n]) => n);
  const bad = names.filter((n) => /node_modules|\/src\/|\.ts$|\.map$|\/test\//.test(n));
  if (bad.length) throw new Error(`unexpected files: ${bad.slice(0, 5).join(', ')}`);
  for (const need of ['extension/dist/extension.js', 'extension/dist/lintClient.js', 'extension/dist/server.js', 'extension/dist/cli.js', 'extension/dist/tree-sitter-python.wasm', 'extension/dist/web-tree-sitter.wasm', 'extension/package.json']) {
    if (!names.includes(need)) throw new Error(`missing ${need}`);
  }
  const bytes = fs.statSync(vsix).size;
  const unpacked = files.reduce((a, [, s]) => a + s, 0);
  console.log(`    VSIX ${(bytes / 1024).toFixed(0)} KiB, ${files.length} entries, ${(unpacked / 1024).toFixed(0)} KiB unpacked`);
});

// The packaged VSIX installs into every offline host: the minimum VS Code engines.vscode admits, and the newest.
for (const host of HOSTS.filter((h) => h.installed)) {
  check(`VSIX installs into the ${host.name} VS Code host (${host.vscodeVersion})`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-vsix-'));
    const env = { ...process.env, XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_DATA_HOME: path.join(dir, 'data') };
    try {
      const r = spawnSync(host.launcher, [`--extensions-dir=${path.join(dir, 'ext')}`, '--install-extension', vsix], { encoding: 'utf8', env });
      if (r.status !== 0 || !/successfully installed/.test(r.stdout + r.stderr)) throw new Error((r.stdout + r.stderr).slice(-500));
      const l = spawnSync(host.launcher, [`--extensions-dir=${path.join(dir, 'ext')}`, '--list-extensions', '--show-versions'], { encoding: 'utf8', env });
      if (!/dynamo-snapshot-workbench\.dynamo-snapshot-workbench@0\./.test(l.stdout)) throw new Error(`not listed: ${l.stdout}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

const failed = results.filter(([, ok]) => !ok).length;
console.log(`vsix: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
