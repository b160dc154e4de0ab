#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab run --trace (docs/trace.md, "Recording from the lab"): refusals
# before QEMU starts, a recorded trace round trip (trace info/dump read it,
# trace_check passes), a valid trace from every experiment, and replay's
# counts against the lab row that recorded it: exact on one CPU, within the
# documented tolerance across CPUs, identical when replayed twice.
set -u
. "$(dirname "$0")/lib.sh"

have_xsave=0
grep -qw xsave /proc/cpuinfo && have_xsave=1

# ---- refused before QEMU starts (a QEMU that fails loudly if run) ----
refuse() {
	local name=$1 needle=$2
	shift 2
	FPULAB_QEMU=/bin/false "$fpulab" run "$@" > "$work/r.out" 2> "$work/r.err"
	local rc=$?
	if [ "$rc" = 2 ] && grep -qF -- "$needle" "$work/r.err"; then ok "$name"
	else not_ok "$name" "exit $rc" "$(head -n 2 "$work/r.err")"; fi
}
one=(--cpus 1 --placement same-cpu --fp-users one --regset sse --policy lazy --repeat 1)
refuse "--trace FILE in a directory that does not exist" "cannot create it" "${one[@]}" --trace "$work/no/such/x.trace"
refuse "--trace FILE with several runs: say how many and what to do" \
	"a trace FILE holds one run, and this has 4 runs (2 configurations x 2 policies x 1 repeat)" \
	--cpus 1 --placement same-cpu --fp-users one,both --regset sse --policy eager,lazy --repeat 1 --trace "$work/x.trace"
refuse "--trace FILE with every policy the kernel has" "every policy the kernel has" \
	--cpus 1 --experiment short-tasks --trace "$work/x.trace"
echo keep > "$work/out.csv"
refuse "--trace refused: --output is left as it was" "cannot create it" "${one[@]}" --trace "$work/no/x" --output "$work/out.csv"
if [ "$(cat "$work/out.csv")" = keep ]; then ok "--output untouched by a refused --trace"
else not_ok "--output untouched by a refused --trace"; fi
# --trace and --output one file: the trace would be written, then the rows over it
refuse "--trace FILE that is the --output too (a new file)" "is the --trace file" "${one[@]}" --trace "$work/both.out" --output "$work/both.out"
echo keep > "$work/both2.out"
refuse "--trace FILE that is the --output too (an existing file)" "is the --trace file" "${one[@]}" --trace "$work/both2.out" --output "$work/./both2.out"
if [ "$(cat "$work/both2.out")" = keep ]; then ok "... and the file is left as it was"
else not_ok "... and the file is left as it was"; fi

# ---- against a fake QEMU (tests/cli/fake-qemu): what the host does with the guest's records ----
fake() {
	FPULAB_QEMU="$root/tests/cli/fake-qemu" FAKE_QEMU_ARGS="$work/fake.args" FAKE_GUEST="$work/fake.guest" \
		"$fpulab" run "${one[@]}" --round-trips 10 --trace "$work/fake.trace" > /dev/null 2> "$work/fake.err"
}
hello='@fpulab hello apic=xapic insn=xsaveopt policies=eager,lazy test_policies=- version=1 cpus=1 xcr0=519 kernel_size=2696 user_size=2696 tsc_khz=3000000'
result='@fpulab result experiment=context-switch policy=lazy placement=same-cpu fp_users=one regset=sse repeat=0 cpus=1 tasks=2 round_trips=10 switches=57 slices=56 fp_slices=28 nm_traps=28 saves=27 saves_fxsave=0 saves_xsave=0 saves_xsaveopt=27 saves_xsavec=0 saves_xsaves=0 restores=1 restores_skipped=27 ipis=0 flush_ipis=0 prefetches=0 prefetches_useful=0 prefetches_wasted=0 ts_writes=55 kernel_fpu_sections=0 scrubs=0 migrations=0 integrity_errors=0 signals=0 sigreturns=0 ptrace_reads=0 ptrace_writes=0 kills=0 ticks=1000'
printf '%s\n%s\n@fpulab done runs=1 skipped=0 checked=0\n' "$hello" "$result" > "$work/fake.guest"
fake
rc=$?
if [ $rc = 1 ] && grep -q "sent 0 traces: a kernel that does not record traces" "$work/fake.err"; then
	ok "a kernel that sends no trace record: exit 1, says so"
