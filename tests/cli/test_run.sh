#!/bin/bash
# SPDX-License-Identifier: MIT
# Tests of `fpulab run` against a fake QEMU (tests/cli/fake-qemu) that prints a
# canned guest console. TAP output; run by tests/run-tests.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fpulab=${FPULAB:-$root/build/fpulab}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: > "$work/lab.elf"
export FPULAB_QEMU="$here/fake-qemu" FAKE_QEMU_ARGS="$work/qemu-args"
# A host without hardware virtualization, so auto picks TCG wherever this runs.
printf 'processor\t: 0\nflags\t\t: fpu sse sse2 avx xsave\n' > "$work/cpuinfo-novirt"
printf 'processor\t: 0\nflags\t\t: fpu sse vmx avx xsave\n' > "$work/cpuinfo-vmx"
export FPULAB_CPUINFO="$work/cpuinfo-novirt"

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }

# run_fpulab GUEST_FILE ARGS...: runs fpulab, sets rc, out, err.
run_fpulab() {
	local guest=$1; shift
	FAKE_GUEST="$guest" "$fpulab" run --kernel "$work/lab.elf" "$@" > "$work/out" 2> "$work/err"
	rc=$?
	:
}
# expect NAME RC [needle-in-stdout|-] [needle-in-stderr|-]
expect() {
	local name=$1 want=$2 o=${3:--} e=${4:--}
	if [ "$rc" != "$want" ]; then
		not_ok "$name" "exit status $rc, expected $want" "stderr: $(tail -n 5 "$work/err")"
	elif [ "$o" != - ] && ! grep -qF -- "$o" "$work/out"; then
		not_ok "$name" "stdout lacks: $o" "stdout: $(head -c 600 "$work/out")"
	elif [ "$e" != - ] && ! grep -qF -- "$e" "$work/err"; then
		not_ok "$name" "stderr lacks: $e" "stderr: $(tail -n 8 "$work/err")"
	else
		ok "$name"
	fi
}
# json_row POLICY PLACEMENT: the JSON line of that row.
json_row() { grep -F "\"policy\": \"$1\", \"placement\": \"$2\"" "$work/out"; }
# json_has POLICY PLACEMENT 'KEY: VALUE'...
json_has() {
	local policy=$1 placement=$2 name=$3; shift 3
	local row; row=$(json_row "$policy" "$placement")
	for kv in "$@"; do
		if ! grep -qF -- "\"${kv%%:*}\":${kv#*:}" <<< "$row"; then
			not_ok "$name" "row $policy/$placement lacks \"${kv%%:*}\":${kv#*:}" "row: $row"
			return
		fi
	done
	ok "$name"
}

hello='@fpulab hello version=1 cpus=2 apic=xapic xcr0=0x7 insn=xsaveopt policies=eager,lazy kernel_size=1 user_size=1'
# result POLICY PLACEMENT REPEAT NM_TRAPS TICKS [INTEGRITY_ERRORS]: one run, 1000 round trips.
result() {
	echo "@fpulab result experiment=context-switch policy=$1 placement=$2 fp_users=one regset=sse" \
	     "repeat=$3 cpus=2 tasks=2 round_trips=1000 switches=2000 nm_traps=$4 saves=2000" \
	     "restores=2000 ipis=0 flush_ipis=0 integrity_errors=${6:-0} ticks=$5"
}

# ---- a good run: 3 repeats same-cpu, 2 repeats cross-cpu ----
{
	echo "lab: booting"; echo "$hello"
	result eager same-cpu 0 0 3000000; result lazy same-cpu 0 1000 2000000
	result eager same-cpu 1 0 5000000; result lazy same-cpu 1 1000 2500000
	result eager same-cpu 2 0 4000000; result lazy same-cpu 2 1001 1500000
	result eager cross-cpu 0 0 4000000; result lazy cross-cpu 0 1000 9000000
	result eager cross-cpu 1 0 2000000; result lazy cross-cpu 1 1000 8000000
	echo "@fpulab done runs=10"
} > "$work/good"

