#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab replay's per-event costs from this host (fpulab host costs): where
# each comes from, priced_ns_per_switch = counts x unit costs exactly, the
# verdicts against the trap range, and the sweep, whose crossover is the
# printed break-even. TAP output; run by tests/run-tests.sh.
set -u
. "$(dirname "$0")/lib.sh"

# t NAME CONDITION-COMMAND...: ok when the command succeeds
t() {
	local name=$1
	shift
	if "$@" > /dev/null 2>&1; then ok "$name"; else not_ok "$name" "failed: $*" "$(head -n 3 "$work/err" 2> /dev/null)"; fi
}

"$fpulab" trace synth pingpong-one -o "$work/p1.trace" --switches 400 --xcr0 0x7 > /dev/null 2>&1
check "replay --sweep bogus: exit 2" 2 - "is not trap=LO..HI or ipi=LO..HI" -- "$fpulab" replay "$work/p1.trace" --sweep bogus
check "replay --sweep trap=5..1: exit 2" 2 - "needs 0 <= LO < HI" -- "$fpulab" replay "$work/p1.trace" --sweep trap=5..1
check "replay --sweep trap=1: exit 2" 2 - "LO..HI, two costs in ns" -- "$fpulab" replay "$work/p1.trace" --sweep trap=1
check "replay --sweep with --format csv: exit 2" 2 - "do not fit the CSV" -- "$fpulab" replay "$work/p1.trace" --sweep trap=0..10 --format csv
echo '{"experiment": "host costs", "figure": "syscall", "ns_median": 5, "ns_min": 9, "ns_max": 10}' > "$work/bad-hc.json"
check "replay --costs: host costs (in the old keys) with min above the median are refused" 1 - "ns_per_op_min <= ns_per_op_median <= ns_per_op_max" -- "$fpulab" replay "$work/p1.trace" --costs "$work/bad-hc.json"
echo '{"experiment": "run", "policy": "eager"}' > "$work/none.json"
FPULAB_HOST_COSTS=$work/none.json "$fpulab" replay "$work/p1.trace" > /dev/null 2> "$work/err"
rc=$?
t "\$FPULAB_HOST_COSTS without host costs rows: exit 1, says so" [ "$rc" = 1 -a -n "$(grep 'FPULAB_HOST_COSTS .*no row of `fpulab host costs`' "$work/err")" ]

# The --costs file is read once, at most RESULT_FILE_MAX_BYTES (64 MiB): a larger object is refused.
{ printf '{"trap_ns": 1, "x": "'; head -c 65M /dev/zero | tr '\0' x; printf '"}\n'; } > "$work/big.json"
check "replay --costs: a JSON object over 64 MiB is refused, exit 1" 1 - "big.json: larger than 64 MiB: not a result file" -- \
	timeout 60 "$fpulab" replay "$work/p1.trace" --costs "$work/big.json"
rm -f "$work/big.json"
check "replay --batch-costs /dev/zero: refused at the size limit, exit 1" 1 - "--batch-costs: /dev/zero: larger than 64 MiB: not a result file" -- \
	timeout 60 "$fpulab" replay "$work/p1.trace" --batch-costs /dev/zero
check "\$FPULAB_HOST_COSTS=/dev/zero: refused at the size limit, exit 1" 1 - "/dev/zero: larger than 64 MiB: not a result file" -- \
	env FPULAB_HOST_COSTS=/dev/zero timeout 60 "$fpulab" replay "$work/p1.trace"

if ! grep -qw xsave /proc/cpuinfo; then
	skips 27 "replay costs" "no XSAVE"
	finish
	exit
fi

# A host's figures with a known trap range: syscall 100 ns, fault 300 ns, no UMIP, an IPI of 5000 ns.
hc() { # hc FIGURE MEDIAN [MIN MAX]
	printf '{"experiment": "host costs", "date": "2026-01-01T00:00:00Z", "hypervisor": true, "figure": "%s", "ns_median": %s, "ns_min": %s, "ns_max": %s, "runs": 3, "ops_per_run": 10, "note": "test"}\n' \
		"$1" "$2" "${3:-$2}" "${4:-$2}"
}
{ hc syscall 100 90 120; hc fault 300 280 320; hc ipi 5000 4000 6000; } > "$work/hc.json"
"$fpulab" replay "$work/p1.trace" --repeat 2 --policy eager,lazy,lazy-counter,owner --costs "$work/hc.json" \
	--format json --output "$work/r.json" 2> "$work/err"
