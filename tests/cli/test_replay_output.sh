#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab replay --format table|json|csv --output FILE, through the one result
# writer, and fpulab compare on two replay files. TAP output; run by
# tests/run-tests.sh.
set -u
. "$(dirname "$0")/lib.sh"

# t NAME CONDITION-COMMAND...: ok when the command succeeds
t() {
	local name=$1
	shift
	if "$@" > /dev/null 2>&1; then ok "$name"; else not_ok "$name" "failed: $*" "$(head -n 3 "$work/err" 2> /dev/null)"; fi
}

"$fpulab" trace synth pingpong-both -o "$work/pp.trace" --switches 100 --xcr0 0x7 > /dev/null 2>&1
"$fpulab" replay "$work/pp.trace" --format bogus > /dev/null 2> "$work/err"
rc=$?
t "replay --format bogus: exit 2, says why" [ "$rc" = 2 -a -n "$(grep -F -- "--format: unknown value 'bogus' (one of: table, json, csv)" "$work/err")" ]
"$fpulab" replay "$work/pp.trace" --output "$work/nowhere/r.json" > /dev/null 2> "$work/err"
rc=$?
t "replay --output in a missing folder: exit 2 before replaying" [ "$rc" = 2 -a -n "$(grep "cannot create a file in $work/nowhere" "$work/err")" ]

if ! grep -qw xsave /proc/cpuinfo; then
	skips 21 "replay output" "no XSAVE"
	finish
	exit
fi

# Lab costs as `fpulab run --experiment costs --format json` writes them (the keys replay reads).
cat > "$work/costs.json" << 'J'
{"experiment": "costs", "policy": "eager", "cost": "nm-trap", "clock": "emulated-tsc", "repeats": 5, "ns_per_op": 812.5}
{"experiment": "costs", "policy": "eager", "cost": "cr0-write", "clock": "emulated-tsc", "repeats": 5, "ns_per_op": 41.2}
J

run() { # run NAME ARGS...: replay into $work/NAME, stderr into $work/err, exit status into rc
	local name=$1
	shift
	"$fpulab" replay "$work/pp.trace" --repeat 2 --policy eager,lazy "$@" > "$work/$name" 2> "$work/err"
	rc=$?
}
run a.out --format json --output "$work/a.json"
t "replay --format json --output FILE: exit 0, nothing on stdout" [ "$rc" = 0 -a ! -s "$work/a.out" ]
t "json: the oracle and a row per policy" [ "$(jq -s -c '[.[].policy]' "$work/a.json")" = '["oracle","eager","lazy"]' ]
t "json: every row carries its provenance and source" \
	jq -e -s 'all(.[]; .fpulab_version and .fpulab_git and .host_cpu and .host_kernel and .date and (.command | test("replay .*--format json")) and .source == "native" and .experiment == "replay")' "$work/a.json"
t "json: eager's exact counts (99 saves, 100 restores, no trap)" \
	jq -e -s '.[] | select(.policy == "eager") | .switches == 100 and .saves == 99 and .restores == 100 and .nm_traps == 0 and .integrity_errors == 0' "$work/a.json"
t "json: total = native median + params; params = traps x trap_ns + TS writes x cr0_ns, per switch; sources this host's" \
	jq -e -s 'all(.[] | select(.policy != "oracle"); (.ns_per_switch_median - .native_ns_per_switch_median + .timing_residue_ns_per_switch - .params_ns_per_switch | fabs) < 0.16 and (.params_ns_per_switch - (.nm_traps * .trap_ns + .ts_writes * .cr0_ns + .flush_ipis * .ipi_ns) / .switches | fabs) < 0.06 and (.trap_source | startswith("measured on this host: syscall round trip, lower bound")) and (.cr0_source | startswith("cited: seL4 RFC 0180")) and (.ipi_source | startswith("measured on this host: IPI round trip") or startswith("assumed (")) and .native_ns_per_switch_min <= .native_ns_per_switch_median and .native_ns_per_switch_median <= .native_ns_per_switch_max)' "$work/a.json"

# The timing residue: each policy's timed regions at one cost per region pooled over all
# policies' empty runs, so policies with the same regions get the same residue.
"$fpulab" trace synth pingpong-one -o "$work/p1.trace" --switches 400 > /dev/null 2>&1
"$fpulab" replay "$work/p1.trace" --repeat 3 --policy eager,deferred,lazy --format json --output "$work/r.json" 2> "$work/err"
t "json: eager and deferred time 2 regions per switch (switch, return to ring 3); lazy one more per #NM" \
	jq -e -s '(.[] | select(.policy == "eager") | .timed_regions == 800) and (.[] | select(.policy == "deferred") | .timed_regions == 800) and (.[] | select(.policy == "lazy") | .nm_traps == 200 and .timed_regions == 1000)' "$work/r.json"
