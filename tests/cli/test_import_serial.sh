#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab import-serial against made-up serial logs of the bootable image
# (the real one: tests/image/matrix.sh): rows with the clock of the hello
# (bare metal, a hypervisor, TCG), GRUB's escape sequences before a record,
# a hung run's configuration left out, and bad logs refused.
set -u
. "$(dirname "$0")/lib.sh"

hello_pc='@fpulab hello version=1 cpus=2 apic=x2apic xcr0=0x207 insn=xsaveopt policies=eager,lazy kernel_size=1 user_size=1 tsc_khz=3000000 boot=multiboot2-uefi clock_ref=hpet apic_khz=25000 tsc_invariant=1 hypervisor=none cpus_found=8'
res() { # EXPERIMENT POLICY REPEAT TICKS [more]
	echo "@fpulab result experiment=$1 policy=$2 placement=same-cpu fp_users=one regset=sse repeat=$3 cpus=2 tasks=2 round_trips=1000 switches=4000 nm_traps=0 saves=2000 restores=2000 integrity_errors=0 ticks=$4 ${5:-}"
}
{
	printf '\033[2J\033[1;1H  Booting `fpulab: quick run'"'"'\r\n'
	printf '\033[0m%s\r\n' "$hello_pc"
	echo "CPUs: 2 running of 8 found"
	res context-switch eager 0 3000000
	res context-switch lazy 0 2000000
	res context-switch eager 1 3100000
	res context-switch lazy 1 2100000
	res stress eager 0 5000
	echo '@fpulab hung experiment=stress policy=lazy repeat=0 seconds=120'
	echo '@fpulab result experiment=costs policy=eager placement=same-cpu fp_users=one regset=sse repeat=0 cpus=2 tasks=1 round_trips=10 switches=0 nm_traps=10 saves=0 restores=0 integrity_errors=0 ticks=3000 cost=nm-trap base_ticks=100'
	echo '@fpulab done runs=6 skipped=0 checked=0 hung=1'
} > "$work/pc.log"

"$fpulab" import-serial "$work/pc.log" -o "$work/pc.json" 2> "$work/err"
rc=$?
[ "$rc" = 0 ] && ok "a PC's log: exit 0" || not_ok "a PC's log: exit 0" "exit $rc" "$(cat "$work/err")"
[ "$(wc -l < "$work/pc.json")" = 3 ] && ok "3 rows: context-switch eager and lazy, costs" ||
	not_ok "3 rows" "$(wc -l < "$work/pc.json") rows"
[ "$(jq -r '.clock_label' "$work/pc.json" | sort -u)" = "hardware TSC, bare metal" ] &&
	[ "$(jq -r '.clock' "$work/pc.json" | sort -u)" = hardware-tsc ] &&
	ok "every row: hardware TSC, bare metal" || not_ok "every row: hardware TSC, bare metal" "$(jq -r .clock_label "$work/pc.json")"
[ "$(jq -r 'select(.policy == "lazy") | .ticks_per_round_trip_median' "$work/pc.json")" = 2000 ] &&
	ok "lazy: the median of its 2 runs, 2000 ticks per round trip" ||
	not_ok "lazy's median" "$(jq -c 'select(.policy == "lazy")' "$work/pc.json" | head -c 300)"
[ "$(jq -r 'select(.cost == "nm-trap") | .ns_per_op_median' "$work/pc.json")" = 100 ] &&
	ok "costs: ns per operation at the hello's 3 GHz" || not_ok "costs: ns per operation" "$(jq -c 'select(.cost)' "$work/pc.json" | head -c 300)"
[ "$(jq -r '.tsc_invariant' "$work/pc.json" | sort -u)" = true ] && [ "$(jq -r '.clock_ref' "$work/pc.json" | sort -u)" = hpet ] &&
	ok "rows carry the hello's clock facts" || not_ok "rows carry the hello's clock facts"
[ "$(jq -r '[.host_cpu, .host_kernel, .qemu_accel, .qemu_cpu] | map(tostring) | join(" ")' "$work/pc.json" | sort -u)" = "null null null null" ] &&
	jq -e -s 'all(.[]; .imported_on | test("^.+, Linux .+$"))' "$work/pc.json" > /dev/null &&
	ok "rows name no host CPU, kernel or QEMU of the importer's; imported_on says where they were imported" ||
	not_ok "the importer's host is not the rows' host" "$(jq -c '{host_cpu, host_kernel, qemu_accel, qemu_cpu, imported_on}' "$work/pc.json" | head -n 1)"
"$fpulab" import-serial "$work/pc.log" --format table > "$work/pc.txt" 2> /dev/null
grep -q '^# machine .* (its serial log: no QEMU command line), 2 CPUs; guest APIC x2apic, XCR0 0x207, save instruction xsaveopt$' "$work/pc.txt" && ! grep -q '^# QEMU ' "$work/pc.txt" &&
	ok "table: the machine the log names, no QEMU command line" || not_ok "table: the machine, no QEMU" "$(grep '^#' "$work/pc.txt" | head -n 3)"
