#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab trace (and replay): the commands end to end. TAP output; run by
# tests/run-tests.sh.
set -u
. "$(dirname "$0")/lib.sh"

# ---- trace ----
check "help trace prints trace's help" 0 "usage: fpulab trace synth" - -- "$fpulab" help trace
check "trace synth: an unknown workload lists the known ones" 2 - "no workload 'frob' (one of: boot, build," -- "$fpulab" trace synth frob -o "$work/x"
check "trace synth: no -o says why, as trace synth" 2 - "fpulab trace synth: needs a WORKLOAD and -o FILE|DIR" -- "$fpulab" trace synth boot
check "replay --repeat without its value: said so" 2 - "fpulab replay: --repeat needs a value" -- "$fpulab" replay "$work/x.trace" --repeat
# every option the usage lines name takes a value: each, given none, says so (not "unknown")
bad=""
for opt in $("$fpulab" help replay | sed -n '1,/^[A-Z]/p' | grep -o -- '--[a-z0-9-]*' | sort -u); do
	"$fpulab" replay "$work/x.trace" "$opt" > /dev/null 2> "$work/e"
	grep -qF "fpulab replay: $opt needs a value" "$work/e" || bad="$bad $opt: $(head -n 1 "$work/e")"
done
[ -z "$bad" ] && ok "replay: each option of its usage, without its value, needs a value" ||
	not_ok "replay: each option of its usage, without its value, needs a value" "$bad"
check "replay: an unknown option at the end: said so" 2 - "fpulab replay: unknown option '--bogus'" -- "$fpulab" replay "$work/x.trace" --bogus
check "trace dump: a missing FILE is said as trace dump" 1 - "fpulab trace dump: $work/none.trace: No such file or directory" -- "$fpulab" trace dump "$work/none.trace"
check "trace info: an option is said as trace info" 2 - "fpulab trace info: takes no option, got '--x'" -- "$fpulab" trace info --x
check "trace record: a bad --fp-use is said as trace record" 2 - "fpulab trace record: --fp-use: 'x' is not every-return or evidence" -- "$fpulab" trace record -o "$work/r.trace" --fp-use x
check "trace synth --switches 0: out of range" 2 - "--switches: 0 is out of range" -- "$fpulab" trace synth boot -o "$work/x" --switches 0
echo precious > "$work/afile"
check "trace synth --xcr0 with a supervisor bit (PT): a usage error" 2 - "--xcr0: '0x107' is not a mask with bit 0 (x87) within the XCR0 bits x86 defines (0x602ff)" -- "$fpulab" trace synth boot -o "$work/x" --xcr0 0x107
check "trace synth all into a file: not a directory, exit 2" 2 - "-o $work/afile is not a directory" -- "$fpulab" trace synth all -o "$work/afile"
check "trace synth -o in a missing folder: exit 2, said before anything is made" 2 - "fpulab trace synth: -o $work/nodir/x.trace: cannot create a file in $work/nodir" -- "$fpulab" trace synth boot -o "$work/nodir/x.trace"
check "trace synth -o a directory: exit 2" 2 - "fpulab trace synth: -o $work: is a directory" -- "$fpulab" trace synth boot -o "$work"
check "trace synth -o '': exit 2" 2 - "fpulab trace synth: -o an empty file name" -- "$fpulab" trace synth boot -o ""
mkfifo "$work/fifo"
check "trace synth -o a FIFO: refused (the rename would replace it), exit 2" 2 - "fpulab trace synth: -o $work/fifo: not a regular file" -- "$fpulab" trace synth boot -o "$work/fifo"
[ -p "$work/fifo" ] && ok "and the FIFO is still a FIFO" || not_ok "and the FIFO is still a FIFO" "$(ls -l "$work/fifo")"
"$fpulab" trace synth boot -o "$work/own.trace" --switches 50 > /dev/null
chmod 600 "$work/own.trace"
ln -s own.trace "$work/link.trace"
check "trace synth -o a symlink: written" 0 "$work/link.trace: boot" - -- "$fpulab" trace synth boot -o "$work/link.trace" --switches 60
if [ -L "$work/link.trace" ] && [ "$(stat -c %a "$work/own.trace")" = 600 ] && "$fpulab" trace info "$work/own.trace" | grep -q 'switch  *6[0-9]$'; then
	ok "the symlink stays a link, its file is replaced and keeps its mode (600)"
