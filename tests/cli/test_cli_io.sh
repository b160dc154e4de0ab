#!/bin/bash
# SPDX-License-Identifier: MIT
# What every command owes its inputs and outputs: a write to standard output
# that fails is a failure; an output never replaces an input, however named
# (a link, standard input, a file an environment variable names); an output
# path that cannot be made is exit 2 before anything is made, naming the
# user's path, never a temporary file; an input given twice is refused;
# --opt=value and "--" are taken as getopt_long takes them. TAP output; run
# by tests/run-tests.sh.
set -u
. "$(dirname "$0")/lib.sh"

"$fpulab" trace synth pingpong-one -o "$work/p1.trace" --switches 200 --xcr0 0x7 > /dev/null 2>&1

# ---- standard output that cannot be written ----
for cmd in "--version" "help" "trace info $work/p1.trace" "trace dump $work/p1.trace" \
	"trace synth boot -o $work/s.trace --switches 50" "help trace"; do
	# shellcheck disable=SC2086 # the words of $cmd are its arguments
	check "fpulab $cmd > /dev/full: exit 1, said" 1 - "cannot write standard output: No space left on device" -- \
		sh -c '"$0" "$@" > /dev/full' "$fpulab" $cmd
done

# ---- an output over an input ----
echo precious > "$work/hc.json"
FPULAB_HOST_COSTS=$work/hc.json check "replay --output the \$FPULAB_HOST_COSTS file: exit 2" 2 - \
	"is \$FPULAB_HOST_COSTS ($work/hc.json): refusing to overwrite it" -- \
	"$fpulab" replay "$work/p1.trace" --output "$work/hc.json"
holds "... and that file is as it was" grep -qx precious "$work/hc.json"
cp "$here/fixtures/linux/fork-exec-exit.txt" "$work/in.txt"
cp "$work/in.txt" "$work/in.keep"
check "trace import - -o the file standard input reads: exit 2" 2 - \
	"the output $work/in.txt is the input - (standard input): refusing to overwrite it" -- \
	sh -c '"$0" trace import - -o "$1" < "$1"' "$fpulab" "$work/in.txt"
holds "... and that file is as it was" cmp -s "$work/in.txt" "$work/in.keep"

# ---- output paths that cannot be made: exit 2 before anything is made ----
check "trace synth -o DIR/ (a trailing /, DIR missing): exit 2" 2 - "-o $work/newdir/: names a directory (a trailing /): a FILE is meant" -- \
	"$fpulab" trace synth boot -o "$work/newdir/"
check "replay --output DIR/: exit 2, the same words" 2 - "--output $work/newdir/: names a directory (a trailing /)" -- \
	"$fpulab" replay "$work/p1.trace" --output "$work/newdir/"
check "replay --output in a missing folder: exit 2, naming that folder" 2 - "cannot create a file in $work/nodir:" -- \
	"$fpulab" replay "$work/p1.trace" --output "$work/nodir/x.json"
long=$(printf 'a%.0s' $(seq 250))
check "trace synth -o a 250-byte name: written (its temporary file's name fits)" 0 "$work/$long: boot" - -- \
	"$fpulab" trace synth boot --switches 50 -o "$work/$long"
holds "... and no temporary file is left beside it" test "$(find "$work" -maxdepth 1 \( -name '*.tmp-*' -o -name '.fpulab-*' \) | wc -l)" = 0
mkdir -p "$work/sd/migrating.trace"
check "trace synth all, a directory where one trace goes: exit 2 before any is made" 2 - "all: $work/sd/migrating.trace: is a directory" -- \
	"$fpulab" trace synth all -o "$work/sd" --switches 50
holds "... and no trace was made" test "$(find "$work/sd" -name '*.trace' -type f | wc -l)" = 0
mkfifo "$work/fifo"
check "trace info of a FIFO: exit 1 at once, not a hang" 1 - "$work/fifo: not a regular file" -- \
	timeout 10 "$fpulab" trace info "$work/fifo"

# ---- inputs given twice ----
check "replay of one trace twice (another spelling): exit 2" 2 - "$work/p1.trace and $work/./p1.trace are one trace, given twice" -- \
	"$fpulab" replay "$work/p1.trace" "$work/./p1.trace"
