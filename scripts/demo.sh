#!/usr/bin/env bash
# The README's first command: install what the demo needs (once), build, run the snapshot workflow on
# the built-in local demo worker in the terminal, then open VS Code with the extension and the demo
# workspace (desktop `code` when it is on PATH, otherwise the offline VS Code host on 127.0.0.1, whose
# URL is printed). Options are passed to scripts/demo.mjs (--no-open, --port N).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --demo
exec node scripts/demo.mjs "$@"
