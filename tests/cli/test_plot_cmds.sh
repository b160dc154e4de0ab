#!/bin/bash
# SPDX-License-Identifier: MIT
# --plot DIR on run (against the fake QEMU), replay and host: well-formed
# SVGs (xmllint) with the expected series, titles and axes that say the unit
# and whether the time is emulated, hardware or projected. TAP output.
set -u
. "$(dirname "$0")/lib.sh"
# expect NAME FILE REGEX: a line of FILE matches
expect() {
	if grep -qE -- "$3" "$2"; then ok "$1"; else not_ok "$1" "no line matches: $3" "$(head -c 300 "$2" 2> /dev/null)"; fi
}
# series FILE: the plot's series, one a line (gnuplot names each in a <title>)
series() { grep -o '<title>[^<]*</title>' "$1" | sed 's/<[^>]*>//g' | grep -vx Gnuplot | tr '\n' ' '; }
# svg_ok NAME FILE: well-formed XML
svg_ok() {
	if xmllint --noout "$2" 2> "$work/x"; then ok "$1"; else not_ok "$1" "$(head -n 3 "$work/x" 2> /dev/null)"; fi
}

# ---- run --plot, against the fake QEMU ----
fake_qemu
result() { # POLICY PLACEMENT REPEAT TICKS [SLICES]
	echo "@fpulab result experiment=context-switch policy=$1 placement=$2 fp_users=one regset=sse" \
	     "repeat=$3 cpus=2 tasks=2 round_trips=1000 switches=2000 nm_traps=0 saves=2000" \
	     "restores=2000 ipis=0 flush_ipis=0 integrity_errors=0 ticks=$4 slices=${5:-2000} fp_slices=${5:-2000}"
}
{
	echo '@fpulab hello version=1 cpus=2 apic=xapic xcr0=0x7 insn=xsaveopt policies=eager,lazy kernel_size=1 user_size=1 tsc_khz=2000000'
	result eager same-cpu 0 3000000; result lazy same-cpu 0 2000000
	result eager same-cpu 1 5000000; result lazy same-cpu 1 2500000
	result eager cross-cpu 0 4000000; result lazy cross-cpu 0 9000000 1997
	result eager cross-cpu 1 2000000; result lazy cross-cpu 1 8000000 1998
	echo "@fpulab done runs=8"
} > "$work/guest"
FAKE_GUEST="$work/guest" "$fpulab" run --kernel "$work/lab.elf" --accel tcg --plot "$work/run" > "$work/out" 2> "$work/err"
rc=$?
[ "$rc" = 0 ] && ok "run --plot DIR: exit 0, the table on stdout as without it" || not_ok "run --plot DIR: exit 0" "exit $rc" "$(tail -n 3 "$work/err")"
svg_ok "run --plot: context-switch.svg is well-formed" "$work/run/context-switch.svg"
[ "$(series "$work/run/context-switch.svg")" = "eager lazy " ] && ok "run --plot: a series per policy" ||
	not_ok "run --plot: a series per policy" "got: $(series "$work/run/context-switch.svg")"