else not_ok "a kernel that sends no trace record: exit 1" "exit $rc" "$(tail -n 2 "$work/fake.err")"; fi
if grep -qx "trace=1" <(tr ' ' '\n' < "$work/fake.args") && grep -A1 -x -- -m "$work/fake.args" | grep -qx 512M; then
	ok "--trace: trace=1 on the kernel command line, -m 512M"
else not_ok "--trace: trace=1 and -m 512M" "$(tr '\n' ' ' < "$work/fake.args")"; fi
printf '%s\n%s\n@fpulab trace used=86 cpus=1 base=2285568 stride=467476480 events=86 seq=86 lost=4294967295 ntasks=3 xcr0=519\n@fpulab done runs=1 skipped=0 checked=0\n' \
	"$hello" "$result" > "$work/fake.guest"
fake
rc=$?
if [ $rc = 1 ] && grep -q "no trace written" "$work/fake.err" && [ ! -e "$work/fake.trace" ]; then
	ok "buffers that cannot be read out (QEMU gone): no trace written, exit 1"
else not_ok "buffers that cannot be read out: no trace, exit 1" "exit $rc" "$(tail -n 2 "$work/fake.err")"; fi

# replay_counts TRACE POLICY [COSTS]: "switches nm saves restores skipped ts ipis
# integrity" from replay's CSV row of POLICY; adaptive decides by libfpu's
# built-in costs, as in the lab (--adaptive-costs COSTS, default "default")
replay_counts() {
	"$fpulab" replay "$1" --policy "$2" --repeat 1 --adaptive-costs "${3:-default}" --format csv 2> /dev/null |
		awk -F, -v p="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["policy"] == p {
			print $col["switches"], $col["nm_traps"], $col["saves"], $col["restores"],
				$col["restores_skipped"], $col["ts_writes"], $col["flush_ipis"],
				$col["integrity_errors"]
			exit
		}'
}
# lab_counts NAME POLICY [COLUMN=VALUE ...]: the same fields of the lab's row
lab_counts() {
	local name=$1 policy=$2
	shift 2
	awk -F, -v filters="policy=$policy $*" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; nf = split(filters, f, " "); next }
		{
			for (j = 1; j <= nf; j++) { split(f[j], kv, "="); if ($col[kv[1]] != kv[2]) next }
			print $col["switches"], $col["nm_traps"], $col["saves"], $col["restores"],
				$col["restores_skipped"], $col["ts_writes"], $col["flush_ipis"],
				$col["integrity_errors"]
			exit
		}' "$work/$name.csv"
}

# ---- one run into one file: round trip, exact replay, replay twice ----
fpulab_csv cs1 "${one[@]}" --round-trips 300 --trace "$work/cs1.trace"
if [ "$(rc_of cs1)" = 0 ] && [ -s "$work/cs1.trace" ]; then ok "run --trace FILE: one run, one trace"
else not_ok "run --trace FILE: one run, one trace" "exit $(rc_of cs1)" "$(tail -n 3 "$work/cs1.err")"; fi
"$fpulab" trace info "$work/cs1.trace" > "$work/info" 2>&1
uses=$(awk '$1 == "use" { print $2 }' "$work/info")
nm=$(csv_get cs1 nm_traps policy=lazy)
if grep -q "recorded by the lab" "$work/info" && [ -n "$uses" ] && [ "$uses" = "$nm" ]; then
	ok "trace info reads it: $uses first uses, the lazy row's $nm #NM traps"
