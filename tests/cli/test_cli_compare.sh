#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab compare on two fixed result files (tests/cli/fixtures/compare-*.json):
# exact ratios, overlap marks, changed counts and exit codes. TAP output.
set -u
. "$(dirname "$0")/lib.sh"
fx=$here/fixtures
# expect NAME FILE REGEX: FILE has a line matching the extended REGEX
expect() {
	if grep -qE -- "$3" "$2"; then ok "$1"; else not_ok "$1" "no line matches: $3" "$(head -n 12 "$2")"; fi
}

"$fpulab" compare "$fx/compare-a.json" "$fx/compare-b.json" > "$work/t" 2> "$work/e"
rc=$?
[ "$rc" = 1 ] && ok "something got worse: exit 1" || not_ok "something got worse: exit 1" "exit $rc" "$(cat "$work/e")"
expect "eager: 25000/20000 = 1.250, ranges apart, worse" "$work/t" \
	'^context-switch eager same-cpu one avx cpus=2 tasks=2 +20000\.0 +5 +25000\.0 +5 +1\.250 +worse +-$'
expect "lazy: 1.025 within the overlapping ranges (~), nm_traps change shown" "$work/t" \
	'^context-switch lazy same-cpu one avx .* 1\.025 ~ same +nm_traps 1000->500$'
expect "smp-lazy: 0.800, better" "$work/t" '^context-switch smp-lazy same-cpu one avx .* 0\.800 +better'
expect "owner: same figure but integrity errors rose: worse" "$work/t" \
	'^context-switch owner same-cpu both avx .* 1\.000 ~ worse +integrity_errors 0->2'
expect "the footer counts them, and the rows in one file only" "$work/t" \
	'^# 4 configurations in both: 2 worse, 1 better, 1 no real difference; only in A: 1, only in B: 1$'
expect "the figure's unit and source are named" "$work/t" '^# medians in TSC ticks per round trip'
expect "emulated ticks are called emulated" "$work/t" '^# figures: EMULATED TSC ticks'

"$fpulab" compare --format json "$fx/compare-a.json" "$fx/compare-b.json" > "$work/j" 2> /dev/null
expect "JSON: the exact ratio and ranges of eager" "$work/j" \
	'"a_median": 20000\.0, "a_min": 19000\.0, "a_max": 21000\.0, "b_median": 25000\.0, "b_min": 24000\.0, "b_max": 26000\.0, "a_runs": 5, "b_runs": 5, "ratio": 1\.25, "ranges_overlap": false, "verdict": "worse"'
expect "JSON: changed counts as [A, B]" "$work/j" '"counts_changed": \{"nm_traps": \[1000, 500\]\}'
expect "JSON: every row carries its provenance" "$work/j" '"fpulab_git": ".*", "host_cpu": .*"command": "compare --format json'

"$fpulab" compare --threshold 30 "$fx/compare-a.json" "$fx/compare-b.json" > "$work/t30" 2> /dev/null
expect "--threshold 30: eager's +25% is no longer worse" "$work/t30" '^context-switch eager same-cpu one avx .* 1\.250 +same'
expect "--threshold 30: more integrity errors still are" "$work/t30" '^# 4 configurations in both: 1 worse, 0 better, 3 no real'

"$fpulab" compare "$fx/compare-a.json" "$fx/compare-a.json" > "$work/same" 2> /dev/null
rc=$?
[ "$rc" = 0 ] && ok "a file against itself: exit 0" || not_ok "a file against itself: exit 0" "exit $rc"
expect "a file against itself: all 1.000 and the same" "$work/same" '^# 5 configurations in both: 0 worse, 0 better, 5 no real'

"$fpulab" compare "$fx/compare-a.json" "$fx/compare-kvm.json" > /dev/null 2> "$work/e"
rc=$?
[ "$rc" = 2 ] && ok "emulated vs hardware ticks: refused, exit 2" || not_ok "emulated vs hardware ticks: refused, exit 2" "exit $rc"
expect "the refusal names both sources" "$work/e" 'different sources: .*compare-a.json has emulated .*compare-kvm.json has hardware'

