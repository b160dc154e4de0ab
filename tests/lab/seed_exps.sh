#!/bin/bash
# SPDX-License-Identifier: MIT
# The seed 000 and 002 experiments' exact counts (docs/counts.md):
# fp-vs-spinner, short-tasks and kernel-checksum, under QEMU TCG.
# fp-vs-spinner is timer-driven: it runs under --icount, where the timer
# counts instructions, so its slices are the same on every host; its counts
# are asserted in terms of the slices the run reports (fp_slices, slices).
set -u
. "$(dirname "$0")/lib.sh"

# run NAME ARGS...: one boot, one run per policy
run() {
	local name=$1
	shift
	fpulab_csv "$name" --timeout 60 --repeat 1 "$@"
	if [ "$(rc_of "$name")" != 0 ]; then
		not_ok "$name: fpulab run exits 0" "exit $(rc_of "$name")" "$(tail -n 5 "$work/$name.err")"
	fi
}

# get NAME POLICY KEY [COLUMN=VALUE ...]
get() {
	local name=$1 policy=$2 key=$3
	shift 3
	csv_get "$name" "$key" policy="$policy" "$@"
}

# expect NAME POLICY "key=value ..." [COLUMN=VALUE ...]: exact values
expect() {
	local name=$1 policy=$2 kvs=$3 bad="" kv k v got
	shift 3
	for kv in $kvs; do
		k=${kv%%=*} v=${kv#*=}
		got=$(get "$name" "$policy" "$k" "$@")
		[ "$got" = "$v" ] || bad="$bad $k=$got(want $v)"
	done
	if [ -z "$bad" ]; then ok "$name $policy $*: $kvs"
	else not_ok "$name $policy $*: $kvs" "wrong:$bad"; fi
}

# ---- fp-vs-spinner (seed 000) ----
spin=(--experiment fp-vs-spinner --icount --cpus 1 --units 4000 --slice-us 500)
run spin "${spin[@]}" --policy all
F=$(get spin lazy fp_slices)
if [ -n "$F" ] && [ "$F" -ge 10 ] && [ "$F" -lt 250 ]; then ok "fp-vs-spinner: the FP task runs $F slices"
else not_ok "fp-vs-spinner: the FP task runs 10..249 slices" "fp_slices=$F"; F=0; fi
for p in eager lazy lazy-counter owner deferred smp-lazy; do
	f=$(get spin $p fp_slices)
	a=$((2 * f))
	expect spin $p "slices=$a integrity_errors=0"
	case $p in
	eager | deferred) expect spin $p "nm_traps=0 ts_writes=0 saves=$((a - 2)) restores=$a prefetches=0" ;;
	lazy) expect spin $p "nm_traps=$f ts_writes=$((2 * f + 1)) saves=$((f - 1)) restores=1 restores_skipped=$((f - 1))" ;;
	lazy-counter) expect spin $p "nm_traps=5 ts_writes=$((2 * f + 1)) prefetches=$((f - 5)) prefetches_useful=$((f - 5)) prefetches_wasted=0" ;;
	owner) expect spin $p "nm_traps=1 ts_writes=$((2 * f + 1)) saves=$((f - 1)) restores=1" ;;
	smp-lazy) expect spin $p "nm_traps=1 ts_writes=$((2 * f + 1)) saves=0 restores=1" ;;
	esac
done
run spin-always "${spin[@]}" --policy lazy-counter --prefetch always
f=$(get spin-always lazy-counter fp_slices)
expect spin-always lazy-counter "nm_traps=5 prefetches=$((2 * f)) prefetches_useful=$f prefetches_wasted=$f"
run spin-off "${spin[@]}" --policy lazy-counter --prefetch off --fpu-counter 3
expect spin-off lazy-counter "nm_traps=3 prefetches=0 prefetches_useful=0 prefetches_wasted=0"
# The counter wraps at 256: 5 traps in every 256 slices.
run spin-wrap --experiment fp-vs-spinner --icount --cpus 1 --units 10000 --slice-us 100 --policy lazy-counter
f=$(get spin-wrap lazy-counter fp_slices)
w=$((f % 256))
[ $w -gt 5 ] && w=5
if [ -n "$f" ] && [ "$f" -gt 261 ]; then ok "fp-vs-spinner wrap: $f slices, past 256 + 5"
else not_ok "fp-vs-spinner wrap: more than 261 FP slices" "fp_slices=$f"; fi
expect spin-wrap lazy-counter "nm_traps=$((5 * (f / 256) + w)) prefetches_wasted=0 integrity_errors=0"

# the table says what fp-vs-spinner's ticks are per, in abi.h's words (not "round trip")
"$fpulab" run --experiment fp-vs-spinner --icount --cpus 1 --units 50 --policy eager --repeat 1 \
	--timeout 60 > "$work/spin-table.out" 2> "$work/spin-table.err"
if grep -q "^# ticks are per unit of FP work (1000 ADDPDs):" "$work/spin-table.out" &&
   grep -q "ticks/unit median" "$work/spin-table.out"; then
	ok "fp-vs-spinner's table: ticks per unit of FP work, its column ticks/unit"
else
	not_ok "fp-vs-spinner's table: ticks per unit of FP work" "$(grep '^#' "$work/spin-table.out" | tail -n 3)" "$(tail -n 3 "$work/spin-table.err")"
fi

