#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab summary on fixed result files: the winning policy, its ratios to
# eager and to the runner-up, whether the win is beyond the ranges; a
# correctness experiment's totals. TAP output.
set -u
. "$(dirname "$0")/lib.sh"
fx=$here/fixtures
expect() {
	if grep -qE -- "$3" "$2"; then ok "$1"; else not_ok "$1" "no line matches: $3" "$(cat "$2")"; fi
}

"$fpulab" summary --plot "$work/plots" "$fx/compare-a.json" > "$work/s" 2> "$work/e"
rc=$?
[ "$rc" = 0 ] && ok "summary: exit 0" || not_ok "summary: exit 0" "exit $rc" "$(cat "$work/e")"
# smp-lazy 15000 / eager 20000 = 0.75; eager is the runner-up (lazy ties it at 1.00,
# the first in the file wins the tie); 16000 (smp-lazy's max) < 19000 (eager's min)
expect "smp-lazy wins, 0.75x eager, beyond the ranges" "$work/s" \
	'^  all +smp-lazy +0\.75x +0\.75x eager +yes$'
expect "the unit and the source are named" "$work/s" 'TSC ticks per round trip, EMULATED TSC ticks under QEMU TCG'
expect "the number of runs is named" "$work/s" 'medians of 5 runs'
expect "then where the full results are" "$work/s" "^full results: $fx/compare-a.json$"
expect "and the plots" "$work/s" "^plots: $work/plots/ \\(1 SVG\\)$"

"$fpulab" summary "$fx/report-context-switch.json" > "$work/s2" 2> /dev/null
# fp_users varies, regset varies: the class is fp_users; eager only in 'one'
expect "classes: one per FP-user count; smp-lazy wins with FP in one task" "$work/s2" \
	'^  fp_users=one +smp-lazy +0\.76x +0\.80x lazy +yes$'

printf '%s\n' '{"experiment": "stress", "policy": "eager", "repeats": 1, "integrity_errors": 0, "integrity_errors_all_runs": 0, "ticks_per_switch": 900.0}' \
	'{"experiment": "stress", "policy": "owner", "repeats": 1, "integrity_errors": 1, "integrity_errors_all_runs": 1, "ticks_per_switch": 800.0}' > "$work/stress.json"
"$fpulab" summary "$work/stress.json" > "$work/s3" 2> /dev/null
expect "a correctness experiment: its abi.h figure per policy, not a timing" "$work/s3" '^  eager 0 owner 1$'
expect "named with its unit; each policy's count is over its own run" "$work/s3" \
	"^stress: integrity errors per policy, every event counted \\(not sampled; a count may differ between runs where the schedule does\\), each policy's total over its 1 run \\(lower is better\\):$"
printf '%s\n' '{"experiment": "stress", "policy": "eager", "repeats": 2, "integrity_errors_all_runs": 0}' \
	'{"experiment": "stress", "policy": "owner", "repeats": 3, "integrity_errors_all_runs": 1}' > "$work/stress2.json"
"$fpulab" summary "$work/stress2.json" > "$work/s3b" 2> /dev/null
expect "policies of different run counts: the range of them" "$work/s3b" "each policy's total over its 2 to 3 runs"


# Replay rows (fpulab replay --format json): per workload, over its traces of
# at least 200 switches, owner's geometric mean over eager's is
# sqrt(40/100 * 50/100) = 0.45x; eager (1.00x) is the runner-up, lazy
# sqrt(0.5 * 2.5) = 1.12x; adaptive sqrt(44/40 * 50/50) = 1.05x of owner;
# the break-even is the median of lazy's 80 and 120 ns, the lower middle (80: a
# measured value, not their mean; docs/runner.md); t3 (100 switches)
# would make lazy the winner if it counted.
row() { # trace switches policy ns min max break_even
	printf '{"experiment": "replay", "workload": "%s", "trace": "%s", "switches": %s, "policy": "%s", "ns_per_switch": %s, "ns_per_switch_min": %s, "ns_per_switch_max": %s, "break_even_trap_ns": %s, "repeats": 5, "host_cpu": "CPU", "save_insn": "xsavec", "xcr0": "0x7", "trap_ns": 150.0, "trap_source": "assumed", "cr0_ns": 30.0, "cr0_source": "assumed", "ipi_ns": 1000.0, "ipi_source": "assumed", "unit": "ns per switch", "source": "native"}\n' \
		"${8:-w}" "$1" "$2" "$3" "$4" "$5" "$6" "$7"
}
{
	row t1 1000 oracle 10 null null null
	row t1 1000 eager 100 99 101 null
	row t1 1000 lazy 50 49 51 80
	row t1 1000 owner 40 39 41 null
	row t1 1000 adaptive 44 43 45 null
	row t2 1000 eager 100 99 101 null
	row t2 1000 lazy 250 240 260 120
	row t2 1000 owner 50 48 52 null
	row t2 1000 adaptive 50 49 51 null
	row t3 100 eager 1 1 1 null
	row t3 100 lazy 0.001 0.001 0.001 5000
	row t3 100 owner 1000 1000 1000 null
	row t4 100 eager 1 1 1 null short
	row t4 100 lazy 2 2 2 null short
} > "$work/replay.json"
"$fpulab" summary "$work/replay.json" > "$work/s4" 2> "$work/e4"
rc=$?
[ "$rc" = 0 ] && ok "replay rows: exit 0" || not_ok "replay rows: exit 0" "exit $rc" "$(cat "$work/e4")"
expect "replay: the costs, their sources and the runs are named" "$work/s4" \
	'^replay: ns per switch on this CPU \(CPU, xsavec, libfpu.s XCR0 mask 0x7\): .*#NM 150 ns \(assumed\), CR0 write 30 ns \(assumed\), IPI 1000 ns \(assumed\); medians of 5 runs; traces of at least 200 switches$'