"$fpulab" compare "$fx/compare-a.json" "$work/nosuch.json" > /dev/null 2> "$work/e"
rc=$?
[ "$rc" = 2 ] && ok "a missing file: exit 2" || not_ok "a missing file: exit 2" "exit $rc"
printf '{"a": 1}\nnot json\n' > "$work/bad.json"
"$fpulab" compare "$fx/compare-a.json" "$work/bad.json" > /dev/null 2> "$work/e"
rc=$?
[ "$rc" = 2 ] && ok "a line that is not JSON: exit 2" || not_ok "a line that is not JSON: exit 2" "exit $rc"
expect "the bad line is named" "$work/e" 'bad.json:2: not a JSON object'
printf '# fpulab replay: a table\npolicy  ns\n' > "$work/table.json"
"$fpulab" compare "$fx/compare-a.json" "$work/table.json" > /dev/null 2> "$work/e"
expect "a table written without --format json: said so, with the fix" "$work/e" "table.json: a table, not result rows .*: write the results with --format json$"
"$fpulab" compare "$fx/compare-a.json" > /dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && ok "one file only: usage error, exit 2" || not_ok "one file only: usage error, exit 2" "exit $rc"
"$fpulab" compare --threshold x "$fx/compare-a.json" "$fx/compare-b.json" > /dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && ok "--threshold x: usage error, exit 2" || not_ok "--threshold x: usage error, exit 2" "exit $rc"

# replay rows: the control policy (the trace's resolution) is no part of a row's identity
# (costs given: a 10-ns trap and a 1-ns CR0 write make lazy, not eager, best in r2 whatever this
# host's saves and restores cost; owner, which traps only at the first use, is best in r3)
"$fpulab" trace synth pingpong-one -o "$work/pp" --switches 300 > /dev/null 2> "$work/err"
"$fpulab" replay "$work/pp" --policy eager,lazy --repeat 1 --trap-ns 10 --cr0-ns 1 --ipi-ns 1000 --format json --output "$work/r2.json" 2> "$work/err"
"$fpulab" replay "$work/pp" --policy eager,lazy,owner --repeat 1 --trap-ns 10 --cr0-ns 1 --ipi-ns 1000 --format json --output "$work/r3.json" 2> "$work/err"
grep -q '"control_policy": "lazy"' "$work/r2.json" && grep -q '"control_policy": "owner"' "$work/r3.json" &&
	ok "the two replays have different control policies" ||
	not_ok "the two replays have different control policies" "$(grep -o '"control_policy": [^,]*' "$work/r2.json" "$work/r3.json")"
"$fpulab" compare "$work/r2.json" "$work/r3.json" > "$work/rc" 2> "$work/e"
rc=$?
[ "$rc" != 2 ] && ok "replay eager,lazy against eager,lazy,owner: compared (exit $rc)" ||
	not_ok "replay eager,lazy against eager,lazy,owner: compared" "exit $rc" "$(cat "$work/e")"
expect "eager's row matches, without the control policy in its configuration" "$work/rc" \
	'^replay eager pingpong-one cpus=1 tasks=2 pp +[0-9.]+ +1 +[0-9.]+ +1 '
expect "the footer: 3 in both, owner only in B" "$work/rc" '^# 3 configurations in both: .*only in A: 0, only in B: 1$'

