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
# deadline (440 s) and this wrapper a hard one (DSW_GPU_LIMIT_S, 460 s + 15 s to kill: within 8 minutes);
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
LIMIT=${DSW_GPU_LIMIT_S:-460}
# The work directory is chosen here (unless --work is given) so that this wrapper can sweep it.
work=""
prev=""
for a in "$@"; do
  case "$a" in --work=*) work=${a#--work=};; esac
  [ "$prev" = "--work" ] && work=$a
  prev=$a
done
extra=()
if [ -z "$work" ]; then
  work=/var/tmp/dsw-gpu-proof-$$
  [ -d /var/tmp ] || work=/tmp/dsw-gpu-proof-$$
  extra=(--work "$work")
fi
# smoke.py ends itself at its own deadline (440 s) and cleans up; timeout is the backstop: TERM at
# $LIMIT s, KILL 15 s later, then a sweep of whatever the run left (all within 8 minutes).
timeout -k 15 "$LIMIT" "$PY" test/gpu/smoke.py "${extra[@]}" "$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; "$PY" test/gpu/smoke.py --sweep --work "$work"; exit 130' INT TERM
wait "$child"
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "FAIL: the proof did not finish within ${LIMIT}s (timeout exit $rc)"
  "$PY" test/gpu/smoke.py --sweep --work "$work"
fi
exit "$rc"
