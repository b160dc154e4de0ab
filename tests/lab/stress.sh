#!/bin/bash
# SPDX-License-Identifier: MIT
# Experiment stress under every policy (docs/stress.md): no register state lost
# or leaked, the switch target reached, every kind of event present. Then a
# negative control: the same experiment must catch a deliberately broken
# policy (test kernel), or the clean result above would mean nothing.
set -u
. "$(dirname "$0")/lib.sh"
S=${FPULAB_STRESS_SWITCHES:-200000} # switches per policy; .ci/run asks for 10^6

# The watchdog counts seconds without a record, and the guest sends a
# progress record about every second while a policy runs: 60 s (the
# default), far less than the whole run, is enough however many switches.
timeout=60
run() {
	local name=$1
	shift
	fpulab_csv "$name" --timeout $timeout --experiment stress --seed 1 "$@"
}

# get NAME POLICY KEY: one value of a policy's row
get() {
	csv_get "$1" "$3" experiment=stress policy="$2"
}

run all --policy all --switches "$S"
rc=$(rc_of all)
policies=$(sed -En 's/.*guest up:.* policies[= ]([a-z,-]+).*/\1/p' "$work/all.err" | tr , ' ')
if [ "$rc" = 0 ] && [ -n "$policies" ]; then
	ok "stress --policy all ran: exit status 0, policies: $policies"
else
	not_ok "stress --policy all ran" "exit $rc, policies '$policies'" \
		"$(grep -v ' killed: ' "$work/all.err" | tail -n 8)"
fi
[ -n "$policies" ] || policies="eager lazy lazy-counter owner deferred smp-lazy"
# QEMU's TCG "max" model offers PKU: the lab enables it, libfpu switches PKRU,
# and every task checks its own PKRU after every step under every policy.
xcr0=$(sed -En 's/.*guest up:.* xcr0=(0x[0-9a-f]+).*/\1/p' "$work/all.err")
if [ -n "$xcr0" ] && [ $((xcr0 & 0x200)) != 0 ]; then
	ok "PKRU is in XCR0 ($xcr0): stress checked it under every policy"
else
	not_ok "PKRU is in XCR0" "xcr0 '$xcr0'"
fi

# Progress from the guest: each policy's run ends with a line on stderr,
# which only a run that sent progress records gets.
npolicies=$(wc -w <<<"$policies")
at=0
for p in $policies; do
	at=$((at + 1))
	line=$(grep -E "^fpulab: stress, policy $p \($at of $npolicies\) done: [0-9]+ switches" "$work/all.err")
	[ -n "$line" ] && ok "$p: progress from the guest on stderr: ${line#fpulab: }" ||
		not_ok "$p: progress from the guest on stderr" "$(grep -F "policy $p" "$work/all.err" | head -n 3)"
done

for p in $policies; do
	sw=$(get all "$p" switches)
	ie=$(get all "$p" integrity_errors)
	kfs=$(get all "$p" kernel_fpu_sections)
	mig=$(get all "$p" migrations)
	tasks=$(get all "$p" tasks)
	cpus=$(get all "$p" cpus)
	if [ -z "$sw" ]; then
		not_ok "$p: a stress result row" "$(tail -n 5 "$work/all.err")"
		continue
	fi
	[ "$ie" = 0 ] && ok "$p: 0 integrity errors in $sw switches" ||
		not_ok "$p: 0 integrity errors" "integrity_errors=$ie" \
			"$(grep -m 5 "^fpulab: integrity: stress, policy $p " "$work/all.err")"
	[ "$sw" -ge "$S" ] && ok "$p: switches $sw >= $S" || not_ok "$p: switches >= $S" "switches=$sw"
	sig=$(get all "$p" signals)
	sr=$(get all "$p" sigreturns)
	pr=$(get all "$p" ptrace_reads)
	pw=$(get all "$p" ptrace_writes)
	kills=$(get all "$p" kills)
	if [ "${sig:-0}" -gt 0 ] && [ "${sr:-0}" -gt 0 ] && [ "${pr:-0}" -gt 0 ] &&
		[ "${pw:-0}" -gt 0 ] && [ "${kills:-0}" -gt 0 ]; then
		ok "$p: $sig signals, $sr sigreturns, $pr ptrace reads, $pw ptrace writes, $kills tasks killed for their frames"
	else
		not_ok "$p: signals, sigreturns, ptrace reads and writes, kills all present" \
			"signals=$sig sigreturns=$sr ptrace_reads=$pr ptrace_writes=$pw kills=$kills"
	fi
	if [ "$kfs" -gt 0 ] && [ "$mig" -gt 0 ] && [ "$tasks" = $((4 * cpus)) ]; then
		ok "$p: $kfs kernel-FPU sections, $mig migrations, $tasks tasks on $cpus CPUs"
	else
		not_ok "$p: kernel-FPU sections, migrations and 4 tasks per CPU" \
			"kernel_fpu_sections=$kfs migrations=$mig tasks=$tasks cpus=$cpus"
	fi
