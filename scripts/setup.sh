#!/usr/bin/env bash
# Installs what building, the demo and the tests need, once; a second run only checks.
#   Debian packages: chromium (the VS Code test host's client), libkrb5-dev + ripgrep (code-server's
#   install), openssh-server/-client + zsh + fish + tcsh (the real sshd tests, several login shells),
#   neovim (a third-party LSP client), gcc + python3-torch (the GPU engine on the CPU with a fake
#   driver checkpoint API), etcd-server (the real kube-apiserver's store); then the offline VS Code
#   hosts (test/vscode-host: minimum and newest), a private CRIU 4.2.1 (Debian's newer suite, unpacked
#   under .cache/criu), the npm dependencies, .venv (scripts/python/venv.sh: the pinned real ai-dynamo
#   package and ruff, from PyPI) and a real kube-apiserver built from the Go module proxy
#   (scripts/kube-apiserver.sh, cached in .cache/kube-apiserver; built in the background while the rest installs).
# Needs root (or SUDO=sudo) for apt-get; everything else stays inside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
demo=false
if [ "${1:-}" = "--demo" ]; then demo=true; fi
if $demo; then
  # The demo needs npm dependencies, python3, and a VS Code: desktop `code` or the offline host.
  want=(ca-certificates)
  command -v code >/dev/null || want+=(chromium libkrb5-dev ripgrep)
else
want=(chromium libkrb5-dev ripgrep openssh-server openssh-client zsh fish tcsh neovim iproute2 ca-certificates debian-archive-keyring gcc python3-torch etcd-server curl)
fi
missing=()
for p in "${want[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] apt-get install ${missing[*]}"
  ${SUDO:-} apt-get update -qq
  DEBIAN_FRONTEND=noninteractive ${SUDO:-} apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
kube_pid=
if ! $demo; then
  # Minutes of compiling on a fresh machine (docs/workflow.md has the figures): overlap it with the rest.
  echo "[setup] kube-apiserver (Go module proxy), in the background"
  mkdir -p .cache
  bash scripts/kube-apiserver.sh > .cache/kube-apiserver.log 2>&1 &
  kube_pid=$!
fi
lock_marker=node_modules/.dsw-lock
if [ ! -f "$lock_marker" ] || ! cmp -s package-lock.json "$lock_marker"; then
  echo "[setup] npm ci"
  npm ci --no-audit --no-fund
  cp package-lock.json "$lock_marker"
fi
if ! $demo; then
  # The integration and UI tiers run on the minimum VS Code we declare and on the newest (Node 24 from npm).
  echo "[setup] VS Code test hosts: minimum and newest"
  bash test/vscode-host/install.sh minimum newest
elif ! command -v code >/dev/null; then
  echo "[setup] VS Code test host"
  bash test/vscode-host/install.sh
fi
if ! $demo; then
  echo "[setup] Python venv"
  bash scripts/python/venv.sh
fi
if ! $demo && [ -f scripts/criu-sysroot.sh ]; then
  echo "[setup] CRIU"
  bash scripts/criu-sysroot.sh || echo "[setup] CRIU could not be prepared; the CRIU tests will say why" >&2
fi
if [ -n "$kube_pid" ]; then
  if wait "$kube_pid"; then tail -1 .cache/kube-apiserver.log
  else
    tail -5 .cache/kube-apiserver.log >&2
    echo "[setup] kube-apiserver could not be built; the Kubernetes system tests will say why" >&2
  fi
fi