run_fpulab "$work/good" --format json
expect "good run exits 0" 0
missing=
for key in experiment policy placement fp_users regset cpus accel round_trips switches nm_traps \
	   saves restores ipis integrity_errors ticks_per_round_trip ticks_min ticks_max repeats clock; do
	[ "$(grep -cF "\"$key\": " "$work/out")" = 4 ] || missing="$missing $key"
done
[ -z "$missing" ] && ok "json: every required key in every row" ||
	not_ok "json: every required key in every row" "missing:$missing"
[ "$(wc -l < "$work/out")" = 4 ] && ok "json: one line per configuration and policy" ||
	not_ok "json: one line per configuration and policy" "$(wc -l < "$work/out") lines"
json_has eager same-cpu "json: eager same-cpu median/min/max over 3 runs" \
	'ticks_per_round_trip: 4000.0' 'ticks_min: 3000.0' 'ticks_max: 5000.0' 'repeats: 3' \
	'nm_traps: 0' 'accel: "tcg"' 'clock: "emulated-tsc"' 'counts_identical: true'
json_has lazy same-cpu "json: lazy same-cpu counts are medians, variation flagged" \
	'nm_traps: 1000' 'ticks_per_round_trip: 2000.0' 'ticks_min: 1500.0' 'ticks_max: 2500.0' \
	'counts_identical: false' 'vs_eager: 0.500'
json_has eager cross-cpu "json: even repeats take the lower middle run (a measured value)" \
	'ticks_per_round_trip: 2000.0' 'ticks_min: 2000.0' 'ticks_max: 4000.0' 'repeats: 2'
json_has lazy cross-cpu "json: fields the guest did not send are null, not 0" \
	'migrations: null' 'flush_ipis: 0' 'ticks_per_switch: null' 'save_insn: "xsaveopt"'

run_fpulab "$work/good" --format csv
header=$(head -n 1 "$work/out")
if [ "$rc" = 0 ] && [ "$(wc -l < "$work/out")" = 5 ] &&
   grep -q '^experiment,policy,placement,fp_users,regset,cpus,accel,clock,repeats,' <<< "$header" &&
   grep -q '^context-switch,eager,same-cpu,one,sse,2,tcg,emulated-tsc,3,1000,2000,0,' "$work/out"; then
	ok "csv: header row and one row per configuration and policy"
else
	not_ok "csv: header row and one row per configuration and policy" "$(head -n 2 "$work/out")"
fi

run_fpulab "$work/good"
expect "table says ticks are emulated" 0 "EMULATED TSC ticks under QEMU TCG -- not hardware timings"
expect "table says which accel ran" 0 "accel tcg (-accel tcg,thread=single)"
if grep -qE '^lazy +same-cpu +one +sse +1000 +2000 +1000 +2000 +2000 +0 +0 +2000\.0 +1500\.0 +2500\.0 +0\.50x +3\*$' "$work/out"; then
	ok "table: lazy same-cpu row"
else
	not_ok "table: lazy same-cpu row" "$(grep '^lazy' "$work/out")"
fi
expect "progress goes to stderr" 0 - "config 2/18 done: context-switch cross-cpu fp=one sse, 2 policies, 4 runs"

# ---- the QEMU command line ----
run_fpulab "$work/good" --policy eager,lazy --placement same-cpu --fp-users none,one \
	--regset all --round-trips 500 --repeat 3 --cpus 4 --seed 7
want='exp=context-switch policies=eager,lazy placement=same-cpu fp=none,one regset=x87,sse,avx rt=500 repeat=3 seed=7'
if grep -qxF -- "$want" "$work/qemu-args"; then ok "-append carries the options with abi.h keys"
else not_ok "-append carries the options with abi.h keys" "args: $(tr '\n' ' ' < "$work/qemu-args")"; fi
args=$(tr '\n' ' ' < "$work/qemu-args")
want="-M microvm -accel tcg,thread=single -cpu max -smp 4 -m 256M -nodefaults -no-user-config -nographic -serial stdio -device isa-debug-exit,iobase=0xf4,iosize=0x04 -no-reboot -kernel $work/lab.elf -append"
if [[ "$args" == *"$want"* ]]; then ok "QEMU command line (TCG)"; else not_ok "QEMU command line (TCG)" "$args"; fi