# Two traces of one workload are two configurations: the trace's file name is
# part of a replay row's identity (not its folder), so a file compared with
# itself has no change, and a copy of the trace elsewhere pairs with it.
"$fpulab" trace synth pingpong-one -o "$work/pq" --switches 600 > /dev/null 2> "$work/err"
mkdir -p "$work/elsewhere" && cp "$work/pp" "$work/pq" "$work/elsewhere/"
"$fpulab" replay "$work/pp" "$work/pq" --policy eager,lazy --repeat 1 --format json --output "$work/r4.json" 2> "$work/err"
"$fpulab" replay "$work/elsewhere/pp" "$work/elsewhere/pq" --policy eager,lazy --repeat 1 --format json --output "$work/r5.json" 2> "$work/err"
"$fpulab" compare "$work/r4.json" "$work/r4.json" > "$work/rc4" 2> "$work/e"
rc=$?
[ "$rc" = 0 ] && ok "two traces of one workload, a file against itself: exit 0" || not_ok "two traces of one workload, a file against itself: exit 0" "exit $rc" "$(cat "$work/e")"
expect "... every row with its own: 6 in both, 0 worse, 0 better" "$work/rc4" '^# 6 configurations in both: 0 worse, 0 better, 6 no real difference; only in A: 0, only in B: 0$'
if grep '^replay ' "$work/rc4" | grep -q -- '->'; then not_ok "... no count changed (pp's 300 switches never paired with pq's 600)" "$(grep '^replay ' "$work/rc4" | grep -- '->' | head -n 3)"; else ok "... no count changed (pp's 300 switches never paired with pq's 600)"; fi
"$fpulab" compare "$work/r4.json" "$work/r5.json" > "$work/rc5" 2> "$work/e"
expect "the same traces kept in another folder pair: 6 in both" "$work/rc5" '^# 6 configurations in both: .*only in A: 0, only in B: 0$'

# A configuration longer than its column widens it: the figures after it stay in line.
long=a-trace-named-at-length-by-a-user-who-likes-long-names-and-says-so
cp "$work/pp" "$work/$long"
"$fpulab" replay "$work/$long" "$work/pp" --policy eager,lazy --repeat 1 --format json --output "$work/r6.json" 2> "$work/err"
"$fpulab" compare "$work/r6.json" "$work/r6.json" > "$work/rc6" 2> "$work/e"
# where the B/A heading ends, every row's ratio ends
end=$(grep '^configuration ' "$work/rc6" | awk '{ print index($0, " B/A") + 3 }')
ends=$(grep '^replay ' "$work/rc6" | awk '{ match($0, / [0-9]+\.[0-9][0-9][0-9] /); print RSTART + RLENGTH - 2 }' | sort -u)
[ "$(grep -c "$long" "$work/rc6")" = 3 ] && [ -n "$end" ] && [ "$ends" = "$end" ] &&
	ok "a configuration longer than its column: every row's ratio ends under the B/A heading" ||
	not_ok "a configuration longer than its column: every row's ratio ends under the B/A heading" "$(grep -E '^(configuration|replay) ' "$work/rc6")"

# replay --sweep's rows: native figures, one configuration per policy and point
"$fpulab" replay "$work/pp" --policy eager,lazy --repeat 1 --sweep trap=50..2000 --format json --output "$work/sw.json" 2> "$work/err"
"$fpulab" compare "$work/sw.json" "$work/sw.json" > "$work/rcs" 2> "$work/e"
rc=$?
[ "$rc" = 0 ] && ok "a replay --sweep file against itself: exit 0" || not_ok "a replay --sweep file against itself: exit 0" "exit $rc" "$(cat "$work/e")"
expect "... each point its own configuration, none changed" "$work/rcs" '^# 25 configurations in both: 0 worse, 0 better, 25 no real difference; only in A: 0, only in B: 0$'
expect "... the point in the configuration" "$work/rcs" '^replay-sweep lazy pingpong-one pp trap sweep_ns=2000 '

# the oracle's total is its saves and restores at the batch costs each replay measures: B's at A's
printf '%s\n' '{"experiment": "replay", "policy": "oracle", "workload": "w", "trace": "t.trace", "source": "native", "unit": "ns per switch", "repeats": 1, "switches": 1000, "saves": 100, "restores": 200, "ns_per_switch_median": 31.0, "ns_per_switch_min": null, "ns_per_switch_max": null, "save_ns": 50.0, "restore_ns": 130.0}' > "$work/oa.json"
sed 's/"ns_per_switch_median": 31.0/"ns_per_switch_median": 37.0/; s/"restore_ns": 130.0/"restore_ns": 160.0/' "$work/oa.json" > "$work/ob.json"
"$fpulab" compare "$work/oa.json" "$work/ob.json" > "$work/rco" 2> "$work/e"
rc=$?
[ "$rc" = 0 ] && ok "the oracle at another batch restore cost: not worse (exit 0)" || not_ok "the oracle at another batch restore cost: not worse (exit 0)" "exit $rc" "$(cat "$work/rco")"
expect "... B's oracle at A's batch costs: 37.0 - 200 x 30 / 1000 = 31.0" "$work/rco" "^replay oracle w t.trace +31.0 +1 +31.0 +1 +1.000 +same +B at A's costs \(restore_ns B 160 -> A 130\)"

