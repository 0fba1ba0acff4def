#!/usr/bin/env bash
# Installs the system programs the tests drive, from Debian's packages, when they are missing:
# chromium (the docs page checked in a real browser), redis-server (shared state across instances). Each entry is "<program> <debian-package>";
# extend the list with one line. Prints what it does; never fails the run itself: a test that needs a
# missing program fails with a message saying how to install it.
set -uo pipefail
NEEDED=(
  "/usr/bin/chromium chromium"
  "redis-server redis-server"
)
missing=()
for entry in "${NEEDED[@]}"; do
  read -r program package <<<"$entry"
  if [ -x "$program" ] || command -v "$program" >/dev/null 2>&1; then continue; fi
  missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "services: missing ${missing[*]} and cannot install (needs root and apt-get); install with: sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 0
fi
echo "services: apt-get install -y --no-install-recommends ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
  echo "services: apt-get update" >&2
  apt-get update >&2 && apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
    echo "services: could not install ${missing[*]}; the tests that need them will fail" >&2
fi
exit 0