mkdir -p "$work/d1" "$work/d2" "$work/d3"
"$fpulab" trace synth pingpong-one -o "$work/d1/x.trace" --switches 200 > /dev/null 2>&1
"$fpulab" trace synth boot -o "$work/d2/x.trace" --switches 200 > /dev/null 2>&1
# two traces of one file name: each row names its trace by the end of its path that tells
# them apart (trace_name), so they are two configurations, and their sweep plots two files
"$fpulab" replay "$work/d1/x.trace" "$work/d2/x.trace" --policy eager,lazy --repeat 1 --format json --output "$work/d3/x.json" 2> "$work/err"
holds "replay of d1/x.trace and d2/x.trace: the rows' trace_name are d1/x.trace and d2/x.trace" \
	test "$(jq -r '.trace_name // empty' "$work/d3/x.json" | sort -u | tr '\n' ' ')" = "d1/x.trace d2/x.trace "
holds "... and summary reads them as two traces, not one configuration twice" \
	"$fpulab" summary "$work/d3/x.json"
"$fpulab" replay "$work/d1/x.trace" --policy eager,lazy --repeat 1 --format json --output "$work/d3/one.json" 2> "$work/err"
holds "one trace alone: trace_name is its file name (a copy elsewhere pairs with it)" \
	test "$(jq -r '.trace_name // empty' "$work/d3/one.json" | sort -u)" = "x.trace"
"$fpulab" replay "$work/p1.trace" --policy eager,lazy --repeat 1 --format json --output "$work/a.json" 2> /dev/null
cat "$work/a.json" "$work/a.json" > "$work/aa.json"
check "compare of a file holding a configuration twice: exit 2" 2 - "$work/aa.json holds one configuration twice (rows 1 and 4:" -- \
	"$fpulab" compare "$work/aa.json" "$work/a.json"

# ---- option syntax ----
check "replay --policy=eager --repeat=1 -- TRACE: as --policy eager --repeat 1" 0 "eager" - -- \
	"$fpulab" replay --policy=eager --repeat=1 -- "$work/p1.trace"
check "replay --policy lazy, (a trailing comma): exit 2" 2 - "--policy: an empty name in 'lazy,'" -- \
	"$fpulab" replay "$work/p1.trace" --policy lazy,
check "replay --policy all,lazy: exit 2, 'all' stands alone" 2 - "'all' stands alone" -- \
	"$fpulab" replay "$work/p1.trace" --policy all,lazy
check "trace dump --limit=1 -- FILE: as --limit 1 FILE" 0 "# seq cpu event args" - -- \
	"$fpulab" trace dump --limit=1 -- "$work/p1.trace"
check "trace synth --switches=50 -o F -- boot: as --switches 50 -o F boot" 0 "$work/o.trace: boot" - -- \
	"$fpulab" trace synth --switches=50 -o "$work/o.trace" -- boot
check "compare -h: its help, as every command's -h" 0 "usage: fpulab compare" - -- "$fpulab" compare -h
# every command that fpulab --help lists takes -h as --help (summary and report took it for an unknown option)
for cmd in $("$fpulab" --help | awk '/^  [a-z]/ { print $1 }'); do
	want="usage: fpulab $cmd"
	[ "$cmd" = help ] && want="usage: fpulab <command>"
	check "$cmd -h: its help, exit 0" 0 "$want" - -- "$fpulab" "$cmd" -h
done
check "report --from -- FILE: the word after -- is the file, not '--'" 2 - "cannot open $work/none.json" -- \
	"$fpulab" report --from -- "$work/none.json"
check "report --from -- and nothing after: exit 2" 2 - "--from needs a FILE" -- "$fpulab" report --from --
check "fpulab help trace bogus: exit 2, not trace's help" 2 - "unknown subcommand 'bogus'" -- "$fpulab" help trace bogus

# ---- per-event costs: an option overrides --costs wherever it stands ----
echo '{"trap_ns": 500, "cr0_ns": 10, "ipi_ns": 2000}' > "$work/c.json"
for order in "--trap-ns 7 --costs $work/c.json" "--costs $work/c.json --trap-ns 7"; do
	# shellcheck disable=SC2086 # the words of $order are its arguments
	check "replay $order: the trap costs 7 ns, CR0 10 (the file's)" 0 "#NM trap 7.0 ns (given: --trap-ns), CR0 write 10.0 ns" - -- \
		"$fpulab" replay "$work/p1.trace" --policy lazy --repeat 1 $order
done
finish
