#!/bin/sh
# The transfer targets of issue 3 in one run on loopback: ours (DownloadLedger) beside curl and aria2c,
# all fetching from Debian's nginx, and a file paced per connection (4 MB/s each, 64 MiB) fetched by ours without
# flags (the ramp), ours --connections 16, aria2c -x16 -s16 -k1M and aria2c with its own defaults (issue 24 §3:
# ratios in the report's checks). Extra arguments go to `ledger-bench transfer` (e.g. --runs 5, --only slow).
set -eu
cd "$(dirname "$0")/../.."

missing=""
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx"
command -v aria2c >/dev/null 2>&1 || missing="$missing aria2"
[ -x /usr/bin/time ] || missing="$missing time"
command -v curl >/dev/null 2>&1 || missing="$missing curl"
if [ -n "$missing" ]; then
    echo "installing:$missing"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y $missing
fi

# Built the way README.md installs dledger (tools/static-build): the Swift runtime linked in, so the child starts
# without loading and relocating the Swift and Foundation libraries, as curl and aria2c start.
tools/static-build --product ledger-bench
exec "$(tools/static-build --show-bin-path)/ledger-bench" \
    transfer "$@"
