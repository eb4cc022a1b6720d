#!/usr/bin/env bash
# The real-GPU proof of the `criu` capture mode as ONE command (issue #7); see test/gpu/README.md.
#
#   bash test/gpu/run.sh [--dry-run] [--cpu] [--keep] [--work DIR] [--memory-mb N]
#
#   --dry-run  check the prerequisites only and say precisely what is missing (exit 1 if anything is)
#   --cpu      the same path with the CPU stand-in engine: CRIU only, CUDA steps skipped (no GPU, no torch)
#
# Runs on the GPU box without network and without Node: CRIU comes from the Debian packages that
# test/gpu/prepare.sh put into test/gpu/criu-debs/ (unpacked here into a private sysroot), and the
# worker-side agent (media/agent/dsw_agent.py) is driven directly with Python by test/gpu/smoke.py,
# which prints the table and exits non-zero on any failure. Every wait has a timeout; the run has a
# deadline (450 s) and this wrapper a hard one (DSW_GPU_LIMIT_S, 470 s: within the 8 minutes);
# everything started is stopped on the way out, also on Ctrl-C or SIGTERM.
# PYTHON=/path/to/python picks the interpreter (default: the first python3/python whose torch sees CUDA).
set -uo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-}
if [ -z "$PY" ]; then
  for c in python3 python; do
    if command -v "$c" >/dev/null 2>&1; then PY=$(command -v "$c"); break; fi
  done
fi
if [ -z "$PY" ]; then
  echo "missing: python3 (the agent and the proof driver are Python; the GPU path also needs PyTorch with CUDA)"
  exit 1
fi
if ! command -v timeout >/dev/null 2>&1; then
  echo "missing: timeout (coreutils): every run needs a hard time limit"
  exit 1
fi
LIMIT=${DSW_GPU_LIMIT_S:-470}
# smoke.py ends itself at its own deadline and cleans up; timeout is the backstop (TERM, then KILL 20 s later).
timeout -k 20 "$LIMIT" "$PY" test/gpu/smoke.py "$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 130' INT TERM
wait "$child"
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "FAIL: the proof did not finish within ${LIMIT}s (timeout exit $rc)"
fi
exit "$rc"
