#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab report --from a fixed result file (tests/cli/fixtures/report-*.json):
# the seed 003 gains computed exactly, every claim without results "not
# measured", markdown and JSON; the claims on a recorded Linux workload from
# an imported excerpt of a real recording (exact counts), from --from, lossy,
# why not when recording does not work here, and live when it does. TAP.
set -u
. "$(dirname "$0")/lib.sh"
fx=$here/fixtures
expect() {
	if grep -qE -- "$3" "$2"; then ok "$1"; else not_ok "$1" "no line matches: $3" "$(head -n 14 "$2")"; fi
}
expect_count() { # NAME FILE REGEX N
	local c
	c=$(grep -cE -- "$3" "$2")
	if [ "$c" = "$4" ]; then ok "$1"; else not_ok "$1" "$c lines match $3, expected $4"; fi
}

"$fpulab" report --from "$fx/report-context-switch.json" > "$work/t" 2> "$work/e"
rc=$?
[ "$rc" = 0 ] && ok "report --from FILE: exit 0" || not_ok "report --from FILE: exit 0" "exit $rc" "$(cat "$work/e")"
expect_count "one row per claim: 13 claims of 4 seeds (4 on a recorded Linux workload)" "$work/t" '^00[0-3] ' 13
# lazy 20000 / smp-lazy 16000 ticks per round trip: a 25.0% higher switch rate
expect "seed 003, FP in one thread: +25.0%, direction agrees, emulated" "$work/t" \
	'^003 +\+4% switch rate .* yes +emulated ticks +\+25\.0% \(lazy 20000\.0 vs smp-lazy 16000\.0 TSC ticks per round trip, medians of 5/5 runs\)$'
expect "seed 003, big state: +25.0%" "$work/t" '^003 +\+8% with big state .* yes +emulated ticks +\+25\.0% \(lazy 30000\.0 vs smp-lazy 24000\.0'
# 40000 / 40400 - 1 = -0.99%: no degradation beyond the ranges
expect "seed 003, FP in both: -1.0%, no real difference" "$work/t" '^003 +0% \(no degradation\) .* yes +emulated ticks +-1\.0% '
expect "a gain far from the claim's size says why" "$work/t" "the lab's switch path is far shorter"
expect_count "the claims without results say not measured" "$work/t" ' not measured$' 10
expect "and which experiment they need" "$work/t" 'needs `fpulab run --experiment short-tasks`'
expect "the header names the build and the command" "$work/t" '^# fpulab_git: '
expect "the header names the host" "$work/t" '^# host_cpu: '
# the header's host is the report's; the rows' origins are said apart, with their counts
expect "the rows' origin: the lab's machine, its CPU unknown (the fixture names none), 7 rows" "$work/t" '^# measured: the lab under microvm on an unknown CPU \(7 rows\)$'
jq -c '.imported_on = "Another CPU, Linux 1.0" | .machine = "a PC"' "$fx/report-context-switch.json" > "$work/pc.json"
"$fpulab" report --from "$work/pc.json" "$fx/report-context-switch.json" > "$work/t2" 2> /dev/null
expect "a PC's imported rows: the machine and where they were imported" "$work/t2" '^# measured: a PC, from its serial log \(imported on Another CPU, Linux 1\.0\) \(7 rows\)$'

"$fpulab" report --from "$fx/report-context-switch.json" --format md > "$work/md" 2> /dev/null
expect "markdown: a pipe table" "$work/md" '^\| seed \| claim \| fpulab \| source \| direction agrees \|$'
expect "markdown: seed 003's row" "$work/md" '^\| 003 \| \+4% switch rate .* \| \+25\.0% .* \| emulated ticks \| yes'
expect "markdown: notes as a list" "$work/md" '^- seed 002, .*needs `fpulab run --experiment'

"$fpulab" report --from "$fx/report-context-switch.json" --format json > "$work/j" 2> /dev/null
expect_count "JSON: one line per claim" "$work/j" '^\{"seed": ' 13
expect "JSON: the value and its unit" "$work/j" '"seed": "003", "claim": "\+8% with big state.*"value": 25\.0, "unit": "%", "source": "emulated ticks", "direction_agrees": "yes"'
expect "JSON: not measured is null, never a number" "$work/j" '"seed": "002", "claim": "20K.*"measured": false, "fpulab": "not measured", "value": null'

