#!/usr/bin/env bash
# Prepares everything the GPU box needs, here (network to Debian's mirror is needed; the box has none):
#   1. CRIU 4.2.x and the libraries it needs as Debian packages from Debian's newer suite, into
#      test/gpu/criu-debs/ (ignored by git). run.sh unpacks them into a private sysroot on the box and
#      runs criu through that sysroot's own dynamic loader, so the box's libc does not matter.
#   2. A bundle directory (default out/gpu-bundle, plus out/gpu-bundle.tar.gz) with the same layout as
#      the repository: test/gpu/{run.sh,smoke.py,gpu_engine.py,README.md,criu-debs/}, media/agent,
#      media/engine. No Node, no dist/: the proof drives the agent with Python. It prints the size,
#      which must stay ≤ 64 MiB (the most a run may carry to the box).
#
#   bash test/gpu/prepare.sh [--no-bundle]
# Env: SUITE (forky), CRIU_VER (4.2.1-1), BUNDLE_DIR (out/gpu-bundle), DEBS (test/gpu/criu-debs).
# The download recipe is the one of shared/reference/worker-transport.md §3.2 (private apt state, no
# change to the system's apt sources); when scripts/criu-sysroot.sh offers a download-only mode
# (`--download-only DIR`), that script is used instead so there is one recipe.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
SUITE=${SUITE:-forky}
CRIU_VER=${CRIU_VER:-4.2.1-1}
DEBS=${DEBS:-$ROOT/test/gpu/criu-debs}
BUNDLE_DIR=${BUNDLE_DIR:-$ROOT/out/gpu-bundle}
LIMIT_MIB=64
make_bundle=true
[ "${1:-}" = "--no-bundle" ] && make_bundle=false

# The packages criu needs at run time (worker-transport.md §3.2); libc6 is the newer suite's, which is
# why criu runs through that suite's ld-linux with --library-path.
PKGS=("criu=$CRIU_VER" "libcompel1=$CRIU_VER" libc6 libgcc-s1 libbsd0 libmd0 libgnutls30t64 libnet9 libnftables1
      libnl-3-200 libprotobuf-c1 libuuid1 libunistring5 libidn2-0 libp11-kit0 libtasn1-6 libnettle8t64 libhogweed6t64
      libgmp10 libmnl0 libnftnl11 libjansson4 libxtables12 libffi8 libedit2 libtinfo6 libcap2 libzstd1)

have_debs() { ls "$DEBS"/criu_"${CRIU_VER%%-*}"*_amd64.deb >/dev/null 2>&1 && [ "$(ls "$DEBS"/*.deb | wc -l)" -ge "${#PKGS[@]}" ]; }

download_private_apt() {
  local W; W=$(mktemp -d -t dsw-apt.XXXXXX)
  trap 'rm -rf "$W"' RETURN
  mkdir -p "$W"/{lists/partial,cache/archives/partial}
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main" > "$W/sources.list"
  local APT=(-o "Dir::Etc::SourceList=$W/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$W/lists"
             -o "Dir::Cache=$W/cache" -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null -q)
  echo "[prepare] apt-get update (private state, Debian $SUITE)"
  apt-get "${APT[@]}" update >/dev/null
  mkdir -p "$DEBS"
  echo "[prepare] apt-get download ${#PKGS[@]} packages into ${DEBS#"$ROOT"/}"
  (cd "$DEBS" && apt-get "${APT[@]}" download "${PKGS[@]}" 2>&1 | grep -v unsandboxed || true)
}

if have_debs; then
  echo "[prepare] CRIU debs already in ${DEBS#"$ROOT"/} ($(ls "$DEBS"/*.deb | wc -l) packages)"
else
  if [ -f scripts/criu-sysroot.sh ] && grep -q -- '--download-only' scripts/criu-sysroot.sh; then
    echo "[prepare] using scripts/criu-sysroot.sh --download-only"
    SUITE=$SUITE CRIU_VER=$CRIU_VER bash scripts/criu-sysroot.sh --download-only "$DEBS"
  else
    download_private_apt
  fi
  ls "$DEBS"/criu_"$CRIU_VER"_*.deb >/dev/null 2>&1 \
    || { echo "[prepare] criu $CRIU_VER is not in Debian $SUITE any more: set CRIU_VER/SUITE and rerun" >&2; exit 1; }
fi

# Check here, once, that the packages give a criu whose libraries all resolve (the box cannot download).
CHECK=$(mktemp -d -t dsw-criu-check.XXXXXX)
trap 'rm -rf "$CHECK"' EXIT
for d in "$DEBS"/*.deb; do dpkg-deb -x "$d" "$CHECK"; done
L=$CHECK/usr/lib/x86_64-linux-gnu
if "$L/ld-linux-x86-64.so.2" --library-path "$L" --list "$CHECK/usr/sbin/criu" | grep "not found"; then
  echo "[prepare] criu $CRIU_VER needs libraries that are not among the packages (listed above)" >&2; exit 1
fi
echo "[prepare] $("$L/ld-linux-x86-64.so.2" --library-path "$L" "$CHECK/usr/sbin/criu" --version | head -1) — all libraries resolve"

$make_bundle || exit 0

rm -rf "$BUNDLE_DIR"; mkdir -p "$BUNDLE_DIR/test/gpu" "$BUNDLE_DIR/media"
cp test/gpu/run.sh test/gpu/smoke.py test/gpu/gpu_engine.py test/gpu/README.md "$BUNDLE_DIR/test/gpu/"
cp -r "$DEBS" "$BUNDLE_DIR/test/gpu/criu-debs"
for d in media/agent media/engine; do
  if [ -d "$d" ]; then cp -r "$d" "$BUNDLE_DIR/media/"; else echo "[prepare] warning: $d is missing" >&2; fi
done
find "$BUNDLE_DIR" -name __pycache__ -prune -exec rm -rf {} +
tar -C "$(dirname "$BUNDLE_DIR")" -czf "$BUNDLE_DIR.tar.gz" "$(basename "$BUNDLE_DIR")"
dir_kib=$(du -sk "$BUNDLE_DIR" | cut -f1)
tar_kib=$(du -k "$BUNDLE_DIR.tar.gz" | cut -f1)
echo "[prepare] bundle ${BUNDLE_DIR#"$ROOT"/}: $((dir_kib / 1024)).$(( (dir_kib % 1024) * 10 / 1024 )) MiB ($(find "$BUNDLE_DIR" -type f | wc -l) files); ${BUNDLE_DIR#"$ROOT"/}.tar.gz: $((tar_kib / 1024)).$(( (tar_kib % 1024) * 10 / 1024 )) MiB; limit $LIMIT_MIB MiB"
if [ "$dir_kib" -gt $((LIMIT_MIB * 1024)) ]; then echo "[prepare] bundle is over $LIMIT_MIB MiB" >&2; exit 1; fi
echo "[prepare] on the GPU box: bash test/gpu/run.sh --dry-run, then bash test/gpu/run.sh (from the bundle's top directory)"