run_fpulab "$work/good" --policy all --experiment stress
if grep -qxF 'exp=stress' "$work/qemu-args"; then ok "--policy all sends no list (the kernel runs every policy it has); no matrix defaults for stress"
else not_ok "--policy all sends no list (the kernel runs every policy it has); no matrix defaults for stress" "$(tr '\n' ' ' < "$work/qemu-args")"; fi

run_fpulab "$work/good" --icount
args=$(tr '\n' ' ' < "$work/qemu-args")
if [[ "$args" == *"-accel tcg,thread=single -icount shift=0,sleep=off -cpu max"* ]] &&
   grep -qF "INSTRUCTION COUNT" "$work/out"; then ok "--icount: deterministic TCG, table says instructions"
else not_ok "--icount: deterministic TCG, table says instructions" "$args"; fi

FPULAB_CPUINFO="$work/cpuinfo-vmx" FPULAB_KVM_DEV=/dev/null run_fpulab "$work/good" --accel auto --format json
args=$(tr '\n' ' ' < "$work/qemu-args")
if [[ "$args" == *"-accel kvm -cpu host"* ]] && grep -qF '"clock": "hardware-tsc"' "$work/out"; then
	ok "--accel auto picks KVM when vmx shows and the device opens"
else not_ok "--accel auto picks KVM when vmx shows and the device opens" "$args"; fi

FPULAB_CPUINFO="$work/cpuinfo-vmx" FPULAB_KVM_DEV="$work/no-such-kvm" run_fpulab "$work/good" --accel auto
args=$(tr '\n' ' ' < "$work/qemu-args")
if [[ "$args" == *"-accel tcg,thread=single -cpu max"* ]]; then ok "--accel auto falls back to TCG without /dev/kvm"
else not_ok "--accel auto falls back to TCG without /dev/kvm" "$args"; fi

rm -f "$work/qemu-args"
run_fpulab "$work/good" --accel kvm
expect "--accel kvm without vmx/svm: exit 1, says why" 1 - "KVM is not usable here"
[ ! -e "$work/qemu-args" ] && ok "--accel kvm without KVM does not start QEMU" ||
	not_ok "--accel kvm without KVM does not start QEMU"
if grep -qwE 'vmx|svm' /proc/cpuinfo; then
	n=$((n + 1)); echo "ok $n - # SKIP this host has vmx/svm"
else
	FPULAB_CPUINFO='' run_fpulab "$work/good" --accel kvm
	expect "--accel kvm on this host (no vmx/svm): exit 1" 1 - "shows neither vmx nor svm"
fi

# ---- usage errors: exit 2 ----
for bad in "--no-such-option" "--placement elsewhere" "--placement same-cpu,,cross-cpu" \
	   "--cpus 0" "--cpus 65" "--repeat 0" "--round-trips 12x" "--timeout -1" "--format xml" \
	   "--accel hvf" "--fp-users one,all" "--policy Eager" "--cpus 1 --placement cross-cpu" \
	   "--icount --tcg-threads multi" "--accel kvm --icount" "--cpus" "stray-argument"; do
	# shellcheck disable=SC2086 # each entry is several words
	run_fpulab "$work/good" $bad
	expect "usage error exits 2: $bad" 2 - "usage: fpulab run"
done
run_fpulab "$work/good" --cpus 99
expect "out of range says so" 2 - "--cpus: 99 is out of range (1..64)"
run_fpulab "$work/good" --help
expect "--help exits 0" 0 "usage: fpulab run"

# ---- failures: exit 1 with the guest's last words ----
{
	echo "$hello"; result eager same-cpu 0 0 3000000
	echo "lab: cpu1 task 3: #GP error 0 rip 0xffffffff80001234"
	echo "lab: PANIC: unexpected exception"
} > "$work/panic"
FAKE_GUEST_STATUS=35 run_fpulab "$work/panic"
expect "panic: exit 1, last console lines shown" 1 - "| lab: PANIC: unexpected exception"
expect "panic: says the guest panicked" 1 - "the guest panicked (QEMU exit status 35)"