"$fpulab" report --from "$fx/report-seed000-002.json" "$fx/report-context-switch.json" > "$work/t2" 2> /dev/null
expect "seed 002 boot: #NM saved = lazy's minus eager's, an exact count" "$work/t2" \
	'^002 +20K #NM traps saved during boot +yes +exact lab count +4000 #NM saved \(lazy 4000, eager 0, mix=boot, one run\)$'
expect "seed 002 build: the build mix" "$work/t2" '^002 +50K .* yes +exact lab count +9000 #NM saved'
expect "seed 002 checksum: 1150/1000 = +15.0%" "$work/t2" '^002 +~15% .* yes +emulated ticks +\+15\.0% \(lazy 1150\.0 vs eager 1000\.0'
expect "seed 000: prefetch mode taken from the command line; equal: within noise" "$work/t2" \
	'^000 +.* within noise +emulated ticks +\+0\.0% \(off 2000\.0 vs conditional 2000\.0'
expect "seed 000: says why emulation cannot show it" "$work/t2" 'TCG models no cache'
expect_count "only seed 001 and the Linux claims are left not measured" "$work/t2" ' not measured$' 6

# rows as `make run` writes them: short-tasks of the fixed mix (and an eager-only build
# run), fp-vs-spinner at the default prefetch: each claim names the row it lacks and the run
"$fpulab" report --from "$fx/report-make-run.json" > "$work/mr" 2> /dev/null
expect "seed 002 boot: no --mix boot rows, and the run that makes them" "$work/mr" \
	'^ +the short-tasks results have no rows with --mix boot: `fpulab run --experiment short-tasks --mix boot --policy lazy,eager` makes them$'
expect "seed 002 build: only lazy's row is missing" "$work/mr" \
	'^ +the short-tasks results have no lazy row with --mix build: `fpulab run --experiment short-tasks --mix build --policy lazy,eager` makes them$'
expect "seed 000: no lazy-counter row with --prefetch off, and the run" "$work/mr" \
	'^ +the fp-vs-spinner results have no lazy-counter row with --prefetch off: `fpulab run --experiment fp-vs-spinner --prefetch off --policy lazy-counter` makes it$'

expect "--from without a Linux replay: the Linux claims say what would give them" "$work/t" \
	'no recorded Linux workload: give --linux-trace FILE .*, or --linux-seconds N to record a compile now'

# ---- a recorded Linux workload: an imported excerpt of a real one (make forking mkdir) ----
"$fpulab" trace import "$here/fixtures/linux/fork-exec-exit.txt" -o "$work/fee.trace" > /dev/null
"$fpulab" report --from "$fx/report-context-switch.json" --linux-trace "$work/fee.trace" > "$work/l" 2> "$work/e"
rc=$?
[ "$rc" = 0 ] && ok "--linux-trace FILE: exit 0" || not_ok "--linux-trace FILE: exit 0" "exit $rc" "$(cat "$work/e")"
expect "--linux-trace: replayed under every policy (fpulab replay)" "$work/e" 'replaying .*fee.trace under every policy \(fpulab replay --repeat 3\)'
# replay's exact counts: lazy-counter 29 and lazy 52 #NM at every-return, 1 each at evidence, eager 0;
# the excerpt holds 1 fork (and 2 execs): per 1000 forks, 1000 times as many
expect "seed 002 on Linux: lazy-counter's #NM saved at both bounds, per 1000 forks" "$work/l" \
	'^002 +50K #NM saved in a compile, recorded Linux \(vs lazy-counter\) +yes +recorded Linux workload +29 \.\. 1 #NM saved \(lazy-counter 29 \.\. 1, eager 0 \.\. 0; every-return \.\. evidence bound\): 29000 \.\. 1000 per 1000 forks \(1 fork of user tasks \(processes and threads\); 2 execs\); exact counts$'
expect "... and plain lazy's" "$work/l" '^002 +the same against plain lazy .* yes +recorded Linux workload +52 \.\. 1 #NM saved \(lazy 52 \.\. 1, eager 0 \.\. 0;.*: 52000 \.\. 1000 per 1000 forks'
expect "... the recording named, and why its size differs from the seed's" "$work/l" 'workload linux, 0\.005 s recorded \(not lossy\); not the seed.s whole kernel compile: compare the traps per 1000 forks'
expect "each policy's share of the CPU time at both bounds" "$work/l" \
	'^002 +eager \(xsave\) cheaper .* recorded Linux workload +eager [0-9.]+% \.\. [0-9.]+%, lazy-counter [0-9.]+% \.\. [0-9.]+%, lazy [0-9.]+% \.\. [0-9.]+%, deferred [0-9.]+% \.\. [0-9.]+%, oracle [0-9.]+% \.\. [0-9.]+% of 0\.010 s of CPU time \(every-return \.\. evidence bound; medians of 3 runs\)'
