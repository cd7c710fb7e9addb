#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# promtool test rules on the trend rules' tests that gen-trend-tests.py
# writes (noisy slow leaks, their flat twins, steps, sawtooths).
# Usage: test-trend-rules.sh RULES_FILE GEN_TREND_TESTS
set -eu
command -v promtool >/dev/null || { echo "SKIP: promtool is not installed"; exit 77; }
tmp=$(mktemp -d /tmp/jmem-trends.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 143' TERM INT HUP
echo "# writing the tests"
python3 "$2" "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" >"$tmp/trends.test.yml"
echo "# promtool test rules (30 hours of samples a minute per series)"
promtool test rules "$tmp/trends.test.yml"
