#!/usr/bin/env bash
# Debian 13 (trixie)'s Emscripten 3.1.69 (clang 19, binaryen 120) in a chroot
# under .deps/, for the relaxed-SIMD builds only (CMakeLists.txt,
# MHA_RELAXED_SIMD). Debian 12's Emscripten 3.1.6 cannot make them: its clang 14
# emits pre-standard relaxed opcodes that V8 refuses, and its binaryen 108
# cannot read the final ones that clang 19 emits (../shared/TOOLCHAIN.md); the
# other builds stay on 3.1.6. Needs root (debootstrap, chroot, mount).
#
#   bash scripts/trixie-emscripten.sh install      make the chroot, or complete it (idempotent)
#   bash scripts/trixie-emscripten.sh ready        exit 0 when the chroot is complete
#   bash scripts/trixie-emscripten.sh run CMD...   CMD inside, in this folder
#
# `run` mounts /proc and binds the repository at its own path inside a mount
# namespace of its own (unshare -m): the mounts exist for that command alone
# and vanish with it, even if it is killed, so no mount of the repository is
# ever left inside .deps/ for an `rm -rf` to follow.
#
# Environment: DEBIAN_MIRROR (default: the Debian archive this machine's apt
# sources name).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
root="$repo/.deps/trixie-root"
# What the chroot holds; a change here completes the chroot at the next install.
packages="emscripten cmake make"
stamp="$root/.mha-packages"

ready() { [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$packages" ]; }

in_root() { # the command runs with a clean environment, as Debian's own tools expect
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}

# The first non-security Debian archive in the host's apt sources (deb822 .sources or one-line .list).
mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then
    echo "$DEBIAN_MIRROR"
    return
  fi
  {
    grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{for (i = 2; i <= NF; i++) print $i}' || true
    grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print ($2 ~ /^\[/) ? $3 : $2}' || true
  } | grep -E '/debian/?$' | head -n1
}

install() {
  ready && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "mha-wasm setup: the relaxed-SIMD builds need Debian trixie's Emscripten in a chroot; run as root:" >&2
    echo "  sudo bash scripts/trixie-emscripten.sh install" >&2
    exit 1
  fi
  local start=$SECONDS url
  url=$(mirror)
  [ -n "$url" ] || { echo "mha-wasm setup: no Debian archive in the apt sources; set DEBIAN_MIRROR" >&2; exit 1; }
  command -v debootstrap >/dev/null || {
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
  }
  if [ ! -x "$root/usr/bin/apt-get" ] || [ -f "$root/debootstrap/debootstrap.log" ]; then
    # Nothing is ever mounted in it outside `run`'s own namespace (see above),
    # so a half-made chroot is removed as plain files.
    if findmnt -rno TARGET | grep -q "^$root"; then
      echo "mha-wasm setup: something is mounted under $root; unmount it first" >&2
      exit 1
    fi
    rm -rf "$root"
    echo "mha-wasm setup: debootstrap trixie into .deps/trixie-root (Emscripten 3.1.69 for the relaxed-SIMD builds)"
    debootstrap --variant=minbase trixie "$root" "$url" >"$repo/.deps/trixie-debootstrap.log" 2>&1 || {
      tail -n 20 "$repo/.deps/trixie-debootstrap.log" >&2
      exit 1
    }
  fi
  printf 'deb %s trixie main\n' "$url" >"$root/etc/apt/sources.list"
  # No translations; and no refusal of a Release file past its Valid-Until, as
  # on the host (the archive reached here may be a frozen copy).
  printf 'Acquire::Languages "none";\nAcquire::Check-Valid-Until "false";\n' >"$root/etc/apt/apt.conf.d/90mha"
  echo "mha-wasm setup: apt-get install $packages (trixie chroot)"
  unshare -m --propagation private bash -c "$(declare -f in_root); root='$root'
    mount -t proc proc \"\$root/proc\"
    in_root apt-get update -qq
    in_root apt-get install -y -qq --no-install-recommends $packages >/dev/null
    in_root apt-get clean"
  echo "$packages" >"$stamp"
  echo "mha-wasm setup: trixie chroot ready in $((SECONDS - start)) s ($(du -sh --one-file-system "$root" | cut -f1))"
}

run() {
  ready || { echo "mha-wasm: no trixie chroot in $root: run \`bash scripts/setup.sh\` as root" >&2; exit 1; }
  local cwd
  cwd=$(pwd)
  mkdir -p "$root$repo"
  exec unshare -m --propagation private bash -c "$(declare -f in_root); root='$root'
    mount -t proc proc \"\$root/proc\"
    mount --bind '$repo' \"\$root$repo\"
    cd '$cwd'
    in_root sh -c 'cd \"\$0\" && exec \"\$@\"' '$cwd' \"\$@\"" mha-trixie "$@"
}

case "${1:-}" in
  install) install ;;
  ready) ready ;;
  run)
    shift
    run "$@"
    ;;
  *)
    echo "usage: bash scripts/trixie-emscripten.sh install | ready | run CMD..." >&2
    exit 2
    ;;
esac