done

# FIP/FDP/FOP at a task's first x87 use must be zero or the scrub's own
# (reg 97; CVE-2006-1056, XSA-172). Under QEMU TCG, XRSTOR of an x87 init
# state leaves the pointers as they were, on every CPU model, so the Intel
# model, where libfpu does not scrub, shows another task's pointers: the
# check can fail. --scrub forces the scrub there and closes the leak.
run intel --policy eager,lazy --switches 20000 --qemu-cpu max,vendor=GenuineIntel --verbose
p97=$(grep -c 'x87 reg 97' "$work/intel.err")
if [ "$(rc_of intel)" = 1 ] && [ "$p97" -gt 0 ]; then
	ok "FIP/FDP check fails without the scrub on the Intel model: $p97 reports"
else
	not_ok "FIP/FDP check fails without the scrub on the Intel model" "exit $(rc_of intel), $p97 reports"
fi
run intel-scrub --policy eager,lazy --switches 20000 --qemu-cpu max,vendor=GenuineIntel --scrub
for p in eager lazy; do
	ie=$(get intel-scrub "$p" integrity_errors)
	sc=$(get intel-scrub "$p" scrubs)
	if [ "$(rc_of intel-scrub)" = 0 ] && [ "$ie" = 0 ] && [ "${sc:-0}" -gt 0 ]; then
		ok "$p: forced scrub on the Intel model: $sc scrubs, 0 integrity errors"
	else
		not_ok "$p: forced scrub on the Intel model" "exit $(rc_of intel-scrub) scrubs=$sc integrity_errors=$ie" \
			"$(tail -n 5 "$work/intel-scrub.err")"
	fi
done

# The positive control of the FIP/FDP check (signal reg 6) survives a
# preemption between its x87 load and its check: the test kernel yields
# there once, and a restore then leaves the scrub's pointers: with a
# single try, one integrity error under each policy.
run yield-window --kernel "$build/lab-test.elf" --policy eager,owner --switches 20000
for p in eager owner; do
	ie=$(get yield-window "$p" integrity_errors)
	if [ "$(rc_of yield-window)" = 0 ] && [ "$ie" = 0 ]; then
		ok "$p: a preemption inside the FIP/FDP positive control is no integrity error"
	else
		not_ok "$p: a preemption inside the FIP/FDP positive control is no integrity error" \
			"exit $(rc_of yield-window) integrity_errors=$ie" "$(tail -n 5 "$work/yield-window.err")"
	fi
done

# smp-lazy: CPUs wait for each other's flush IPI in wait loops that open an
# interrupt window (irq_window). With "sti; pause; cli" TCG never took the
# IPI there, and both CPUs waited forever: seeds 7 and 18 hung every time.
for seed in 7 18; do
	fpulab_csv flush-wait-$seed --timeout 120 --experiment stress --seed $seed \
		--policy smp-lazy --switches 200000
	if [ "$(rc_of flush-wait-$seed)" = 0 ]; then
		ok "smp-lazy, seed $seed: CPUs waiting for each other's flush IPI do not hang"
	else
		not_ok "smp-lazy, seed $seed: CPUs waiting for each other's flush IPI do not hang" \
			"exit $(rc_of flush-wait-$seed)" "$(grep -v ' killed: ' "$work/flush-wait-$seed.err" | tail -n 5)"
	fi
done

# Negative control: broken-lazy trusts the registers without checking the owner.
run broken --kernel "$build/lab-test.elf" --policy broken-lazy,eager --switches 20000
e=$(get broken broken-lazy integrity_errors)
g=$(get broken eager integrity_errors)
if [ "$(rc_of broken)" = 1 ] && [ -n "$e" ] && [ "$e" -gt 0 ] && [ "$g" = 0 ]; then
	ok "stress catches broken-lazy: $e registers wrong, eager clean, exit status 1"
else
	not_ok "stress catches broken-lazy" "exit $(rc_of broken) broken-lazy=$e eager=$g" \
		"$(tail -n 5 "$work/broken.err")"
fi
finish
