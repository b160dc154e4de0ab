#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab plot and report --plot: well-formed SVGs (xmllint) carrying the
# expected series, titles that name the unit and the source. TAP output.
set -u
. "$(dirname "$0")/lib.sh"
fx=$here/fixtures
expect() {
	if grep -qE -- "$3" "$2"; then ok "$1"; else not_ok "$1" "no line matches: $3"; fi
}
# series FILE: the plot's series, one a line (gnuplot names each in a <title>)
series() { grep -o '<title>[^<]*</title>' "$1" | sed 's/<[^>]*>//g' | grep -vx Gnuplot; }

"$fpulab" plot "$work/p" "$fx/compare-a.json" "$fx/plot-sweep.json" 2> "$work/e"
rc=$?
[ "$rc" = 0 ] && ok "plot: exit 0" || not_ok "plot: exit 0" "exit $rc" "$(cat "$work/e")"
for svg in context-switch short-tasks; do
	if xmllint --noout "$work/p/$svg.svg" 2> "$work/x"; then
		ok "$svg.svg is well-formed XML"
	else
		not_ok "$svg.svg is well-formed XML" "$(head -n 3 "$work/x")"
	fi
	[ -s "$work/p/$svg.gp" ] && [ -s "$work/p/$svg.dat" ] && ok "$svg: its .gp and .dat are kept" ||
		not_ok "$svg: its .gp and .dat are kept"
done
got=$(series "$work/p/context-switch.svg" | tr '\n' ' ')
[ "$got" = "eager lazy smp-lazy owner deferred " ] && ok "bars: one series per policy, in the file's order" ||
	not_ok "bars: one series per policy, in the file's order" "got: $got"
expect "bars: the configurations on the x axis, without the words all rows share (same-cpu)" \
	"$work/p/context-switch.dat" '^"one" 20000 19000 21000 20000 19500 20500 15000 14000 16000 NaN NaN NaN 24000 23000 25000$'
expect "bars: the title says the ticks are emulated" "$work/p/context-switch.svg" 'EMULATED TSC ticks under QEMU TCG'
expect "bars: the axis says the unit, the runs and the direction" "$work/p/context-switch.svg" \
	'TSC ticks per round trip, median of 5 runs; bars: min-max \(lower is better\)'
got=$(series "$work/p/short-tasks.svg" | tr '\n' ' ')
[ "$got" = "eager lazy " ] && ok "sweep: a line per policy" || not_ok "sweep: a line per policy" "got: $got"
expect "sweep: x is fp_slices, each line's median, min and max" "$work/p/short-tasks.dat" '^8 1800 1790 1810 1100 1090 1110$'
expect "sweep: the x axis is named" "$work/p/short-tasks.svg" '>fp_slices<'
expect "a .gp names its data and output relative to its own directory" "$work/p/context-switch.gp" \
	'^set output "context-switch.svg"$'
rm -f "$work/p/context-switch.svg"
(cd "$work/p" && gnuplot context-switch.gp 2> /dev/null)
xmllint --noout "$work/p/context-switch.svg" 2> /dev/null && ok "cd DIR && gnuplot NAME.gp redraws NAME.svg" ||
	not_ok "cd DIR && gnuplot NAME.gp redraws NAME.svg"

"$fpulab" report --from "$fx/report-context-switch.json" --plot "$work/r" > /dev/null 2> "$work/e"
rc=$?
[ "$rc" = 0 ] && xmllint --noout "$work/r/context-switch.svg" 2> /dev/null && ok "report --plot DIR: a well-formed SVG" ||
	not_ok "report --plot DIR: a well-formed SVG" "exit $rc" "$(cat "$work/e")"
got=$(series "$work/r/context-switch.svg" | tr '\n' ' ')
[ "$got" = "eager lazy smp-lazy " ] && ok "report --plot: the policies it read" || not_ok "report --plot: the policies it read" "got: $got"