expect "replay: owner wins over 2 traces, 0.45x eager, adaptive 1.05x, break-even 80 ns (the lower middle), beyond the ranges" "$work/s4" \
	'^  w +2  owner +0\.45x +0\.45x eager +1\.05x +80 ns +- +yes$'
# two replays (of other traces) at different trap costs, summarised together: said, with the ranges
sed -e 's/"trap_ns": 150/"trap_ns": 400/' -e 's/"trace": "t/"trace": "u/' "$work/replay.json" > "$work/replay400.json"
"$fpulab" summary "$work/replay.json" "$work/replay400.json" > "$work/s4m" 2> /dev/null
expect "replay: rows of replays at different costs are said to be mixed, with the ranges" "$work/s4m" \
	'^replay: MIXED: these rows come from replays at different costs or runs \(#NM 150 to 400 ns, CR0 30\.0 to 30\.0 ns, IPI 1000 to 1000 ns, 5 to 5 runs\)'
expect_none() { if grep -qE -- "$3" "$2"; then not_ok "$1" "a line matches: $3"; else ok "$1"; fi; }
expect_none "and no single cost line claims them all" "$work/s4m" '^replay: ns per switch on this CPU'
# Two replays of the same traces (the same command run twice), or one lab run's
# file given twice: each configuration is there twice, which no ranking can
# take (each would be divided by the first file's eager, its trace counted
# twice): refused, exit 2, naming the configuration and both files.
# refused_twice NAME PATTERN FILE...: summary of FILE... exits 2, says PATTERN, prints nothing
refused_twice() {
	local name=$1 pattern=$2
	shift 2
	"$fpulab" summary "$@" > "$work/s4t" 2> "$work/e4t"
	local rc=$?
	[ "$rc" = 2 ] && [ ! -s "$work/s4t" ] && ok "$name: exit 2, nothing summarised" ||
		not_ok "$name: exit 2, nothing summarised" "exit $rc" "$(cat "$work/s4t")"
	expect "$name: the configuration and both rows named" "$work/e4t" "$pattern"
}
cp "$work/replay.json" "$work/replay-again.json"
refused_twice "replay rows of one configuration in two files" \
	"^fpulab summary: $work/replay.json row 1 and $work/replay-again.json row 1 hold one configuration twice \\(replay policy=oracle workload=w trace=t1\\): summarise one run's file, or compare the two with fpulab compare A B$" \
	"$work/replay.json" "$work/replay-again.json"
cp "$fx/compare-a.json" "$work/run-again.json"
refused_twice "two lab run files of one matrix" \
	"^fpulab summary: $fx/compare-a.json row 1 and $work/run-again.json row 1 hold one configuration twice \\(context-switch policy=eager " \
	"$fx/compare-a.json" "$work/run-again.json"
{ cat "$work/replay.json"; row t2 1000 lazy 250 240 260 120; } > "$work/replay-twice.json"
refused_twice "one file holding a configuration twice" \
	"replay-twice.json row 7 and .*replay-twice.json row 15 hold one configuration twice \\(replay policy=lazy workload=w trace=t2\\)" \
	"$work/replay-twice.json"
{ row t5 1000 eager 10 10 10 null neg; row t5 1000 lazy 30 30 30 -14 neg; } > "$work/neg.json"
"$fpulab" summary "$work/neg.json" > "$work/s5" 2> "$work/e5"
expect "replay: a break-even below 0 reads as any trap cost" "$work/s5" \
	'^  neg +1  eager +1\.00x +0\.33x lazy +- +any \(-14 ns\) +- +yes$'
