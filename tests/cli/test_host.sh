#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab host: short runs on this machine that assert real properties (rows,
# XINUSE bits of the register set used, 0 integrity errors, the positive
# control caught), never a time. TAP output; run by tests/run-tests.sh.
set -u
. "$(dirname "$0")/lib.sh"

# jq_check NAME FILE FILTER: FILTER (over all rows, slurped) must print true.
jq_check() {
	local got
	got=$(jq -s "$3" "$2" 2>&1)
	if [ "$got" = true ]; then ok "$1"; else not_ok "$1" "jq '$3' gave: $got" "$(head -c 400 "$2")"; fi
}

ncpus=$(nproc)
widest=x87
grep -qw avx /proc/cpuinfo && widest=avx
grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo && widest=avx512
case $widest in x87) mask=1 ;; avx) mask=7 ;; avx512) mask=231 ;; esac # 0x1, 0x7, 0xe7

# num: "0xe7" as a number; has(X; M): every bit of M is set in X
defs='def num: ltrimstr("0x") | explode | map(if . >= 97 then . - 87 else . - 48 end) | reduce .[] as $d (0; . * 16 + $d);
      def has($x; $m): [range(0; 8)] | all(. as $b | ((($m / pow(2; $b)) | floor) % 2 == 0) or ((($x / pow(2; $b)) | floor) % 2 == 1));'

# ---- usage ----
check "fpulab help host context-switch prints that subcommand's help" 0 "usage: fpulab host context-switch" - -- "$fpulab" help host context-switch
check "fpulab help host lists the subcommands" 0 "context-switch" - -- "$fpulab" help host
check "host with an unknown subcommand: exit 2" 2 - "unknown subcommand 'frob'" -- "$fpulab" host frob
check "context-switch --ipc yield cross-cpu: exit 2" 2 - "--ipc yield needs --placement same-cpu" -- "$fpulab" host context-switch --ipc yield --placement cross-cpu
check "context-switch --regset bogus: exit 2" 2 - "--regset" -- "$fpulab" host context-switch --regset bogus
check "context-switch --cpus beyond any CPU set: exit 2" 2 - "--cpus: 4000 is out of range (0..1023)" -- "$fpulab" host context-switch --cpus 0,4000
check "context-switch --cpus that would wrap an int: exit 2, not CPU 1" 2 - "--cpus: 4294967297 is out of range" -- "$fpulab" host context-switch --cpus 4294967297,0
check "context-switch --cpus +1,0: exit 2, as every integer option" 2 - "'+1' is not a non-negative integer" -- "$fpulab" host context-switch --cpus +1,0
check "context-switch --cpus on a CPU we may not use: exit 2" 2 - "may not run on CPU 1000" -- "$fpulab" host context-switch --cpus 0,1000
check "context-switch --seconds 0: exit 2" 2 - "--seconds" -- "$fpulab" host context-switch --seconds 0
check "context-switch --bogus: exit 2" 2 - "try 'fpulab help host context-switch'" -- "$fpulab" host context-switch --bogus

# ---- context-switch: rows, XINUSE, integrity ----
places=same-cpu
[ "$ncpus" -ge 2 ] && places=same-cpu,cross-cpu
nplaces=$(echo "$places" | tr ',' '\n' | wc -l)
if "$fpulab" host context-switch --ipc pipe,futex --placement $places --seconds 0.05 --repeat 2 \
	--format json > "$work/cs.json" 2> "$work/cs.err"; then
	ok "context-switch pipe,futex ($places) exits 0"
else
	not_ok "context-switch pipe,futex ($places) exits 0" "$(head -n 5 "$work/cs.err")"