else not_ok "trace info: uses = the lazy row's #NM traps" "uses=$uses nm=$nm" "$(head -n 3 "$work/info")"; fi
sw=$(awk '$1 == "switch" { print $2 }' "$work/info")
if [ "$sw" = "$(csv_get cs1 switches policy=lazy)" ]; then ok "trace info: $sw switches, the row's"
else not_ok "trace info: the row's switches" "trace $sw row $(csv_get cs1 switches policy=lazy)"; fi
"$fpulab" trace dump "$work/cs1.trace" --limit 4 > "$work/dump" 2>&1
if grep -q "^0 0 switch 0 -> " "$work/dump" && grep -q " use task [0-9]* mask 0x" "$work/dump"; then
	ok "trace dump reads it: starts with a switch from a kernel thread, uses carry masks"
else not_ok "trace dump reads it" "$(head -n 6 "$work/dump")"; fi
if [ $have_xsave = 1 ]; then
	r1=$(replay_counts "$work/cs1.trace" lazy)
	r2=$(replay_counts "$work/cs1.trace" lazy)
	lab=$(lab_counts cs1 lazy)
	if [ -n "$r1" ] && [ "$r1" = "$lab" ]; then ok "same-CPU replay under lazy = the lab row: $lab"
	else not_ok "same-CPU replay under lazy = the lab row" "lab '$lab' replay '$r1'"; fi
	if [ -n "$r1" ] && [ "$r1" = "$r2" ]; then ok "replaying the same trace twice: identical counts"
	else not_ok "replaying the same trace twice: identical counts" "'$r1' then '$r2'"; fi
else
	skips 2 "replay" "no XSAVE"
fi