expect "run --plot: a bar per configuration with its median (the lower middle run), min and max" "$work/run/context-switch.dat" '^"same-cpu" 3000 3000 5000 2000 2000 2500$'
[ "$(grep -c '^"' "$work/run/context-switch.dat")" = 2 ] &&
	expect "run --plot: slices counted per policy do not split a configuration (context-switch takes no --slices)" \
		"$work/run/context-switch.dat" '^"cross-cpu" 2000 2000 4000 8000 8000 9000$' ||
	not_ok "run --plot: slices counted per policy do not split a configuration" "$(cat "$work/run/context-switch.dat")"
expect "run --plot: the title says the ticks are emulated" "$work/run/context-switch.svg" 'EMULATED TSC ticks under QEMU TCG'
expect "run --plot: the axis says the unit, the runs and the direction" "$work/run/context-switch.svg" 'TSC ticks per round trip, median of 2 runs; bars: min-max \(lower is better\)'
expect "run --plot: says where the plots are" "$work/err" "plots: $work/run/ \\(1 SVG\\)"
FAKE_GUEST="$work/guest" "$fpulab" run --kernel "$work/lab.elf" --accel tcg --format json --plot "$work/run-json" > /dev/null 2>&1
cmp -s "$work/run/context-switch.dat" "$work/run-json/context-switch.dat" && ok "run --plot: the same data whatever --format" ||
	not_ok "run --plot: the same data whatever --format"
rm -f "$FAKE_QEMU_ARGS"
FAKE_GUEST="$work/guest" "$fpulab" run --kernel "$work/lab.elf" --accel tcg --plot /proc/nope/plots > /dev/null 2> "$work/err"
rc=$?
[ "$rc" = 2 ] && [ ! -e "$FAKE_QEMU_ARGS" ] && grep -q -- "--plot /proc/nope/plots" "$work/err" &&
	ok "run --plot into a folder that cannot be made: exit 2 before QEMU" ||
	not_ok "run --plot into a folder that cannot be made: exit 2 before QEMU" "exit $rc" "$(cat "$work/err")"

# ---- replay --plot ----
if grep -qw xsave /proc/cpuinfo; then
	"$fpulab" trace synth pingpong-both -o "$work/pp.trace" --switches 100 --xcr0 0x7 > /dev/null 2>&1
	"$fpulab" trace synth cross-cpu -o "$work/cc.trace" --switches 100 --xcr0 0x7 > /dev/null 2>&1
	echo '{"trap_ns": 150, "cr0_ns": 30, "ipi_ns": 1000}' > "$work/c.json"
	"$fpulab" replay "$work/pp.trace" "$work/cc.trace" --repeat 2 --policy eager,lazy --plot "$work/rp" --costs "$work/c.json" > /dev/null 2> "$work/err"
	rc=$?
	[ "$rc" = 0 ] && ok "replay --plot DIR: exit 0" || not_ok "replay --plot DIR: exit 0" "exit $rc" "$(tail -n 3 "$work/err")"
	svg_ok "replay --plot: replay.svg is well-formed" "$work/rp/replay.svg"
	[ "$(series "$work/rp/replay.svg")" = "oracle eager lazy " ] && ok "replay --plot: the oracle and a series per policy" ||
		not_ok "replay --plot: the oracle and a series per policy" "got: $(series "$work/rp/replay.svg")"
	expect "replay --plot: a bar group per trace (the oracle's without a range)" "$work/rp/replay.dat" '^"pingpong-both cpus=1 pp.trace" ([0-9.]+) \1 \1( [0-9.]+){6}$'
	expect "replay --plot: ... the other trace" "$work/rp/replay.dat" '^"cross-cpu cpus=2 cc.trace"( [0-9.]+){9}$'
	expect "replay --plot: the title says the time is projected" "$work/rp/replay.svg" '>replay: projected ns per switch by policy<'
	expect "replay --plot: ... and from what" "$work/rp/replay.svg" 'native replay on this CPU \+ #NM trap 150.0 ns, CR0 write 30.0 ns, IPI 1000.0 ns \(.*c.json\)'
	expect "replay --plot: the axis says ns per switch and the runs (the oracle's counts are one)" "$work/rp/replay.svg" 'ns per switch, median of 1 to 2 runs; bars: min-max \(lower is better\)'
else
	skips 7 "replay --plot" "no XSAVE"
fi

# ---- host --plot ----
"$fpulab" host unlink --tasks 1,2 --ops 400 --repeat 2 --mode threads --dir "$work" --plot "$work/h" > /dev/null 2> "$work/err"
rc=$?
[ "$rc" = 0 ] && ok "host unlink --plot DIR: exit 0" || not_ok "host unlink --plot DIR: exit 0" "exit $rc" "$(tail -n 3 "$work/err")"
svg_ok "host unlink --plot: host-unlink.svg is well-formed" "$work/h/host-unlink.svg"
expect "host unlink --plot: a line over tasks (a sweep)" "$work/h/host-unlink.svg" '>tasks<'
expect "host unlink --plot: ops/s, higher is better, this host's Linux" "$work/h/host-unlink.svg" 'operations per second, median of 2 runs; bars: min-max \(higher is better\)'
expect "host unlink --plot: the title says whose time" "$work/h/host-unlink.svg" "this host&apos;s Linux, real timings \(not emulated\)|this host's Linux, real timings \(not emulated\)"
[ "$(wc -l < "$work/h/host-unlink.dat")" = 3 ] && ok "host unlink --plot: a point per task count" || not_ok "host unlink --plot: a point per task count" "$(cat "$work/h/host-unlink.dat")"
# ---- --plot without gnuplot: refused before any work, exit 2, no DIR made ----
# A PATH of only what these commands and the fake QEMU use, gnuplot not among them.
mkdir "$work/bin"
for tool in cat sleep; do ln -s "$(command -v "$tool")" "$work/bin/$tool"; done
"$fpulab" trace synth pingpong-both -o "$work/ng.trace" --switches 100 --xcr0 0x7 > /dev/null 2>&1
# no_gnuplot NAME ARGS...: fpulab ARGS with --plot $work/ng under that PATH
no_gnuplot() {
	local name=$1
	shift
	rm -rf "$work/ng" "$FAKE_QEMU_ARGS"
	PATH="$work/bin" FAKE_GUEST="$work/guest" "$fpulab" "$@" --plot "$work/ng" > "$work/out" 2> "$work/err"
	rc=$?
	if [ "$rc" = 2 ] && [ ! -e "$work/ng" ] && [ ! -e "$FAKE_QEMU_ARGS" ] &&
	   grep -qF -- "--plot needs gnuplot, not found in PATH" "$work/err" &&
	   ! grep -q '^[^#]' "$work/out"; then
		ok "$name --plot without gnuplot: exit 2 before any work, no directory made"
	else
		not_ok "$name --plot without gnuplot: exit 2 before any work, no directory made" "exit $rc" \
			"dir: $(ls -d "$work/ng" 2> /dev/null)" "stderr: $(tail -n 3 "$work/err")"
	fi
}
no_gnuplot run run --kernel "$work/lab.elf" --accel tcg
echo '{"trap_ns": 150, "cr0_ns": 30, "ipi_ns": 1000}' > "$work/ng-costs.json"
if grep -qw xsave /proc/cpuinfo; then
	no_gnuplot "replay" replay "$work/ng.trace" --repeat 1 --policy eager,lazy --costs "$work/ng-costs.json"
else
	skip "replay --plot without gnuplot" "no XSAVE"
fi
no_gnuplot "host unlink" host unlink --tasks 1 --ops 100 --repeat 1 --mode threads --dir "$work"
no_gnuplot "host context-switch" host context-switch --seconds 0.01 --repeat 1
no_gnuplot "report --from" report --from "$here/fixtures/report-context-switch.json"
no_gnuplot "summary" summary "$here/fixtures/report-context-switch.json"

finish
