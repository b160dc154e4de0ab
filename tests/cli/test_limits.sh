#!/bin/bash
# SPDX-License-Identifier: MIT
# Every numeric option's range (abi.h, as `fpulab run --list` prints it): the
# host accepts min and max and refuses one past each end with exit 2 and one
# line naming the value and the range, before QEMU starts (the fake QEMU
# records its arguments when started). Unknown fault and policy names too.
set -u
. "$(dirname "$0")/lib.sh"
fake_qemu # $work/lab.elf: a real kernel header, which fpulab checks before boot
printf '%s\n' '@fpulab hello version=1 cpus=2 apic=xapic xcr0=0x7 insn=xsaveopt policies=eager,lazy kernel_size=1 user_size=1' \
	'@fpulab done runs=0 skipped=0 checked=1' > "$work/guest"
export FAKE_GUEST="$work/guest"

# The experiment that reads option $1 (from --list), so only the range is at stake.
experiment_for() {
	awk -v opt="--$1" '
		/^  [a-z0-9-]+: / { e = substr($1, 1, length($1) - 1) }
		/^    options:/ { for (i = 2; i <= NF; i++) if ($i == opt) print e }
	' "$work/list" | head -n 1
}

# incr N: N + 1 in decimal, for any length (UINT64_MAX + 1 included).
incr() {
	local s=$1 out="" carry=1 d i
	for ((i = ${#s} - 1; i >= 0; i--)); do
		d=$((${s:i:1} + carry))
		if [ "$d" = 10 ]; then d=0; carry=1; else carry=0; fi
		out="$d$out"
	done
	[ "$carry" = 1 ] && out="1$out"
	echo "$out"
}

# refused NAME ARGS...: exit 2, one error line and the hint, QEMU not started.
refused() {
	local name=$1 want=$2; shift 2
	rm -f "$work/qemu-args"
	"$fpulab" run --kernel "$work/lab.elf" "$@" > "$work/out" 2> "$work/err"; local rc=$?
	if [ "$rc" = 2 ] && [ ! -e "$work/qemu-args" ] && [ "$(wc -l < "$work/err")" = 2 ] &&
	   grep -qF -- "$want" "$work/err"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc" "qemu started: $([ -e "$work/qemu-args" ] && echo yes || echo no)" \
			"stderr: $(cat "$work/err")"
	fi
}

# accepted NAME ARGS...: --check-options boots (the fake QEMU) and exits 0.
accepted() {
	local name=$1; shift
	rm -f "$work/qemu-args"
	"$fpulab" run --kernel "$work/lab.elf" --check-options "$@" > "$work/out" 2> "$work/err"; local rc=$?
	if [ "$rc" = 0 ] && [ -e "$work/qemu-args" ]; then ok "$name"
	else not_ok "$name" "exit $rc" "stderr: $(cat "$work/err")"; fi
}

"$fpulab" run --list > "$work/list" 2>&1 || not_ok "fpulab run --list exits 0" "$(cat "$work/list")"
# "  --round-trips 1..1000000000, default 1000"
ranges=$(sed -n 's/^  --\([a-z-]*\) \([0-9]*\)\.\.\([0-9]*\),.*/\1 \2 \3/p' "$work/list")
[ "$(wc -l <<< "$ranges")" -ge 8 ] && ok "--list gives every numeric range ($(wc -l <<< "$ranges"))" ||
	not_ok "--list gives every numeric range" "$ranges"
while read -r opt min max; do
	exp=$(experiment_for "$opt")
	args=()
	[ -n "$exp" ] && args=(--experiment "$exp")
	[ "$opt" = cpus ] && args+=(--placement same-cpu)
	# short-tasks' K <= S: each end of one taken with the other where it allows it
	[ "$opt" = slices ] && args+=(--fp-slices 0)
	[ "$opt" = fp-slices ] && args+=(--slices 1000)
	above=$(incr "$max")
	refused "--$opt $above (one past $max): exit 2 before QEMU" \
		"--$opt: $above is out of range ($min..$max)" "${args[@]}" "--$opt" "$above"
	if [ "$min" -gt 0 ]; then
		below=$((min - 1))
		refused "--$opt $below (one below $min): exit 2 before QEMU" \
			"--$opt: $below is out of range ($min..$max)" "${args[@]}" "--$opt" "$below"
	fi
	case $opt in cpus | timeout) continue ;; esac # host options: nothing to check in the guest
	accepted "--$opt $min (its min) is accepted" "${args[@]}" "--$opt" "$min"
	accepted "--$opt $max (its max) is accepted" "${args[@]}" "--$opt" "$max"
done <<< "$ranges"

refused "an unknown fault is refused before boot, naming the faults" \
	"--inject: unknown value 'nosuch' (one of: none,skip-save-on-migrate," --inject nosuch
rm -f "$work/qemu-args"
"$fpulab" run --policy eager,nosuch > "$work/out" 2> "$work/err"; rc=$?
if [ "$rc" = 2 ] && [ ! -e "$work/qemu-args" ] &&
   grep -qF "'nosuch' is not a policy of lab.elf (it has: eager," "$work/err"; then
	ok "an unknown policy is refused before boot with the default kernel, naming its policies"
else
	not_ok "an unknown policy is refused before boot with the default kernel" "exit $rc" "$(cat "$work/err")"
fi
for section in "experiments (--experiment)" "policies (--policy" "faults (--inject" \
	       "placements (--placement)" "register sets (--regset)" "save instructions (--insn)"; do
	grep -qF "$section" "$work/list" && ok "--list names $section" ||
		not_ok "--list names $section" "$(cat "$work/list")"
done

finish
