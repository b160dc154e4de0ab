#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab host costs: the figures are there, sane and ordered (an exception
# costs more than a syscall, a membarrier that interrupts another CPU more
# than one with none to interrupt, one way less than the round trip), the
# cited ones are the RFC's cycles at 3.4 GHz, and bad usage exits 2. Never a
# time against a threshold of speed. TAP output; run by tests/run-tests.sh.
set -u
. "$(dirname "$0")/lib.sh"

# jq_check NAME FILTER: FILTER over the rows (slurped) must print true.
jq_check() {
	local got
	got=$(jq -s "$2" "$work/costs.json" 2>&1)
	if [ "$got" = true ]; then ok "$1"; else not_ok "$1" "jq '$2' gave: $got" "$(head -c 600 "$work/costs.json")"; fi
}
# fig NAME: the row of figure NAME, as a jq expression over the slurped rows
fig() { echo "(map(select(.figure == \"$1\")) | .[0])"; }
# have NAME: whether figure NAME was measured (or cited)
have() { [ "$(jq -s "$(fig "$1") | .ns_per_op_median != null" "$work/costs.json")" = true ]; }
note() { jq -rs "$(fig "$1") | .note" "$work/costs.json"; }

check "fpulab help host costs prints its help" 0 "usage: fpulab host costs" - -- "$fpulab" help host costs
check "fpulab help host lists costs" 0 "costs" - -- "$fpulab" help host
check "host costs --seconds: exit 2" 2 - "fixed number of operations" -- "$fpulab" host costs --seconds 1
check "host costs --plot: exit 2" 2 - "costs has no plot" -- "$fpulab" host costs --plot "$work/p"
check "host costs --repeat 0: exit 2" 2 - "--repeat" -- "$fpulab" host costs --repeat 0
check "host costs --repeat 1001 (over the limit): exit 2" 2 - "--repeat" -- "$fpulab" host costs --repeat 1001
check "host costs with an argument: exit 2" 2 - "unexpected argument 'x'" -- "$fpulab" host costs x

if "$fpulab" host costs --repeat 3 --format json > "$work/costs.json" 2> "$work/err"; then
	ok "host costs --repeat 3 --format json exits 0"
else
	not_ok "host costs --repeat 3 --format json exits 0" "$(head -n 5 "$work/err")"
fi
jq_check "one row per figure, in order" \
	'map(.figure) == ["syscall","fault","umip","membarrier-none","membarrier-ipi","ipi","ipi-one-way","trap-sel4","cr0-sel4"]'
jq_check "every measured figure: 1-3 runs (those confirmed), min <= median <= max, > 0 ns" \
	'all(.[] | select(.measured); .repeats >= 1 and .repeats <= 3 and .ns_per_op_min > 0 and .ns_per_op_min <= .ns_per_op_median and .ns_per_op_median <= .ns_per_op_max)'
jq_check "each figure says which cost it prices, what kind it is and its method" \
	'all(.kind != null and .method != "" and .note != "") and ([.[] | select(.cost == "trap") | .kind] == ["lower bound","estimate","estimate","cited"])'
jq_check "every row says its unit; a measured one its clock (CLOCK_MONOTONIC), a cited one none" \
	'all(.unit == "ns per operation") and all(.[] | select(.kind != "cited"); .clock == "CLOCK_MONOTONIC") and all(.[] | select(.kind == "cited"); .clock == null)'
hv=false
grep -qw hypervisor /proc/cpuinfo && hv=true
jq_check "hypervisor is $hv, as /proc/cpuinfo's flags say" "all(.hypervisor == $hv)"
jq_check "the syscall is measured, 3 runs of 1000" "$(fig syscall) | .measured and .repeats == 3 and .ops_per_run == 1000"
if have fault; then
	jq_check "a zero-page fault (an exception) costs more than a syscall" "$(fig fault).ns_per_op_median > $(fig syscall).ns_per_op_median"
else
	not_ok "the fault is measured" "$(note fault)"
fi
if have umip; then
	jq_check "the UMIP-emulated SMSW costs more than a syscall" "$(fig umip).ns_per_op_median > $(fig syscall).ns_per_op_median"
else
	skip "the UMIP-emulated SMSW costs more than a syscall" "$(note umip)"
fi
jq_check "cited: seL4's 2000 trap cycles at 3.4 GHz (588.2 ns), 150 cycles per CR0 write (44.1 ns), no runs and no min or max" \
	"($(fig trap-sel4).ns_per_op_median * 10 | round) == 5882 and ($(fig cr0-sel4).ns_per_op_median * 10 | round) == 441 and $(fig cr0-sel4).repeats == 0 and $(fig trap-sel4).ns_per_op_min == null and $(fig cr0-sel4).ns_per_op_max == null"

if [ "$(nproc)" -lt 2 ]; then
	for t in "an IPI round trip exceeds the call with none to interrupt" "the IPI is measured" "one way is less than the round trip"; do
		skip "$t" "one CPU"
	done
elif have ipi; then
	jq_check "membarrier interrupting another CPU costs more than with none to interrupt" \
		"$(fig membarrier-ipi).ns_per_op_median > $(fig membarrier-none).ns_per_op_median"
	jq_check "the IPI round trip is their difference, > 0" "$(fig ipi).ns_per_op_median > 0 and $(fig ipi).kind == \"estimate\""
	if have ipi-one-way; then
		jq_check "one way (tracepoints) is less than the membarrier that waited for it" \
			"$(fig ipi-one-way).ns_per_op_median < $(fig membarrier-ipi).ns_per_op_median"
	else
		skip "one way is less than the round trip" "$(note ipi-one-way)"
	fi
else
	skip "an IPI round trip exceeds the call with none to interrupt" "$(note ipi)"
	skip "the IPI is measured" "$(note ipi)"
	skip "one way is less than the round trip" "$(note ipi)"
fi

"$fpulab" host costs --repeat 1 > "$work/costs.txt" 2> "$work/err"
if grep -q '^syscall .* trap lower bound' "$work/costs.txt" && grep -q '^# trap range replay decides verdicts over' "$work/costs.txt" &&
	{ [ $hv = false ] || grep -q 'under a hypervisor' "$work/costs.txt"; }; then
	ok "the table: rows, the trap range, and 'under a hypervisor' where CPUID says so"
else
	not_ok "the table: rows, the trap range, and 'under a hypervisor' where CPUID says so" "$(head -n 12 "$work/costs.txt")"
fi
if [ $hv = true ]; then want='under a hypervisor (CPUID.1:ECX\[31\])'; else want='no hypervisor'; fi
[ "$(head -n 2 "$work/costs.txt" | grep -c "$want")" = 1 ] &&
	ok "the header says whether there is a hypervisor once, not on both its lines" ||
	not_ok "the header says whether there is a hypervisor once, not on both its lines" "$(head -n 2 "$work/costs.txt")"

finish
