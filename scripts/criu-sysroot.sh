#!/usr/bin/env bash
# Private CRIU 4.2.1 from Debian's newer suite on a Debian 12 host, for the system tests' real
# checkpoint/restore of the stand-in engine (shared/reference/worker-transport.md §3.2). Debian 12's
# own criu 3.17 cannot run on kernel 6.18 (vDSO layout) and 4.1.1 fails on TCP sockets (kernel >= 6.16).
# Touches neither the system apt sources nor libc: private apt state, downloaded debs, extracted
# into $W/root, run through the newer suite's dynamic loader. Idempotent: an existing good install
# of the pinned version is kept. Result: $W/criu (a wrapper). Needs root at run time.
#   scripts/criu-sysroot.sh            # into .cache/criu
#   W=/opt/criu scripts/criu-sysroot.sh
#   scripts/criu-sysroot.sh --download-only DIR   # only the .debs, kept in DIR (test/gpu/prepare.sh
#                                                 # carries them to a box without network); no root needed
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=${W:-$ROOT/.cache/criu}; SUITE=${SUITE:-forky}; CRIU_VER=${CRIU_VER:-4.2.1-1}
DOWNLOAD_ONLY=
if [ "${1:-}" = "--download-only" ]; then
  [ -n "${2:-}" ] || { echo "usage: $0 --download-only DIR" >&2; exit 2; }
  mkdir -p "$2"; DOWNLOAD_ONLY=$(cd "$2" && pwd)
  # Same recipe, private apt state in a temporary W; the debs land in DIR.
  W=$(mktemp -d -t dsw-criu-dl.XXXXXX); trap 'rm -rf "$W"' EXIT
elif [ -n "${1:-}" ]; then
  echo "usage: $0 [--download-only DIR]" >&2; exit 2
fi
if [ -z "$DOWNLOAD_ONLY" ] && [ -x "$W/criu" ] && [ "$(cat "$W/version" 2>/dev/null)" = "$CRIU_VER" ] && "$W/criu" --version >/dev/null 2>&1; then
  echo "criu $CRIU_VER already in $W"; "$W/criu" --version; exit 0
fi
rm -rf "$W"; mkdir -p "$W"/{lists/partial,cache/archives/partial,debs,root}
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main" > "$W/sources.list"
APT=(-o "Dir::Etc::SourceList=$W/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$W/lists"
     -o "Dir::Cache=$W/cache" -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null -q)
apt-get "${APT[@]}" update >/dev/null
PKGS=("criu=$CRIU_VER" "libcompel1=$CRIU_VER" libc6 libgcc-s1 libbsd0 libmd0 libgnutls30t64 libnet9 libnftables1
      libnl-3-200 libprotobuf-c1 libuuid1 libunistring5 libidn2-0 libp11-kit0 libtasn1-6 libnettle8t64 libhogweed6t64
      libgmp10 libmnl0 libnftnl11 libjansson4 libxtables12 libffi8 libedit2 libtinfo6 libcap2 libzstd1)
DEBS=${DOWNLOAD_ONLY:-$W/debs}
(cd "$DEBS" && apt-get "${APT[@]}" download "${PKGS[@]}" 2>&1 | grep -v unsandboxed || true)
ls "$DEBS"/criu_"$CRIU_VER"_*.deb >/dev/null 2>&1 \
  || { echo "criu $CRIU_VER is not in Debian $SUITE any more: set CRIU_VER/SUITE and rerun 'criu check'" >&2; exit 1; }
if [ -n "$DOWNLOAD_ONLY" ]; then
  echo "$(ls "$DEBS"/*.deb | wc -l) packages for criu $CRIU_VER in $DEBS"; exit 0
fi
for d in "$W"/debs/*.deb; do dpkg-deb -x "$d" "$W/root"; done
L=$W/root/usr/lib/x86_64-linux-gnu
printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s %s/root/usr/sbin/criu "$@"\n' "$L" "$L" "$W" > "$W/criu"
chmod +x "$W/criu"
if "$L/ld-linux-x86-64.so.2" --library-path "$L" --list "$W/root/usr/sbin/criu" | grep "not found"; then
  echo "criu $CRIU_VER needs libraries not in PKGS (listed above)" >&2; exit 1
fi
rm -rf "$W/debs" "$W/cache" "$W/lists"
echo "$CRIU_VER" > "$W/version"
"$W/criu" --version && "$W/criu" check