# An oracle restoring once in 20000 switches: 1 x 106.3 / 20000 = 0.005 ns, its median
# 0.0. At A's restore cost of 100 ns it is 1 x 100 / 20000 = 0.005 ns, never below 0: B's
# rounded 0.0 less 1 x 6.3 / 20000 read -0.0 (-0.000315 ns).
printf '%s\n' '{"experiment": "replay", "policy": "oracle", "workload": "w", "trace": "t.trace", "source": "native", "unit": "ns per switch", "repeats": 1, "switches": 20000, "saves": 0, "restores": 1, "nm_traps": 0, "ts_writes": 0, "flush_ipis": 0, "ns_per_switch_median": 0.0, "ns_per_switch_min": null, "ns_per_switch_max": null, "trap_ns": 120.0, "save_ns": 60.0, "restore_ns": 100.0}' > "$work/oz-a.json"
sed 's/"restore_ns": 100.0/"restore_ns": 106.3/; s/"trap_ns": 120.0/"trap_ns": 119.0/' "$work/oz-a.json" > "$work/oz-b.json"
"$fpulab" compare "$work/oz-a.json" "$work/oz-b.json" > "$work/rcz" 2> "$work/e"
expect "an oracle of one restore at a lower restore cost in A: 0.0, not -0.0 (1.000: both 0.005 at A's costs)" "$work/rcz" \
	"^replay oracle w t.trace +0\\.0 +1 +0\\.0 +1 +1\\.000 +same +B at A's costs \\(trap_ns B 119 -> A 120, restore_ns B 106.3 -> A 100\\)"
"$fpulab" compare --format json "$work/oz-a.json" "$work/oz-b.json" > "$work/rczj" 2> "$work/e"
got=$(jq -r 'select(.configuration) | .b_median' "$work/rczj")
holds "... its JSON b_median is B's restore at A's cost, 1 x 100 / 20000 = 0.005 ns (got $got)" \
	awk -v g="$got" 'BEGIN { exit !(g > 0.00499 && g < 0.00501) }'
# A's side the same way: both medians rounded to 0.1 (1 x 105.2 / 2000 = 0.0526 ns, B's
# 0.0534), B's moved to its exact 0.0526 at A's costs read 0.526 of A's rounded 0.1, "better"
printf '%s\n' '{"experiment": "replay", "policy": "oracle", "workload": "w", "trace": "t.trace", "source": "native", "unit": "ns per switch", "repeats": 1, "switches": 2000, "saves": 0, "restores": 1, "nm_traps": 0, "ts_writes": 0, "flush_ipis": 0, "ns_per_switch_median": 0.1, "ns_per_switch_min": null, "ns_per_switch_max": null, "trap_ns": 134.6, "save_ns": 61.2, "restore_ns": 105.2}' > "$work/or-a.json"
sed 's/"restore_ns": 105.2/"restore_ns": 106.7/; s/"trap_ns": 134.6/"trap_ns": 115.6/' "$work/or-a.json" > "$work/or-b.json"
"$fpulab" compare "$work/or-a.json" "$work/or-b.json" > "$work/rcr" 2> "$work/e"
rc=$?
expect "one trace's oracle, both medians rounded to 0.1: 1.000 at A's costs, same" "$work/rcr" \
	"^replay oracle w t.trace +0\\.1 +1 +0\\.1 +1 +1\\.000 +same "
