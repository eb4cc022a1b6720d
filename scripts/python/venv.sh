#!/usr/bin/env bash
# Creates .venv (ignored) with the pinned Python packages the tests use: the real ai-dynamo package
# (the worker-side oracle, docs/compatibility.md) and ruff. A second run with unchanged pins only checks.
set -euo pipefail
cd "$(dirname "$0")/../.."
py=${DSW_PYTHON:-python3}
marker=.venv/.dsw-pins
pins=$(cat scripts/python/requirements-nodeps.txt scripts/python/requirements.txt)
if [ -f "$marker" ] && [ "$(cat "$marker")" = "$pins" ] && [ -x .venv/bin/python ]; then
  echo "[venv] already installed"; exit 0
fi
rm -rf .venv
"$py" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -r scripts/python/requirements-nodeps.txt
.venv/bin/python -m pip install -q --disable-pip-version-check -r scripts/python/requirements.txt
.venv/bin/python -c "import dynamo.common.snapshot.lifecycle" # fails loudly if the pinned package moved
printf '%s' "$pins" >"$marker"
echo "[venv] $(.venv/bin/python -m pip list --format=freeze 2>/dev/null | grep -E '^(ai-dynamo|ruff)' | tr '\n' ' ')"
