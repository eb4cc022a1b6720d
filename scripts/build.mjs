// Bundles the extension, the language server and the CLI into single files (esbuild), copies the
// tree-sitter wasm files beside the server, and bundles every test file so that unit tests run under
// plain `node --test` and integration tests load inside the VS Code extension host.
//   node scripts/build.mjs [--production] [--no-tests] [--watch]
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const production = process.argv.includes('--production');
const withTests = !process.argv.includes('--no-tests') && !production;
const watch = process.argv.includes('--watch');

// web-tree-sitter's ESM build calls createRequire(import.meta.url), which is undefined in a CJS
// bundle; its CJS build works (shared/reference/python-analysis.md §3).
const alias = { 'web-tree-sitter': path.join(root, 'node_modules/web-tree-sitter/web-tree-sitter.cjs') };

// Resolve zod's locale index to the English-only shim (scripts/shims/zod-locales.js).
const zodLocales = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: path.join(root, 'scripts/shims/zod-locales.js') } : undefined);
  },
};

const common = {
  plugins: [zodLocales],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  minify: production,
  logLevel: 'warning',
  alias,
  // `vscode` is provided by the extension host; nothing else is left outside the bundles.
  external: ['vscode'],
};

const products = [
  { entryPoints: { extension: 'src/extension.ts' }, outdir: 'dist' },
  // Loaded lazily by src/ui/lint/client.ts when the lint client starts.
  { entryPoints: { lintClient: 'src/ui/lint/languageClientModule.ts' }, outdir: 'dist' },
  { entryPoints: { server: 'src/server/main.ts' }, outdir: 'dist' },
  { entryPoints: { cli: 'src/cli/main.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
];

function listTests(dir) {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { recursive: true })
    .filter((f) => !/(^|[\\/])(node_modules|vscode-host|fixtures)([\\/]|$)/.test(f))
    .filter((f) => /\.(test|bench)\.ts$/.test(f) || /^(index|.*\.main)\.ts$/.test(path.basename(f)))
    .map((f) => path.join(dir, f));
}

if (withTests) {
  const entries = [...listTests('test'), ...listTests('bench')];
  if (entries.length > 0) {
    products.push({ entryPoints: entries, outdir: 'out', outbase: '.', external: ['vscode', 'mocha'] });
  }
}

function copyWasm() {
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
  for (const [from, to] of [
    ['node_modules/web-tree-sitter/web-tree-sitter.wasm', 'dist/web-tree-sitter.wasm'],
    ['node_modules/tree-sitter-python/tree-sitter-python.wasm', 'dist/tree-sitter-python.wasm'],
  ]) {
    const src = path.join(root, from);
    if (fs.existsSync(src)) fs.copyFileSync(src, path.join(root, to));
  }
}

const started = Date.now();
copyWasm();
const present = products.filter((p) => Object.values(p.entryPoints).every((e) => fs.existsSync(path.join(root, e))));
if (watch) {
  for (const p of present) await (await esbuild.context({ ...common, ...p, absWorkingDir: root })).watch();
  console.log('[build] watching');
} else {
  await Promise.all(present.map((p) => esbuild.build({ ...common, ...p, external: p.external ?? common.external, absWorkingDir: root })));
  console.log(`[build] ${present.length} bundles in ${Date.now() - started} ms${production ? ' (production)' : ''}`);
}