# A trace where lazy wins at any trap cost has no break-even (null): it counts
# as above every other, not left out. 50 ns, +inf, +inf: the median is +inf.
{
	for t in u1 u2 u3; do row $t 1000 eager 10 10 10 null inf; done
	row u1 1000 lazy 5 5 5 50 inf | jq -c '.verdict = "decided: eager beats lazy here (break-even 50.0 ns)"'
	row u2 1000 lazy 5 5 5 null inf | jq -c '.verdict = "decided: lazy beats eager here at any trap cost"'
	row u3 1000 lazy 5 5 5 null inf | jq -c '.verdict = "decided: lazy beats eager here at any trap cost"'
} > "$work/inf.json"
"$fpulab" summary "$work/inf.json" > "$work/s6" 2> /dev/null
expect "replay: traces lazy wins at any trap cost count in the break-even's median" "$work/s6" \
	'^  inf +3  lazy .* none \(lazy\) +eager 1, lazy 2, undecided 0 '
expect "replay: a workload of short traces only is named, not judged" "$work/s4" \
	'^  short +0  \(no trace of at least 200 switches\)$'

# summary --plot: replay rows as a bar group per workload, a bar per policy at
# the geometric mean of its ns per switch over the traces summary ranks by
# (t1, t2: eager 100, lazy sqrt(50*250), owner sqrt(40*50), adaptive sqrt(44*50));
# not one series per trace and policy; oracle and short traces left out.
"$fpulab" summary --plot "$work/rp" "$work/replay.json" > /dev/null 2> "$work/e4p"
expect "summary --plot replay: one line per workload with 2 traces, each policy's geometric mean" \
	"$work/rp/replay.dat" '^"w \(2 traces\)" 100 111\.803 44\.7214 46\.9042$'
holds "... the workload of short traces only is not plotted" [ "$(grep -vc '^#' "$work/rp/replay.dat")" = 1 ]
got=$(grep -o '<title>[^<]*</title>' "$work/rp/replay.svg" | sed 's/<[^>]*>//g' | grep -vx Gnuplot | tr '\n' ' ')
holds "... a series per policy (got: $got)" [ "$got" = "eager lazy owner adaptive " ]
expect "... the title says what a bar is, with the runs" "$work/rp/replay.svg" \
	"a bar: the geometric mean over the workload's traces of at least 200 switches of each trace's median of 5 runs"
expect "... and the unit" "$work/rp/replay.svg" 'ns per switch \(lower is better\)'
expect "... stderr: 1 workload, 4 series" "$work/e4p" 'plot .*/replay.svg \(1 workload, 4 series\)'
# the script's paths are its directory's: it redraws from there
expect "the .gp names its output beside it" "$work/rp/replay.gp" '^set output "replay.svg"$'
rm -f "$work/rp/replay.svg"
(cd "$work/rp" && gnuplot replay.gp 2> /dev/null)
holds "cd DIR && gnuplot replay.gp redraws replay.svg" [ -s "$work/rp/replay.svg" ]

"$fpulab" summary "$work/nosuch.json" > /dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && ok "a missing file: exit 2" || not_ok "a missing file: exit 2" "exit $rc"

# The same rows from one run each: no range to be beyond, and "1 run".
sed 's/"repeats": 5/"repeats": 1/' "$work/replay.json" > "$work/replay1.json"
"$fpulab" summary "$work/replay1.json" > "$work/s5" 2> /dev/null
expect "--repeat 1: one run, no range (not yes)" "$work/s5" '^  w +2  owner +0\.45x +0\.45x eager +1\.05x +80 ns +- +one run: no range$'
expect "--repeat 1: medians of 1 run" "$work/s5" 'medians of 1 run;'
# lab rows of one run: the same
sed 's/"repeats": 5/"repeats": 1/g' "$fx/compare-a.json" > "$work/lab1.json"
"$fpulab" summary "$work/lab1.json" > "$work/s6" 2> /dev/null
expect "lab rows of one run: no range" "$work/s6" '^  all +smp-lazy +0\.75x +0\.75x eager +one run: no range$'
expect "lab rows of one run: medians of 1 run" "$work/s6" 'medians of 1 run$'