t "replay --costs HOSTCOSTS: exit 0" [ $? = 0 ]
t "json: trap = the syscall (lower bound), IPI = the round trip, each naming the file; CR0 cited" \
	jq -e -s "all(.[]; .trap_ns == 100 and (.trap_source | test(\"^measured on this host: syscall round trip, lower bound, from .*hc.json of 2026-01-01\")) and .ipi_ns == 5000 and (.ipi_source | test(\"IPI round trip \\\\(membarrier\\\\), estimate\")) and (.cr0_source | startswith(\"cited: seL4 RFC 0180\")) and ((.cr0_ns * 10 | round) == 441))" "$work/r.json"
t "json: the trap range is the syscall to the fault (the least estimate), and the host a guest" \
	jq -e -s 'all(.[]; .trap_range_lo_ns == 100 and .trap_range_hi_ns == 300 and .trap_range_estimate == "fault" and .costs_hypervisor == true)' "$work/r.json"
t "json: priced_ns_per_switch = (saves x save_ns + restores x restore_ns + #NM x trap + TS writes x CR0 + IPIs x IPI) / switches, exactly" \
	jq -e -s 'all(.[] | select(.policy != "oracle"); (.priced_ns_per_switch - (.saves * .save_ns + .restores * .restore_ns + .nm_traps * .trap_ns + .ts_writes * .cr0_ns + .flush_ipis * .ipi_ns) / .switches | fabs) < 1e-9)' "$work/r.json"
t "json: the oracle's priced cost is its saves and restores at the batch costs" \
	jq -e -s '.[] | select(.policy == "oracle") | (.priced_ns_per_switch - (.saves * .save_ns + .restores * .restore_ns) / .switches | fabs) < 1e-9' "$work/r.json"
# verdict: decided only where the break-even, over the runs' ranges, lies outside 90..300 ns
# (the trap range 100-300 ns at its medians, its lower bound 90 at its fastest run)
t "json: each lazy row's break-even lies within its min-max over the runs' ranges" \
	jq -e -s 'all(.[] | select(.break_even_trap_ns != null); .break_even_trap_ns_min <= .break_even_trap_ns and .break_even_trap_ns <= .break_even_trap_ns_max)' "$work/r.json"
