#!/bin/bash
# A Debian sid chroot holding Hugging Face transformers + PyTorch from Debian's own packages, so that
# the fixture generators of tests/tools (make_hf_fixtures.py, make_decoder_fixtures.py,
# make_marian_fixtures.py, make_hub_fixtures.mjs …) make references with the real transformers code
# (bookworm has neither python3-transformers nor a recent python3-torch). Needs root and the Debian
# archive; nothing else. From the repository's folder:
#
#   bash tests/tools/make-hf-chroot.sh [CHROOT_DIR]        (default /var/tmp/sid-root)
# and to run a command in it, with each --bind DIR mounted at the same path inside (unmounted after):
#   bash tests/tools/make-hf-chroot.sh --run [CHROOT_DIR] --bind "$PWD" -- python3 "$PWD/tests/tools/your_generator.py"
#
# Environment: DEBIAN_MIRROR (default: the Debian archive URL this machine's apt sources name, read now),
# SUITE (default sid), EXTRA_PACKAGES (more Debian packages, e.g. python3-protobuf, which transformers needs to
# convert a sentencepiece model into tokenizer.json). Safe to re-run: an existing chroot is reused and only missing packages are added.
# Everything it mounts it unmounts on exit.
set -euo pipefail

run_mode=0
if [ "${1:-}" = "--run" ]; then run_mode=1; shift; fi
ROOT=/var/tmp/sid-root
if [ "$#" -gt 0 ] && [ "$1" != "--" ] && [ "$1" != "--bind" ]; then ROOT=$1; shift; fi
binds=()
while [ "${1:-}" = "--bind" ]; do binds+=("$(realpath "$2")"); shift 2; done
if [ "${1:-}" = "--" ]; then shift; fi
SUITE=${SUITE:-sid}
PACKAGES="python3-transformers python3-torch python3-safetensors python3-tokenizers python3-sentencepiece python3-numpy ${EXTRA_PACKAGES:-}"

if [ -z "${DEBIAN_MIRROR:-}" ]; then
  # The first non-security Debian archive in the host's apt sources (deb822 .sources or one-line .list).
  DEBIAN_MIRROR=$( {
    grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{for (i = 2; i <= NF; i++) print $i}' || true
    grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print ($2 ~ /^\[/) ? $3 : $2}' || true
  } | grep -E '/debian/?$' | head -n1 || true)
fi
[ -n "$DEBIAN_MIRROR" ] || { echo "no Debian archive found in the apt sources; set DEBIAN_MIRROR" >&2; exit 1; }

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[$i]}" || umount -l "${mounted[$i]}" || true; done
}
trap cleanup EXIT
mount_in() { # fstype-or-bind source target
  local target="$ROOT/$3"
  mkdir -p "$target"
  if ! mountpoint -q "$target"; then
    if [ "$1" = bind ]; then mount --bind "$2" "$target"; else mount -t "$1" "$2" "$target"; fi
    mounted+=("$target")
  fi
}
in_root() { chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" "$@"; }

if [ "$run_mode" = 1 ]; then
  [ -x "$ROOT/usr/bin/python3" ] || { echo "no chroot at $ROOT: make it first (run this script without --run)" >&2; exit 1; }
  mount_in proc proc proc
  for dir in "${binds[@]}"; do mount_in bind "$dir" "$dir"; done
  status=0
  in_root "$@" || status=$?
  exit $status
fi

start=$SECONDS
command -v debootstrap >/dev/null || { apt-get install -y debootstrap || { apt-get update && apt-get install -y debootstrap; }; }

if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
  echo "== debootstrap $SUITE into $ROOT from $DEBIAN_MIRROR"
  debootstrap --variant=minbase "$SUITE" "$ROOT" "$DEBIAN_MIRROR"
fi
echo "== base system: $((SECONDS - start)) s, $(du -sh --one-file-system "$ROOT" | cut -f1)"

mount_in proc proc proc
mount_in bind /dev/pts dev/pts
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
printf 'deb %s %s main\n' "$DEBIAN_MIRROR" "$SUITE" > "$ROOT/etc/apt/sources.list"
# No translations; and, as on the host, do not refuse a Release file past its Valid-Until: the archive this
# machine reaches is a frozen copy (its sid Release expired weeks ago and apt-get update fails without this).
printf 'Acquire::Languages "none";\nAcquire::Check-Valid-Until "false";\n' > "$ROOT/etc/apt/apt.conf.d/90hf-chroot"

t=$SECONDS
in_root apt-get update
in_root apt-get install -y --no-install-recommends $PACKAGES
echo "== packages: $((SECONDS - t)) s, with the apt cache $(du -sh --one-file-system "$ROOT" | cut -f1)"
in_root apt-get clean

in_root python3 -c '
import sys, numpy, torch, transformers, tokenizers, safetensors, sentencepiece
print("python", sys.version.split()[0], "| numpy", numpy.__version__, "| torch", torch.__version__,
      "| transformers", transformers.__version__, "| tokenizers", tokenizers.__version__,
      "| safetensors", safetensors.__version__, "| sentencepiece", sentencepiece.__version__)'
echo "== done in $((SECONDS - start)) s; chroot size $(du -sh --one-file-system "$ROOT" | cut -f1)"
