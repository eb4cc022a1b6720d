#!/usr/bin/env bash
# Installs the offline VS Code test host: Debian's chromium (+ libkrb5-dev, which one of VS Code's
# native modules builds against, + ripgrep), then code-server 4.100.3 (VS Code 1.100.3) and
# playwright-core from the npm registry. Every step that would download from elsewhere is pre-empted
# (shared/reference/vscode-test-host.md §3). Idempotent: a second run with the same lockfile is a no-op.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pkgs=()
command -v chromium >/dev/null || pkgs+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || pkgs+=(libkrb5-dev)
command -v rg >/dev/null || pkgs+=(ripgrep)
if [ ${#pkgs[@]} -gt 0 ]; then
  ${SUDO:-} apt-get update -qq
  DEBIAN_FRONTEND=noninteractive ${SUDO:-} apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi
cd "$here"
if [ -f node_modules/.vscode-test-host-ok ] && cmp -s package-lock.json node_modules/.vscode-test-host-ok; then
  echo "[vscode-host] already installed"; exit 0
fi
# 1) unpack without running scripts; 2) seed @vscode/ripgrep's download cache with Debian's rg;
# 3) run the install scripts (native modules build with node-gyp against local Node headers).
npm ci --ignore-scripts --no-audit --no-fund
rg_pkg_ver=$(node -p "require('./node_modules/code-server/lib/vscode/npm-shrinkwrap.json').packages['node_modules/@vscode/ripgrep']?.version ?? ''")
if [ -n "$rg_pkg_ver" ]; then
  t=$(mktemp -d)
  (cd "$t" && npm pack "@vscode/ripgrep@$rg_pkg_ver" --silent >/dev/null && tar xzf ./*.tgz package/lib/postinstall.js)
  rg_asset_ver=$(sed -n "s/^const VERSION = '\(.*\)';/\1/p" "$t/package/lib/postinstall.js")
  cache="$(node -p "require('os').tmpdir()")/vscode-ripgrep-cache-$rg_pkg_ver"
  mkdir -p "$cache" "$t/rg"
  cp "$(command -v rg)" "$t/rg/rg"
  tar czf "$cache/ripgrep-$rg_asset_ver-x86_64-unknown-linux-musl.tar.gz" -C "$t/rg" rg
  rm -rf "$t"
fi
# code-server's postinstall refuses root without unsafe-perm; node-pty's postinstall runs `npx node-gyp`.
# The project's .npmrc sets ignore-scripts for the extension; this folder must run its scripts.
npm_config_ignore_scripts=false npm_config_unsafe_perm=true npm_config_yes=true \
  npm rebuild --foreground-scripts >install.log 2>&1 || { tail -40 install.log; exit 1; }
XDG_CONFIG_HOME="$(mktemp -d)" node node_modules/code-server/out/node/entry.js --version | tail -1
cp package-lock.json node_modules/.vscode-test-host-ok