expect "the oracle's saves and restores beside Linux's and deferred's" "$work/l" \
	'^002 +Linux restores eagerly .* yes +recorded Linux workload +Linux 48 saves, 49 restores; deferred 49, 50 \(restores \+2\.04%, within 3%; by cause: window start \+1, signal frames -0, other \+0 \(within 3%\)\); oracle 41 \.\. 0 saves, 50 \.\. 1 restores \(every-return \.\. evidence bound\); exact counts'
expect_count "the lab's claims still there" "$work/l" '^003 .* yes ' 3
"$fpulab" report --from "$fx/report-context-switch.json" --linux-trace "$work/fee.trace" --format json > "$work/lj" 2> /dev/null
expect "JSON: a Linux claim's experiment is replay, its value a count" "$work/lj" '"seed": "002", "claim": "50K #NM saved in a compile, recorded Linux \(vs lazy-counter\)", "experiment": "replay", .*"value": 29\.0, "unit": "#NM traps", "source": "recorded Linux workload", "direction_agrees": "yes"'
# three signals in 6 switches: deferred loads 11 times, Linux 9 (+22%), all of it the window start
"$fpulab" trace import "$here/fixtures/linux/signal.txt" -o "$work/sig.trace" > /dev/null
"$fpulab" report --from "$fx/report-context-switch.json" --linux-trace "$work/sig.trace" > "$work/ls" 2> /dev/null
expect "deferred not within 3% of Linux, but the causes explain it all: yes, and why" "$work/ls" \
	'^002 +Linux restores eagerly .* yes +recorded Linux workload +Linux 3 saves, 9 restores; deferred [0-9]+, 11 \(restores \+22\.22%, NOT within 3%; by cause: window start \+2, signal frames -0, other \+0 \(within 3%\)\)'
expect "... the note says so" "$work/ls" 'the signal frames and the window start explain the difference \(yes on what they leave\)'
# --from a replay of a Linux trace: its rows, no replay now
"$fpulab" replay "$work/fee.trace" --repeat 1 --format json --output "$work/fee.json" 2> /dev/null
"$fpulab" report --from "$work/fee.json" > "$work/lf" 2> "$work/e"
expect "--from a Linux replay's rows: the Linux claims from them" "$work/lf" '^002 +50K #NM saved in a compile, recorded Linux .* 29 \.\. 1 #NM saved'
if grep -q replaying "$work/e"; then not_ok "... nothing replayed again" "$(cat "$work/e")"; else ok "... nothing replayed again"; fi
# --from a Linux replay's rows and --linux-trace another: the one named now replaces them
"$fpulab" report --from "$work/fee.json" --linux-trace "$work/sig.trace" > "$work/lfs" 2> "$work/e"
expect "--from Linux rows and --linux-trace: the rows of the trace named now" "$work/lfs" \
	'^002 +Linux restores eagerly .* yes +recorded Linux workload +Linux 3 saves, 9 restores; deferred'
expect "... and the ones --from gave left out, said so" "$work/e" \
	'fpulab report: .*sig\.trace replaces the Linux workload given with --from \([0-9]+ replay rows of 1 trace left out\)'
# a lossy recording says so in each row's source
"$fpulab" trace import "$here/fixtures/linux/lost.txt" -o "$work/lost.trace" > /dev/null
"$fpulab" report --from "$fx/report-context-switch.json" --linux-trace "$work/lost.trace" > "$work/ll" 2> /dev/null
expect_count "a lossy recording: every Linux row's source says so" "$work/ll" ' recorded Linux workload, lossy ' 4
expect "... and its note how much was lost" "$work/ll" 'LOSSY: perf lost [0-9]+ events, [0-9]+ impossible sequences resynchronised'
"$fpulab" report --linux-trace "$work/nosuch.trace" > /dev/null 2> "$work/e"
rc=$?
[ "$rc" = 2 ] && ok "--linux-trace: a missing trace: exit 2" || not_ok "--linux-trace: a missing trace: exit 2" "exit $rc"
"$fpulab" trace synth pingpong-one -o "$work/syn.trace" --switches 20 > /dev/null
"$fpulab" report --linux-trace "$work/syn.trace" > /dev/null 2> "$work/e"
rc=$?
[ "$rc" = 2 ] && grep -q "not a trace imported from Linux" "$work/e" && ok "--linux-trace: a synthetic trace: refused, exit 2" ||
	not_ok "--linux-trace: a synthetic trace: refused, exit 2" "exit $rc" "$(cat "$work/e")"