[ "$rc" = 0 ] && ok "... exit 0" || not_ok "... exit 0" "exit $rc" "$(cat "$work/rcr")"
# and an oracle of many: B's (3000 x 60 + 7000 x 106.3) / 20000 = 46.2 ns, at A's costs 44.0
sed 's/"saves": 0, "restores": 1/"saves": 3000, "restores": 7000/; s/"ns_per_switch_median": 0.0/"ns_per_switch_median": 46.2/' "$work/oz-b.json" > "$work/oz-c.json"
sed 's/"saves": 0, "restores": 1/"saves": 3000, "restores": 7000/; s/"ns_per_switch_median": 0.0/"ns_per_switch_median": 44.0/' "$work/oz-a.json" > "$work/oz-d.json"
"$fpulab" compare "$work/oz-d.json" "$work/oz-c.json" > "$work/rcz2" 2> "$work/e"
expect "... (3000 x 60 + 7000 x 100) / 20000 = 44.0 at A's costs" "$work/rcz2" \
	"^replay oracle w t.trace +44\\.0 +1 +44\\.0 +1 +1\\.000 +same "

# A and B from different CPUs (their rows' host_cpu): a warning line naming both
jq -c '.host_cpu = "AMD EPYC 7763"' "$work/oz-d.json" > "$work/cpu-a.json"
jq -c '.host_cpu = "Intel Xeon Gold 6338"' "$work/oz-c.json" > "$work/cpu-b.json"
jq -c '.host_cpu = "AMD EPYC 7763"' "$work/oz-c.json" > "$work/cpu-b-same.json"
check "A and B on different CPUs: a warning line in the table, naming both" 0 \
	"# WARNING: A and B come from different CPUs: A ($work/cpu-a.json) on AMD EPYC 7763, B ($work/cpu-b.json) on Intel Xeon Gold 6338; B/A compares the machines as well as the policies" - -- \
	"$fpulab" compare "$work/cpu-a.json" "$work/cpu-b.json"
check "... and on stderr for --format json (no comments there)" 0 - \
	"fpulab compare: WARNING: A and B come from different CPUs: A ($work/cpu-a.json) on AMD EPYC 7763, B ($work/cpu-b.json) on Intel Xeon Gold 6338" -- \
	"$fpulab" compare --format json "$work/cpu-a.json" "$work/cpu-b.json"
"$fpulab" compare "$work/cpu-a.json" "$work/cpu-b-same.json" > "$work/rcpu" 2>&1
if grep -q WARNING "$work/rcpu"; then not_ok "the same CPU: no warning" "$(cat "$work/rcpu")"; else ok "the same CPU: no warning"; fi
"$fpulab" compare "$work/oz-d.json" "$work/cpu-b.json" > "$work/rcpu2" 2>&1
if grep -q WARNING "$work/rcpu2"; then not_ok "A's rows without host_cpu: no warning (nothing to compare)" "$(cat "$work/rcpu2")"; else ok "A's rows without host_cpu: no warning (nothing to compare)"; fi

# `fpulab host` rows as host wrote them before the schema (their run count is "runs")
printf '%s\n' '{"experiment": "host unlink", "source": "host-linux", "tasks": 1, "mode": "threads", "ops": 2000, "runs": 2, "runtime_ms_median": 100.0, "runtime_ms_min": 90.0, "runtime_ms_max": 110.0}' > "$work/hu-a.json"
sed 's/100\.0/150.0/; s/90\.0/140.0/; s/110\.0/160.0/' "$work/hu-a.json" > "$work/hu-b.json"
"$fpulab" compare "$work/hu-a.json" "$work/hu-b.json" > "$work/hu" 2> "$work/e"
rc=$?
[ "$rc" = 1 ] && ok "host unlink rows: compared (runs is their old key for repeats), 150/100 ms is worse: exit 1" ||
	not_ok "host unlink rows: compared (runs is their old key for repeats), 150/100 ms is worse: exit 1" "exit $rc" "$(cat "$work/e")"
expect "host unlink rows: runtime_ms_median is the figure, 2 runs, ratio 1.500" "$work/hu" \
	'^host unlink - tasks=1 threads +100\.0 +2 +150\.0 +2 +1\.500 +worse'