fi
jq_check "context-switch: one row per ipc x placement x fp-users ($((2 * nplaces * 3)))" "$work/cs.json" "length == $((2 * nplaces * 3))"
jq_check "context-switch: every row has 2 runs and round trips" "$work/cs.json" 'all(.repeats == 2 and .round_trips > 0 and .ns_per_round_trip_min <= .ns_per_round_trip_median and .ns_per_round_trip_median <= .ns_per_round_trip_max)'
jq_check "context-switch: 0 integrity errors in every row" "$work/cs.json" 'all(.integrity_errors == 0 and .xinuse_missing == 0)'
if grep -qw xgetbv1 /proc/cpuinfo; then
	jq_check "context-switch: FP task A has every $widest component in XINUSE" "$work/cs.json" \
		"$defs all(.[] | select(.fp_users != \"none\"); .regset == \"$widest\" and has(.xinuse_a | num; $mask))"
	jq_check "context-switch: fp both puts the set in use in task B too" "$work/cs.json" \
		"$defs all(.[] | select(.fp_users == \"both\"); has(.xinuse_b | num; $mask))"
else
	skip "context-switch: XINUSE bits" "no XGETBV(1) on this CPU"
	skip "context-switch: XINUSE of task B" "no XGETBV(1) on this CPU"
fi
jq_check "context-switch: the floor share is there for FP rows only" "$work/cs.json" \
	'all(.[]; (.fp_users == "none") == (.floor_share == null)) and all(.[] | select(.floor_share != null); .floor_share > 0)'
jq_check "context-switch: rows carry CPU model, kernel release, clock source and fpulab version" "$work/cs.json" \
	'all(.host_cpu != null and .host_kernel != null and .clocksource != null and .fpulab_version != null)'
guest=$(grep -q '^flags.* hypervisor' /proc/cpuinfo && echo true || echo false)
jq_check "context-switch: every row says whether this Linux is a guest ($guest here, as /proc/cpuinfo's hypervisor flag)" "$work/cs.json" \
	"all(.hypervisor == $guest)"

if "$fpulab" host context-switch --ipc yield --placement same-cpu --mode processes --fp-users both \
	--regset x87,sse --seconds 0.05 --repeat 1 --format csv > "$work/cs.csv" 2> "$work/cs.err"; then
	rows=$(($(wc -l < "$work/cs.csv") - 1))
	if [ "$rows" = 2 ] && head -n 1 "$work/cs.csv" | grep -q '^ipc,mode,placement,cpus,fp_users,regset,.*ns_per_round_trip_median'; then
		ok "context-switch yield processes --format csv: header and 2 rows"
	else
		not_ok "context-switch yield processes --format csv: header and 2 rows" "$(head -n 3 "$work/cs.csv")"
	fi
else
	not_ok "context-switch yield processes exits 0" "$(head -n 5 "$work/cs.err")"
fi

# ---- check: 0 errors, every positive control caught ----
check "check --threads 0: exit 2" 2 - "--threads" -- "$fpulab" host check --threads 0
check "check --regset none: exit 2, and none is not offered" 2 - "unknown value 'none' (one of: x87, sse, avx, avx512)" -- "$fpulab" host check --regset none
check "fpulab help host check prints its help" 0 "usage: fpulab host check" - -- "$fpulab" help host check
# A correctness check: its row has no figure to plot, so --plot is refused before the run.
check "check --plot: exit 2 before the run" 2 - "host check: --plot: check has no figure to plot" -- \
	"$fpulab" host check --seconds 0.5 --plot "$work/chk-plot"
[ ! -e "$work/chk-plot" ] && ok "check --plot: no directory left behind" ||
	not_ok "check --plot: no directory left behind" "$(ls -la "$work/chk-plot")"
check "fpulab help host: --plot is context-switch's and unlink's" 0 \
	"context-switch and unlink take --plot DIR" - -- "$fpulab" help host
if "$fpulab" host check --seconds 2 --format json > "$work/chk.json" 2> "$work/chk.err"; then
	ok "check --seconds 2 ($widest) exits 0"
else
	not_ok "check --seconds 2 ($widest) exits 0" "$(head -n 5 "$work/chk.err")"
fi
jq_check "check: one row, 0 errors, no pass with a component out of use" "$work/chk.json" 'length == 1 and .[0].errors == 0 and .[0].xinuse_missing == 0'
jq_check "check: positive controls run and every one caught" "$work/chk.json" '.[0].controls_run > 0 and .[0].controls_caught == .[0].controls_run'
jq_check "check: signals handled, frames edited, frames written to fresh alternate stacks" "$work/chk.json" \
	'.[0].signals_handled > 0 and .[0].frames_edited > 0 and .[0].fresh_altstack_frames > 0 and .[0].signals_on_altstack >= .[0].fresh_altstack_frames and .[0].checks > 0 and .[0].handler_checks == .[0].signals_handled'