else
	not_ok "the symlink stays a link, its file is replaced and keeps its mode (600)" "$(ls -l "$work/link.trace" "$work/own.trace")"
fi
check "trace synth all: a missing DIR is made (one level)" 0 "$work/fresh/boot.trace: boot" - -- "$fpulab" trace synth all -o "$work/fresh" --switches 50
check "trace synth all: a DIR two levels down is not (mkdir, not mkdir -p), exit 2" 2 - "cannot create -o $work/nodir/x: No such file or directory" -- "$fpulab" trace synth all -o "$work/nodir/x"
check "trace synth all -o DIR/: DIR/WORKLOAD.trace, no double slash" 0 "$work/fresh/pingpong-one.trace: pingpong-one, 75 events, 1 CPU, 2 tasks, 1264 bytes" - -- "$fpulab" trace synth all -o "$work/fresh/" --switches 50
check "trace synth pingpong-both: 1 CPU (not 1 CPUs)" 0 "pingpong-both, 200 events, 1 CPU, 2 tasks, 3264 bytes" - -- "$fpulab" trace synth pingpong-both -o "$work/pp.trace" --switches 100 --xcr0 0x7
check "trace info counts switches and uses" 0 "FPU uses per switch 1.000" - -- "$fpulab" trace info "$work/pp.trace"
check "trace info: the events' bytes, and the file's with its header" 0 "  events     200 (3200 bytes; the file 3264 with its 64-byte header)" - -- "$fpulab" trace info "$work/pp.trace"
check "trace dump's header: 1 CPU, 2 tasks" 0 ", 1 CPU, 2 tasks, 200 events" - -- "$fpulab" trace dump "$work/pp.trace" --limit 1
check "trace dump prints events" 0 "2 0 use task 2 mask 0x7" - -- "$fpulab" trace dump "$work/pp.trace" --limit 3
"$fpulab" trace synth build -o "$work/build.trace" --switches 2000 --seed 1 --xcr0 0x7 > /dev/null
check "trace dump shows a signal's reset and sigframe import (version 2)" 0 "926 1 import task 4 mask 0x7 sigframe" - -- "$fpulab" trace dump "$work/build.trace"
check "trace info counts imports" 0 "  import     4" - -- "$fpulab" trace info "$work/build.trace"
check "trace info counts resets" 0 "  reset      4" - -- "$fpulab" trace info "$work/build.trace"
head -c 100 "$work/pp.trace" > "$work/short.trace"
check "trace dump: a truncated trace is refused" 1 - "but the header says 200 events" -- "$fpulab" trace dump "$work/short.trace"
check "trace info: a missing file" 1 - "No such file or directory" -- "$fpulab" trace info "$work/none"
check "trace dump: a truncated trace: the size its count needs" 1 - "100 bytes, but the header says 200 events, which need 3264 bytes (64 of header, 16 per event)" -- "$fpulab" trace dump "$work/short.trace"

# patch FILE OFFSET BYTES...: a copy of pp.trace as FILE with BYTES (printf escapes) at OFFSET
patch() {
	local f=$1 off=$2
	shift 2
	cp "$work/pp.trace" "$f"
	# shellcheck disable=SC2059 # the format is the bytes to write (\xNN escapes)
	printf "$@" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}
