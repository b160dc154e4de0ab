#!/bin/bash
# SPDX-License-Identifier: MIT
# Sourced by the command tests: $here (this folder), $root, $fpulab (FPULAB
# or build/fpulab), a scratch folder $work removed at exit, and the TAP
# helpers of tests/tap.sh.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fpulab=${FPULAB:-$root/build/fpulab}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$root/tests/tap.sh"