"$fpulab" report --from "$fx/report-context-switch.json" --linux-trace "$work/fee.trace" --linux-seconds 5 > "$work/ts" 2> "$work/e"
rc=$?
[ "$rc" = 2 ] && [ ! -s "$work/ts" ] && grep -q -- "--linux-trace and --linux-seconds: give one" "$work/e" &&
	ok "--linux-trace with --linux-seconds: a usage error, exit 2, nothing written" ||
	not_ok "--linux-trace with --linux-seconds: a usage error, exit 2, nothing written" "exit $rc" "$(cat "$work/e")"

# ---- recording one when it cannot: why not, and the other rows ----
FPULAB_PERF=$work/none "$fpulab" report --from "$fx/report-context-switch.json" --linux-seconds 5 > "$work/np" 2> "$work/e"
rc=$?
[ "$rc" = 0 ] && ok "perf missing: exit 0" || not_ok "perf missing: exit 0" "exit $rc" "$(cat "$work/e")"
expect_count "perf missing: each Linux claim says why, with the fix" "$work/np" 'no Linux recording: perf is not installed .*: install it \(Debian: apt-get install linux-perf' 4
expect_count "... and the other rows are there" "$work/np" '^003 .* yes ' 3
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt -1 ]; then
	cp "$fpulab" "$work/fpulab-copy" && cp "$fx/report-context-switch.json" "$work/cs.json" &&
		chmod 755 "$work" "$work/fpulab-copy" && chmod 644 "$work/cs.json"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$work/fpulab-copy" report --from "$work/cs.json" --linux-seconds 5 > "$work/nr" 2> "$work/e"
	rc=$?
	[ "$rc" = 0 ] && ok "not root: exit 0" || not_ok "not root: exit 0" "exit $rc" "$(cat "$work/e")"
	expect_count "not root: each Linux claim says why, with the fix" "$work/nr" 'no Linux recording: recording tracepoints system-wide needs root, or kernel.perf_event_paranoid at -1 \(it is [0-9]+\): run it as root' 4
	expect_count "... and the other rows are there" "$work/nr" '^003 .* yes ' 3
else
	skip "not root: why not, exit 0" "needs root, setpriv and perf_event_paranoid above -1 to run as nobody"
fi

# ---- live: a compile recorded for a second, when this machine can record ----
if "$fpulab" trace record --check > /dev/null 2> "$work/why"; then
	"$fpulab" report --from "$fx/report-context-switch.json" --linux-seconds 1 > "$work/live" 2> "$work/e"
	rc=$?
	[ "$rc" = 0 ] && ok "live: --linux-seconds 1: exit 0" || not_ok "live: --linux-seconds 1: exit 0" "exit $rc" "$(tail -n 5 "$work/e")"
	expect "live: recorded a compile of a scratch clone" "$work/e" 'recording `make -s -j[0-9]+ all` of a scratch clone of .* for 1 s'
	expect_count "live: the four Linux claims measured on it" "$work/live" ' recorded Linux workload(, lossy)? +([0-9]|Linux |eager )' 4
	expect "live: ... of the workload make-fpulab" "$work/live" 'workload make-fpulab, [0-9.]+ s recorded'
	scratch=$(sed -n 's|.*replaying \(/tmp/fpulab-report-linux-[^/]*\)/compile.trace .*|\1|p' "$work/e")
	if [ -n "$scratch" ] && [ ! -e "$scratch" ]; then ok "live: its scratch folder removed"; else not_ok "live: its scratch folder removed" "'$scratch'"; fi
else
	skip "live: report --linux-seconds 1" "recording does not work here: $(sed 's/^fpulab trace record: //' "$work/why")"
fi

