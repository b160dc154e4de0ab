#!/bin/bash
# SPDX-License-Identifier: MIT
# fpulab trace (and replay): the commands end to end. TAP output; run by
# tests/run-tests.sh.
set -u
. "$(dirname "$0")/lib.sh"

# ---- trace ----
check "help trace prints trace's help" 0 "usage: fpulab trace synth" - -- "$fpulab" help trace
check "trace synth: an unknown workload lists the known ones" 2 - "no workload 'frob' (one of: boot, build," -- "$fpulab" trace synth frob -o "$work/x"
check "trace synth: no -o says why" 2 - "synth needs a WORKLOAD and -o FILE|DIR" -- "$fpulab" trace synth boot
check "trace synth --switches 0: out of range" 2 - "--switches: 0 is out of range" -- "$fpulab" trace synth boot -o "$work/x" --switches 0
check "trace synth all into a file: not a directory" 1 - "is not a directory" -- "$fpulab" trace synth all -o "$work/nodir/x"
check "trace synth pingpong-both" 0 "pingpong-both, 200 events, 1 CPUs, 2 tasks, 3264 bytes" - -- "$fpulab" trace synth pingpong-both -o "$work/pp.trace" --switches 100 --xcr0 0x7
check "trace info counts switches and uses" 0 "FPU uses per switch 1.000" - -- "$fpulab" trace info "$work/pp.trace"
check "trace dump prints events" 0 "2 0 use task 2 mask 0x7" - -- "$fpulab" trace dump "$work/pp.trace" --limit 3
"$fpulab" trace synth build -o "$work/build.trace" --switches 2000 --seed 1 --xcr0 0x7 > /dev/null
check "trace dump shows a signal's reset and sigframe import (version 2)" 0 "926 1 import task 4 mask 0x7 sigframe" - -- "$fpulab" trace dump "$work/build.trace"
check "trace info counts imports" 0 "  import     4" - -- "$fpulab" trace info "$work/build.trace"
check "trace info counts resets" 0 "  reset      4" - -- "$fpulab" trace info "$work/build.trace"
head -c 100 "$work/pp.trace" > "$work/short.trace"
check "trace dump: a truncated trace is refused" 1 - "but the header says 200 events" -- "$fpulab" trace dump "$work/short.trace"
check "trace info: a missing file" 1 - "No such file or directory" -- "$fpulab" trace info "$work/none"
check "trace synth all writes every workload" 0 "cross-cpu.trace: cross-cpu" - -- "$fpulab" trace synth all -o "$work" --switches 200

# ---- replay ----
check "help replay prints replay's help" 0 "usage: fpulab replay TRACE" - -- "$fpulab" help replay
check "replay without a trace says why" 2 - "needs a TRACE" -- "$fpulab" replay
check "replay --policy frob lists the policies" 2 - "unknown policy 'frob' (one of: eager, lazy," -- "$fpulab" replay "$work/pp.trace" --policy frob
check "replay --trap-ns -1 is refused" 2 - "--trap-ns: '-1' is not a cost in ns" -- "$fpulab" replay "$work/pp.trace" --trap-ns -1
check "replay --adaptive-costs frob is refused" 2 - "--adaptive-costs: 'frob' is not measured or default" -- "$fpulab" replay "$work/pp.trace" --adaptive-costs frob
echo '{"trap_ns": "x"}' > "$work/bad.json"
check "replay --costs: a non-number is refused" 1 - "trap_ns is not a non-negative number" -- "$fpulab" replay "$work/pp.trace" --costs "$work/bad.json"
check "replay: a truncated trace is refused" 1 - "but the header says 200 events" -- "$fpulab" replay "$work/short.trace"
if grep -qw xsave /proc/cpuinfo; then
	echo '{"trap_ns": 400, "ipi_ns": 2000}' > "$work/costs.json"
	check "replay --costs names the file as the source" 0 "#NM trap 400.0 ns ($work/costs.json)" - -- "$fpulab" replay "$work/pp.trace" --repeat 1 --costs "$work/costs.json"
	check "replay: eager on pingpong-both saves 99 and restores 100 of 100 switches" 0 "eager              100        0       99      100        0        0      0     0" - -- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager,lazy
	check "replay: the oracle row" 0 "oracle             100        0       98      100" - -- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager
	check "replay: break-even of eager vs lazy is printed" 0 "break-even trap cost, eager vs lazy:" - -- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager,lazy
	"$fpulab" trace synth pingpong-one -o "$work/p1.trace" --switches 400 > /dev/null
	"$fpulab" trace synth migrating -o "$work/mig.trace" --switches 400 > /dev/null
	check "replay: adaptive's targets over every trace, short ones left out" 0 "targets over 2 traces (totals in ns per switch: native less the timing residue, plus the per-event costs; adaptive's total over the best static policy's, run k against run k, median of 1 paired runs): adaptive within 1.02x of the best static policy on" - -- "$fpulab" replay "$work/p1.trace" "$work/mig.trace" "$work/pp.trace" --repeat 1 --policy eager,adaptive
	check "replay: by counts alone, adaptive beats eager on pingpong-one and migrating" 0 "(saves and restores at the batch costs plus the per-event costs: its decisions without its bookkeeping), adaptive within 1.02x of the best static policy on 2 of 2" - -- "$fpulab" replay "$work/p1.trace" "$work/mig.trace" "$work/pp.trace" --repeat 1 --policy eager,adaptive
	check "replay: the trace of 100 switches is left out of the targets" 0 "targets: 1 traces of fewer than 200 switches left out" - -- "$fpulab" replay "$work/p1.trace" "$work/mig.trace" "$work/pp.trace" --repeat 1 --policy eager,adaptive
	check "replay --adaptive-costs default: adaptive decides by libfpu's built-in costs, not the ones charged" 0 \
		"# adaptive decides by: #NM trap 150 ns, CR0 write 30 ns, IPI 1000 ns, save 50 ns, restore 100 ns (--adaptive-costs default: libfpu's built-in costs, as the lab kernel uses them)" - \
		-- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy adaptive --trap-ns 400 --adaptive-costs default
	check "replay: adaptive decides by the costs charged (measured, the default)" 0 \
		"# adaptive decides by: #NM trap 400 ns, CR0 write 30 ns, IPI 1000 ns, save " - \
		-- "$fpulab" replay "$work/pp.trace" --repeat 1 --policy adaptive --trap-ns 400
	if "$fpulab" replay "$work/pp.trace" --repeat 1 --policy eager,lazy > "$work/na.out" 2>&1 &&
	   ! grep -q "targets over" "$work/na.out"; then
		ok "replay: no targets line without adaptive"
	else
		not_ok "replay: no targets line without adaptive" "$(tail -n 3 "$work/na.out")"
	fi
else
	for i in $(seq 1 10); do skip "replay" "no XSAVE"; done
fi

finish