# replay rows of several traces (as build/results/replay.json holds them): a bar group
# per workload at each policy's geometric mean over its traces of >= 200 switches, as
# summary --plot draws them, not a line over the traces' task counts (w: eager
# sqrt(100*400) = 200, lazy sqrt(50*200) = 100; v: one trace; s: too short, left out)
rrow() { # workload trace tasks switches policy ns
	printf '{"experiment": "replay", "workload": "%s", "trace": "%s", "tasks": %s, "switches": %s, "policy": "%s", "ns_per_switch": %s, "ns_per_switch_min": %s, "ns_per_switch_max": %s, "repeats": 3, "unit": "ns per switch", "source": "native"}\n' \
		"$1" "$2" "$3" "$4" "$5" "$6" "$6" "$6"
}
{
	rrow w w1 2 1000 oracle 10
	rrow w w1 2 1000 eager 100
	rrow w w1 2 1000 lazy 50
	rrow w w2 5 1000 eager 400
	rrow w w2 5 1000 lazy 200
	rrow v v1 3 1000 eager 30
	rrow v v1 3 1000 lazy 60
	rrow s s1 2 100 eager 1
	rrow s s1 2 100 lazy 1
} > "$work/replay.json"
"$fpulab" plot "$work/rp" "$work/replay.json" 2> "$work/e"
rc=$?
[ "$rc" = 0 ] && ok "plot replay rows: exit 0" || not_ok "plot replay rows: exit 0" "exit $rc" "$(cat "$work/e")"
expect "plot replay rows: 2 workloads, a series per policy (the oracle left out)" "$work/e" 'plot .*/replay\.svg \(2 workloads, 2 series\)$'
expect "... workload w: each policy's geometric mean over its 2 traces" "$work/rp/replay.dat" '^"w \(2 traces\)" 200 100$'
expect "... workload v: its one trace" "$work/rp/replay.dat" '^"v \(1 trace\)" 30 60$'
got=$(grep -vc '^#' "$work/rp/replay.dat")
[ "$got" = 2 ] && ok "... the workload of short traces only is not plotted" || not_ok "... the workload of short traces only is not plotted" "$got lines"
"$fpulab" plot "$work/rs" <(grep '"s1"' "$work/replay.json") > /dev/null 2> "$work/e"
rc=$?
[ "$rc" = 1 ] && grep -q 'replay: no trace of at least 200 switches, none plotted' "$work/e" &&
	ok "plot of short traces only: exit 1, and why" || not_ok "plot of short traces only: exit 1, and why" "exit $rc" "$(cat "$work/e")"

"$fpulab" plot "$work/q" "$work/nosuch.json" > /dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && ok "plot: a missing file, exit 2" || not_ok "plot: a missing file, exit 2" "exit $rc"
# DIR is checked before any file is read, as summary --plot and run --plot check theirs: exit 2
check "plot: a directory that cannot be made, exit 2, DIR named" 2 - "fpulab plot: DIR /proc/nope/dir: No such file or directory" -- \
	"$fpulab" plot /proc/nope/dir "$fx/compare-a.json"
# a result file given where DIR goes (fpulab plot keep.json s1.json): a usage error naming
# the argument, not "--plot keep.json" (no --plot was given) and exit 1
cp "$fx/compare-a.json" "$work/keep.json"
check "plot FILE FILE: exit 2, the first argument named as DIR, not a directory" 2 - \
	"fpulab plot: DIR $work/keep.json: not a directory (the first argument is where the plots go: fpulab plot DIR FILE...)" -- \
	"$fpulab" plot "$work/keep.json" "$fx/compare-a.json"
if grep -q -- '--plot' "$work/err"; then not_ok "... no --plot named" "$(cat "$work/err")"; else ok "... no --plot named"; fi
cmp -s "$work/keep.json" "$fx/compare-a.json" && ok "... and the file left as it was" || not_ok "... and the file left as it was"

finish