t "json: each lazy row's verdict agrees with its break-even, its range and the range 100-300 ns" \
	jq -e -s '(all(.[] | select(.policy == "lazy" or .policy == "lazy-counter"); .break_even_trap_ns as $b | .break_even_trap_ns_min as $lo | .break_even_trap_ns_max as $hi | .verdict as $v | .policy as $p |
		if $b == null then ($v | startswith("decided: "))
		elif $hi < 90 then ($v | startswith("decided: eager beats"))
		elif $lo > 300 then ($v | startswith("decided: \($p) beats eager"))
		elif $b < 100 or $b > 300 then ($v | startswith("undecided between 100.0 and 300.0 ns: the break-even ")) and ($v | endswith("they meet (eager wins above it, \($p) below)"))
		else ($v | startswith("undecided between 100.0 and 300.0 ns: the break-even ")) and ($v | endswith("lies inside this host'"'"'s trap range (eager wins above it, \($p) below)")) end))
		and all(.[] | select(.policy != "lazy" and .policy != "lazy-counter"); .verdict == null)' "$work/r.json"
"$fpulab" replay "$work/p1.trace" --repeat 2 --policy eager,lazy --trap-ns 250 --ipi-ns 700 --costs "$work/hc.json" > "$work/o.out" 2> "$work/err"
t "table: --trap-ns and --ipi-ns override this host's figures; the range stays the host's" \
	grep -q '^# costs per event: #NM trap 250.0 ns (given: --trap-ns), CR0 write 44.1 ns (cited: .*), IPI 700.0 ns (given: --ipi-ns)$' "$work/o.out"
t "table: the trap range line names the file and says the host is a guest" \
	grep -q "^# this host's trap range (under a hypervisor): 100.0 ns (syscall round trip, lower bound; min 90.0, max 120.0) to 300.0 ns (fault, estimate; min 280.0, max 320.0), medians of 3 runs, .*hc.json of 2026-01-01T00:00:00Z" "$work/o.out"
t "table: a verdict beside each break-even" grep -q '^#   verdict: \(decided: \|undecided between 100.0 and 300.0 ns\)' "$work/o.out"

# The sweep: its crossover of eager and lazy is the break-even the same replay prints.
# Another machine's figures: its CPU and kernel in the rows' provenance differ from this host's
jq -c '.host_cpu = "Another CPU" | .host_kernel = "1.0.0-other"' "$work/hc.json" > "$work/hc-other.json"
"$fpulab" replay "$work/p1.trace" --repeat 1 --policy eager,lazy --costs "$work/hc-other.json" --format json --output "$work/other.json" 2> "$work/err"
t "json: another host's figures are labelled its, not this host's" \
	jq -e -s 'all(.[]; (.trap_source | startswith("measured on another host (Another CPU, Linux 1.0.0-other, not this one): syscall round trip, lower bound, from ")) and (.trap_source | contains("this host") | not))' "$work/other.json"
FPULAB_HOST_COSTS="$work/hc-other.json" "$fpulab" replay "$work/p1.trace" --repeat 1 --policy eager,lazy > "$work/other.out" 2> "$work/err"
t "\$FPULAB_HOST_COSTS of another host: said on stderr, its trap range labelled so" \
	sh -c 'grep -q "holds another host.s figures (Another CPU, Linux 1.0.0-other), not this one.s: labelled so" "$1" && grep -q "^# another host.s (Another CPU, Linux 1.0.0-other, not this one) trap range (under a hypervisor): 100.0 ns" "$2" && ! grep -q "^# this host.s trap range" "$2"' sh "$work/err" "$work/other.out"
"$fpulab" replay "$work/p1.trace" --repeat 2 --policy eager,lazy,lazy-counter --costs "$work/hc.json" --sweep trap=0..100000 > "$work/s.out" 2> "$work/err"
be=$(sed -n 's/^# break-even trap cost, eager vs lazy: \(-\?[0-9.]*\) ns per trap.*/\1/p' "$work/s.out")
cross=$(sed -n 's/^# sweep crossover, eager vs lazy: \([0-9.]*\) ns (the break-even trap cost: \([-0-9.]*\) ns)$/\1 \2/p' "$work/s.out")
if [ -n "$be" ] && awk -v b="$be" 'BEGIN { exit !(b >= 0 && b <= 100000) }'; then
	t "sweep: the crossover of eager and lazy ($cross) is the printed break-even ($be ns)" [ "$cross" = "$be $be" ]
else
	t "sweep: no crossover where the break-even ($be) is outside the sweep" grep -q '^# sweep: eager and lazy do not cross in 0.0..100000.0 ns$' "$work/s.out"
fi
t "sweep: 11 points, one column per policy, those in this host's range marked" \
	[ "$(grep -c '^#  *[0-9.]*  *[-0-9.]*  *[-0-9.]*  *[-0-9.]*\( *(in this host'"'"'s range)\)\?$' "$work/s.out")" = 11 -a "$(grep -c "(in this host's range)$" "$work/s.out")" = 0 ]
"$fpulab" replay "$work/p1.trace" --repeat 2 --policy eager,lazy --costs "$work/hc.json" --sweep trap=0..1000 --format json --output "$work/s.json" 2> "$work/err"
t "sweep json: 11 rows per policy; a total linear in the trap cost; the crossover = break_even_trap_ns" \
	jq -e -s '(map(select(.experiment == "replay-sweep")) | length == 22) and
		([.[] | select(.experiment == "replay-sweep" and .policy == "lazy")] as $s | [.[] | select(.experiment == "replay" and .policy == "lazy")][0] as $l |
		 (($s[1].ns_per_switch_median - $s[0].ns_per_switch_median) - ($s[10].ns_per_switch_median - $s[9].ns_per_switch_median) | fabs) < 1e-6 and
		 (if ($l.break_even_trap_ns != null and $l.break_even_trap_ns >= 0 and $l.break_even_trap_ns <= 1000) then (($s[0].crossover_baseline_ns - $l.break_even_trap_ns) | fabs) <= 0.05 else $s[0].crossover_baseline_ns == null end) and
		 ([$s[] | select(.in_measured_range)] | map(.sweep_ns) == [100, 200, 300]))' "$work/s.json"
