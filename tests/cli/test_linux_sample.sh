#!/bin/bash
# SPDX-License-Identifier: MIT
# tools/linux-sample (make run's recorded Linux workload): its arguments;
# where recording does not work (perf missing here, through FPULAB_PERF),
# why not, exit 0, nothing written and an earlier run's files gone; and,
# when this machine can record, a second of a scratch clone compiling,
# replayed and summarised. TAP output.
set -u
. "$(dirname "$0")/lib.sh"
sample=$root/tools/linux-sample
export FPULAB=$fpulab

check "-h: the usage" 0 "tools/linux-sample [-o DIR] [--seconds N]" - -- "$sample" -h
check "--seconds 0: refused" 2 - "--seconds needs a whole number of seconds, 1 or more" -- "$sample" -o "$work/r" --seconds 0
check "an unknown argument: refused" 2 - "unknown argument '--bogus'" -- "$sample" --bogus
mkdir -p "$work/r"
: > "$work/r/linux.json"
: > "$work/r/linux.trace"
FPULAB_PERF=$work/none check "perf missing: why not, exit 0" 0 - "linux-sample: no Linux recording: perf is not installed (no '$work/none' executable there)" -- "$sample" -o "$work/r"
holds "... nothing written, an earlier run's rows removed" test ! -e "$work/r/linux.json" -a ! -e "$work/r/linux.trace"

if "$fpulab" trace record --check > /dev/null 2> "$work/why"; then
	check "live: a second of a compile recorded and replayed" 0 - "linux-sample: recording 1 s of this Linux while \`make -s -j2 all\` builds a scratch clone" -- "$sample" -o "$work/r" --seconds 1
	holds "live: the trace and replay's rows written" test -s "$work/r/linux.trace" -a -s "$work/r/linux.json"
	check "live: the summary's Linux section" 0 "linux: a recorded Linux workload replayed under every policy ($work/r/linux.trace): make-fpulab," - -- "$fpulab" summary "$work/r/linux.json"
	holds "live: ... with Linux's own counts" grep -q "^  Linux's own: [0-9]* saves, [0-9]* restores; deferred" "$work/out"
else
	skip "live: tools/linux-sample --seconds 1" "recording does not work here: $(sed 's/^fpulab trace record: //' "$work/why")"
fi
finish