t "json: the same timed regions, the same timing residue (eager, deferred)" \
	jq -e -s '[.[] | select(.policy == "eager" or .policy == "deferred") | .timing_residue_ns_per_switch] | length == 2 and .[0] == .[1]' "$work/r.json"
t "json: vs_best pairs run k with run k: the best static policy against itself is exactly 1x in all 3 runs" \
	jq -e -s '[.[] | select(.policy != "oracle")] | . as $rows | (map(select(.vs_best_median == 1 and .vs_best_min == 1 and .vs_best_max == 1)) | length >= 1 and .[0].ns_per_switch_median == ($rows | map(.ns_per_switch_median) | min)) and all(.[]; .vs_best_runs == 3 and .vs_best_min <= .vs_best_median and .vs_best_median <= .vs_best_max)' "$work/r.json"
t "json: no interval of the median from 3 runs (under 90% confidence)" \
	jq -e -s 'all(.[] | select(.policy != "oracle"); .vs_best_median_conf == null and .vs_best_median_lo == null)' "$work/r.json"
"$fpulab" replay "$work/p1.trace" --repeat 5 --policy eager,lazy --format json --output "$work/r5.json" 2> "$work/err"
t "json: from 5 runs the interval of the median is min to max, 93.75% confidence" \
	jq -e -s 'all(.[] | select(.policy != "oracle"); .vs_best_median_conf == 0.938 and .vs_best_median_lo == .vs_best_min and .vs_best_median_hi == .vs_best_max and .vs_best_runs == 5)' "$work/r5.json"
t "json: the control is one of the static policies replayed, the same in every row, its ratio within its range" \
	jq -e -s '(map(.control_policy) | unique | length == 1) and (.[0].control_policy | IN("eager", "deferred", "lazy")) and all(.[]; .control_ratio_min <= .control_ratio_median and .control_ratio_median <= .control_ratio_max)' "$work/r.json"
"$fpulab" replay "$work/p1.trace" --repeat 3 --policy eager,deferred,lazy > "$work/r.out" 2> "$work/err"
t "table: the control's resolution line, labelled with its run count" \
	grep -q '^# resolution: \(eager\|deferred\|lazy\) (the static policy best by counts) replayed again after every round, its total of run k over its own of run k: median [0-9.]*x, min [0-9.]*x, max [0-9.]*x of 3 runs' "$work/r.out"
t "table: the pooled cost of an empty region by entry point, with its run count" \
	grep -q '^# timing residue: one empty timed region, TSC ticks beyond the [0-9]*-tick overhead subtracted, by entry point: switch -\?[0-9.]*, return_to_user -\?[0-9.]*, handle_nm -\?[0-9.]* (pooled over the empty runs of all 3 policies, median of 3 runs)' "$work/r.out"
mhz=$(sed -n 's/^# native: .*TSC \([0-9.]*\) MHz.*/\1/p' "$work/r.out")
call=$(sed -n 's/^# timing residue: .*; the same regions each holding a call of an empty out-of-line function read \(-\?[0-9.]*\) native TSC ticks (\(-\?[0-9.]*\) ns) more than empty (eager.s empty runs, median of 3 runs): the least an entry point that is a call adds to a policy.s overhead$/\1 \2/p' "$work/r.out")
t "table: an empty call's ticks over an empty region, in ticks and in ns at the TSC's rate (${call:-none} at ${mhz:-?} MHz)" \
	awk -v c="$call" -v m="$mhz" 'BEGIN { split(c, a, " "); if (c == "" || m == "") exit 1; d = a[1] / (m / 1000) - a[2]; exit !(d < 0.006 && d > -0.006) }'

run b.out --format csv --output "$work/b.csv" --costs "$work/costs.json"
t "replay --format csv: exit 0" [ "$rc" = 0 ]
t "csv: every key of every JSON row in its header (the oracle's row first: it has them all)" [ -z "$(jq -s -r --arg h "$(head -n 1 "$work/b.csv")" '($h | split(",")) as $k | [.[] | keys_unsorted[]] | unique | map(select(. as $x | $k | index($x) | not)) | join(",")' "$work/a.json")" ]
t "csv: the JSON's keys as its header, a row per line" [ "$(head -n 1 "$work/b.csv")" = "$(jq -s -r '.[0] | keys_unsorted | join(",")' "$work/a.json")" -a "$(wc -l < "$work/b.csv")" = 4 ]
t "csv: RFC 4180 quoting of a source with a comma; the cost the file lacks from this host" \
	grep -q ',"lab costs, emulated (TCG)",41.2,"lab costs, emulated (TCG)",[0-9.]*,"\(measured on this host: IPI round trip\|assumed (\)' "$work/b.csv"

