#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab run interrupted (SIGINT, SIGTERM) while the guest runs (fake QEMU
# that hangs after one finished configuration and part of a second): every
# finished configuration is kept in --output, with a last line or row saying
# the results are partial and what was left unfinished. TAP output.
set -u
. "$(dirname "$0")/lib.sh"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$work"' EXIT
fake_qemu
export FAKE_GUEST_HANG=1
result() { # POLICY PLACEMENT REPEAT TICKS
	echo "@fpulab result experiment=context-switch policy=$1 placement=$2 fp_users=one regset=sse" \
	     "repeat=$3 cpus=2 tasks=2 round_trips=1000 switches=2000 nm_traps=0 saves=2000" \
	     "restores=2000 ipis=0 flush_ipis=0 integrity_errors=0 ticks=$4"
}
{
	echo "$hello"
	result eager same-cpu 0 3000000; result lazy same-cpu 0 2000000
	result eager cross-cpu 0 4000000 # the second configuration, unfinished
} > "$work/guest"

# interrupt SIGNAL FORMAT: run in the background, wait for the first
# configuration's progress line, send SIGNAL to fpulab; sets rc.
interrupt() {
	rm -f "$work/out.$2"
	# (a script's background job starts with SIGINT ignored: env gives it ^C's default)
	FAKE_GUEST="$work/guest" env --default-signal=INT "$fpulab" run --kernel "$work/lab.elf" --placement same-cpu,cross-cpu \
		--fp-users one --regset sse --policy eager,lazy --repeat 1 --format "$2" \
		--output "$work/out.$2" > "$work/stdout" 2> "$work/err" &
	pid=$!
	for _ in $(seq 100); do
		grep -q 'config 1/2 done' "$work/err" 2> /dev/null && break
		sleep 0.1
	done
	kill -"$1" "$pid"
	wait "$pid"
	rc=$?
	pid=
}

interrupt INT json
holds "SIGINT: exit 130" [ "$rc" = 130 ]
holds "SIGINT: --output exists" [ -s "$work/out.json" ]
holds "SIGINT: the finished configuration's two rows are kept" \
	[ "$(grep -c '"experiment": "context-switch"' "$work/out.json")" = 2 ]
holds "SIGINT: the unfinished configuration is not among them" \
	[ "$(grep -c '"placement": "cross-cpu"' "$work/out.json")" = 0 ]
holds "SIGINT: the last JSON line says partial, why, and how far it got" \
	grep -qE '^\{"partial": true, "reason": "interrupted \(SIGINT\)", "configurations_done": 1, "configurations_expected": 2, "unfinished_runs": 1' \
	<(tail -n 1 "$work/out.json")
holds "SIGINT: stderr says the results are partial" grep -qF "PARTIAL results in $work/out.json" "$work/err"
compare_partial() { "$fpulab" compare "$work/out.json" "$work/out.json" > /dev/null 2>&1; }
holds "SIGINT: fpulab compare still reads the partial file" compare_partial

holds "every JSON row names the QEMU and the random seed" \
	[ "$(grep -c '"qemu_version": "0.0.0 (fake-qemu)", "random_seed": "1"' "$work/out.json")" = 3 ]

interrupt TERM table
holds "the table's first line: fpulab, QEMU, host, date, random seed" \
	grep -qE '^# fpulab .* \(git .*\), QEMU 0\.0\.0 \(fake-qemu\); host .*, Linux .*; 20[0-9-]+T.*Z; random seed 1$' \
	<(head -n 1 "$work/out.table")
holds "SIGTERM: exit 143" [ "$rc" = 143 ]
holds "SIGTERM: the table keeps the finished rows" [ "$(grep -cE '^(eager|lazy) +same-cpu' "$work/out.table")" = 2 ]
holds "SIGTERM: its last line says partial" \
	grep -qE '^# PARTIAL: interrupted \(SIGTERM\); 1 of 2 configurations finished, 1 run of an unfinished one not reported' \
	<(tail -n 1 "$work/out.table")

interrupt INT csv
holds "SIGINT, CSV: exit 130" [ "$rc" = 130 ]
holds "SIGINT, CSV: the header and the finished configuration's two rows are kept" \
	[ "$(grep -cE '^(experiment|context-switch),' "$work/out.csv")" = 3 ]
# The last record: the table's line, its commas made semicolons so that it
# starts with '#' unquoted, in the first field; every other field empty.
fields=$(head -n 1 "$work/out.csv" | awk -F, '{ print NF }')
want="# PARTIAL: interrupted (SIGINT); 1 of 2 configurations finished; 1 run of an unfinished one not reported$(printf "%$((fields - 1))s" | tr ' ' ,)"
holds "SIGINT, CSV: the last record says partial, why and how far it got, in the first of $fields fields" \
	[ "$(tail -n 1 "$work/out.csv")" = "$want" ]

# Stopped before its first configuration finished: stdout still ends with the PARTIAL
# line; an existing --output FILE keeps what it had.
echo "$hello" > "$work/guest0"
early() { # FORMAT [--output FILE]: SIGTERM once the guest is up; sets rc
	local fmt=$1
	shift
	FAKE_GUEST="$work/guest0" env --default-signal=INT "$fpulab" run --kernel "$work/lab.elf" \
		--placement same-cpu --fp-users one --regset sse --policy eager --repeat 1 \
		--format "$fmt" "$@" > "$work/early.$fmt" 2> "$work/early.err" &
	pid=$!
	for _ in $(seq 100); do
		grep -q 'guest up' "$work/early.err" 2> /dev/null && break
		sleep 0.1
	done
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	pid=
}
early json
holds "nothing finished, JSON on stdout: exit 143, the one line says partial, 0 of 1" \
	grep -q '^{"partial": true, "reason": "interrupted (SIGTERM)", "configurations_done": 0, "configurations_expected": 1' "$work/early.json"
early table
holds "nothing finished, table: its last line says partial" \
	grep -qE '^# PARTIAL: interrupted \(SIGTERM\); 0 of 1 configuration finished' <(tail -n 1 "$work/early.table")
echo keep > "$work/kept.json"
early json --output "$work/kept.json"
holds "nothing finished, --output FILE: exit 143, FILE keeps what it had" \
	[ "$rc $(cat "$work/kept.json")" = "143 keep" ]

finish
