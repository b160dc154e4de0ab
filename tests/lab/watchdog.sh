#!/bin/bash
# SPDX-License-Identifier: MIT
# The kernel's watchdog (watchdog=S, the bootable image; lab/watchdog.h):
# the test kernel's hang=costs makes the first costs run spin on CPU 0 with
# interrupts off; CPU 1's timer sees no record for 2 s and sends CPU 0 an
# NMI; the kernel reports the hung run, restarts itself and runs the next
# experiment, and its done record counts every run and the hang. Booted with
# QEMU itself: fpulab run refuses the image's options (exps, watchdog, hang).
set -u
. "$(dirname "$0")/lib.sh"

boot_lab() { # NAME CPUS CMDLINE: COM1 into $work/NAME.log, QEMU's status into $work/NAME.rc
	timeout 120 qemu-system-x86_64 -M microvm -accel tcg,thread=single -cpu max -smp "$2" \
		-m 256M -nodefaults -no-user-config -display none -serial stdio \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 -no-reboot \
		-kernel "$build/lab-test.elf" -append "$3" 2>&1 | tr -d '\r' > "$work/$1.log"
	echo "${PIPESTATUS[0]}" > "$work/$1.rc"
}
has() { grep -qF -- "$2" "$work/$1.log"; }

boot_lab hang 2 'exps=costs,short-tasks repeat=1 rt=10 policies=eager,lazy hang=costs watchdog=2'
[ "$(rc_of hang)" = 33 ] && ok "a hung run: the kernel still ends OK (status 33)" ||
	not_ok "a hung run: the kernel still ends OK (status 33)" "status $(rc_of hang)" "$(tail -n 5 "$work/hang.log")"
has hang '@fpulab hung experiment=costs policy=eager repeat=0 seconds=2' &&
	ok "hung record: the experiment, policy, repeat and seconds" ||
	not_ok "hung record: the experiment, policy, repeat and seconds" "$(grep hung "$work/hang.log")"
has hang 'watchdog: HUNG: costs, policy eager, repeat 0: no record for 2 s' &&
	ok "the console says which run hung" || not_ok "the console says which run hung"
[ "$(grep -c '^@fpulab result experiment=costs' "$work/hang.log")" = 0 ] &&
	ok "no costs result (the rest of costs was skipped)" || not_ok "no costs result"
[ "$(grep -c '^@fpulab result experiment=short-tasks' "$work/hang.log")" = 2 ] &&
	ok "the next experiment ran after the restart (short-tasks: 2 policies)" ||
	not_ok "the next experiment ran after the restart" "$(grep -c 'result experiment=short-tasks' "$work/hang.log") results"
[ "$(grep -c '^@fpulab hello' "$work/hang.log")" = 1 ] && ok "one hello record across the restart" ||
	not_ok "one hello record across the restart"
has hang '@fpulab done runs=2 skipped=0 checked=0 hung=1' && ok "done counts the runs and the hang" ||
	not_ok "done counts the runs and the hang" "$(grep done "$work/hang.log")"

# Without a hang the watchdog stays quiet; two experiments in one boot.
boot_lab quiet 1 'exps=short-tasks,costs repeat=1 rt=10 policies=eager watchdog=2'
has quiet '@fpulab done runs=3 skipped=1 checked=0 hung=0' &&
	ok "1 CPU, no hang: short-tasks and costs ran, ipi skipped, hung=0" ||
	not_ok "1 CPU, no hang" "$(grep -E 'done|skip' "$work/quiet.log")"
has quiet 'skipped: costs' && has quiet 'needs 2 CPUs, this machine runs 1' &&
	ok "1 CPU: the skip is said on the console" || not_ok "1 CPU: the skip is said on the console"

for opt in "--experiments costs" "--watchdog 5" "--hang costs"; do
	# shellcheck disable=SC2086
	"$fpulab" run $opt > "$work/out" 2> "$work/err"
	rc=$?
	[ "$rc" = 2 ] && grep -qF 'is for the bootable image' "$work/err" &&
		ok "fpulab run $opt: refused (an option of the bootable image)" ||
		not_ok "fpulab run $opt: refused" "exit $rc" "$(cat "$work/err")"
done
finish
