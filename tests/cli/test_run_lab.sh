#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab run against the real lab kernel under real QEMU (TCG, -icount so the
# run is deterministic): the runner understands what the kernel really prints.
# The kernel's own counts are asserted by tests/lab; here only the runner.
set -u
. "$(dirname "$0")/lib.sh"
kernel=${FPULAB_LAB_KERNEL:-$(dirname "$fpulab")/lab.elf}

"$fpulab" run --kernel "$kernel" --accel tcg --icount --policy eager,lazy --placement same-cpu \
	--fp-users one --regset sse --round-trips 20 --repeat 2 --format json --timeout 30 \
	> "$work/out" 2> "$work/err"
rc=$?
if [ "$rc" = 0 ]; then ok "real lab: fpulab run exits 0"
else not_ok "real lab: fpulab run exits 0" "exit $rc" "$(tail -n 25 "$work/err")"; fi
if [ "$(wc -l < "$work/out")" = 2 ] && grep -qF '"policy": "eager"' "$work/out" &&
   grep -qF '"policy": "lazy"' "$work/out"; then ok "real lab: one JSON row per policy"
else not_ok "real lab: one JSON row per policy" "$(cat "$work/out")"; fi
missing=
for kv in '"accel": "tcg"' '"clock": "icount"' '"repeats": 2' '"round_trips": 20' \
	  '"placement": "same-cpu"' '"fp_users": "one"' '"regset": "sse"' '"integrity_errors_all_runs": 0'; do
	[ "$(grep -cF "$kv" "$work/out")" = 2 ] || missing="$missing $kv"
done
[ -z "$missing" ] && ok "real lab: rows carry the configuration, 2 runs each, no integrity errors" ||
	not_ok "real lab: rows carry the configuration, 2 runs each, no integrity errors" "missing:$missing"
if grep -qE '"ticks_per_round_trip": [0-9]+\.[0-9]' "$work/out" && ! grep -qF '"ticks_per_round_trip": null' "$work/out"; then
	ok "real lab: ticks per round trip measured"
else not_ok "real lab: ticks per round trip measured" "$(head -n 1 "$work/out")"; fi
if grep -qF 'guest up:' "$work/err" && grep -qF 'config 1/1 done' "$work/err"; then
	ok "real lab: hello and progress on stderr"
else not_ok "real lab: hello and progress on stderr" "$(cat "$work/err")"; fi

# Multi-threaded TCG: one host thread per vCPU, each pinned over QMP.
small=(--kernel "$kernel" --accel tcg --policy eager --placement same-cpu --fp-users one
       --regset sse --round-trips 20 --repeat 1 --timeout 30)
"$fpulab" run "${small[@]}" --tcg-threads multi --cpus 2 --format json > "$work/out" 2> "$work/err"
rc=$?
if [ "$rc" = 0 ] && grep -qE '"pinned": "0:[0-9]+,1:[0-9]+"' "$work/out" &&
   grep -qE '^fpulab: vCPU threads pinned: 0->cpu[0-9]+ 1->cpu[0-9]+$' "$work/err" &&
   ! grep -qF warning "$work/err"; then
	ok "real lab: --tcg-threads multi --cpus 2 pins 2 vCPU threads"
else not_ok "real lab: --tcg-threads multi --cpus 2 pins 2 vCPU threads" "exit $rc" "$(cat "$work/out")" "$(tail -n 10 "$work/err")"; fi
"$fpulab" run "${small[@]}" --tcg-threads multi --cpus 2 > "$work/out" 2> "$work/err"
rc=$?
if [ "$rc" = 0 ] && grep -qE '^# vCPU threads pinned: 0->cpu[0-9]+ 1->cpu[0-9]+$' "$work/out"; then
	ok "real lab: the table header says where the vCPUs are pinned"
else not_ok "real lab: the table header says where the vCPUs are pinned" "exit $rc" "$(head -n 4 "$work/out")" "$(tail -n 10 "$work/err")"; fi
"$fpulab" run "${small[@]}" --tcg-threads multi --cpus 2 --pin off --format json > "$work/out" 2> "$work/err"
rc=$?
if [ "$rc" = 0 ] && grep -qF '"pinned": "no"' "$work/out"; then ok "real lab: --pin off: pinned no"
else not_ok "real lab: --pin off: pinned no" "exit $rc" "$(cat "$work/out")" "$(tail -n 10 "$work/err")"; fi

# A row's unit is its experiment's (abi.h), not the context-switch's round trip, in its
# clock: under --icount the ticks are guest instructions.
"$fpulab" run --kernel "$kernel" --accel tcg --icount --experiment kernel-checksum --calls 5 \
	--repeat 1 --policy eager --fp-users one --format json --timeout 30 > "$work/kc.json" 2> "$work/kc.err"
if grep -q '"unit": "instructions per call"' "$work/kc.json" && ! grep -q '"unit": "TSC' "$work/kc.json"; then
	ok "kernel-checksum rows under --icount say their unit: instructions per call"
else
	not_ok "kernel-checksum rows under --icount say their unit: instructions per call" "$(head -c 400 "$work/kc.json")" \
		"$(tail -n 3 "$work/kc.err")"
fi

# kernel-checksum's configurations: SIMD and scalar x fp users none, one (one
# task: 'both' only when asked, and the guest skips it); the progress counter
# "config N/M" counts them, M the number still expected, N never above it.
# config_counts ERR: "N/M" of each progress line, space-separated
config_counts() { grep -oE '^fpulab: config [0-9]+/[0-9]+ done' "$1" | grep -oE '[0-9]+/[0-9]+' | tr '\n' ' '; }
"$fpulab" run --kernel "$kernel" --accel tcg --icount --experiment kernel-checksum --calls 5 \
	--repeat 1 --policy eager --format json --timeout 30 > "$work/kc4.json" 2> "$work/kc4.err"
got=$(config_counts "$work/kc4.err")
holds "kernel-checksum by default: 4 configurations, counted 1/4 to 4/4 (got: $got)" \
	[ "$got" = "1/4 2/4 3/4 4/4 " ]
holds "... none skipped, 4 rows" [ "$(grep -c '"experiment": "kernel-checksum"' "$work/kc4.json")" = 4 ]
"$fpulab" run --kernel "$kernel" --accel tcg --icount --experiment kernel-checksum --calls 5 \
	--repeat 1 --policy eager --fp-users all --format json --timeout 30 > "$work/kc6.json" 2> "$work/kc6.err"
got=$(config_counts "$work/kc6.err")
holds "--fp-users all: 6 expected, 2 skipped (needs-2-tasks), so 1/6 2/5 3/5 4/4 (got: $got)" \
	[ "$got" = "1/6 2/5 3/5 4/4 " ]
holds "... the guest said why it skipped both" grep -q 'skipped kernel-checksum same-cpu fp=both .*: needs-2-tasks' "$work/kc6.err"
holds "one policy, one run: singular" grep -qE 'config 1/4 done: .*, 1 policy, 1 run;' "$work/kc4.err"

"$fpulab" run --kernel "$kernel" --accel tcg --icount --cpus 1 --experiment kernel-checksum --calls 5 \
	--repeat 1 --policy eager --fp-users one --format json --timeout 30 > /dev/null 2> "$work/kc1.err"
holds "--cpus 1: booting ... 1 CPU (not 1 CPUs)" grep -qE '^fpulab: booting .*, 1 CPU; ticks are' "$work/kc1.err"

finish
