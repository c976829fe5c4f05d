#!/usr/bin/env bash
# Install Debian's Chromium for the browser test (Playwright's own browser download cannot work offline).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "Chromium is missing and this is not root: install it with 'sudo apt-get install -y chromium'." >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
command -v chromium
