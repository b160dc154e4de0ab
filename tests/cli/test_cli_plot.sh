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

"$fpulab" plot "$work/q" "$work/nosuch.json" > /dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && ok "plot: a missing file, exit 2" || not_ok "plot: a missing file, exit 2" "exit $rc"
"$fpulab" plot /proc/nope/dir "$fx/compare-a.json" > /dev/null 2>&1
rc=$?
[ "$rc" = 1 ] && ok "plot: a directory that cannot be made, exit 1" || not_ok "plot: a directory that cannot be made, exit 1" "exit $rc"

finish
