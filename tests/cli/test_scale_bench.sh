#!/bin/bash
# SPDX-License-Identifier: MIT
# tools/scale-bench and tools/perf-script-scale: their arguments, -o DIR, the
# figures scale-bench prints (not their values: a benchmark, not a timed
# test), and what perf-script-scale writes for a hand-made recording.
# TAP output; run by tests/run-tests.sh.
set -u
. "$(dirname "$0")/lib.sh"
bench=$root/tools/scale-bench
scale=$root/tools/perf-script-scale
export FPULAB=$fpulab
t() { if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi; }

check "--switches 0: refused, exit 2" 2 - "--switches takes a whole number above 0" -- "$bench" --switches 0
check "--import-runs x: refused, exit 2" 2 - "--import-runs takes a whole number above 0" -- "$bench" --import-runs x
check "--bogus: refused, exit 2" 2 - "unknown argument '--bogus'" -- "$bench" --bogus
check "-o without DIR: refused, exit 2" 2 - "-o needs a value" -- "$bench" -o
echo precious > "$work/file"
check "-o a regular file: refused, exit 2" 2 - "exists and is not a directory" -- "$bench" -o "$work/file"
mkdir "$work/home" && echo mine > "$work/home/notes"
check "-o a directory of other files: refused, exit 2" 2 - "did not make (no $work/home/.scale-bench)" -- "$bench" -o "$work/home"
name="-o a directory of other files: untouched" t [ "$(cat "$work/home/notes")" = mine -a ! -e "$work/home/.scale-bench" ]

if [ ! -x /usr/bin/time ]; then
	skip "scale-bench runs" "/usr/bin/time (GNU time) is missing: apt-get install time"
else
	rec=$root/tests/cli/fixtures/linux/signal.txt
	check "2000 switches: exit 0, the synthetic trace's size" 0 "synth build: 2000 switches" - -- "$bench" -o "$work/sb" --switches 2000 --import-runs 2 --perf-script "$rec"
	name="2000 switches: replay's wall time and peak RSS with units and runs" t grep -qE '^replay build under every policy \(7 policies and the oracle, --repeat 1\): [0-9.]+ s wall, [0-9.]+ s user, peak RSS [0-9.]+ MiB \(1 run\): under 1 GiB$' "$work/out"
	if "$fpulab" trace --help 2>&1 | grep -q 'trace import'; then
		name="2000 switches: the import's rate, median, min and max of 2 runs" t grep -qE '^import: [0-9]+ lines, wall time median [0-9.]+ s \(min [0-9.]+, max [0-9.]+, 2 runs\): ([0-9]+|unresolved \(under 0\.01 s\)) lines/s at the median \(min ([0-9]+|unresolved \(under 0\.01 s\)), max ([0-9]+|unresolved \(under 0\.01 s\))\), (at least|BELOW|not judged against) the 2 million lines/s target$' "$work/out"
		name="2000 switches: the import's peak RSS" t grep -qE '^import: peak RSS median [0-9.]+ MiB \(min [0-9.]+, max [0-9.]+, 2 runs\): under 1 GiB$' "$work/out"
		name="2000 switches: the imported recording replayed" t grep -qE '^replay of the imported recording under every policy \(--repeat 1\): [0-9.]+ s wall, [0-9.]+ s user, peak RSS [0-9.]+ MiB \(1 run\): under 1 GiB$' "$work/out"
	else
		name="2000 switches: the import says why it is left out" t grep -q "^import: left out: this fpulab has no 'trace import'" "$work/out"
	fi
	name="2000 switches: the traces and the recording are removed without --keep" t [ ! -e "$work/sb/build.trace" -a ! -e "$work/sb/scaled.perf-script" -a ! -e "$work/sb/imported.trace" -a -f "$work/sb/.scale-bench" ]
	check "--keep, again into its own DIR: exit 0" 0 "synth pingpong-one: 200 switches" - -- "$bench" -o "$work/sb" --switches 200 --workload pingpong-one --keep --perf-script "$work/none"
	name="--keep: the trace is kept" t [ -s "$work/sb/pingpong-one.trace" ]
fi

# A recording of 2 CPUs: task 100 (FPU user) runs on CPU 0, forks 101; kernel thread 7 on CPU 1.
cat > "$work/rec.txt" << 'R'
# a header comment perf prints
            app   100 [000] 50.000100:      x86_fpu:x86_fpu_regs_activated: x86/fpu: 0xffff1 load: 1 xfeatures: 2 xcomp_bv: 0
            app   100 [000] 50.000200:            sched:sched_process_fork: comm=app pid=100 child_comm=app child_pid=101
     kworker/1     7 [001] 50.000300:                  sched:sched_switch: prev_comm=kworker/1 prev_pid=7 prev_prio=120 prev_state=I ==> next_comm=app next_pid=101 next_prio=120
            app   101 [001] 50.000400:      x86_fpu:x86_fpu_regs_activated: x86/fpu: 0xffff2 load: 1 xfeatures: 2 xcomp_bv: 0
            app   100 [000] 51.000500:                  sched:sched_switch: prev_comm=app prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
R
if ! command -v python3 > /dev/null; then
	skip "perf-script-scale" "python3 is missing"
else
	check "perf-script-scale: 3 copies, exit 0" 0 - - -- "$scale" "$work/rec.txt" 3 -o "$work/x3.txt"
	name="perf-script-scale: copy 0 is the recording, byte for byte" t cmp -s "$work/rec.txt" <(head -n 6 "$work/x3.txt")
	# copy 1: processes 100, 101 are 102, 103 (renumbered above the highest pid, 101);
	# the kernel thread and pid 0 keep theirs; time moves on by a period of 3 s (span 1 s + 2)
	name="perf-script-scale: copy 1's processes renumbered, kernel threads kept, time shifted" t grep -qF '            app   102 [000] 53.000200:            sched:sched_process_fork: comm=app pid=102 child_comm=app child_pid=103' "$work/x3.txt"
	name="perf-script-scale: a seam switch on CPU 0 from what copy 0 left running (0) to copy 1's first task" t grep -qF '         swapper     0 [000] 53.000100:                  sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=S ==> next_comm=app next_pid=102 next_prio=120' "$work/x3.txt"
	name="perf-script-scale: a seam switch on CPU 1 from copy 0's 101 to the kernel thread 7" t grep -qF '            app   101 [001] 53.000300:                  sched:sched_switch: prev_comm=app prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=kworker/1 next_pid=7 next_prio=120' "$work/x3.txt"
	name="perf-script-scale: copy 2's processes 104, 105, and 5 lines + 2 seams a copy" t [ "$(grep -c 'pid=104 child_comm=app child_pid=105' "$work/x3.txt")" = 1 -a "$(wc -l < "$work/x3.txt")" = 20 ]
	check "perf-script-scale: COPIES 0 refused, exit 2" 2 - "needs INPUT and COPIES" -- "$scale" "$work/rec.txt" 0
	check "perf-script-scale: a missing INPUT, exit 1" 1 - "$work/none" -- "$scale" "$work/none" 2
	printf 'not a perf line\n' >> "$work/rec.txt"
	check "perf-script-scale: a line that is not an event: refused with its number, exit 1" 1 - "line 7 is not a perf script event line" -- "$scale" "$work/rec.txt" 2
fi
finish