patch "$work/huge.trace" 24 '\356\13\0\0\0\0\0\20' # nevents 1152921504606850030
check "trace info: an absurd event count: what it would need, no wrapped size" 1 - "3264 bytes, but the header says 1152921504606850030 events, which would need 1.84e+19 bytes (a trace holds at most 2^32 events)" -- "$fpulab" trace info "$work/huge.trace"
patch "$work/x1.trace" 32 '\377\377\377\377\377\377\377\377'
check "trace info: xcr0 0xffffffffffffffff is refused" 1 - "xcr0 0xffffffffffffffff has bits 0xfffffffffff9fd00 that no x86 CPU defines for XCR0 (known: 0x602ff)" -- "$fpulab" trace info "$work/x1.trace"
patch "$work/x2.trace" 32 '\7\1' # bit 8: PT, a supervisor component (IA32_XSS)
check "trace info: a supervisor bit in xcr0 is refused" 1 - "xcr0 0x107 has bits 0x100 that no x86 CPU defines" -- "$fpulab" trace info "$work/x2.trace"
patch "$work/x3.trace" 32 '\347\2\6' # x87..Hi16_ZMM, PKRU, AMX
check "trace info: xcr0 0x602e7 (AVX-512, PKRU, AMX) is accepted" 0 "pingpong-both" - -- "$fpulab" trace info "$work/x3.trace"
patch "$work/w1.trace" 42 '\1'
check "trace info: a workload name with a control byte is refused" 1 - "workload name: byte 2 is 0x01, not printable ASCII" -- "$fpulab" trace info "$work/w1.trace"
patch "$work/w2.trace" 40 'abcdefghijklmnopqrstuvwx'
check "trace info: a workload name without a NUL is refused" 1 - "workload name: no NUL in its 24 bytes" -- "$fpulab" trace info "$work/w2.trace"
patch "$work/w3.trace" 40 'caf\303\251\0'
check "trace dump: a workload name that is not ASCII is refused" 1 - "workload name: byte 3 is 0xc3" -- "$fpulab" trace dump "$work/w3.trace"
check "trace synth all writes every workload" 0 "cross-cpu.trace: cross-cpu" - -- "$fpulab" trace synth all -o "$work" --switches 200

# ---- replay ----
check "help replay prints replay's help" 0 "usage: fpulab replay TRACE" - -- "$fpulab" help replay
# replay --help's exit status and docs/model.md's: the same words (each line-wrapped its own way)
exit_status() { sed -n '/^Exit status:/,/^$/p' "$1" | tr -s ' \n' ' ' | sed 's/ $//'; }
"$fpulab" replay --help > "$work/rh"
if [ -n "$(exit_status "$work/rh")" ] && [ "$(exit_status "$work/rh")" = "$(exit_status "$root/docs/model.md")" ]; then
	ok "replay --help gives its exit status, as docs/model.md does"
else not_ok "replay --help gives its exit status, as docs/model.md does" "help: $(exit_status "$work/rh")" "docs: $(exit_status "$root/docs/model.md")"; fi
check "replay without a trace says why" 2 - "needs a TRACE" -- "$fpulab" replay
check "replay --policy frob lists the policies" 2 - "unknown policy 'frob' (one of: eager, lazy," -- "$fpulab" replay "$work/pp.trace" --policy frob
check "replay --trap-ns -1 is refused" 2 - "--trap-ns: '-1' is not a cost in ns" -- "$fpulab" replay "$work/pp.trace" --trap-ns -1
check "replay --adaptive-costs frob is refused" 2 - "--adaptive-costs: 'frob' is not measured or default" -- "$fpulab" replay "$work/pp.trace" --adaptive-costs frob
echo '{"trap_ns": "x"}' > "$work/bad.json"
check "replay --costs: a non-number is refused" 1 - "trap_ns is not a non-negative number" -- "$fpulab" replay "$work/pp.trace" --costs "$work/bad.json"
check "replay: a truncated trace is refused" 1 - "but the header says 200 events" -- "$fpulab" replay "$work/short.trace"
check "replay --output: a bad trace, nothing written and not said to be" 1 - "but the header says 200 events" -- "$fpulab" replay "$work/short.trace" --output "$work/o.json"
if [ ! -e "$work/o.json" ] && ! grep -q "written" "$work/err" && [ ! -s "$work/out" ]; then
	ok "replay --output: no file, no 'rows written', nothing on stdout"
else
	not_ok "replay --output: no file, no 'rows written', nothing on stdout" "$(cat "$work/err" "$work/out")"
