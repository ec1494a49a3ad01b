#!/usr/bin/env bash
# The one Emscripten of every wasm build (CMakeLists.txt: all five variants of
# every family, one configure): 3.1.69 or newer. That is the em++ on the PATH
# when it is that recent (emsdk: no root, no chroot), else Debian 13 (trixie)'s
# 3.1.69 (clang 19, binaryen 120) in a chroot under .deps/, which
# scripts/setup.sh makes. Debian 12's Emscripten 3.1.6 is too old: its clang 14
# emits pre-standard relaxed-SIMD opcodes that V8 refuses and its binaryen 108
# cannot read the final ones (../shared/TOOLCHAIN.md), and the package's
# loader no longer carries its workarounds (a separate pthread worker script,
# idle workers keeping Node alive). The chroot needs root (debootstrap, chroot,
# mount).
#
#   bash scripts/emscripten.sh install      make the chroot, or complete it (idempotent)
#   bash scripts/emscripten.sh ready        exit 0 when the chroot is complete
#   bash scripts/emscripten.sh describe     which Emscripten `run` uses: "<version> <em++ path|chroot>"
#   bash scripts/emscripten.sh run CMD...   CMD with that Emscripten, in this folder
#
# In the chroot, `run` mounts /proc and binds the repository at its own path
# inside a mount namespace of its own (unshare -m): the mounts exist for that
# command alone and vanish with it, even if it is killed, so no mount of the
# repository is ever left inside .deps/ for an `rm -rf` to follow.
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

# The oldest Emscripten the builds accept; CMakeLists.txt refuses an older one too.
minimum=3.1.69
# The version of the em++ on the PATH ("3.1.6"), or nothing.
host_version() {
  command -v em++ >/dev/null 2>&1 || return 0
  em++ --version 2>/dev/null | head -n1 | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1 || true
}
recent() { [ -n "$1" ] && [ "$(printf '%s\n' "$minimum" "$1" | sort -V | head -n1)" = "$minimum" ]; }

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
    echo "mha-wasm setup: the wasm builds need Emscripten >= $minimum: Debian trixie's in a chroot; run as root:" >&2
    echo "  sudo bash scripts/emscripten.sh install" >&2
    echo "(or put an em++ >= $minimum on the PATH, e.g. emsdk's, and run the build without the chroot)" >&2
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
    mkdir -p "$repo/.deps"
    echo "mha-wasm setup: debootstrap trixie into .deps/trixie-root (Emscripten 3.1.69 for the wasm builds)"
    debootstrap --variant=minbase trixie "$root" "$url" >"$repo/.deps/trixie-debootstrap.log" 2>&1 || {
      tail -n 20 "$repo/.deps/trixie-debootstrap.log" >&2
      exit 1
    }
  fi
  printf 'deb %s trixie main\n' "$url" >"$root/etc/apt/sources.list"
  # No translations; and no refusal of a Release file past its Valid-Until, as
  # on the host (the archive reached here may be a frozen copy).
  printf 'Acquire::Languages "none";\nAcquire::Check-Valid-Until "false";\n' >"$root/etc/apt/apt.conf.d/90mha"
  # What the builds never read is not written: Emscripten's prebuilt LTO and PIC system libraries (1.2 of the
  # package's 1.6 GB; no build here links with -flto or -fPIC), documentation and translations; and
  # no fsync after every file (only a crash of the machine during the install could leave a file unwritten: then
  # remove .deps/trixie-root and run the set-up again).
  # Alone here: 2.5 GB in 82 s before, 1.3 GB in 77 s (dpkg's CPU, unpacking, is the same).
  printf '%s\n' force-unsafe-io \
    'path-exclude=/usr/share/emscripten/cache/sysroot/lib/wasm32-emscripten/lto/*' \
    'path-exclude=/usr/share/emscripten/cache/sysroot/lib/wasm32-emscripten/lto-pic/*' \
    'path-exclude=/usr/share/emscripten/cache/sysroot/lib/wasm32-emscripten/pic/*' \
    'path-exclude=/usr/share/doc/*' 'path-exclude=/usr/share/locale/*' \
    >"$root/etc/dpkg/dpkg.cfg.d/90mha"
  echo "mha-wasm setup: apt-get install $packages (trixie chroot)"
  unshare -m --propagation private bash -c "$(declare -f in_root); root='$root'
    mount -t proc proc \"\$root/proc\"
    in_root apt-get update -qq
    in_root apt-get install -y -qq --no-install-recommends $packages >/dev/null
    in_root apt-get clean"
  echo "$packages" >"$stamp"
  echo "mha-wasm setup: trixie chroot ready in $((SECONDS - start)) s ($(du -sh --one-file-system "$root" | cut -f1))"
}

# Which Emscripten `run` uses: the em++ on the PATH if recent enough, else the
# chroot's (root only); else says what to do and fails.
choose() {
  local version
  version=$(host_version)
  if recent "$version"; then
    echo "$version $(command -v em++)"
  elif ready && [ "$(id -u)" = 0 ]; then
    echo "$(in_root cat /usr/share/emscripten/emscripten-version.txt | tr -d '"') chroot"
  else
    echo "mha-wasm: the wasm builds need Emscripten >= $minimum${version:+; the em++ on the PATH is $version}." >&2
    if ready; then
      echo "  Debian 13's is in $root, but entering it needs root: sudo npm run build" >&2
    else
      echo "  As root, \`bash scripts/setup.sh\` installs Debian 13's in a chroot (.deps/trixie-root);" >&2
    fi
    echo "  or put a newer em++ on the PATH (emsdk: https://emscripten.org/docs/getting_started/downloads.html)." >&2
    exit 1
  fi
}

run() {
  local chosen cwd xsimd
  chosen=$(choose)
  if [ "${chosen#* }" != chroot ]; then exec "$@"; fi
  cwd=$(pwd)
  # The xsimd headers, when they are outside the repository (XSIMD_INCLUDE_DIR
  # elsewhere, or .deps a link to another checkout's, as in a git worktree),
  # are bound at their own path too: the configure names them by that path.
  xsimd=$(cd "$repo" && realpath -m "${XSIMD_INCLUDE_DIR:-.deps/xsimd/usr/include}")
  case $xsimd/ in "$repo"/*) xsimd="" ;; esac
  mkdir -p "$root$repo" ${xsimd:+"$root$xsimd"}
  exec unshare -m --propagation private bash -c "$(declare -f in_root); root='$root'
    mount -t proc proc \"\$root/proc\"
    mount --bind '$repo' \"\$root$repo\"
    if [ -n '$xsimd' ]; then mount --bind '$xsimd' \"\$root$xsimd\"; fi
    cd '$cwd'
    in_root sh -c 'cd \"\$0\" && exec \"\$@\"' '$cwd' \"\$@\"" mha-emscripten "$@"
}

case "${1:-}" in
  install) install ;;
  ready) ready ;;
  describe) choose ;;
  run)
    shift
    run "$@"
    ;;
  *)
    echo "usage: bash scripts/emscripten.sh install | ready | describe | run CMD..." >&2
    exit 2
    ;;
esac
