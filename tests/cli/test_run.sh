#!/bin/bash
# SPDX-License-Identifier: MIT
# Tests of `fpulab run` against a fake QEMU (tests/cli/fake-qemu) that prints a
# canned guest console. TAP output; run by tests/run-tests.sh.
set -u
. "$(dirname "$0")/lib.sh"
# A real kernel file (the fake QEMU never boots it: fpulab checks its ELF
# header), and a host without hardware virtualization, so auto picks TCG
# wherever this runs; cpuinfo-vmx is one with VT-x.
fake_qemu
printf 'processor\t: 0\nflags\t\t: fpu sse vmx avx xsave\n' > "$work/cpuinfo-vmx"

# run_fpulab GUEST_FILE ARGS...: runs fpulab, sets rc, out, err.
run_fpulab() {
	local guest=$1; shift
	rm -f "$FAKE_QEMU_ARGS"
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
	   saves restores ipis integrity_errors ticks_per_round_trip_median ticks_per_round_trip_min \
	   ticks_per_round_trip_max repeats clock; do
	[ "$(grep -cF "\"$key\": " "$work/out")" = 4 ] || missing="$missing $key"
done
[ -z "$missing" ] && ok "json: every required key in every row" ||
	not_ok "json: every required key in every row" "missing:$missing"
[ "$(wc -l < "$work/out")" = 4 ] && ok "json: one line per configuration and policy" ||
	not_ok "json: one line per configuration and policy" "$(wc -l < "$work/out") lines"
json_has eager same-cpu "json: eager same-cpu median/min/max over 3 runs" \
	'ticks_per_round_trip_median: 4000.0' 'ticks_per_round_trip_min: 3000.0' 'ticks_per_round_trip_max: 5000.0' 'repeats: 3' \
	'nm_traps: 0' 'accel: "tcg"' 'clock: "emulated-tsc"' 'counts_identical: true' 'pinned: "no"'
json_has lazy same-cpu "json: lazy same-cpu counts are medians, variation flagged" \
	'nm_traps: 1000' 'ticks_per_round_trip_median: 2000.0' 'ticks_per_round_trip_min: 1500.0' 'ticks_per_round_trip_max: 2500.0' \
	'counts_identical: false' 'vs_eager: 0.5'
json_has eager cross-cpu "json: even repeats take the lower middle run (a measured value)" \
	'ticks_per_round_trip_median: 2000.0' 'ticks_per_round_trip_min: 2000.0' 'ticks_per_round_trip_max: 4000.0' 'repeats: 2'
json_has lazy cross-cpu "json: fields the guest did not send are null, not 0" \
	'migrations: null' 'flush_ipis: 0' 'ticks_per_switch_median: null' 'save_insn: "xsaveopt"'

json_has eager same-cpu "json: the run options no result field says, at their defaults" \
	'prefetch: "conditional"' 'fpu_counter: 5' 'fpu_counter_rule: "ge"'
if grep -qF '"slice_us"' "$work/out"; then not_ok "json: ... slice_us only where the experiment reads it (fp-vs-spinner)" "$(json_row eager same-cpu)"
else ok "json: ... slice_us only where the experiment reads it (fp-vs-spinner)"; fi
run_fpulab "$work/good" --format json --prefetch always --fpu-counter 010 --fpu-counter-rule gt
json_has eager same-cpu "json: ... and as given, a number as the guest reads it (010 is ten)" 'prefetch: "always"' 'fpu_counter: 10' 'fpu_counter_rule: "gt"'

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
expect "table: single-threaded TCG pins nothing, and says why" 0 \
	"# vCPU threads pinned: no (single-threaded TCG: one host thread runs every vCPU)"
expect "table: under TCG the ratio is named as emulated" 0 "vs eager: ratio of emulated medians (this / eager's, same configuration), ranks policies under emulation only"
if grep -qE '^lazy +same-cpu +one +sse +1000 +2000 +1000 +- +2000 +2000 +0 +0 +2000\.0 +1500\.0 +2500\.0 +0\.50x +3\*$' "$work/out"; then
	ok "table: lazy same-cpu row"
else
	not_ok "table: lazy same-cpu row" "$(grep '^lazy' "$work/out")"
fi
expect "progress goes to stderr" 0 - "config 2/27 done: context-switch cross-cpu fp=one sse, 2 policies, 4 runs"

# ---- the QEMU command line ----
run_fpulab "$work/good" --policy eager,lazy --placement same-cpu --fp-users none,one \
	--regset all --round-trips 500 --repeat 3 --cpus 4 --fpu-counter 7
want='exp=context-switch policies=eager,lazy placement=same-cpu fp=none,one regset=x87,sse,avx rt=500 repeat=3 fpu_counter=7'
if grep -qxF -- "$want" "$work/qemu-args"; then ok "-append carries the options with abi.h keys"
else not_ok "-append carries the options with abi.h keys" "args: $(tr '\n' ' ' < "$work/qemu-args")"; fi
args=$(tr '\n' ' ' < "$work/qemu-args")
want="-M microvm -accel tcg,thread=single -cpu max -smp 4 -m 256M -nodefaults -no-user-config -nographic -serial stdio -device isa-debug-exit,iobase=0xf4,iosize=0x04 -no-reboot -kernel $work/lab.elf -append"
if [[ "$args" == *"$want"* ]]; then ok "QEMU command line (TCG)"; else not_ok "QEMU command line (TCG)" "$args"; fi
if grep -qxE -- '-S|-qmp' "$work/qemu-args"; then
	not_ok "single-threaded TCG (the default): no -S, no -qmp" "$args"
else ok "single-threaded TCG (the default): no -S, no -qmp"; fi

run_fpulab "$work/good" --policy all --experiment stress
if grep -qxF 'exp=stress' "$work/qemu-args"; then ok "--policy all sends no list (the kernel runs every policy it has); no matrix defaults for stress"
else not_ok "--policy all sends no list (the kernel runs every policy it has); no matrix defaults for stress" "$(tr '\n' ' ' < "$work/qemu-args")"; fi

run_fpulab "$work/good" --icount
args=$(tr '\n' ' ' < "$work/qemu-args")
if [[ "$args" == *"-accel tcg,thread=single -icount shift=0,sleep=off -cpu max"* ]] &&
   grep -qF "INSTRUCTION COUNT" "$work/out"; then ok "--icount: deterministic TCG, table says instructions"
else not_ok "--icount: deterministic TCG, table says instructions" "$args"; fi
if grep -qE '^lazy +same-cpu +one +sse +1000 +2000 +1000 +- +2000 +2000 +0 +0 +2000\.0 +1500\.0 +2500\.0 +- +3\*$' "$work/out" &&
   grep -qF "vs eager: not shown under --icount" "$work/out"; then
	ok "--icount: no vs-eager ratio in the table"
else not_ok "--icount: no vs-eager ratio in the table" "$(grep '^lazy\|vs eager' "$work/out")"; fi
run_fpulab "$work/good" --icount --format json
json_has lazy same-cpu "--icount: vs_eager is null in JSON" 'vs_eager: null'
json_has lazy same-cpu "--icount: a row's unit is its clock's, instructions per round trip" \
	'unit: "instructions per round trip"' 'clock: "icount"'
# A sleeping-lock row names its unit in its clock too: instructions under --icount, ticks otherwise.
lock() { # policy repeat ticks
	echo "@fpulab result experiment=sleeping-lock policy=$1 placement=- fp_users=none regset=- repeat=$2" \
	     "cpus=2 tasks=2 round_trips=60 switches=6 nm_traps=0 saves=0 restores=2 ipis=2 flush_ipis=0" \
	     "integrity_errors=0 ticks=$3 variant=task sleeps=0 wakeups=0 wake_retaken=0"
}
{ echo "$hello"; lock eager 0 68385; lock lazy 0 68317; echo "@fpulab done runs=2"; } > "$work/lock"
for clock in icount emulated; do
	want="TSC ticks per operation" icount=()
	[ "$clock" = icount ] && want="instructions per operation" icount=(--icount)
	run_fpulab "$work/lock" --experiment sleeping-lock --repeat 1 --state-api task --fp-users none \
		--tasks 2 --format json "${icount[@]}"
	if [ "$rc" = 0 ] && [ "$(grep -c "\"unit\": \"$want\"" "$work/out")" = 2 ]; then
		ok "sleeping-lock under $clock: each row's unit is \"$want\""
	else not_ok "sleeping-lock under $clock: each row's unit is \"$want\"" "exit $rc" "$(grep -o '"unit": "[^"]*"' "$work/out")" "$(tail -n 3 "$work/err")"; fi
done
# The table's ms/run and ops/s are time: from TSC ticks at the guest's rate, none from instructions.
{ echo "$hello tsc_khz=1000000"; lock eager 0 68385; lock lazy 0 68317; echo "@fpulab done runs=2"; } > "$work/lock-khz"
run_fpulab "$work/lock-khz" --experiment sleeping-lock --repeat 1 --state-api task --fp-users none --tasks 2
if grep -qE '^eager +2 +task +none .* 1139\.8 +1139\.8 +1139\.8 +0\.068 +877385 ' "$work/out"; then
	ok "sleeping-lock table: 1139.75 ticks/op at 1 GHz is 0.068 ms per 60 ops, 877385 ops/s"
else not_ok "sleeping-lock table: 1139.75 ticks/op at 1 GHz is 0.068 ms per 60 ops, 877385 ops/s" "$(grep '^eager' "$work/out")"; fi
run_fpulab "$work/lock-khz" --experiment sleeping-lock --repeat 1 --state-api task --fp-users none --tasks 2 --icount
if grep -qE '^eager +2 +task +none .* 1139\.8 +1139\.8 +1139\.8 +- +- ' "$work/out" &&
   grep -qF 'in the clock above (none here: instructions are no time)' "$work/out"; then
	ok "sleeping-lock table under --icount: no ms/run nor ops/s from instruction counts"
else not_ok "sleeping-lock table under --icount: no ms/run nor ops/s from instruction counts" "$(grep '^eager\|sleeping lock:' "$work/out")"; fi

FPULAB_CPUINFO="$work/cpuinfo-vmx" FPULAB_KVM_DEV=/dev/null run_fpulab "$work/good" --accel auto --format json
args=$(tr '\n' ' ' < "$work/qemu-args")
if [[ "$args" == *"-accel kvm -cpu host"* ]] && grep -qF '"clock": "hardware-tsc"' "$work/out"; then
	ok "--accel auto picks KVM when vmx shows and the device opens"
else not_ok "--accel auto picks KVM when vmx shows and the device opens" "$args"; fi

FPULAB_CPUINFO="$work/cpuinfo-vmx" FPULAB_KVM_DEV="$work/no-such-kvm" run_fpulab "$work/good" --accel auto
args=$(tr '\n' ' ' < "$work/qemu-args")
if [[ "$args" == *"-accel tcg,thread=single -cpu max"* ]]; then ok "--accel auto falls back to TCG without /dev/kvm"
else not_ok "--accel auto falls back to TCG without /dev/kvm" "$args"; fi

# ---- vCPU pinning: QEMU paused (-S) with a QMP socket when vCPUs have threads ----
run_fpulab "$work/good" --tcg-threads multi --pin off --format json
args=$(tr '\n' ' ' < "$work/qemu-args")
if [ "$rc" = 0 ] && [[ "$args" == *"-accel tcg,thread=multi -cpu max"* ]] &&
   ! grep -qxE -- '-S|-qmp' "$work/qemu-args"; then ok "--tcg-threads multi --pin off: no -S, no -qmp"
else not_ok "--tcg-threads multi --pin off: no -S, no -qmp" "exit $rc" "$args"; fi
json_has eager same-cpu "--pin off: JSON says pinned no" 'pinned: "no"'
run_fpulab "$work/good" --tcg-threads multi --pin off
expect "--pin off: the table says so" 0 "# vCPU threads pinned: no (--pin off)"

# A paused QEMU whose QMP socket never opens: the guest cannot start, so the
# run fails with the QMP error, not the watchdog's (--timeout stays at 60 s).
FAKE_QMP_NEVER=1 run_fpulab "$work/good" --tcg-threads multi
args=$(tr '\n' ' ' < "$work/qemu-args")
qmp=$(grep -A1 -x -- -qmp "$work/qemu-args" | tail -n 1)
sock=${qmp#unix:}; sock=${sock%,server=on,wait=off}
if [[ "$args" == *"-accel tcg,thread=multi -cpu max -smp 2 "*" -no-reboot -S -qmp unix:"*"/qmp.sock,server=on,wait=off -kernel "* ]] &&
   [[ "$sock" == */fpulab-qmp.*/qmp.sock ]]; then
	ok "--tcg-threads multi: QEMU starts paused with a QMP socket in a private directory"
else not_ok "--tcg-threads multi: QEMU starts paused with a QMP socket in a private directory" "$args"; fi
expect "QMP socket never opens: exit 1 with a clear error" 1 - \
	"fpulab: cannot start the paused guest: QMP: cannot connect to $sock within 5 s"
if grep -qF "guest hung" "$work/err"; then not_ok "QMP socket never opens: not left to the watchdog" "$(cat "$work/err")"
else ok "QMP socket never opens: not left to the watchdog"; fi
[ -n "$sock" ] && [ ! -e "$(dirname "$sock")" ] && ok "the QMP socket's directory is removed afterwards" ||
	not_ok "the QMP socket's directory is removed afterwards" "$(dirname "$sock")"

FAKE_QEMU_STDERR="qemu-system-x86_64: unable to find CPU model 'bogus'" FAKE_GUEST_STATUS=1 \
	run_fpulab /dev/null --tcg-threads multi --qemu-cpu bogus
expect "QEMU exiting before QMP answers: reported as QEMU's failure" 1 - "QEMU failed (status 1) before the guest started"
if grep -qF "QMP" "$work/err"; then not_ok "QEMU exiting before QMP answers: no QMP error" "$(cat "$work/err")"
else ok "QEMU exiting before QMP answers: no QMP error"; fi

FPULAB_CPUINFO="$work/cpuinfo-vmx" FPULAB_KVM_DEV=/dev/null FAKE_QMP_NEVER=1 run_fpulab "$work/good" --accel kvm
args=$(tr '\n' ' ' < "$work/qemu-args")
if [ "$rc" = 1 ] && [[ "$args" == *"-accel kvm -cpu host "*" -no-reboot -S -qmp unix:"*"/qmp.sock,server=on,wait=off -kernel "* ]]; then
	ok "KVM: QEMU starts paused with a QMP socket"
else not_ok "KVM: QEMU starts paused with a QMP socket" "exit $rc" "$args"; fi

rm -f "$work/qemu-args"
run_fpulab "$work/good" --accel kvm
expect "--accel kvm without vmx/svm: exit 1, says why" 1 - "KVM is not usable here"
[ ! -e "$work/qemu-args" ] && ok "--accel kvm without KVM does not start QEMU" ||
	not_ok "--accel kvm without KVM does not start QEMU"
if grep -qwE 'vmx|svm' /proc/cpuinfo; then
	skip "this host has vmx/svm"
else
	FPULAB_CPUINFO='' run_fpulab "$work/good" --accel kvm
	expect "--accel kvm on this host (no vmx/svm): exit 1" 1 - "shows neither vmx nor svm"
fi

# ---- usage errors: exit 2, one line and a hint, before QEMU starts ----
for bad in "--no-such-option" "--placement elsewhere" "--placement same-cpu,,cross-cpu" \
	   "--cpus 0" "--cpus 65" "--repeat 0" "--round-trips 12x" "--timeout -1" "--format xml" \
	   "--accel hvf" "--fp-users one,all" "--policy Eager" "--cpus 1 --placement cross-cpu" \
	   "--icount --tcg-threads multi" "--accel kvm --icount" "--cpus" "stray-argument" \
	   "--experiment no-such-experiment" "--experiment selftest" "--experiment stress --tasks 65" \
	   "--experiment stress --tasks 0" "--tasks 4" "--switches 1000" "--seed 1" \
	   "--experiment context-switch --seed 1" "--experiment stress --placement same-cpu" \
	   "--experiment stress --fp-users one" "--experiment stress --regset sse" \
	   "--experiment stress --round-trips 10" "--experiment stress --placement all" \
	   "--fp one" "--p eager" "--pin maybe" "--pin" "--cpus 1 --experiment costs --cost ipi" \
	   "--cpus 1 --experiment costs --cost nm-trap,ipi"; do
	rm -f "$work/qemu-args"
	# shellcheck disable=SC2086 # each entry is several words
	run_fpulab "$work/good" $bad
	if [ "$rc" = 2 ] && [ ! -e "$work/qemu-args" ] && [ "$(wc -l < "$work/err")" = 2 ] &&
	   grep -q '^fpulab run: ' "$work/err" && [ "$(tail -n 1 "$work/err")" = "try 'fpulab help run'" ]; then
		ok "usage error exits 2 before QEMU, one line and a hint: $bad"
	else
		not_ok "usage error exits 2 before QEMU, one line and a hint: $bad" "exit $rc" "stderr: $(cat "$work/err")"
	fi
done
run_fpulab "$work/good" --cpus 1 --experiment costs --cost ipi --repeat 1
expect "--cost ipi with --cpus 1 names both options" 2 - "--cost ipi needs --cpus 2 or more"
run_fpulab "$work/good" --cpus 1 --placement same-cpu,migrating
expect "--placement migrating with --cpus 1 names both options" 2 - \
	"--placement cross-cpu and migrating need --cpus 2 or more"
# The default and 'all' still send ipi: the guest skips it and says so (tests/lab/costs.sh).
for cost in "" "--cost all"; do
	# shellcheck disable=SC2086 # two words or none
	run_fpulab /dev/null --cpus 1 --experiment costs $cost
	if grep -qxF 'exp=costs cost=nm-trap,cr0-write,ipi' "$work/qemu-args"; then
		ok "--cpus 1 --experiment costs ${cost:-(default)}: every cost sent, the guest skips ipi"
	else not_ok "--cpus 1 --experiment costs ${cost:-(default)}: every cost sent, the guest skips ipi" \
		"exit $rc" "$(tr '\n' ' ' < "$work/qemu-args" 2> /dev/null)" "$(tail -n 2 "$work/err")"; fi
done
run_fpulab "$work/good" --cpus 99
expect "out of range says so" 2 - "--cpus: 99 is out of range (1..16)"
run_fpulab "$work/good" --experiment stress --tasks 65
expect "--tasks: the kernel's range 1..64" 2 - "--tasks: 65 is out of range (1..64)"
# The experiments as `fpulab run --list` names them, so a new one needs no edit here.
experiments=$("$fpulab" run --list | awk '/^experiments/ { on = 1; next } on && /^  [a-z0-9-]+:/ { sub(/^  /, ""); sub(/:.*/, ""); print; next } on && !/^    / { exit }')
run_fpulab "$work/good" --experiment no-such-experiment
named=$(sed -n "s/.*--experiment: unknown value 'no-such-experiment' (one of: \([a-z0-9,-]*\))$/\1/p" "$work/err" | tr , '\n')
if [ "$rc" = 2 ] && grep -qx context-switch <<< "$experiments" && grep -qx stress <<< "$experiments" &&
   [ "$(sort <<< "$named")" = "$(sort <<< "$experiments")" ]; then
	ok "--experiment: only what the kernel has, naming all $(wc -l <<< "$experiments") experiments of --list"
else
	not_ok "--experiment: only what the kernel has, naming every experiment of --list" "exit $rc" \
		"--list: $(tr '\n' ' ' <<< "$experiments")" "stderr: $(cat "$work/err")"
fi
run_fpulab "$work/good" --seed 7
expect "--seed with context-switch is refused" 2 - "--seed only applies to --experiment stress,short-tasks (this is context-switch)"
run_fpulab "$work/good" --experiment short-tasks --fp-slices 9 --slices 8
expect "short-tasks --fp-slices over --slices: refused before boot" 2 - "--fp-slices 9 is more than --slices 8"
run_fpulab "$work/good" --experiment short-tasks --fp-slices 9
expect "short-tasks --fp-slices over the default --slices 8: refused before boot" 2 - "--fp-slices 9 is more than --slices 8"
run_fpulab "$work/good" --experiment short-tasks --mix boot --slices 3
expect "short-tasks --mix boot --slices: refused (fixed's)" 2 - "--slices and --fp-slices are --mix fixed's (--mix boot draws them with --seed)"
run_fpulab "$work/good" --experiment stress --regset avx
expect "--regset with stress is refused" 2 - "--regset only applies to --experiment context-switch (this is stress)"
run_fpulab "$work/good" --seed -1
expect "--seed -1 is not a non-negative integer" 2 - "--seed: '-1' is not a non-negative integer"
run_fpulab "$work/good" --fp one
expect "an ambiguous abbreviation names the candidates" 2 - "ambiguous option '--fp' (--fp-users, --fpu-counter, --fpu-counter-rule, --fp-slices)"
run_fpulab "$work/good" --p eager
expect "an ambiguous abbreviation names the candidates (5)" 2 - "ambiguous option '--p' (--policy, --placement, --prefetch, --plot, --pin)"
run_fpulab "$work/good" --fp-u one --placement same-cpu
expect "an unambiguous abbreviation still works" 0
run_fpulab "$work/good" --experiment stress --tasks 64 --switches 100 --seed 3
if grep -qxF 'exp=stress seed=3 tasks=64 switches=100' "$work/qemu-args"; then ok "stress takes --tasks 64, --switches, --seed"
else not_ok "stress takes --tasks 64, --switches, --seed" "$(tr '\n' ' ' < "$work/qemu-args")"; fi
run_fpulab "$work/good" --cpus 1 --placement all
if [ "$rc" = 0 ] && grep -qF 'placement=same-cpu fp=' "$work/qemu-args"; then ok "--cpus 1 --placement all: same-cpu only"
else not_ok "--cpus 1 --placement all: same-cpu only" "exit $rc" "$(tr '\n' ' ' < "$work/qemu-args")" "$(tail -n 3 "$work/err")"; fi
"$fpulab" help run > "$work/out" 2> "$work/err"; rc=$?
expect "fpulab help run prints run's help" 0 "usage: fpulab run"
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
expect "hang with console output after the last record: a larger --timeout may do" 1 - \
	"the guest's console was still printing (1 line since its last record): a long run may simply need a larger --timeout"
printf '%s\n' "$hello" > "$work/hang-silent"
FAKE_GUEST_HANG=1 run_fpulab "$work/hang-silent" --timeout 1
if [ "$rc" = 1 ] && grep -qF "guest hung: no record for 1 s" "$work/err" && ! grep -qF "larger --timeout" "$work/err"; then
	ok "hang with a silent console: no --timeout hint"
else not_ok "hang with a silent console: no --timeout hint" "exit $rc" "$(cat "$work/err")"; fi

# QEMU's words when KVM fails (seen on a PVM /dev/kvm: an XRSTOR it could not
# emulate): QEMU pauses the guest and waits, which is no hang to wait out.
FAKE_QEMU_STDERR="KVM internal error. Suberror: 1" FAKE_GUEST_HANG=1 run_fpulab "$work/hang-silent" --timeout 30
expect "KVM internal error: stopped at once, QEMU's words given" 1 - \
	'KVM cannot run the guest on: QEMU said "KVM internal error. Suberror: 1" and paused it'
expect "KVM internal error: the last lines are shown" 1 - "| qemu: KVM internal error. Suberror: 1"
if grep -qF "guest hung" "$work/err"; then not_ok "KVM internal error: not left to the watchdog" "$(cat "$work/err")"
else ok "KVM internal error: not left to the watchdog"; fi

FAKE_GUEST_CHATTER=1 run_fpulab "$work/hang-silent" --timeout 2
expect "watchdog while the console still prints: the guest is still working" 1 - \
	"no record for 2 s, but the guest is still working"
expect "watchdog while the console still prints: raise --timeout" 1 - "Raise --timeout (now 2 s)"
if grep -qF "guest hung" "$work/err"; then not_ok "watchdog while the console still prints: not 'hung'" "$(cat "$work/err")"
else ok "watchdog while the console still prints: not 'hung'"; fi

{ echo "$hello"; result eager same-cpu 0 0 3000000; } > "$work/cut-short"
FAKE_QEMU_TERM=15 run_fpulab "$work/cut-short"
expect "QEMU ended by SIGTERM (it exits 0): reported as a signal" 1 - \
	"QEMU was ended by signal 15 (SIGTERM), not by fpulab; QEMU said: terminating on signal 15 from pid 4242"
if grep -qF "triple fault" "$work/err"; then not_ok "QEMU ended by SIGTERM: no triple fault guessed" "$(cat "$work/err")"
else ok "QEMU ended by SIGTERM: no triple fault guessed"; fi
FAKE_QEMU_KILL_SELF=HUP run_fpulab "$work/cut-short"
expect "QEMU killed by SIGHUP: reported as a signal" 1 - "QEMU was ended by signal 1 (SIGHUP), not by fpulab"

{
	echo "$hello"
	result eager same-cpu 0 0 3000000; result lazy same-cpu 0 1000 2000000
	result eager cross-cpu 0 0 3000000
	echo "lab: PANIC: lost the fpregs owner"
} > "$work/late-panic"
FAKE_GUEST_STATUS=35 run_fpulab "$work/late-panic" --format json --output "$work/rows.json"
lines=$(wc -l < "$work/rows.json" 2>/dev/null || echo none)
# two rows, then the line that says they are partial (docs/report.md)
if [ "$rc" = 1 ] && [ "$lines" = 3 ] && grep -qF '"placement": "same-cpu"' "$work/rows.json" &&
   ! grep -qF cross-cpu "$work/rows.json" &&
   tail -n 1 "$work/rows.json" | grep -qF '{"partial": true, "reason": "the guest panicked"'; then
	ok "--output keeps the rows completed before a later panic"
else not_ok "--output keeps the rows completed before a later panic" "rc=$rc lines=$lines"; fi
expect "the unfinished configuration is reported as such" 1 - "1 run of the unfinished configuration was not reported"

# counts of one are singular: the footer and the line that says where the rows went
{ echo "$hello"; result eager same-cpu 0 0 3000000; echo "@fpulab done runs=1"; } > "$work/one"
run_fpulab "$work/one" --policy eager --output "$work/one.txt"
expect "one run: \"1 row (1 run) written to\", not \"1 rows (1 runs)\"" 0 - "fpulab: 1 row (1 run) written to $work/one.txt"
if grep -qx "# 1 row summarising 1 run" "$work/one.txt"; then ok "... and the table's footer: \"# 1 row summarising 1 run\""
else not_ok "... and the table's footer: \"# 1 row summarising 1 run\"" "$(tail -n 3 "$work/one.txt")"; fi

echo "precious" > "$work/keep.txt"
FAKE_GUEST_STATUS=35 run_fpulab "$work/panic" --output "$work/keep.txt"
if [ "$rc" = 1 ] && [ "$(cat "$work/keep.txt")" = precious ] && grep -qF "left as it was" "$work/err"; then
	ok "--output: a run that fails before its first row leaves the file untouched"
else not_ok "--output: a run that fails before its first row leaves the file untouched" "rc=$rc" "$(cat "$work/keep.txt")"; fi
FPULAB_QEMU=/nonexistent/qemu-system-x86_64 run_fpulab "$work/good" --output "$work/keep.txt"
[ "$rc" = 1 ] && [ "$(cat "$work/keep.txt")" = precious ] && ok "--output: QEMU missing leaves the file untouched" ||
	not_ok "--output: QEMU missing leaves the file untouched" "rc=$rc"
if [ -w /dev/full ]; then
	run_fpulab "$work/good" --format json --output /dev/full
	expect "--output /dev/full: exit 1, says it cannot write" 1 - "cannot write /dev/full: No space left on device"
	expect "--output /dev/full: every row printed on stdout instead, nothing lost" 1 \
		'"policy": "lazy", "placement": "cross-cpu"' "the results follow on stdout instead"
else
	skip "/dev/full is not writable here"
	skip "/dev/full is not writable here"
fi
# not_started NAME: QEMU was not started (the fake records its arguments when it is).
not_started() {
	if [ -e "$FAKE_QEMU_ARGS" ]; then not_ok "$1: QEMU not started" "it was"
	else ok "$1: QEMU not started"; fi
}
mkdir "$work/a-directory"
run_fpulab "$work/good" --output "$work/a-directory"
expect "--output to a directory: exit 2 before boot" 2 - "--output $work/a-directory: is a directory"
not_started "--output to a directory"
run_fpulab "$work/good" --output "$work/no-such-dir/x.json"
expect "--output in a missing folder: exit 2 before boot" 2 - "cannot create a file in $work/no-such-dir"
not_started "--output in a missing folder"
cp "$work/lab.elf" "$work/kernel-copy.elf"
ln -s "$work/kernel-copy.elf" "$work/kernel-link"
rm -f "$FAKE_QEMU_ARGS"; FAKE_GUEST="$work/good" "$fpulab" run --kernel "$work/kernel-copy.elf" --output "$work/kernel-link" \
	> "$work/out" 2> "$work/err"; rc=$?
expect "--output naming the kernel (through a link): exit 2" 2 - "is the kernel (--kernel $work/kernel-copy.elf)"
not_started "--output naming the kernel"
cmp -s "$work/lab.elf" "$work/kernel-copy.elf" && ok "--output naming the kernel: kernel untouched" ||
	not_ok "--output naming the kernel: kernel untouched"
mkfifo "$work/fifo"
cat "$work/fifo" > "$work/from-fifo" &
run_fpulab "$work/good" --format csv --output "$work/fifo"
wait
[ "$rc" = 0 ] && [ -p "$work/fifo" ] && [ "$(wc -l < "$work/from-fifo")" = 5 ] &&
	ok "--output a FIFO: written in place (header and 4 rows)" ||
	not_ok "--output a FIFO: written in place (header and 4 rows)" "rc=$rc" "$(cat "$work/err")"

# ---- --kernel checked before boot ----
head -c 65536 /dev/zero > "$work/zeros.elf"
rm -f "$FAKE_QEMU_ARGS"; FAKE_GUEST="$work/good" "$fpulab" run --kernel "$work/zeros.elf" > "$work/out" 2> "$work/err"; rc=$?
expect "--kernel zero-filled: exit 2, one line" 2 - "--kernel $work/zeros.elf: not an ELF file (it starts with 00 00 00 00)"
[ "$(wc -l < "$work/err")" = 1 ] && ok "--kernel zero-filled: one line" || not_ok "--kernel zero-filled: one line" "$(cat "$work/err")"
not_started "--kernel zero-filled"
rm -f "$FAKE_QEMU_ARGS"; FAKE_GUEST="$work/good" "$fpulab" run --kernel "$fpulab" > "$work/out" 2> "$work/err"; rc=$?
expect "--kernel a host program: exit 2" 2 - "--kernel $fpulab: "
not_started "--kernel a host program"
rm -f "$FAKE_QEMU_ARGS"; FAKE_GUEST="$work/good" "$fpulab" run --kernel "$work" > "$work/out" 2> "$work/err"; rc=$?
expect "--kernel a directory: exit 2, said so (not 'build it')" 2 - "--kernel $work: a directory, not a kernel file"
not_started "--kernel a directory"
# An x86-64 executable without the PVH note: lab.elf with its note type changed.
cp "$work/lab.elf" "$work/no-note.elf"
u() { od -An -t "u$1" -j "$2" -N "$1" "$work/lab.elf" | tr -d ' '; }
phoff=$(u 8 32) phnum=$(u 2 56)
for i in $(seq 0 $((phnum - 1))); do
	[ "$(u 4 $((phoff + 56 * i)))" = 4 ] || continue # PT_NOTE: its first note's n_type := 99
	printf '\143' | dd of="$work/no-note.elf" bs=1 seek=$(($(u 8 $((phoff + 56 * i + 8))) + 8)) conv=notrunc 2> /dev/null
done
rm -f "$FAKE_QEMU_ARGS"; FAKE_GUEST="$work/good" "$fpulab" run --kernel "$work/no-note.elf" > "$work/out" 2> "$work/err"; rc=$?
expect "--kernel without the PVH note: exit 2" 2 - "without the PVH entry note"
not_started "--kernel without the PVH note"

# ---- QEMU's own failures ----
FAKE_QEMU_STDERR="qemu-system-x86_64: unable to find CPU model 'bogus'" FAKE_GUEST_STATUS=1 \
	run_fpulab /dev/null --qemu-cpu bogus
expect "QEMU failing by itself: said so, with its status" 1 - "QEMU failed (status 1) before the guest started"
expect "QEMU failing by itself: its own message shown" 1 - "  qemu-system-x86_64: unable to find CPU model 'bogus'"
if grep -qF "the guest exited with code" "$work/err"; then not_ok "QEMU failing is not blamed on the guest" "$(cat "$work/err")"
else ok "QEMU failing is not blamed on the guest"; fi
FPULAB_QEMU=/bin/false run_fpulab /dev/null
expect "FPULAB_QEMU=/bin/false: QEMU failed" 1 - "QEMU failed (status 1)"
expect "FPULAB_QEMU=/bin/false: says QEMU printed nothing" 1 - "(nothing on stderr)"
FAKE_QEMU_STDERR="qemu-system-x86_64: warning: host doesn't support requested feature" FAKE_GUEST_STATUS=35 \
	run_fpulab "$work/panic"
if [ "$rc" = 1 ] && grep -qF "| qemu-system-x86_64: warning:" "$work/err" && ! grep -qF "qemu: qemu" "$work/err"; then
	ok "QEMU's own lines in the tail carry one prefix, not two"
else not_ok "QEMU's own lines in the tail carry one prefix, not two" "$(cat "$work/err")"; fi

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
expect "--kernel missing: exit 2" 2 - "make build/lab.elf"

# ---- stress rows: no round trips, no ratio ----
stress() {
	echo "@fpulab result experiment=stress policy=$1 repeat=0 cpus=2 tasks=8 round_trips=0" \
	     "switches=5000 nm_traps=$2 saves=4000 restores=4000 ipis=30 integrity_errors=0 ticks=$3"
}
{ echo "$hello"; stress eager 0 10000000; stress lazy 3000 5000000; echo "@fpulab done runs=2"; } > "$work/stress"
run_fpulab "$work/stress" --experiment stress
if [ "$rc" = 0 ] && grep -qE '^lazy +- +- +- +- +5000 +3000 +- +4000 +4000 +30 +0 +1000\.0 +1000\.0 +1000\.0 +- +1$' "$work/out" &&
   grep -qF "vs eager: not shown for stress" "$work/out"; then
	ok "table: stress rows show '-' for round trips and the ratio"
else not_ok "table: stress rows show '-' for round trips and the ratio" "exit $rc" "$(cat "$work/out")"; fi

# ---- every count of a row comes from one run: the median run ----
mixed() { # TICKS SWITCHES SAVES
	echo "@fpulab result experiment=context-switch policy=eager placement=same-cpu fp_users=one" \
	     "regset=sse repeat=0 cpus=2 round_trips=1000 switches=$2 nm_traps=0 saves=$3" \
	     "restores=2000 ipis=0 integrity_errors=0 ticks=$1"
}
{ echo "$hello"; mixed 3000000 2000 2004; mixed 4000000 2004 2000; mixed 5000000 2002 2002; echo "@fpulab done runs=3"; } > "$work/mixed"
run_fpulab "$work/mixed" --format json
json_has eager same-cpu "median row: switches and saves from the median-ticks run, not field by field" \
	'switches: 2004' 'saves: 2000' 'ticks: 4000000' 'ticks_per_round_trip_median: 4000.0' 'counts_identical: false'

# ---- skip records: echoed, and the expected count follows the guest ----
{
	echo "${hello/xcr0=0x7/xcr0=0x3}"; result eager same-cpu 0 0 3000000
	echo "@fpulab skip experiment=context-switch placement=same-cpu fp_users=one regset=avx reason=no-avx-state"
	echo "@fpulab done runs=1 skipped=1"
} > "$work/no-avx"
run_fpulab "$work/no-avx" --placement same-cpu --fp-users one --regset sse,avx
expect "a guest skip record is echoed on stderr" 0 - "fpulab: the guest skipped context-switch same-cpu fp=one avx: no-avx-state"
expect "the skipped configuration is not counted" 0 - "config 1/1 done: context-switch same-cpu fp=one sse"
{ echo "$hello"; echo "@fpulab done runs=0 skipped=0 checked=1"; } > "$work/checked"
run_fpulab "$work/checked" --check-options --experiment stress --tasks 64
if [ "$rc" = 0 ] && grep -qF 'accepted every option' "$work/err" && ! grep -qv '^#' "$work/out" &&
   grep -qxF 'exp=stress tasks=64 check=1' "$work/qemu-args"; then
	ok "--check-options: check=1 sent, the kernel's verdict on stderr, no table"
else
	not_ok "--check-options: check=1 sent, the kernel's verdict on stderr, no table" "exit $rc" \
		"$(tr '\n' ' ' < "$work/qemu-args")" "$(tail -n 3 "$work/err")"
fi
# It runs no configuration by design: nothing is partial, in any format.
for args in "--experiment stress --tasks 64" "--experiment sleeping-lock --tasks 64" \
	    "--experiment sleeping-lock --tasks 64 --format json" "--format csv"; do
	# shellcheck disable=SC2086 # each entry is several words
	run_fpulab "$work/checked" --check-options $args
	if [ "$rc" = 0 ] && grep -qF 'accepted every option' "$work/err" &&
	   ! grep -qi partial "$work/out" "$work/err"; then
		ok "--check-options $args: exit 0, no PARTIAL line"
	else
		not_ok "--check-options $args: exit 0, no PARTIAL line" "exit $rc" \
			"$(grep -i partial "$work/out" "$work/err")"
	fi
done

finish