fi
check "replay: a bad trace among good ones: refused before any provenance" 1 - "short.trace: 100 bytes" -- "$fpulab" replay "$work/pp.trace" "$work/short.trace" --repeat 1
if [ ! -s "$work/out" ]; then ok "replay: a bad trace: nothing on stdout"; else not_ok "replay: a bad trace: nothing on stdout" "$(head -n 3 "$work/out")"; fi
echo '{"trap_ns": 1e300}' > "$work/big.json"
check "replay --costs: trap_ns 1e300 is refused as --trap-ns would be" 1 - "--costs $work/big.json: trap_ns 1e+300 is not a cost in ns (0..1e9)" -- "$fpulab" replay "$work/pp.trace" --costs "$work/big.json"
echo '{"cr0_ns": -1}' > "$work/neg.json"
check "replay --costs: a negative cr0_ns is refused" 1 - "cr0_ns -1 is not a cost in ns (0..1e9)" -- "$fpulab" replay "$work/pp.trace" --costs "$work/neg.json"
echo '{"experiment": "costs", "policy": "eager", "cost": "ipi", "clock": "emulated-tsc", "repeats": 5, "ns_per_op": 2e9}' > "$work/labbig.json"
check "replay --costs: a lab row's ns_per_op over 1e9 is refused" 1 - "ipi's ns_per_op 2e+09 is not a cost in ns (0..1e9)" -- "$fpulab" replay "$work/pp.trace" --costs "$work/labbig.json"
if grep -qw xsave /proc/cpuinfo; then
	echo '{"trap_ns": 400, "ipi_ns": 2000}' > "$work/costs.json"
	check "replay --costs names the file as the source, given" 0 "#NM trap 400.0 ns (given: --costs $work/costs.json)" - -- "$fpulab" replay "$work/pp.trace" --repeat 1 --costs "$work/costs.json"
	check "replay: eager on pingpong-both saves 99 and restores 100 of 100 switches" 0 "eager                 100        0       99      100        0        0      0     0" - -- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager,lazy
	check "replay: the oracle row" 0 "oracle                100        0       98      100" - -- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager
	check "replay: break-even of eager vs lazy is printed" 0 "break-even trap cost, eager vs lazy:" - -- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager,lazy
	"$fpulab" trace synth pingpong-one -o "$work/p1.trace" --switches 400 > /dev/null
	"$fpulab" trace synth migrating -o "$work/mig.trace" --switches 400 > /dev/null
	check "replay: adaptive's targets over every trace, short ones left out" 0 "targets over 2 traces (totals in ns per switch: native less the timing residue, plus the per-event costs; adaptive's total over the best static policy's, run k against run k, median of 1 paired run): adaptive within 1.02x of the best static policy on" - -- "$fpulab" replay "$work/p1.trace" "$work/mig.trace" "$work/pp.trace" --repeat 1 --policy eager,adaptive
	# at the costs libfpu's adaptive was tuned for (this host's IPI is ten times dearer)
	check "replay: by counts alone, adaptive beats eager on pingpong-one and migrating" 0 "(saves and restores at the batch costs plus the per-event costs: its decisions without its bookkeeping), adaptive within 1.02x of the best static policy on 2 of 2" - -- "$fpulab" replay "$work/p1.trace" "$work/mig.trace" --repeat 1 --policy eager,adaptive --trap-ns 150 --cr0-ns 30 --ipi-ns 1000
	check "replay: by counts alone, 2% of eager's total on either 400-switch trace exceeds a 150-ns trap" 0 "is less than one #NM trap (150.0 ns) on 0 of the 2 (one trap more than the best puts adaptive past 1.02x there); over 1.02x by less than one trap over the whole trace: 0 of the 0 over" - -- "$fpulab" replay "$work/p1.trace" "$work/mig.trace" --repeat 1 --policy eager,adaptive --trap-ns 150 --cr0-ns 30 --ipi-ns 1000
	# at a 1-ms trap (CR0 free) adaptive's one watched #NM per trace costs more than 2% of eager's total, and less than a trap more
	check "replay: by counts alone, at a 1-ms trap both traces are within one trap of the best" 0 "is less than one #NM trap (1000000.0 ns) on 2 of the 2 (one trap more than the best puts adaptive past 1.02x there); over 1.02x by less than one trap over the whole trace: 2 of the 2 over" - -- "$fpulab" replay "$work/p1.trace" "$work/mig.trace" --repeat 1 --policy eager,adaptive --trap-ns 1000000 --cr0-ns 0 --ipi-ns 1000
	# the 100-switch pingpong-both: out of the targets, judged apart by counts
	"$fpulab" replay "$work/p1.trace" "$work/mig.trace" "$work/pp.trace" --repeat 1 --policy eager,adaptive > "$work/short" 2>&1
	if grep -q '^# targets: by counts alone (.*), adaptive within 1.02x of the best static policy on [0-2] of 2 (' "$work/short" &&
		grep -q '^# targets: 1 trace of fewer than 200 switches left out of the targets above (.*); by counts alone adaptive is within 1.02x of the best static policy on [01] of 1 of them (worst [0-9.]*x: [^ ]*/pp.trace)' "$work/short"; then
		ok "replay: a short trace is out of the targets, and judged apart by counts"
	else
		not_ok "replay: a short trace is out of the targets, and judged apart by counts" "$(grep targets "$work/short")"
	fi
	check "replay --policy '': a usage error" 2 - "--policy: an empty list" -- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy ''
	check "replay --policy eager,eager: a usage error" 2 - "--policy: 'eager' named twice" -- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager,eager
	check "replay --policy adaptive: no best static policy, said so (no inf, no 0.000x)" 0 "# best static policy: none (no static policy among --policy)" - -- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy adaptive
	check "replay: one trace of one CPU: 1 CPU, 1 trace" 0 "1 CPU, 2 tasks, 100 switches" - -- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager
	check "replay: the trace of 100 switches is left out of the targets" 0 "targets: 1 trace of fewer than 200 switches left out of the targets above" - -- "$fpulab" replay "$work/p1.trace" "$work/mig.trace" "$work/pp.trace" --repeat 1 --policy eager,adaptive
	check "replay --adaptive-costs default: adaptive decides by libfpu's built-in costs, not the ones charged" 0 \
		"# adaptive decides by: #NM trap 150 ns, CR0 write 30 ns, IPI 1000 ns, save 50 ns, restore 100 ns (--adaptive-costs default: libfpu's built-in costs, as the lab kernel uses them)" - \
		-- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy adaptive --trap-ns 400 --adaptive-costs default
	check "replay: adaptive decides by the costs charged (measured, the default)" 0 \
		"# adaptive decides by: #NM trap 400 ns, CR0 write 30 ns, IPI 1000 ns, save " - \
		-- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy adaptive --trap-ns 400 --cr0-ns 30 --ipi-ns 1000
	# each policy's overhead line: a share of the floor where the floor is 1 ns or more,
	# else none (cli/common/util.c's share_of, tested in test_cli_util); never -0.0
	"$fpulab" replay "$work/p1.trace" --repeat 3 --policy eager,smp-lazy > "$work/fl.out" 2> "$work/err"
	bad=$(awk '/^# libfpu / { f = $0; sub(/.* floor /, "", f); f += 0
		if (f < 1 ? !/\(floor under 1 ns: no ratio/ : !/\(-?[0-9]+% of the floor/) print }' "$work/fl.out")
	if [ "$(grep -c '^# libfpu' "$work/fl.out")" = 2 ] && [ -z "$bad" ] && ! grep -q -- '-0\.0\b\|-0%' "$work/fl.out"; then
		ok "replay: overhead as a share of the floor only where the floor is 1 ns or more; no -0.0"
	else
		not_ok "replay: overhead as a share of the floor only where the floor is 1 ns or more; no -0.0" "$(grep '^# libfpu' "$work/fl.out")"
	fi
	if "$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager,lazy > "$work/na.out" 2>&1 &&
	   ! grep -q "targets over" "$work/na.out"; then
		ok "replay: no targets line without adaptive"
	else
		not_ok "replay: no targets line without adaptive" "$(tail -n 3 "$work/na.out")"
	fi
else
	skips 11 "replay" "no XSAVE"
fi

finish