# A replay row without the numbers the section needs is left out and counted, never nan.
{ cat "$work/replay.json"; echo '{"experiment": "replay", "policy": "eager"}'; } > "$work/replay-bad.json"
"$fpulab" summary "$work/replay-bad.json" > "$work/s7" 2> "$work/e7"
rc=$?
[ "$rc" = 0 ] && ok "a replay row without figures: exit 0" || not_ok "a replay row without figures: exit 0" "exit $rc" "$(cat "$work/e7")"
expect "... left out and counted" "$work/s7" '^  1 replay row left out: without its policy, workload, trace, switches, repeats, ns_per_switch'
expect "... the others still summarised" "$work/s7" '^  w +2  owner +0\.45x'
grep -qi 'nan' "$work/s7" && not_ok "... no nan printed" "$(cat "$work/s7")" || ok "... no nan printed"
echo '{"experiment": "replay", "policy": "eager"}' > "$work/replay-only-bad.json"
"$fpulab" summary "$work/replay-only-bad.json" > "$work/s8" 2> /dev/null
expect "only such rows: nothing to summarise, said so" "$work/s8" '^replay: no row to summarise$'
grep -qi 'nan' "$work/s8" && not_ok "... and no nan" "$(cat "$work/s8")" || ok "... and no nan"

# Input that is no result rows: refused, exit 2, with the reason.
# refused NAME FILE REGEX: summary FILE exits 2 and says REGEX on stderr
refused() {
	"$fpulab" summary "$2" > "$work/out" 2> "$work/err"
	local rc=$?
	if [ "$rc" = 2 ] && grep -qE -- "$3" "$work/err" && [ ! -s "$work/out" ]; then ok "$1"
	else not_ok "$1" "exit $rc" "stderr: $(cat "$work/err")" "stdout: $(cat "$work/out")"; fi
}
echo '{"a": 1}' > "$work/obj.json"
refused "an object without experiment: exit 2" "$work/obj.json" 'obj.json: row 1 is not a result row .*: \{"a":1\}$'
echo '[1, 2]' > "$work/arr.json"
refused "an array of numbers: exit 2" "$work/arr.json" 'arr.json: row 1 is not a result row .*: 1$'
printf '%s\n' "$(head -n 1 "$fx/compare-a.json")" '{"policy": "eager"}' > "$work/second.json"
refused "a good row then a row without experiment: exit 2, the row named" "$work/second.json" 'second.json: row 2 is not a result row'
mkdir -p "$work/dir"
refused "a directory: exit 2, is a directory" "$work/dir" 'dir: is a directory'

# A file whose run stopped early (lab/run_table_partial.c's marker): said on stdout.
{ cat "$fx/compare-a.json"; echo '{"partial": true, "reason": "interrupted (SIGINT)", "configurations_done": 5}'; } > "$work/partial.json"
"$fpulab" summary "$work/partial.json" > "$work/s9" 2> /dev/null
expect "a partial file is named as partial, with its reason" "$work/s9" \
	'^PARTIAL: .*partial.json holds partial results \(interrupted \(SIGINT\)\): only the rows it holds are summarised above$'
expect "... and its rows summarised" "$work/s9" '^  all +smp-lazy +0\.75x'
# A replay of a trace imported from Linux (an excerpt of a real recording: make forking
# mkdir; replay's counts are exact): a section of its own, not a replay workload.
"$fpulab" trace import "$here/fixtures/linux/fork-exec-exit.txt" -o "$work/fee.trace" > /dev/null
"$fpulab" replay "$work/fee.trace" --repeat 1 --format json --output "$work/fee.json" 2> /dev/null
"$fpulab" summary "$work/fee.json" "$work/replay.json" > "$work/s11" 2> "$work/e11"
rc=$?
[ "$rc" = 0 ] && ok "a Linux replay: exit 0" || not_ok "a Linux replay: exit 0" "exit $rc" "$(cat "$work/e11")"
expect "linux: what was recorded: its workload, time, CPUs, switches, forks (processes and threads)" "$work/s11" \
	'^linux: a recorded Linux workload replayed under every policy \(.*fee\.trace\): linux, 0\.005 s on 2 CPUs, 53 switches, 1 fork \(processes and threads\), 2 execs; #NM counts exact, times medians of 1 run$'
expect "linux: Linux's own counts beside deferred's and the oracle's at both bounds" "$work/s11" \
	"^  Linux's own: 48 saves, 49 restores; deferred 49, 50 \(restores \+2\.04% of Linux's; window start \+1, signal frames -0, other \+0: that is within 3%\); oracle 41 \.\. 0 saves, 50 \.\. 1 restores \(every-return \.\. evidence bound\)$"