jq_check "check: the regset is the widest offered ($widest)" "$work/chk.json" ".[0].regset == \"$widest\""
if [ "$ncpus" -ge 2 ]; then
	jq_check "check: threads were moved between CPUs" "$work/chk.json" '.[0].affinity_changes > 0'
else
	skip "check: threads were moved between CPUs" "one CPU"
fi
if grep -qw xgetbv1 /proc/cpuinfo; then
	jq_check "check: XINUSE has every $widest component" "$work/chk.json" "$defs has(.[0].xinuse | num; $mask)"
else
	skip "check: XINUSE has every $widest component" "no XGETBV(1) on this CPU"
fi
if "$fpulab" host check --seconds 1 --regset x87 --threads 2 --spinners 0 --format csv > "$work/chk.csv" 2> "$work/chk.err" &&
	[ "$(wc -l < "$work/chk.csv")" = 2 ] && grep -q '^seconds,regset,threads,spinners,repeats,checks,' "$work/chk.csv"; then
	ok "check --regset x87 --format csv: header and a row, exit 0"
else
	not_ok "check --regset x87 --format csv: header and a row, exit 0" "$(head -n 3 "$work/chk.err" "$work/chk.csv")"
fi

# ---- unlink: rows, and nothing left behind ----
check "unlink --tasks 0: exit 2" 2 - "--tasks" -- "$fpulab" host unlink --tasks 0
check "unlink --seconds: exit 2 (a fixed --ops)" 2 - "fixed --ops" -- "$fpulab" host unlink --seconds 1
check "unlink --dir that does not exist: exit 1, says so" 1 - "$work/none: No such file or directory" -- "$fpulab" host unlink --dir "$work/none"
mkdir -p "$work/tmp" "$work/d"
touch "$work/d/keep"
if TMPDIR=$work/tmp "$fpulab" host unlink --ops 2000 --tasks 1,3 --repeat 2 --format json > "$work/ul.json" 2> "$work/ul.err"; then
	ok "unlink --ops 2000 --tasks 1,3 exits 0"
else
	not_ok "unlink --ops 2000 --tasks 1,3 exits 0" "$(head -n 3 "$work/ul.err")"
fi
jq_check "unlink: a row per task count, 2 runs, ops/s and runtimes ordered" "$work/ul.json" \
	'length == 2 and .[0].tasks == 1 and .[1].tasks == 3 and all(.repeats == 2 and .ops == 2000 and .ops_per_s_min > 0 and .ops_per_s_min <= .ops_per_s_median and .ops_per_s_median <= .ops_per_s_max and .runtime_ms_min <= .runtime_ms_max)'
if [ -z "$(ls -A "$work/tmp")" ]; then ok "unlink: its temporary directory is gone"; else not_ok "unlink: its temporary directory is gone" "$(ls -A "$work/tmp")"; fi
"$fpulab" host unlink --ops 500 --tasks 2 --repeat 1 --mode processes --dir "$work/d" > "$work/out" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ "$(ls -A "$work/d")" = keep ]; then
	ok "unlink --mode processes --dir: exit 0, only its own files touched, none left"
else
	not_ok "unlink --mode processes --dir: exit 0, only its own files touched, none left" "exit $rc" "$(ls -A "$work/d")"
fi
TMPDIR=$work/tmp env --default-signal=INT "$fpulab" host unlink --ops 1000000000 --tasks 2 > "$work/out" 2> "$work/err" & # (^C's default: a background job ignores SIGINT)
pid=$!
for _ in $(seq 50); do [ -n "$(ls -A "$work/tmp")" ] && break; sleep 0.1; done
sleep 0.3
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" = 130 ] && [ -z "$(ls -A "$work/tmp")" ] && grep -q "interrupted" "$work/err"; then
	ok "unlink: Ctrl-C stops the run (exit 130) and removes its directory"
else
	not_ok "unlink: Ctrl-C stops the run (exit 130) and removes its directory" "exit $rc" "$(ls -A "$work/tmp")" "$(cat "$work/err")"
fi

finish