# ---- every experiment: a valid trace per run; replay = row on one CPU ----
# exp_traces NAME CPUS ARGS...: run into DIR/NAME/, one trace per row
exp_traces() {
	local name=$1 cpus=$2
	shift 2
	fpulab_csv "$name" --cpus "$cpus" --repeat 1 --timeout 120 --trace "$work/$name/" "$@"
	local rows=$(($(wc -l < "$work/$name.csv") - 1)) files
	files=$(find "$work/$name" -maxdepth 1 -name '*.trace' 2> /dev/null | wc -l)
	if [ "$(rc_of "$name")" != 0 ] || [ "$rows" -lt 1 ] || [ "$files" != "$rows" ]; then
		not_ok "$name: one trace per row" "exit $(rc_of "$name"), $rows rows, $files traces" "$(tail -n 3 "$work/$name.err")"
		return 1
	fi
	local bad=""
	for f in "$work/$name"/*.trace; do
		"$fpulab" trace info "$f" > /dev/null 2> "$work/info.err" || bad="$bad $(basename "$f"): $(cat "$work/info.err")"
	done
	if [ -z "$bad" ]; then ok "$name: $rows traces, each read back and checked"
	else not_ok "$name: every trace reads back and checks" "$bad"; fi
}

# compare NAME EXACT|PCT [IPI_PCT|-]: replay each row's trace under the row's policy
# (flush IPIs within IPI_PCT, default PCT; -: not compared)
compare() {
	local name=$1 tol=$2 ipi_tol=${3:-$2} bad="" count=0 policy placement fp regset tasks variant f lab rep
	[ $have_xsave = 1 ] || { skip "$name: replay = row" "no XSAVE"; return; }
	local exp
	exp=$(csv_get "$name" experiment)
	while IFS=, read -r policy placement fp regset tasks variant; do
		f="$work/$name/$exp"
		for w in "$placement" "$fp" "$regset"; do [ "$w" != - ] && f="$f-$w"; done
		[ -n "$variant" ] && f="$f-t$tasks-$variant"
		f="$f-$policy-r0.trace"
		lab=$(lab_counts "$name" "$policy" placement="$placement" fp_users="$fp" regset="$regset" variant="$variant" tasks="$tasks")
		rep=$(replay_counts "$f" "$policy")
		count=$((count + 1))
		if [ "$tol" = exact ]; then
			[ -n "$rep" ] && [ "$rep" = "$lab" ] || bad="$bad [$(basename "$f"): lab '$lab' replay '$rep']"
		else
			# switches, #NM, saves, restores and skipped restores exact; TS writes
			# and flush IPIs within tol% (+1): the lab's IPI lands when the
			# target next takes interrupts, replay's at once; integrity 0.
			awk -v l="$lab" -v r="$rep" -v t="$tol" -v ti="$ipi_tol" 'BEGIN {
				split(l, a, " "); split(r, b, " ")
				if (r == "" || b[8] != 0) exit 1
				for (i = 1; i <= 5; i++) if (a[i] != b[i]) exit 1
				for (i = 6; i <= 7; i++) { d = a[i] - b[i]; if (d < 0) d = -d
					if (i == 7 && ti == "-") continue
					if (d > a[i] * (i == 7 ? ti : t) / 100 + 1) exit 1 }
			}' || bad="$bad [$(basename "$f"): lab '$lab' replay '$rep']"
		fi
	done < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ print $c["policy"] "," $c["placement"] "," $c["fp_users"] "," $c["regset"] "," $c["tasks"] "," $c["variant"] }' "$work/$name.csv")
	local note=""
	local ipi_note="$ipi_tol%"
	[ "$ipi_tol" = - ] && ipi_note="not compared"
	[ "$tol" != exact ] && note="% on TS writes, flush IPIs $ipi_note, the other counts exact"
	if [ -z "$bad" ]; then ok "$name: replay of each of $count traces under its policy = the lab row ($tol$note)"
	else not_ok "$name: replay under the recording policy = the lab row ($tol)" "$bad"; fi
}

exp_traces cs 1 --experiment context-switch --placement same-cpu --round-trips 100 --regset sse \
	&& compare cs exact
exp_traces short 1 --experiment short-tasks --tasks-total 20 && compare short exact
exp_traces spin 1 --experiment fp-vs-spinner --icount --units 300 && compare spin exact
exp_traces kcsum 1 --experiment kernel-checksum --calls 40 && compare kcsum exact
exp_traces slock 1 --experiment sleeping-lock --tasks 2 --state-api task --ops 40 && compare slock exact
# stress: signals reset the state for the handler, sigreturn and ptrace
# writes import one (format version 2's reset and import events). Replay's
# register check holds under every policy, on one CPU and across two, and on
# one CPU the replay under the recording policy gives the row's counts, for
# adaptive with --adaptive-costs default (the lab's costs; replay's own
# default, this host's measured costs, decides differently: docs/trace.md).
# integrity NAME: every trace in DIR/NAME/ replayed under every policy: 0 integrity errors
integrity() {
	local name=$1 bad="" nrep=0 f
	[ $have_xsave = 1 ] || { skip "$name: 0 integrity errors in replay" "no XSAVE"; return; }
	for f in "$work/$name"/*.trace; do
		"$fpulab" replay "$f" --policy all --repeat 1 --format csv > "$work/integ.csv" 2> "$work/integ.err" ||
			{ bad="$bad [$(basename "$f"): exit $? $(tail -n 1 "$work/integ.err")]"; continue; }
		local got
		got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["policy"] != "oracle" { n++; if ($c["integrity_errors"] != 0) e = e " " $c["policy"] "=" $c["integrity_errors"] }
			END { print n ":" e }' "$work/integ.csv")
		nrep=$((nrep + ${got%%:*}))
		[ "${got%%:*}" -ge 7 ] && [ -z "${got#*:}" ] || bad="$bad [$(basename "$f"): ${got%%:*} policies, errors:${got#*:}]"
	done
	if [ -z "$bad" ]; then ok "$name: every trace replayed under every policy ($nrep replays): 0 integrity errors"
	else not_ok "$name: replay under every policy: 0 integrity errors" "$bad"; fi
}
exp_traces stress1 1 --experiment stress --switches 20000 --seed 7 \
	--policy eager,lazy,lazy-counter,owner,deferred,smp-lazy,adaptive && compare stress1 exact && integrity stress1
# adaptive on its own: the row's counts, with traps and TS writes to decide by
if [ $have_xsave = 1 ]; then
	lab=$(lab_counts stress1 adaptive)
	traces=("$work"/stress1/*-adaptive-r0.trace)
	rep=$(replay_counts "${traces[0]}" adaptive default)
	if [ -n "$rep" ] && [ "$rep" = "$lab" ] && [ "$(cut -d' ' -f2 <<< "$lab")" -gt 0 ] &&
	   [ "$(cut -d' ' -f6 <<< "$lab")" -gt 0 ]; then
		ok "stress1: adaptive replayed with --adaptive-costs default = the lab row (switches #NM saves restores skipped TS IPIs errors: $lab)"
	else not_ok "stress1: adaptive replayed with --adaptive-costs default = the lab row" "lab '$lab' replay '$rep'"; fi
else
	skip "stress1: adaptive replay = row" "no XSAVE"
fi
exp_traces stress2 2 --experiment stress --switches 20000 --seed 7 --policy lazy,smp-lazy,adaptive &&
	integrity stress2 && compare stress2 2 -
traces=("$work"/stress2/*.trace)
st=${traces[0]}
"$fpulab" trace info "$st" > "$work/info" 2>&1
"$fpulab" trace dump "$st" > "$work/dump" 2>&1
imports=$(awk '$1 == "import" { print $2 }' "$work/info")
resets=$(awk '$1 == "reset" { print $2 }' "$work/info")
if [ "${imports:-0}" -gt 0 ] && [ "${resets:-0}" -gt 0 ] && grep -q "^[0-9]* [0-9] import task [0-9]* mask 0x[0-9a-f]* sigframe" "$work/dump" &&
	grep -q "^[0-9]* [0-9] import task [0-9]* mask 0x[0-9a-f]*\( returned\)\?$" "$work/dump" && grep -q " returned$" "$work/dump"; then
	ok "stress trace: $imports imports (sigreturns and ptrace writes), $resets resets, returns to ring 3 flagged"
else not_ok "stress trace: imports, resets and returns recorded" "imports '$imports' resets '$resets'" "$(grep -m 2 import "$work/dump")"; fi
# costs: its #NM probe is the experiment's own handler, outside libfpu (the row
# adds its probes to nm_traps); its traces are valid, not compared.
exp_traces costs 2 --experiment costs --round-trips 50
# across CPUs: within 2% (docs/trace.md)
exp_traces cs2 2 --experiment context-switch --placement cross-cpu,migrating --fp-users both \
	--regset sse --round-trips 100 && compare cs2 2
exp_traces short2 2 --experiment short-tasks --tasks-total 20 && compare short2 2

# ---- a full buffer: the trace stops, says so, and still checks ----
FPULAB_TRACE_EVENTS=200 fpulab_csv full "${one[@]}" --round-trips 300 --trace "$work/full.trace"
"$fpulab" trace info "$work/full.trace" > "$work/info" 2>&1
ev=$(awk '$1 == "events" { print $2 }' "$work/info")
if [ "$(rc_of full)" = 0 ] && grep -q "filled up" "$work/full.err" && grep -q TRUNCATED "$work/info" \
	&& [ -n "$ev" ] && [ "$ev" -le 200 ] && [ "$ev" -ge 190 ]; then
	ok "a full buffer (200 events): the trace stops at $ev events, is marked truncated and checks"
else not_ok "a full buffer: truncated trace" "exit $(rc_of full), events '$ev'" "$(grep -i trace "$work/full.err" | tail -n 2)"; fi

finish