if command -v gnuplot > /dev/null; then
	"$fpulab" replay "$work/p1.trace" --repeat 1 --policy eager,lazy --costs "$work/hc.json" --sweep ipi=0..10000 --plot "$work/plot" > /dev/null 2> "$work/err"
	t "sweep --plot: sweep-ipi-p1.svg, a line per policy, the measured range shaded" \
		grep -q 'rect from 4000, graph 0 to 6000, graph 1' "$work/plot/sweep-ipi-p1.gp"
	t "... and the SVG is drawn" [ -s "$work/plot/sweep-ipi-p1.svg" ]
	t "... and counted with the rows' plot: as many SVGs said as written" \
		grep -q "^fpulab replay: plots: $work/plot/ ($(find "$work/plot" -name '*.svg' | wc -l) SVG)$" "$work/err"
	# two_sweeps A B SVG_A SVG_B: the sweep of traces $work/A and $work/B (copies of p1) with
	# --plot: two SVGs of those names besides the rows' plot, 3 said and written
	two_sweeps() {
		local d=$work/plot-${1%%[./]*}
		mkdir -p "$(dirname "$work/$1")" "$(dirname "$work/$2")"
		cp "$work/p1.trace" "$work/$1" && cp "$work/p1.trace" "$work/$2"
		"$fpulab" replay "$work/$1" "$work/$2" --repeat 1 --policy eager,lazy --costs "$work/hc.json" \
			--sweep ipi=0..10000 --plot "$d" > /dev/null 2> "$work/err"
		t "sweep --plot of $1 and $2: $3.svg and $4.svg, 3 SVGs said and written" \
			[ -s "$d/$3.svg" -a -s "$d/$4.svg" -a "$(find "$d" -name '*.svg' | wc -l)" = 3 \
			-a -n "$(grep -x "fpulab replay: plots: $d/ (3 SVG)" "$work/err")" ]
	}
	# named by the whole file name less .trace: a.b.trace and a.c.trace were both sweep-ipi-a
	two_sweeps a.b.trace a.c.trace sweep-ipi-a.b sweep-ipi-a.c
	# two traces of one file name: each named by the end of its path that tells them apart
	two_sweeps s1/x.trace s2/x.trace sweep-ipi-s1-x sweep-ipi-s2-x
else
	skip "sweep --plot" "no gnuplot"
	skip "sweep --plot: the SVG" "no gnuplot"
	skip "sweep --plot: the SVGs of a.b.trace and a.c.trace" "no gnuplot"
	skip "sweep --plot: the SVGs of s1/x.trace and s2/x.trace" "no gnuplot"
fi

# --batch-costs: an earlier replay's batch save and restore, not timed again: the same decisions and prices.
"$fpulab" replay "$work/p1.trace" --repeat 1 --policy lazy,adaptive --costs "$work/hc.json" --format json --output "$work/b1.json" 2> "$work/err"
jq -c '.save_ns = 1000 | .restore_ns = 2000' "$work/b1.json" > "$work/b-dear.json"
"$fpulab" replay "$work/p1.trace" --repeat 1 --policy lazy,adaptive --costs "$work/hc.json" --batch-costs "$work/b-dear.json" --format json --output "$work/b2.json" 2> "$work/err"
t "--batch-costs: the file's batch save and restore, and priced by them" \
	jq -e -s 'all(.[]; .save_ns == 1000 and .restore_ns == 2000) and all(.[] | select(.policy != "oracle"); (.priced_ns_per_switch - (.saves * 1000 + .restores * 2000 + .nm_traps * .trap_ns + .ts_writes * .cr0_ns + .flush_ipis * .ipi_ns) / .switches | fabs) < 1e-9)' "$work/b2.json"
