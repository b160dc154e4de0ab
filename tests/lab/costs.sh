#!/bin/bash
# SPDX-License-Identifier: MIT
# The costs experiment under QEMU TCG (exact counts; ticks are emulated, so
# only their consistency is checked), and replay --costs taking its JSON.
set -u
. "$(dirname "$0")/lib.sh"

# jq_ok NAME FILTER FILE: FILTER (over the rows, slurped) is true
jq_ok() {
	if jq -e -s "$2" "$3" > /dev/null 2>&1; then ok "$1"
	else not_ok "$1" "false: $2" "$(jq -c -s '[.[] | {cost, round_trips, nm_traps, ipis, ns_per_op, repeats}]' "$3" 2>&1 | head -c 600)"; fi
}

json=$work/costs.json
"$fpulab" run --accel tcg --experiment costs --repeat 3 --round-trips 200 --timeout 60 \
	--format json --output "$json" > "$work/run.out" 2> "$work/run.err"
rc=$?
[ "$rc" = 0 ] && ok "costs: fpulab run exits 0" || not_ok "costs: fpulab run exits 0" "exit $rc" "$(tail -n 5 "$work/run.err")"
jq_ok "costs: a row per cost, one policy, 3 runs each, emulated" \
	'length == 3 and ([.[].cost] == ["nm-trap", "cr0-write", "ipi"]) and all(.[]; .repeats == 3 and .policy == "eager" and .clock == "emulated-tsc")' "$json"
jq_ok "costs nm-trap: 200 #NM traps (the probe's), no IPI" \
	'.[] | select(.cost == "nm-trap") | .round_trips == 200 and .nm_traps == 200 and .ipis == 0 and .ts_writes == 0 and .integrity_errors_all_runs == 0' "$json"
jq_ok "costs cr0-write: 400 writes, no trap" \
	'.[] | select(.cost == "cr0-write") | .round_trips == 400 and .nm_traps == 0 and .ipis == 0' "$json"
jq_ok "costs ipi: 200 IPIs, no trap" \
	'.[] | select(.cost == "ipi") | .round_trips == 200 and .ipis == 200 and .nm_traps == 0 and .placement == "cross-cpu"' "$json"
jq_ok "costs: ns per op = ticks per op at the guest's TSC rate, inside min..max" \
	'all(.[]; .ticks_per_op > 0 and .tsc_khz > 0 and ((.ns_per_op - .ticks_per_op * 1e6 / .tsc_khz) | fabs) < 0.1 and .ns_per_op_min <= .ns_per_op and .ns_per_op <= .ns_per_op_max)' "$json"
jq_ok "costs: the baseline is measured and subtracted where there is one" \
	'all(.[]; if .cost == "ipi" then .base_ticks == null else .base_ticks > 0 end)' "$json"

fpulab_csv one --experiment costs --cpus 1 --repeat 1 --round-trips 50 --timeout 60
if [ "$(rc_of one)" = 0 ] && [ "$(($(wc -l < "$work/one.csv") - 1))" = 2 ] &&
	grep -q "skipped costs cross-cpu.*needs-2-cpus" "$work/one.err"; then
	ok "costs --cpus 1: ipi skipped, and said so"
else
	not_ok "costs --cpus 1: ipi skipped, and said so" "exit $(rc_of one)" "$(tail -n 3 "$work/one.err")"
fi

# replay --costs FILE takes the run's JSON: the costs used are its medians, labelled.
if grep -qw xsave /proc/cpuinfo && [ "$rc" = 0 ]; then
	"$fpulab" trace synth pingpong-both -o "$work/pp.trace" --switches 100 --xcr0 0x7 > /dev/null 2>&1
	"$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager,lazy --costs "$json" > "$work/rp.out" 2> "$work/rp.err"
	rrc=$?
	ns() { jq -s -r --arg c "$1" '.[] | select(.cost == $c) | .ns_per_op * 10 | round / 10 | tostring | if test("\\.") then . else . + ".0" end' "$json"; }
	want="# costs per event: #NM trap $(ns nm-trap) ns (lab costs, emulated (TCG)), CR0 write $(ns cr0-write) ns (lab costs, emulated (TCG)), IPI $(ns ipi) ns (lab costs, emulated (TCG))"
	if [ "$rrc" = 0 ] && grep -qxF "$want" "$work/rp.out"; then ok "replay --costs: the lab's medians, labelled emulated"
	else not_ok "replay --costs: the lab's medians, labelled emulated" "exit $rrc, want: $want" "$(grep -i 'costs\|error' "$work/rp.out" "$work/rp.err" | head -n 3)"; fi
	"$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager,lazy --costs "$json" --format json --output "$work/rp.json" 2> /dev/null
	if jq -e -n --slurpfile c "$json" --slurpfile r "$work/rp.json" '
		def med(k): $c[] | select(.cost == k) | .ns_per_op;
		($r | length) == 3 and all($r[];
			.trap_ns == med("nm-trap") and .cr0_ns == med("cr0-write") and .ipi_ns == med("ipi") and
			.trap_source == "lab costs, emulated (TCG)" and .cr0_source == .trap_source and
			.ipi_source == .trap_source and .source == "native-emulated-costs")' > /dev/null; then
		ok "replay --costs --format json: every row used exactly the file's medians, labelled emulated"
	else not_ok "replay --costs --format json: every row used exactly the file's medians, labelled emulated" \
		"$(jq -c '{policy, trap_ns, cr0_ns, ipi_ns, trap_source, source}' "$work/rp.json" 2>&1 | head -n 3)"; fi
	if [ "$(grep -c '^\(eager\|lazy\) .*trap lab costs, emulated (TCG); cr0 lab costs, emulated (TCG); ipi lab costs, emulated (TCG)$' "$work/rp.out")" = 2 ]; then
		ok "replay --costs: every policy row names each cost's source"
	else not_ok "replay --costs: every policy row names each cost's source" "$(grep '^eager\|^lazy' "$work/rp.out")"; fi
	jq -s -c '.[] | select(.cost != "ipi")' "$json" > "$work/two.json"
	"$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager --costs "$work/two.json" > "$work/rp2.out" 2>&1
	if grep -q '^eager .*; ipi \(measured on this host: IPI round trip\|assumed (\)' "$work/rp2.out" &&
		grep -q 'IPI [0-9.]* ns (\(measured on this host\|assumed (\)' "$work/rp2.out"; then
		ok "replay --costs: a cost the file lacks comes from this host's figures, and says so"
	else not_ok "replay --costs: a cost the file lacks comes from this host's figures, and says so" "$(grep 'costs per\|^eager' "$work/rp2.out")"; fi
	sed 's/"emulated-tsc"/"icount"/' "$json" > "$work/icount.json"
	"$fpulab" replay "$work/pp.trace" --repeat 1 --costs "$work/icount.json" > /dev/null 2> "$work/rp3.err"
	rrc=$?
	if [ "$rrc" = 1 ] && grep -q "instructions, not time" "$work/rp3.err"; then ok "replay --costs: icount figures are refused"
	else not_ok "replay --costs: icount figures are refused" "exit $rrc" "$(cat "$work/rp3.err")"; fi
else
	for i in 1 2 3 4 5; do skip "replay --costs" "no XSAVE here, or the costs run failed"; done
fi
finish