"$fpulab" report --from "$work/nosuch.json" > /dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && ok "a missing file: exit 2" || not_ok "a missing file: exit 2" "exit $rc"
"$fpulab" report --format pdf > /dev/null 2>&1
rc=$?
[ "$rc" = 2 ] && ok "an unknown format: exit 2" || not_ok "an unknown format: exit 2" "exit $rc"
for bad in '[1,2,3]' '{}' '{"trap_ns": -5}'; do
	printf '%s\n' "$bad" > "$work/bad.json"
	"$fpulab" report --from "$work/bad.json" --linux-seconds 0 > /dev/null 2> "$work/e"
	rc=$?
	if [ "$rc" = 2 ] && grep -q 'bad.json: row 1 is not a result row (a JSON object with an "experiment")' "$work/e"; then
		ok "report --from $bad: not result rows, exit 2"
	else
		not_ok "report --from $bad: not result rows, exit 2" "exit $rc" "$(cat "$work/e")"
	fi
done


# --from through the bounded reader (RESULT_FILE_MAX_BYTES, 64 MiB): /dev/zero and an endless FIFO fail at once.
timeout 60 "$fpulab" report --from /dev/zero --linux-seconds 0 > /dev/null 2> "$work/e"
rc=$?
if [ "$rc" = 2 ] && grep -qx 'fpulab report: /dev/zero: larger than 64 MiB: not a result file' "$work/e"; then
	ok "report --from /dev/zero: refused at the size limit, exit 2"
else
	not_ok "report --from /dev/zero: refused at the size limit, exit 2" "exit $rc" "$(cat "$work/e")"
fi
mkfifo "$work/rows.fifo"
yes '{"experiment": "context-switch", "policy": "eager"}' > "$work/rows.fifo" 2> /dev/null &
timeout 60 "$fpulab" report --from "$work/rows.fifo" --linux-seconds 0 > /dev/null 2> "$work/e"
rc=$?
kill "$!" 2> /dev/null
if [ "$rc" = 2 ] && grep -q 'rows.fifo: larger than 64 MiB: not a result file' "$work/e"; then
	ok "report --from an endless FIFO of rows: refused at the size limit, exit 2"
else
	not_ok "report --from an endless FIFO of rows: refused at the size limit, exit 2" "exit $rc" "$(cat "$work/e")"
fi
# Without --from, report runs minutes of experiments: an --output it cannot write is said first.
# (QEMU is not on PATH here: a report that ran would say so, not this.)
PATH=/nonexistent:/usr/bin:/bin check "report --output in a missing folder: exit 2 before any experiment runs" 2 - \
	"fpulab report: --output $work/none/r.txt: cannot create a file in $work/none" -- "$fpulab" report --output "$work/none/r.txt"
[ ! -s "$work/out" ] && ok "and nothing on stdout (no experiment ran)" || not_ok "and nothing on stdout (no experiment ran)" "$(head -n 3 "$work/out")"
check "report --output a directory: exit 2" 2 - "fpulab report: --output $work: is a directory" -- "$fpulab" report --output "$work" --from "$fx/report-context-switch.json"
# The table and the markdown go through a temporary file renamed over --output, as every row writer's.
mkdir "$work/txt"
echo old > "$work/txt/real.md"
ln -s real.md "$work/txt/link.md"
ln "$work/txt/real.md" "$work/txt/hard.md" # renamed over, not rewritten in place: this keeps "old"
"$fpulab" report --from "$fx/report-context-switch.json" --format md > "$work/txt/stdout.md" 2> /dev/null
"$fpulab" report --from "$fx/report-context-switch.json" --format md --output "$work/txt/link.md" 2> "$work/e"
rc=$?
if [ "$rc" = 0 ] && [ -L "$work/txt/link.md" ] && grep -q '^| ' "$work/txt/real.md" &&
	diff <(grep -v -E '^    (date|command):' "$work/txt/stdout.md") <(grep -v -E '^    (date|command):' "$work/txt/real.md") > /dev/null &&
	[ "$(cat "$work/txt/hard.md")" = old ] && [ "$(find "$work/txt" -name '*.tmp-*' | wc -l)" = 0 ]; then
	ok "report --format md --output a symlink: its file replaced (renamed over) with stdout's markdown, the link kept, no temporary left"
else
	not_ok "report --format md --output a symlink: its file replaced (renamed over) with stdout's markdown, the link kept, no temporary left" "exit $rc" "$(ls -l "$work/txt")" "$(head -n 3 "$work/txt/real.md")"
fi
check "report --help gives the exit status" 0 "Exit status: 0 the table is written" - -- "$fpulab" report --help
check "summary --help gives the exit status" 0 "Exit status: 0 ok; 1 a plot could not be made" - -- "$fpulab" summary --help
finish
