#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab run while a long run goes on (fake QEMU that paces its console): the
# guest's progress records (abi.h) show on stderr, a line every few seconds
# when stderr is not a terminal, and count as signs of life for the watchdog,
# so a run longer than --timeout succeeds as long as they keep coming. TAP.
set -u
. "$(dirname "$0")/lib.sh"
fake_qemu
export FAKE_GUEST_PACED=1
progress() { # POLICY DONE
	echo "@fpulab progress experiment=stress policy=$1 repeat=0 done=$2 target=60000 unit=switches"
}
result() { # POLICY SWITCHES
	echo "@fpulab result experiment=stress policy=$1 placement=- fp_users=all regset=all repeat=0" \
	     "cpus=2 tasks=8 round_trips=0 switches=$2 nm_traps=0 saves=4000 restores=4000 ipis=30" \
	     "integrity_errors=0 ticks=5000000"
}
# run GUEST ARGS...: fpulab run --experiment stress with stderr a file (not a terminal)
run() {
	local guest=$1; shift
	FAKE_GUEST="$guest" "$fpulab" run --kernel "$work/lab.elf" --experiment stress \
		--policy eager,lazy "$@" > "$work/out" 2> "$work/err"
	rc=$?
}

# eager runs 6 s, a progress record every second; lazy is quick.
{
	echo "$hello"
	for i in 1 2 3 4 5 6; do echo "@sleep 1"; progress eager $((i * 10000)); done
	result eager 60010
	progress lazy 30000; result lazy 60004
	echo "@fpulab done runs=2"
} > "$work/paced"
run "$work/paced" --timeout 2
holds "a 6 s run with --timeout 2 succeeds: the progress records feed the watchdog" [ "$rc" = 0 ]
lines=$(grep -cE '^fpulab: stress, policy eager \(1 of 2\): [0-9]+ of 60000 switches \([0-9]+%\); [0-9]+ s elapsed' "$work/err")
holds "stderr not a terminal: one progress line in 6 s of records every second (got $lines)" [ "$lines" = 1 ]
holds "the line says switches done of the target, its share and the time left in this run" \
	grep -qE '^fpulab: stress, policy eager \(1 of 2\): [45]0000 of 60000 switches \((67|83)%\); [0-9]+ s elapsed, ~[0-9]+ s left in this run$' "$work/err"
holds "each policy that sent progress says when it is done, with its switches" \
	grep -qF 'fpulab: stress, policy eager (1 of 2) done: 60010 switches' "$work/err"
holds "... the second one too" grep -qF 'fpulab: stress, policy lazy (2 of 2) done: 60004 switches' "$work/err"
holds "the run's rows are written" grep -qE '^lazy +- +all +all ' "$work/out"

# The same pauses without progress records: the watchdog fires.
grep -v '@fpulab progress' "$work/paced" > "$work/silent"
run "$work/silent" --timeout 2
holds "without progress records the same run hangs for the watchdog (exit 1)" [ "$rc" = 1 ]
holds "... which says no record for 2 s" grep -qF "guest hung: no record for 2 s" "$work/err"

# Progress records that do not get further are no sign of life: a guest
# whose CPUs are stuck may still have a thread that reports.
{
	echo "$hello"
	for i in 1 2 3 4 5; do echo "@sleep 1"; progress eager 10000; done
	result eager 60010; result lazy 60004; echo "@fpulab done runs=2"
} > "$work/stuck"
run "$work/stuck" --timeout 2
holds "progress records stuck at the same count: the watchdog fires (exit 1)" [ "$rc" = 1 ]
holds "... and says the run is stuck at that count" \
	grep -qE '^fpulab: [0-9]+ progress records? since the last sign of life, all at 10000 \(stress, policy eager \(1 of 2\)\): the guest.s run is stuck$' "$work/err"

# A progress record without its target is malformed: the run fails at the end.
{ echo "$hello"; echo "@fpulab progress experiment=stress policy=eager repeat=0 done=5 unit=switches"
  result eager 60010; result lazy 60004; echo "@fpulab done runs=2"; } > "$work/bad"
run "$work/bad"
holds "a malformed progress record fails the run (exit 1)" [ "$rc" = 1 ]
holds "... and stderr says which" grep -qF "malformed result, progress or integrity record ignored; the first: missing target=" "$work/err"

finish