# One schema (docs/report.md): a file of the schema's keys (FIGURE_median, _min, _max, as run
# writes now) and one of the old keys (ticks_per_round_trip with ticks_min, ticks_max, as the
# fixtures have them) compare and summarise alike.
new_keys='with_entries(if .key == "ticks_per_round_trip" and .value != null then .key = "ticks_per_round_trip_median"
	elif .key == "ticks_min" then .key = "ticks_per_round_trip_min"
	elif .key == "ticks_max" then .key = "ticks_per_round_trip_max" else . end)'
jq -c "$new_keys" "$fx/compare-b.json" > "$work/b-new.json"
if jq -e -s '.[0].ticks_per_round_trip_median == 25000 and all(.[]; has("ticks_min") | not)' "$work/b-new.json" > /dev/null; then
	"$fpulab" compare "$fx/compare-a.json" "$fx/compare-b.json" 2> /dev/null | grep -v '^# fpulab compare:' > "$work/old-keys"
	"$fpulab" compare "$fx/compare-a.json" "$work/b-new.json" 2> /dev/null | grep -v '^# fpulab compare:' > "$work/new-keys"
	if [ -s "$work/old-keys" ] && cmp -s "$work/old-keys" "$work/new-keys"; then
		ok "new keys and old keys: the same comparison, row by row"
	else not_ok "new keys and old keys: the same comparison, row by row" "$(diff "$work/old-keys" "$work/new-keys" | head -n 8)"; fi
	"$fpulab" summary "$fx/compare-b.json" 2> /dev/null | grep -v '^full results:' > "$work/old-sum"
	"$fpulab" summary "$work/b-new.json" 2> /dev/null | grep -v '^full results:' > "$work/new-sum"
	if [ -s "$work/old-sum" ] && cmp -s "$work/old-sum" "$work/new-sum"; then ok "new keys and old keys: the same summary"
	else not_ok "new keys and old keys: the same summary" "$(diff "$work/old-sum" "$work/new-sum" | head -n 8)"; fi
else
	not_ok "new keys and old keys: the same comparison, row by row" "jq made no file of the new keys"
	not_ok "new keys and old keys: the same summary" "jq made no file of the new keys"
fi

# Both files through the bounded reader (RESULT_FILE_MAX_BYTES, 64 MiB): /dev/zero is refused at once.
timeout 60 "$fpulab" compare "$fx/compare-a.json" /dev/zero > /dev/null 2> "$work/ez"
rc=$?
expect "compare A /dev/zero: refused at the size limit" "$work/ez" '^fpulab compare: /dev/zero: larger than 64 MiB: not a result file$'
[ "$rc" = 2 ] && ok "... exit 2" || not_ok "... exit 2" "exit $rc"

# one run a side: no range, so a changed median is not judged; and what describes the
# machine (clock_label, boot, clock_ref, hypervisor, apic_khz) and a row's measured slices
# neither split a configuration nor count as a changed count
# (sed, not jq: jq would print 20000.0 as the integer 20000, which is a count)
head -n 1 "$fx/compare-a.json" | sed 's/"repeats": 5/"repeats": 1/; s/}$/, "slices": 847, "clock_label": "EMULATED", "boot": "pvh", "clock_ref": "pit", "hypervisor": "tcg", "apic_khz": 1003054}/' > "$work/one-a.json"
sed 's/"ticks_per_round_trip": 20000.0/"ticks_per_round_trip": 30000.0/; s/"ticks_min": 19000.0/"ticks_min": 30000.0/; s/"ticks_max": 21000.0/"ticks_max": 30000.0/; s/"slices": 847/"slices": 851/; s/"EMULATED"/"EMULATED, other words"/; s/"pvh"/"multiboot"/; s/1003054/1002720/' "$work/one-a.json" > "$work/one-b.json"
"$fpulab" compare "$work/one-a.json" "$work/one-b.json" > "$work/one" 2> /dev/null
rc=$?
expect "one run a side: a changed median is not judged" "$work/one" '^context-switch eager .* 1\.500 +one run +slices 847->851$'
expect "... and the footer says so; the machine's words split nothing" "$work/one" \
	'^# 1 configuration in both: 0 worse, 0 better, 0 no real difference, 1 not judged \(one run on a side: no range to weigh it against\); only in A: 0, only in B: 0$'