grep -qF 'stress, policy lazy, repeat 0 hung (no record for 120 s); 1 run of its unfinished configuration is not rows' "$work/err" &&
	ok "the hung run is said, its configuration left out" || not_ok "the hung run is said" "$(cat "$work/err")"
# counts of one are singular: 1 CPU, 1 row (1 run)
{ echo "${hello_pc/cpus=2/cpus=1}"; res context-switch eager 0 3000000; echo '@fpulab done runs=1'; } > "$work/one.log"
"$fpulab" import-serial "$work/one.log" -o "$work/one.json" 2> "$work/err"
grep -qF "one.log: 1 CPU, x2apic" "$work/err" && grep -qF "fpulab import-serial: 1 row (1 run) written to $work/one.json" "$work/err" &&
	ok "one CPU, one run: \"1 CPU\", \"1 row (1 run) written\"" || not_ok "one CPU, one run: singular" "$(cat "$work/err")"
cp "$work/pc.log" "$work/pc-again.log"
"$fpulab" import-serial "$work/pc-again.log" -o "$work/pc2.json" 2> /dev/null
"$fpulab" compare "$work/pc.json" "$work/pc2.json" > "$work/cmp" 2> "$work/err"
jq -c '.imported_on = "Another CPU, Linux 1.0"' "$work/pc2.json" > "$work/pc2-elsewhere.json"
"$fpulab" compare "$work/pc.json" "$work/pc2-elsewhere.json" > "$work/cmp-elsewhere" 2> /dev/null
grep -q '^# 3 configurations in both: .*only in A: 0, only in B: 0$' "$work/cmp-elsewhere" &&
	ok "compare: imported on two machines, the rows still pair (imported_on is no part of a configuration)" ||
	not_ok "compare: imported_on is no part of a configuration" "$(tail -n 2 "$work/cmp-elsewhere")"
grep -q '^# 3 configurations in both: .*only in A: 0, only in B: 0$' "$work/cmp" &&
	ok "compare: two captures' rows pair (the log's file name is no part of a row's configuration)" ||
	not_ok "compare: two captures' rows pair" "$(tail -n 2 "$work/cmp") $(cat "$work/err")"

sed 's/hypervisor=none/hypervisor=kvm/' "$work/pc.log" > "$work/kvm.log"
"$fpulab" import-serial "$work/kvm.log" > "$work/kvm.json" 2> "$work/err"
[ "$(jq -r '.clock_label' "$work/kvm.json" | sort -u)" = "hardware TSC, under a hypervisor (kvm)" ] &&
	ok "under KVM: hardware TSC, under a hypervisor (kvm); JSON on stdout" || not_ok "under KVM" "$(cat "$work/err")"
sed 's/hypervisor=none/hypervisor=tcg/' "$work/pc.log" > "$work/tcg.log"
"$fpulab" import-serial "$work/tcg.log" > "$work/tcg.json" 2> "$work/err"
[ "$(jq -r '.clock' "$work/tcg.json" | sort -u)" = emulated-tsc ] &&
	ok "under TCG: emulated-tsc, as fpulab run says" || not_ok "under TCG: emulated-tsc"

check "a missing log: exit 2" 2 - "cannot read" -- "$fpulab" import-serial "$work/none.log"
check "no LOG: exit 2" 2 - "one LOG" -- "$fpulab" import-serial
echo "just text" > "$work/text.log"
check "no hello: exit 1" 1 - "no hello record: not a serial log of the lab" -- "$fpulab" import-serial "$work/text.log"
grep -v '@fpulab done' "$work/pc.log" > "$work/cut.log"
check "a log cut before done: exit 1" 1 - "ends before the done record" -- "$fpulab" import-serial "$work/cut.log" -o "$work/cut.json"
grep -q '"partial": true' "$work/cut.json" && ok "a cut log: the rows so far, marked partial" || not_ok "a cut log: marked partial"
cat "$work/pc.log" "$work/pc.log" > "$work/two.log"
check "two boots: exit 1" 1 - "more than one boot" -- "$fpulab" import-serial "$work/two.log"
sed 's/^@fpulab hello version=1 /@fpulab hello version=1 /; s/ hypervisor=none//' "$work/pc.log" > "$work/old.log"
check "a hello without hypervisor=: exit 1" 1 - "cannot be named" -- "$fpulab" import-serial "$work/old.log"
check "/dev/zero: a line over 1 MiB, not a serial log: exit 1 at once" 1 - "/dev/zero: line 1: longer than 1 MiB: not a serial log" -- \
	timeout 20 "$fpulab" import-serial /dev/zero
finish
