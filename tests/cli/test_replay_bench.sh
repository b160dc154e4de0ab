#!/bin/bash
# SPDX-License-Identifier: MIT
# tools/replay-bench: its arguments and its -o DIR, against a fake fpulab
# whose `run` writes a small synthetic trace instead of recording in the lab
# (every other command is the real one). TAP output; run by tests/run-tests.sh.
set -u
. "$(dirname "$0")/lib.sh"
bench=$root/tools/replay-bench
fpulab=$(cd "$(dirname "$fpulab")" && pwd)/$(basename "$fpulab") # the test changes folder

# The fake: `run` logs its arguments to $work/runs and writes
# DIR/EXPERIMENT-lazy-r0.trace and the --output CSV.
"$fpulab" trace synth pingpong-one -o "$work/synth.trace" --switches 20 > /dev/null 2>&1
cat > "$work/fpulab" << F
#!/bin/bash
[ "\$1" = run ] || exec "$fpulab" "\$@"
echo "\$*" >> "$work/runs"
while [ \$# -gt 0 ]; do
	case \$1 in
	--experiment) exp=\$2 ;;
	--trace) dir=\$2 ;;
	--output) out=\$2 ;;
	esac
	shift
done
cp "$work/synth.trace" "\$dir/\$exp-lazy-r0.trace" && echo "experiment" > "\$out"
F
chmod +x "$work/fpulab"
export FPULAB=$work/fpulab
cd "$work" || exit 1

# bench NAME RC ERR ARGS...: tools/replay-bench ARGS exits RC, stderr holds ERR
# (- for anything), and records nothing unless RC is 0
bench() {
	local name=$1 rc=$2 e=$3
	shift 3
	rm -f "$work/runs"
	check "$name" "$rc" - "$e" -- "$bench" "$@"
	if [ "$rc" != 0 ] && [ -e "$work/runs" ]; then
		not_ok "$name: nothing recorded" "it ran: $(head -n 1 "$work/runs")"
	fi
}

echo precious > "$work/file"
bench "-o a regular file: refused, exit 2" 2 "-o $work/file exists and is not a directory" -o "$work/file"
t() { if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi; }
name="-o a regular file: the file is untouched" t [ "$(cat "$work/file")" = precious ]
mkdir "$work/home" && echo mine > "$work/home/notes"
bench "-o a directory of other files: refused, exit 2" 2 "did not make (no $work/home/.replay-bench, and it holds notes)" -o "$work/home"
name="-o a directory of other files: its files are untouched" t [ "$(cat "$work/home/notes")" = mine ]
(cd "$work/home" && "$bench" -o . > /dev/null 2> "$work/err")
rc=$?
name="-o . in a directory of other files: refused, exit 2" t [ "$rc" = 2 -a -f "$work/home/notes" ]

bench "--repeat 0: refused before recording, with replay's message" 2 "--repeat: 0 is out of range" --repeat 0
bench "--repeat abc: refused before recording" 2 "--repeat: 'abc' is not" --repeat abc
bench "--trap-ns -5: refused before recording" 2 "--trap-ns: '-5' is not a cost in ns" --trap-ns -5
bench "--bogus: refused before recording" 2 "unknown option '--bogus'" --bogus
bench "-o without DIR: says so, exit 2" 2 "replay-bench: -o needs a DIR" --repeat 1 -o
bench "--output in a missing folder: refused before recording" 2 "cannot create a file in $work/nowhere" --output "$work/nowhere/r.json"
echo '{"experiment": "run", "policy": "eager"}' > "$work/runs.json"
bench "--batch-costs without replay rows: refused before recording" 2 "refuses --batch-costs $work/runs.json; nothing recorded" --batch-costs "$work/runs.json"
bench "--help after other options: the usage, nothing recorded" 0 - --repeat 1 --help
name="--help prints the usage" t grep -q "tools/replay-bench \[-o DIR\]" "$work/out"
name="--repeat 0 left no default folder behind" t [ ! -e "$work/build/replay-bench" ]

if grep -qw xsave /proc/cpuinfo; then
	bench "-o DIR after the replay options: records into DIR and replays" 0 - --repeat 1 --policy eager -o "$work/rb"
	name="-o DIR: made, marked, one trace per experiment, all replayed" t [ -f "$work/rb/.replay-bench" -a "$(find "$work/rb" -maxdepth 1 -name '*.trace' | wc -l)" = 6 -a "$(grep -c 'lazy-r0.trace' "$work/out")" -ge 6 ]
	name="-o DIR: the runs recorded into DIR/" t grep -q -- "--trace $work/rb/" "$work/runs"
	echo junk > "$work/rb/context-switch.err"
	echo keep > "$work/rb/mine.txt"
	bench "-o DIR it made: accepted again" 0 - --repeat 1 --policy eager -o "$work/rb"
	name="-o DIR again: its own files replaced, another file kept" t [ ! -s "$work/rb/context-switch.err" -a "$(cat "$work/rb/mine.txt")" = keep ]
	"$work/fpulab" replay "$work/rb"/*.trace --repeat 1 --policy eager --format json --output "$work/rb.json" 2> /dev/null
	bench "--batch-costs of an earlier replay of DIR: recorded again, replayed at its batch costs" 0 - --repeat 1 --policy eager -o "$work/rb" --batch-costs "$work/rb.json"
	name="--batch-costs: every trace's batch line names the file" t [ "$(grep -c "from --batch-costs $work/rb.json" "$work/out")" = 6 ]
	mkdir "$work/empty"
	bench "-o an empty directory: accepted" 0 - --repeat 1 --policy eager -o "$work/empty"
else
	skips 7 "replay-bench records and replays" "no XSAVE"
fi
finish