t "--batch-costs: adaptive decides by them (dearer loads: no more restores than with the timed ones)" \
	jq -e -s '[.[] | select(.policy == "adaptive")] | .[0].restores >= .[1].restores' "$work/b1.json" "$work/b2.json"
"$fpulab" replay "$work/p1.trace" --repeat 1 --policy lazy,adaptive --costs "$work/hc.json" --batch-costs "$work/b1.json" --format json --output "$work/b3.json" 2> "$work/err"
t "--batch-costs of its own rows: the same counts and priced costs again" \
	jq -e -n --slurpfile a "$work/b1.json" --slurpfile b "$work/b3.json" '[$a[] | [.policy, .saves, .restores, .nm_traps, .ts_writes, .priced_ns_per_switch]] == [$b[] | [.policy, .saves, .restores, .nm_traps, .ts_writes, .priced_ns_per_switch]]'
"$fpulab" trace synth pingpong-both -o "$work/p2.trace" --switches 400 --xcr0 0x7 > /dev/null 2>&1
check "--batch-costs without the trace's rows: exit 1, names it" 1 - "no replay row of $work/p2.trace" -- "$fpulab" replay "$work/p1.trace" "$work/p2.trace" --batch-costs "$work/b1.json"
jq -c '.save_insn = "fxsave"' "$work/b1.json" > "$work/b-fx.json"
check "--batch-costs timed with another instruction: exit 1, says which" 1 - "was timed with fxsave" -- "$fpulab" replay "$work/p1.trace" --repeat 1 --policy lazy --batch-costs "$work/b-fx.json"
jq -c '.host_cpu = "Another CPU"' "$work/b1.json" > "$work/b-cpu.json"
check "--batch-costs timed on another CPU: exit 1, says which" 1 - "on Another CPU; this replay uses" -- "$fpulab" replay "$work/p1.trace" --repeat 1 --policy lazy --batch-costs "$work/b-cpu.json"
check "--batch-costs of a file without replay rows: exit 1" 1 - 'no row of `fpulab replay`' -- "$fpulab" replay "$work/p1.trace" --batch-costs "$work/hc.json"

# A FIFO is read once: host costs rows and a costs object through one (a second open would wait forever).
mkfifo "$work/costs.fifo"
cat "$work/hc.json" > "$work/costs.fifo" &
check "replay --costs FIFO of host costs rows: read once, exit 0" 0 - - -- \
	timeout 60 "$fpulab" replay "$work/p1.trace" --repeat 1 --policy lazy --costs "$work/costs.fifo"
kill "$!" 2> /dev/null
echo '{"trap_ns": 100, "cr0_ns": 10, "ipi_ns": 1000}' > "$work/costs.fifo" &
check "replay --costs FIFO of a costs object: exit 0" 0 - - -- \
	timeout 60 "$fpulab" replay "$work/p1.trace" --repeat 1 --policy lazy --costs "$work/costs.fifo"
kill "$!" 2> /dev/null

# Measured by the replay itself (no cache): every source this host's, said so.
env -u FPULAB_HOST_COSTS "$fpulab" replay "$work/p1.trace" --repeat 1 --policy eager --ipi-ns 1000 --format json --output "$work/m.json" 2> "$work/err"
t "measured now: trap the syscall round trip, no file named; the range from it up" \
	jq -e -s 'all(.[]; (.trap_source | test("^measured on this host: syscall round trip, lower bound \\(median of [0-9]+ runs, min [0-9.]+, max [0-9.]+ ns\\)$")) and (.trap_source | capture("min (?<a>[0-9.]+), max (?<b>[0-9.]+) ns") | (.a | tonumber) <= (.b | tonumber)) and (.trap_ns as $t | .trap_source | capture("min (?<a>[0-9.]+),") | (.a | tonumber) <= $t + 0.05) and .trap_range_lo_ns == (.trap_ns * 10 | round / 10) and .trap_range_hi_ns >= .trap_range_lo_ns and .ipi_source == "given: --ipi-ns")' "$work/m.json"
finish
