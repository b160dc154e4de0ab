#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab run when the guest finds FPU state lost or leaked (fake QEMU): its
# integrity records (abi.h) appear without --verbose, on stderr, in the
# table's footnotes with the command and random seed that replay them, in
# JSON (integrity_reports, random_seed) and CSV, each with the row of its
# run. TAP output.
set -u
. "$(dirname "$0")/lib.sh"
fake_qemu
integrity() { # EXPERIMENT POLICY TASK REGSET EXPECTED FOUND WRONG
	echo "@fpulab integrity experiment=$1 policy=$2 repeat=0 cpu=1 task=$3 regset=$4 reg=0" \
	     "expected=$5 found=$6 wrong=$7"
}
stress() { # POLICY INTEGRITY_ERRORS
	echo "@fpulab result experiment=stress policy=$1 placement=- fp_users=all regset=all repeat=0" \
	     "cpus=2 tasks=8 round_trips=0 switches=20000 nm_traps=0 saves=4000 restores=4000 ipis=30" \
	     "integrity_errors=$2 ticks=5000000"
}
{
	echo "$hello"
	stress eager 0
	integrity stress lazy 7 x87 0x4007000000004000 0x4007000000001000 8
	integrity stress lazy 3 avx 0x4003000000004000 0x4003000000003000 16
	stress lazy 24
	echo "@fpulab done runs=2"
} > "$work/stress"
run() { # GUEST FORMAT ARGS...
	local guest=$1 format=$2; shift 2
	FAKE_GUEST="$guest" "$fpulab" run --kernel "$work/lab.elf" --policy eager,lazy \
		--format "$format" "$@" > "$work/out" 2> "$work/err"
	rc=$?
}

run "$work/stress" table --experiment stress --seed 7
holds "integrity errors: exit 1" [ "$rc" = 1 ]
holds "stderr names each, without --verbose" grep -qxF \
	"fpulab: integrity: stress, policy lazy (2 of 2): cpu 1 task 7 x87 reg 0: expected 0x4007000000004000, found 0x4007000000001000 (8 registers wrong)" "$work/err"
holds "a footnote for each: row, CPU, task, register set, register, expected, found" grep -qxF \
	"#   lazy, repeat 0: cpu 1 task 3 avx reg 0: expected 0x4003000000004000, found 0x4003000000003000 (16 registers wrong)" "$work/out"
holds "the last footnote: the command and random seed that replay them" \
	grep -qE '^# replay with random seed 7: fpulab run --kernel .* --experiment stress --seed 7$' <(tail -n 1 "$work/out")
holds "the footnotes come after the rows" [ "$(grep -n '^#   lazy' "$work/out" | head -n 1 | cut -d: -f1)" -gt "$(grep -n '^lazy ' "$work/out" | cut -d: -f1)" ]

run "$work/stress" table --experiment stress --seed 7 --plot "$work/plots"
holds "with --plot too, one footnote per record" [ "$(grep -c '^#   lazy, repeat 0: ' "$work/out")" = 2 ]

run "$work/stress" table --experiment stress
holds "without --seed the replay line adds the default seed" grep -qE '^# replay with random seed 1: fpulab run .* --seed 1$' "$work/out"

run "$work/stress" json --experiment stress --seed 7
holds "JSON: the row with errors carries them, and the random seed" grep -qF \
	'"integrity_reports": [{"repeat": 0, "cpu": 1, "task": 7, "regset": "x87", "reg": 0, "expected": "0x4007000000004000", "found": "0x4007000000001000", "registers_wrong": 8}, {"repeat": 0, "cpu": 1, "task": 3, "regset": "avx"' <(grep '"policy": "lazy"' "$work/out")
holds "JSON: ... the random seed" grep -qF '"random_seed": "7"' <(grep '"policy": "lazy"' "$work/out")
holds "JSON: a clean row has null" grep -qF '"integrity_reports": null' <(grep '"policy": "eager"' "$work/out")

run "$work/stress" csv --experiment stress --seed 7
cell=$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("|".join(r["integrity_reports"] for r in rows), rows[1]["random_seed"])' "$work/out")
holds "CSV: an integrity_reports cell per row (empty when clean), RFC 4180, and the seed" [ "$cell" = \
	"|repeat 0: cpu 1 task 7 x87 reg 0: expected 0x4007000000004000 found 0x4007000000001000 (8 registers wrong); repeat 0: cpu 1 task 3 avx reg 0: expected 0x4003000000004000 found 0x4003000000003000 (16 registers wrong) 7" ]

# A record sent in the first run of a configuration belongs to it, not to
# the one before (its arrival comes before the result that completes that one).
cs() { # POLICY PLACEMENT INTEGRITY_ERRORS
	echo "@fpulab result experiment=context-switch policy=$1 placement=$2 fp_users=one regset=sse" \
	     "repeat=0 cpus=2 tasks=2 round_trips=1000 switches=2000 nm_traps=0 saves=2000" \
	     "restores=2000 ipis=0 flush_ipis=0 integrity_errors=$3 ticks=3000000"
}
{
	echo "$hello"
	cs eager same-cpu 0; cs lazy same-cpu 0
	integrity context-switch eager 1 sse 0x1 0x2 1
	cs eager cross-cpu 1; cs lazy cross-cpu 0
	echo "@fpulab done runs=4"
} > "$work/cs"
run "$work/cs" json --placement same-cpu,cross-cpu --fp-users one --regset sse
row() { grep -F "\"policy\": \"$1\", \"placement\": \"$2\"" "$work/out"; }
holds "a report of the second configuration's first run is with that row" \
	grep -qF '"integrity_reports": [{"repeat": 0, "cpu": 1, "task": 1, "regset": "sse"' <(row eager cross-cpu)
holds "... and not with the first configuration's" grep -qF '"integrity_reports": null' <(row eager same-cpu)
run "$work/cs" table --placement same-cpu,cross-cpu --fp-users one --regset sse
holds "table: the footnote names the configuration" grep -qxF \
	"#   eager cross-cpu fp=one sse, repeat 0: cpu 1 task 1 sse reg 0: expected 0x1, found 0x2 (1 register wrong)" "$work/out"

# A run that stops early: the report of its unfinished run is a footnote too.
{ echo "$hello"; cs eager same-cpu 0; cs lazy same-cpu 0; cs eager cross-cpu 0
  integrity context-switch lazy 1 sse 0x1 0x2 1; } > "$work/cut"
FAKE_GUEST_HANG=1 run "$work/cut" table --placement same-cpu,cross-cpu --fp-users one --regset sse --timeout 1
holds "stopped early: exit 1" [ "$rc" = 1 ]
holds "stopped early: the unfinished run's report is a footnote" grep -qF \
	"#   lazy, repeat 0 (unfinished, not in the rows): cpu 1 task 1 sse reg 0: expected 0x1, found 0x2 (1 register wrong)" "$work/out"
holds "stopped early: PARTIAL is still the last line" grep -q '^# PARTIAL: ' <(tail -n 1 "$work/out")

finish