[ "$rc" = 0 ] && ok "... exit 0: nothing judged worse" || not_ok "... exit 0: nothing judged worse" "exit $rc"

# adaptive's counts change with the costs it decides by: compare says which differ
if grep -qw xsave /proc/cpuinfo; then
	"$fpulab" trace synth pingpong-one -o "$work/po.trace" --switches 400 > /dev/null
	for t in 5 100000; do
		"$fpulab" replay "$work/po.trace" --repeat 1 --policy adaptive --trap-ns $t --cr0-ns 30 \
			--ipi-ns 1000 --format json --output "$work/po$t.json" 2> /dev/null
	done
	"$fpulab" compare "$work/po5.json" "$work/po100000.json" > "$work/po" 2> /dev/null
	expect "adaptive's changed counts: the costs it decided by that differ are named" "$work/po" \
		'^replay adaptive pingpong-one .*nm_traps [0-9]+->[0-9]+.* \(adaptive decides by the costs it is given, which differ: trap_ns 5\.0->100000\.0[,)]'
else
	skip "compare of two adaptive replays" "no XSAVE"
fi

# The run options rows carry (prefetch, fpu_counter, fpu_counter_rule, slice_us): a row
# at another prefetch mode is another configuration; one at the default pairs with a row
# written before rows carried them (no key: the default).
head -n 1 "$fx/compare-a.json" > "$work/opt-old.json"
sed 's/}$/, "prefetch": "conditional", "fpu_counter": 5, "fpu_counter_rule": "ge"}/' "$work/opt-old.json" > "$work/opt-dflt.json"
sed 's/}$/, "prefetch": "always", "fpu_counter": 5, "fpu_counter_rule": "ge"}/' "$work/opt-old.json" > "$work/opt-always.json"
sed 's/}$/, "prefetch": "conditional", "fpu_counter": 3, "fpu_counter_rule": "ge"}/' "$work/opt-old.json" > "$work/opt-fc3.json"
"$fpulab" compare "$work/opt-old.json" "$work/opt-dflt.json" > "$work/opt1" 2> "$work/e"
expect "run options at their defaults: the same configuration as a row without them" "$work/opt1" \
	'^# 1 configuration in both: .*only in A: 0, only in B: 0$'
"$fpulab" compare "$work/opt-dflt.json" "$work/opt-always.json" > /dev/null 2> "$work/e"
rc=$?
expect "--prefetch always against conditional: no configuration in common" "$work/e" 'have no configuration in common'
[ "$rc" = 2 ] && ok "... exit 2" || not_ok "... exit 2" "exit $rc"
cat "$work/opt-dflt.json" "$work/opt-always.json" "$work/opt-fc3.json" > "$work/opt-three.json"
"$fpulab" compare "$work/opt-three.json" "$work/opt-three.json" > "$work/opt3" 2> "$work/e"
expect "three run-option settings: three configurations" "$work/opt3" '^# 3 configurations in both: '
expect "... a non-default option in the configuration, by name" "$work/opt3" '^context-switch eager .* prefetch=always '
expect "... a non-default number too" "$work/opt3" '^context-switch eager .* fpu_counter=3 '
if grep -q 'conditional\|fpu_counter=5\|fpu_counter_rule' "$work/opt3"; then
	not_ok "... defaults are not written into the configuration" "$(grep -E 'conditional|fpu_counter' "$work/opt3")"
else ok "... defaults are not written into the configuration"; fi
if grep '^context-switch' "$work/opt3" | grep -q -- '->'; then
	not_ok "... and a run option is no count that changed" "$(grep -- '->' "$work/opt3")"
else ok "... and a run option is no count that changed"; fi
finish