printf '%s\nlab: waiting for cpu1 forever\n' "$hello" > "$work/hang"
FAKE_GUEST_HANG=1 run_fpulab "$work/hang" --timeout 2
expect "hang: watchdog fires" 1 - "guest hung: no record for 2 s; QEMU killed"
expect "hang: last console lines shown" 1 - "| lab: waiting for cpu1 forever"

{
	echo "$hello"
	result eager same-cpu 0 0 3000000; result lazy same-cpu 0 1000 2000000
	result eager cross-cpu 0 0 3000000
	echo "lab: PANIC: lost the fpregs owner"
} > "$work/late-panic"
FAKE_GUEST_STATUS=35 run_fpulab "$work/late-panic" --format json --output "$work/rows.json"
lines=$(wc -l < "$work/rows.json" 2>/dev/null || echo none)
if [ "$rc" = 1 ] && [ "$lines" = 2 ] && grep -qF '"placement": "same-cpu"' "$work/rows.json" &&
   ! grep -qF cross-cpu "$work/rows.json"; then
	ok "--output keeps the rows completed before a later panic"
else not_ok "--output keeps the rows completed before a later panic" "rc=$rc lines=$lines"; fi
expect "the unfinished configuration is reported as such" 1 - "1 runs of the unfinished configuration were not reported"

FPULAB_QEMU=/nonexistent/qemu-system-x86_64 run_fpulab "$work/good"
expect "QEMU missing: exit 1, says how to install" 1 - "apt-get install qemu-system-x86"

{ echo "$hello"; result eager same-cpu 0 0 3000000 2; result lazy same-cpu 0 1000 2000000; echo "@fpulab done runs=2"; } > "$work/integrity"
run_fpulab "$work/integrity" --format json
expect "integrity errors: exit 1 after writing the rows" 1 '"integrity_errors": 2' "INTEGRITY ERRORS: 2 in 1 of 2 rows"

{ echo "$hello"; result eager same-cpu 0 0 3000000; } > "$work/no-done"
run_fpulab "$work/no-done"
expect "guest exits OK before done: exit 1" 1 - "the guest exited before its done record"

{ echo "$hello"; result eager same-cpu 0 0 3000000; echo "@fpulab done runs=2"; } > "$work/short"
run_fpulab "$work/short"
expect "done runs= disagrees with runs received: exit 1" 1 - "the guest says it did 2 runs, fpulab received 1"

FAKE_GUEST_STATUS=0 run_fpulab "$work/no-done"
expect "QEMU exit 0 (reset, no exit code): exit 1" 1 - "without the guest's exit code"

{ echo "$hello"; echo "@fpulab result experiment=context-switch policy=eager nm_traps=many"; result eager same-cpu 0 0 1; echo "@fpulab done runs=1"; } > "$work/malformed"
run_fpulab "$work/malformed"
expect "a malformed record fails the run" 1 - "nm_traps: 'many' is not a number"

run_fpulab "$work/good" --policy eager,fancy
expect "a policy the kernel lacks: exit 1" 1 - "policy 'fancy' is not built into this kernel (it has: eager,lazy)"

{
	echo "$hello"; result eager same-cpu 0 0 1; result eager cross-cpu 0 0 1
	result eager same-cpu 1 0 1; echo "@fpulab done runs=3"
} > "$work/out-of-order"
run_fpulab "$work/out-of-order"
expect "runs of a configuration after it was complete: exit 1" 1 - "after that configuration was complete"

run_fpulab "$work/good" --output "$work/table.txt"
if [ "$rc" = 0 ] && [ ! -s "$work/out" ] && grep -qF "EMULATED TSC" "$work/table.txt" &&
   [ "$(grep -c '^eager \|^lazy ' "$work/table.txt")" = 4 ]; then
	ok "--output FILE gets the table, stdout stays empty"
else not_ok "--output FILE gets the table, stdout stays empty" "rc=$rc"; fi

"$fpulab" run --kernel "$work/no-such.elf" > /dev/null 2> "$work/err"; rc=$?
expect "kernel missing: exit 1" 1 - "make build/lab.elf"

echo "1..$n"
[ "$failed" = 0 ]
