#!/bin/bash
# SPDX-License-Identifier: MIT
# Every injected fault (docs/policies.md) is detected. Stress runs on the test
# kernel (fpulab run --inject boots lab-test.elf); a fault counts as detected
# when the policies it breaks report integrity errors, or, for the one QEMU
# TCG cannot show as lost state, by what TCG does show.
set -u
. "$(dirname "$0")/lib.sh"

# The watchdog counts seconds without a record (stress sends a progress record
# about every second): 300 s leaves room for a host loaded by other QEMUs.
run() {
	local name=$1
	shift
	fpulab_csv "$name" --timeout 300 "$@"
}

# get NAME POLICY KEY
get() {
	csv_get "$1" "$3" policy="$2"
}

# detected FAULT SWITCHES POLICY...: stress under those policies finds integrity errors in each
detected() {
	local fault=$1 switches=$2 list
	shift 2
	list=$(echo "$@" | tr ' ' ,)
	run "$fault" --experiment stress --seed 1 --policy "$list" --switches "$switches" --inject "$fault"
	for p in "$@"; do
		e=$(get "$fault" "$p" integrity_errors_all_runs)
		if [ "$(rc_of "$fault")" = 1 ] && [ -n "$e" ] && [ "$e" -gt 0 ]; then
			ok "$fault is detected under $p ($e registers wrong)"
		else
			not_ok "$fault is detected under $p" "exit $(rc_of "$fault"), integrity errors '$e'" \
				"$(grep -v ' killed: ' "$work/$fault.err" | tail -n 4)"
		fi
	done
}

detected skip-save-on-migrate 50000 eager lazy lazy-counter owner deferred smp-lazy adaptive
# An import (sigreturn, ptrace write) that leaves the old registers live: the
# task runs on with them instead of the frame's values, under every policy.
detected import-stale-regs 30000 eager lazy lazy-counter owner deferred smp-lazy adaptive
# Its integrity errors reach the results without --verbose: the first few
# as table footnotes with the seed that replays them, and in JSON.
"$fpulab" run --accel tcg --timeout 300 --experiment stress --seed 7 --policy eager \
	--switches 20000 --inject import-stale-regs > "$work/stale.table" 2> "$work/stale.table.err"
echo $? > "$work/stale.table.rc"
note='^#   eager, repeat 0: cpu [0-9]+ task [0-9]+ [a-z0-9]+ reg [0-9]+: expected 0x[0-9a-f]+, found 0x[0-9a-f]+ \([0-9]+ registers? wrong\)$'
if [ "$(rc_of stale.table)" = 1 ] && grep -qE "$note" "$work/stale.table" &&
	grep -qE '^# replay with random seed 7: fpulab run .*--seed 7' "$work/stale.table"; then
	ok "import-stale-regs: the table's footnotes give CPU, task, register, expected, found and the seed: $(grep -m 1 -E "$note" "$work/stale.table" | sed 's/^#  *//')"
else
	not_ok "import-stale-regs: the table's footnotes give CPU, task, register, expected, found and the seed" \
		"exit $(rc_of stale.table)" "$(tail -n 8 "$work/stale.table")"
fi
"$fpulab" run --accel tcg --timeout 300 --experiment stress --seed 7 --policy eager \
	--switches 20000 --inject import-stale-regs --format json > "$work/stale.json" 2> "$work/stale.json.err"
report='"integrity_reports": \[\{"repeat": 0, "cpu": [0-9]+, "task": [0-9]+, "regset": "[a-z0-9]+", "reg": [0-9]+, "expected": "0x[0-9a-f]+", "found": "0x[0-9a-f]+", "registers_wrong": [0-9]+\}'
if grep -qE "$report" "$work/stale.json" && grep -qF '"random_seed": "7"' "$work/stale.json"; then
	ok "import-stale-regs: the JSON row carries integrity_reports and random_seed"
else
	not_ok "import-stale-regs: the JSON row carries integrity_reports and random_seed" \
		"$(head -c 1500 "$work/stale.json")" "$(tail -n 4 "$work/stale.json.err")"
fi
detected skip-restore-after-flush 100000 smp-lazy
# Not under eager: kernel_fpu_end reloads the task's state whatever the owner says.
detected no-invalidate-on-kernel-fpu 50000 lazy lazy-counter owner deferred smp-lazy adaptive
# Only smp-lazy and adaptive keep a dead task's state live on another CPU
# long enough for a later save to land in the save area of the task that
# reuses it.
detected stale-owner-after-exit 200000 smp-lazy adaptive

# PKRU is enforced in ring 3 whatever CR0.TS says. Loaded only with the other
# registers, it stays the last task's through every slice a lazy policy does
# not restore; eager restores at every switch and stays clean. Only where the
# CPU model offers PKU (QEMU's TCG max does).
run lazy-pkru-eager --experiment stress --seed 1 --policy eager --switches 50000 --inject lazy-pkru
xcr0=$(get lazy-pkru-eager eager xcr0)
if [ -z "$xcr0" ] || [ $((xcr0 & 0x200)) = 0 ]; then
	skip "lazy-pkru is detected" "the CPU model has no PKU (XCR0 '$xcr0')"
else
	e=$(get lazy-pkru-eager eager integrity_errors_all_runs)
	if [ "$(rc_of lazy-pkru-eager)" = 0 ] && [ "$e" = 0 ]; then
		ok "lazy-pkru is harmless under eager (it loads PKRU at every switch): 0 integrity errors"
	else
		not_ok "lazy-pkru is harmless under eager" "exit $(rc_of lazy-pkru-eager), integrity errors '$e'"
	fi
	detected lazy-pkru 50000 lazy lazy-counter owner deferred smp-lazy adaptive
fi

# skip-clts-before-restore: on hardware XRSTOR with CR0.TS set raises #NM in
# ring 0. QEMU 7.2 TCG does not fault there, so what shows depends on
# the CPU model: QEMU's AuthenticAMD "max" lacks XSaveErPtr, so libfpu scrubs
# FIP/FDP/FOP with an x87 load right before the restore, and that load traps.
run clts-amd --experiment stress --seed 1 --policy lazy --switches 20000 --inject skip-clts-before-restore
if [ "$(rc_of clts-amd)" = 1 ] && grep -q 'exception 7 (#NM.*in ring 0' "$work/clts-amd.err"; then
	ok "skip-clts-before-restore is detected: #NM in ring 0 (the scrub's x87 load under TCG)"
else
	not_ok "skip-clts-before-restore is detected as #NM in ring 0" "exit $(rc_of clts-amd)" \
		"$(tail -n 4 "$work/clts-amd.err")"
fi
# Without the scrub nothing faults under TCG: the load succeeds with TS still
# set and the task traps again, so a lazy ping-pong takes twice its #NM count.
R=40
run clts-intel --experiment context-switch --qemu-cpu max,vendor=GenuineIntel --policy lazy \
	--placement same-cpu --fp-users both --regset sse --round-trips $R --repeat 1 \
	--inject skip-clts-before-restore
nm=$(get clts-intel lazy nm_traps)
if [ "$nm" = $((4 * R)) ]; then
	ok "skip-clts-before-restore is detected on TCG without the scrub: nm_traps $nm, not $((2 * R))"
else
	not_ok "skip-clts-before-restore doubles nm_traps on TCG" "nm_traps '$nm', want $((4 * R))" \
		"$(tail -n 4 "$work/clts-intel.err")"
fi

finish
