#!/bin/bash
# SPDX-License-Identifier: MIT
# Sourced by the command tests: $here (this folder), $root, $fpulab (FPULAB
# or build/fpulab), a scratch folder $work removed at exit, and the TAP
# helpers of tests/tap.sh.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fpulab=${FPULAB:-$root/build/fpulab}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$root/tests/tap.sh"

# fake_qemu: run against tests/cli/fake-qemu (its arguments in
# $work/qemu-args), with the built kernel as $work/lab.elf and a host CPU
# without VT-x/SVM ($work/cpuinfo). $hello is a fake guest's first line.
fake_qemu() {
	cp "$(dirname "$fpulab")/lab.elf" "$work/lab.elf"
	printf 'processor\t: 0\nflags\t\t: fpu sse sse2 avx xsave\n' > "$work/cpuinfo"
	export FPULAB_QEMU="$here/fake-qemu" FAKE_QEMU_ARGS="$work/qemu-args"
	export FPULAB_CPUINFO="$work/cpuinfo"
}
# shellcheck disable=SC2034 # used by the scripts that source this file
hello='@fpulab hello version=1 cpus=2 apic=xapic xcr0=0x7 insn=xsaveopt policies=eager,lazy kernel_size=1 user_size=1'

# holds NAME COMMAND...: ok when the command succeeds, else the end of $work/err
holds() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name" "failed: $*" "stderr: $(tail -n 6 "$work/err")"; fi
}
