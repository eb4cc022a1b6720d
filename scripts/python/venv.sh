#!/usr/bin/env bash
# Creates .venv (ignored) with the pinned Python packages the tests use: the real ai-dynamo package
# (the worker-side oracle, docs/compatibility.md) and ruff. A second run with unchanged pins only checks.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The system interpreter when there is one: a venv on a Python under a private home (pyenv in /root)
# cannot be run by other users, and the ssh tests run the real lifecycle as a non-root user.
py=${DSW_PYTHON:-}
if [ -z "$py" ]; then
  if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import venv, ensurepip" 2>/dev/null; then py=/usr/bin/python3; else py=python3; fi
fi
marker=.venv/.dsw-pins
pins="python $("$py" -c 'import sys; print(sys.executable, sys.version.split()[0])')
$(cat scripts/python/requirements-nodeps.txt scripts/python/requirements.txt)"
if [ -f "$marker" ] && [ "$(cat "$marker")" = "$pins" ] && [ -x .venv/bin/python ]; then
  echo "[venv] already installed"; exit 0
fi
rm -rf .venv
"$py" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -r scripts/python/requirements-nodeps.txt
.venv/bin/python -m pip install -q --disable-pip-version-check -r scripts/python/requirements.txt
# Fails loudly if the pinned package moved: the lifecycle, Dynamo's logging and the restore-context parser.
.venv/bin/python -c "import dynamo.common.snapshot.lifecycle, dynamo.runtime.logging; from dynamo.common.snapshot.restore_context import parse_snapshot_restore_runtime_config as p; p([])"
printf '%s' "$pins" >"$marker"
echo "[venv] $(.venv/bin/python -m pip list --format=freeze 2>/dev/null | grep -E '^(ai-dynamo|ruff|pydantic)' | tr '\n' ' ')"