expect "linux: the policy table's columns: #NM traps, per 1000 forks" "$work/s11" '^  policy +#NM traps +per 1000 forks +FPU cost, share of the CPU time$'
expect "linux: lazy's #NM at both bounds, per 1000 forks, its share of the CPU time" "$work/s11" \
	'^  lazy +52 \.\. 1 +52000 \.\. 1000 +[0-9.]+% \.\. [0-9.]+%$'
"$fpulab" replay "$work/fee.trace" --repeat 1 --policy lazy,deferred --format json --output "$work/fee2.json" 2> /dev/null
"$fpulab" summary "$work/fee2.json" > "$work/s12" 2> /dev/null
expect "linux: a replay under two policies says which, not every policy" "$work/s12" \
	'^linux: a recorded Linux workload replayed under lazy, deferred \(.*fee\.trace\): '
expect "linux: eager's 0 at both" "$work/s11" '^  eager +0 \.\. 0 +0 \.\. 0 +[0-9.]+% \.\. [0-9.]+%$'
expect "linux: the cheapest policy at each bound" "$work/s11" '^  cheapest \(total ns per switch\): (eager|lazy|lazy-counter|owner|deferred|smp-lazy|adaptive) at every-return, (eager|lazy|lazy-counter|owner|deferred|smp-lazy|adaptive) at evidence: '
expect "... beside the replay section of the other traces" "$work/s11" '^  w +2  owner +0\.45x'
if grep -q "left out" "$work/s11"; then not_ok "the Linux rows are not replay rows left out" "$(grep "left out" "$work/s11")"; else ok "the Linux rows are not replay rows left out"; fi
if grep -qE '^  linux ' "$work/s11"; then not_ok "the Linux trace is not a replay workload line"; else ok "the Linux trace is not a replay workload line"; fi
"$fpulab" summary "$work/fee.json" > "$work/s12" 2> /dev/null
if grep -q "no row to summarise" "$work/s12"; then not_ok "a Linux replay alone: no empty replay section"; else ok "a Linux replay alone: no empty replay section"; fi

# replay --sweep rows: one trace at 11 IPI costs, not 11 configurations: left
# out of the winner tables, said in one line (no winner over a mean of costs).
"$fpulab" trace synth migrating -o "$work/m.trace" --switches 400 > /dev/null 2>&1
"$fpulab" replay "$work/m.trace" --policy eager,lazy --sweep ipi=0..20000 --repeat 1 \
	--format json --output "$work/sweep.json" 2> "$work/err"
"$fpulab" summary "$work/sweep.json" > "$work/s15" 2> "$work/e15"
rc=$?
[ "$rc" = 0 ] && ok "replay --sweep rows: exit 0" || not_ok "replay --sweep rows: exit 0" "exit $rc" "$(cat "$work/e15")"
expect "... left out of the winner tables, said in one line with the cost, its range and the traces" "$work/s15" \
	'^replay-sweep: 22 rows of replay --sweep \(ipi cost from 0 to 20000 ns, 1 trace\) left out of the winner tables: '
expect_none "... no winner named over the sweep's points" "$work/s15" '^replay-sweep: .*(wins|medians of)|^  all '
expect "... the replay's own rows still summarised" "$work/s15" '^  migrating +1  (eager|lazy) '

"$fpulab" summary "$fx/compare-a.json" > "$work/s10" 2> /dev/null
grep -q PARTIAL "$work/s10" && not_ok "a complete file: no PARTIAL line" || ok "a complete file: no PARTIAL line"

# A reader stops at RESULT_FILE_MAX_BYTES (64 MiB): /dev/zero is refused, not read until memory runs out.
timeout 60 "$fpulab" summary /dev/zero > /dev/null 2> "$work/e13"
rc=$?
expect "summary /dev/zero: refused at the size limit" "$work/e13" '^fpulab summary: /dev/zero: larger than 64 MiB: not a result file$'
[ "$rc" = 2 ] && ok "... exit 2" || not_ok "... exit 2" "exit $rc"
"$fpulab" trace synth pingpong-one -o "$work/p.trace" --switches 400 > /dev/null 2>&1
timeout 60 "$fpulab" replay "$work/p.trace" --repeat 1 --policy lazy --costs /dev/zero > /dev/null 2> "$work/e14"
rc=$?
expect "replay --costs /dev/zero: refused at the size limit, exit 1 (a --costs file refused)" "$work/e14" '/dev/zero: larger than 64 MiB: not a result file$'
[ "$rc" = 1 ] && ok "... exit 1" || not_ok "... exit 1" "exit $rc"

finish