# ---- short-tasks (seed 002): exact for C = 1 ----
# short_case N S K: N tasks of S slices, SSE in the first K; threshold 5.
# (N is the tasks, n the TAP counter of lib.sh.)
short_case() {
	local N=$1 s=$2 k=$3 name=short-$1-$2-$3 min=$3 used=$1 cs lc p
	[ "$k" -gt 5 ] && min=5
	[ "$k" = 0 ] && used=0
	run "$name" --experiment short-tasks --cpus 1 --policy all --tasks-total "$N" --slices "$s" --fp-slices "$k"
	for p in eager deferred; do expect "$name" $p "fp_slices=$((N * k)) nm_traps=0 ts_writes=0 integrity_errors=0"; done
	expect "$name" lazy "nm_traps=$((N * k)) ts_writes=$((2 * N * k + 1)) integrity_errors=0"
	# lazy-counter: traps until the count reaches 5, then loads at switch
	if [ "$k" -ge 5 ]; then cs=$((N * (s - 5))) lc=$((2 * N * s + 1))
	else cs=0 lc=$((2 * N * k + 1)); fi
	expect "$name" lazy-counter "nm_traps=$((N * min)) prefetches=$cs prefetches_useful=$((cs ? N * (k - 5) : 0)) prefetches_wasted=$((cs ? N * (s - k) : 0)) ts_writes=$lc integrity_errors=0"
	expect "$name" owner "nm_traps=$used ts_writes=$((used ? 2 * N * s + 1 : 1)) integrity_errors=0"
	expect "$name" smp-lazy "nm_traps=$used ts_writes=$((used ? 2 * N * s + 1 : 1)) integrity_errors=0"
}
short_case 20 8 6 # K above the threshold
short_case 20 6 5 # at
short_case 20 6 3 # below
short_case 10 3 0 # no SSE at all

# Linux 2.6's rule, "> 5": one trap more per task with K above 5.
run short-gt --experiment short-tasks --cpus 1 --policy lazy-counter --fpu-counter-rule gt --tasks-total 20 --slices 8 --fp-slices 7
expect short-gt lazy-counter "nm_traps=120 integrity_errors=0"

# C = 2 on 2 CPUs: lazy, lazy-counter, owner, eager and deferred keep their
# counts whatever the order; smp-lazy traps between N and N x K.
run short-c2 --experiment short-tasks --cpus 2 --policy all --tasks-total 24 --concurrency 2 --slices 6 --fp-slices 4
expect short-c2 lazy "nm_traps=96 fp_slices=96 integrity_errors=0"
expect short-c2 lazy-counter "nm_traps=96 integrity_errors=0"
expect short-c2 owner "nm_traps=24 integrity_errors=0"
for p in eager deferred; do expect short-c2 $p "nm_traps=0 ts_writes=0 integrity_errors=0"; done
nm=$(get short-c2 smp-lazy nm_traps)
if [ -n "$nm" ] && [ "$nm" -ge 24 ] && [ "$nm" -le 96 ]; then ok "short-tasks C=2: smp-lazy traps $nm times, within N..N x K"
else not_ok "short-tasks C=2: smp-lazy traps within 24..96" "nm_traps=$nm"; fi
expect short-c2 smp-lazy "integrity_errors=0"

# The mixes: lazy traps once per FP slice, eager never.
for mix in boot build; do
	run short-$mix --experiment short-tasks --cpus 1 --policy eager,lazy,lazy-counter --tasks-total 60 --mix $mix --seed 7
	fp=$(get short-$mix lazy fp_slices)
	expect short-$mix lazy "nm_traps=$fp integrity_errors=0"
	expect short-$mix eager "nm_traps=0 fp_slices=$fp integrity_errors=0"
	lc=$(get short-$mix lazy-counter nm_traps)
	if [ -n "$lc" ] && [ -n "$fp" ] && [ "$lc" -le "$fp" ] && [ "$fp" -gt 0 ]; then ok "short-tasks mix $mix: lazy-counter $lc traps <= lazy $fp"
	else not_ok "short-tasks mix $mix: lazy-counter <= lazy" "lazy-counter=$lc lazy=$fp"; fi
done
c=$(get short-boot lazy-counter nm_traps) l=$(get short-boot lazy nm_traps)
[ "$c" = "$l" ] && ok "short-tasks mix boot: no task lives 5 FP slices, lazy-counter = lazy ($l)" ||
	not_ok "short-tasks mix boot: lazy-counter = lazy" "lazy-counter=$c lazy=$l"

# ---- kernel-checksum (seed 002): per-call counts, C calls ----
C=40
run kcsum --experiment kernel-checksum --cpus 1 --policy all --calls $C --buffer-bytes 4096
for fp in none one; do
	for p in eager deferred; do
		expect kcsum $p "nm_traps=0 ts_writes=0 saves=$C restores=$C kernel_fpu_sections=$C integrity_errors=0" fp_users=$fp regset=avx2
	done
done
for p in lazy lazy-counter owner smp-lazy; do
	expect kcsum $p "nm_traps=0 ts_writes=$((2 * C)) saves=0 restores=0 kernel_fpu_sections=$C integrity_errors=0" fp_users=none regset=avx2
	expect kcsum $p "nm_traps=$C ts_writes=$((2 * C)) saves=$C restores=$C kernel_fpu_sections=$C integrity_errors=0" fp_users=one regset=avx2
done
for p in eager lazy lazy-counter owner deferred smp-lazy; do
	for fp in none one; do
		expect kcsum $p "nm_traps=0 ts_writes=0 saves=0 restores=0 kernel_fpu_sections=0 integrity_errors=0" fp_users=$fp regset=scalar
	done
done
# An odd length (a partial block and a partial word), and SSE2 without AVX.
run kcsum-odd --experiment kernel-checksum --cpus 1 --policy lazy,eager --calls 8 --buffer-bytes 1001 --qemu-cpu max,-avx2
for p in lazy eager; do
	expect kcsum-odd $p "kernel_fpu_sections=8 integrity_errors=0" fp_users=one regset=sse2
done

finish