run c.out --costs "$work/costs.json"
t "table: the lab costs in the header, each row naming every source" \
	grep -q '^lazy .*trap lab costs, emulated (TCG); cr0 lab costs, emulated (TCG); ipi \(measured on this host: IPI round trip\|assumed (\)' "$work/c.out"

run d.out --format json --output "$work/d.json"
"$fpulab" compare --threshold 1000 "$work/a.json" "$work/d.json" > "$work/cmp" 2> "$work/err"
rc=$?
t "compare two replay files: exit 0 within the threshold, a line per configuration" \
	[ "$rc" = 0 -a "$(grep -c '^replay \(oracle\|eager\|lazy\) pingpong-both cpus=1 tasks=2 ' "$work/cmp")" = 3 ]
# B given a trap 1000 ns dearer, its native figures unchanged: what B reads at A's costs is A's.
jq -c 'if .policy == "lazy" then (.nm_traps * 1000 / .switches) as $d | .trap_ns += 1000 |
	.ns_per_switch_median += $d | .ns_per_switch_min += $d | .ns_per_switch_max += $d else . end' \
	"$work/a.json" > "$work/f.json"
"$fpulab" compare --format json "$work/a.json" "$work/f.json" > "$work/cmpf" 2> "$work/err"
rc=$?
t "compare: B given other per-event costs is read at A's (lazy's ratio 1, the costs named), exit 0" \
	[ "$rc" = 0 -a "$(jq -s -r '.[] | select(.configuration | startswith("replay lazy ")) | "\(.ratio) \(.verdict) \(.b_repriced)"' "$work/cmpf")" = "1 same trap_ns B $(jq -s -r '.[0].trap_ns + 1000' "$work/a.json") -> A $(jq -s -r '.[0].trap_ns' "$work/a.json")" ]
run e.out --format json --output "$work/e.json" --costs "$work/costs.json"
"$fpulab" compare "$work/a.json" "$work/e.json" > /dev/null 2> "$work/err"
rc=$?
t "compare refuses native figures against figures with emulated lab costs" [ "$rc" = 2 -a -n "$(grep 'a.json has native (.*e.json has native-emulated-costs' "$work/err")" ]
"$fpulab" compare "$work/a.json" "$here/fixtures/compare-a.json" > /dev/null 2> "$work/err"
rc=$?
t "compare refuses native replay figures against the lab's emulated ticks" [ "$rc" = 2 -a -n "$(grep 'a.json has native (.*compare-a.json has emulated' "$work/err")" ]
cp "$work/p1.trace" "$work/in.trace"
ln -s in.trace "$work/link.trace"
"$fpulab" replay "$work/link.trace" --repeat 1 --policy lazy --output "$work/in.trace" > /dev/null 2> "$work/err"
rc=$?
cmp -s "$work/p1.trace" "$work/in.trace"
same=$?
t "replay --output a trace it reads (through a link): exit 2, the trace untouched, both paths named" \
	[ "$rc" = 2 -a "$same" = 0 -a -n "$(grep -F "the output $work/in.trace is the input $work/link.trace: refusing to overwrite it" "$work/err")" ]
"$fpulab" compare "$work/a.json" "$work/d.json" --output "$work/d.json" > /dev/null 2> "$work/err"
t "compare --output B: exit 2, B untouched" [ $? = 2 -a "$(jq -s length "$work/d.json")" -gt 0 ]
"$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager --format json --output "$work/own.json" > /dev/null 2>&1
chmod 640 "$work/own.json"
ln -sf own.json "$work/outlink.json"
"$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager,lazy --format json --output "$work/outlink.json" > /dev/null 2> "$work/err"
t "replay --output a symlink: the link stays, its file gets the rows and keeps its mode" \
	[ $? = 0 -a -L "$work/outlink.json" -a "$(stat -c %a "$work/own.json")" = 640 -a "$(grep -c '"policy": "lazy"' "$work/own.json")" = 1 ]
# ended by a signal before its rows: the old file as it was, no temporary left beside it
# (SIGTERM: a background job of a script ignores SIGINT)
"$fpulab" trace synth build -o "$work/big.trace" --switches 200000 > /dev/null 2>&1
echo before > "$work/int.json"
"$fpulab" replay "$work/big.trace" --repeat 20 --format json --output "$work/int.json" > /dev/null 2> "$work/err" &
p=$!
sleep 1
kill -TERM "$p"
wait "$p"
rc=$?
t "replay ended by SIGTERM: exit 143, --output as it was, no temporary file left" \
	[ "$rc" = 143 -a "$(cat "$work/int.json")" = before -a "$(find "$work" -name 'int.json.tmp-*' | wc -l)" = 0 ]
finish
