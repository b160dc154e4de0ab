#!/bin/bash
# SPDX-License-Identifier: MIT
# The lab kernel accepts every numeric option at its lowest and at its
# highest value (the ranges of abi.h, as `fpulab run --list` prints them), in
# its check-options mode: it reads every option, runs nothing, and says so in
# its done record. And it starts the most CPUs the host allows.
. "$(dirname "$0")/lib.sh"

"$fpulab" run --list > "$work/list" 2>&1
ranges=$(sed -n 's/^  --\([a-z-]*\) \([0-9]*\)\.\.\([0-9]*\),.*/\1 \2 \3/p' "$work/list")
common=$(sed -n 's/^options all experiments read://p' "$work/list")
experiments=$(sed -n 's/^  \([a-z0-9-]*\): .*/\1/p' "$work/list")

for exp in $experiments; do
	own=$(awk -v e="$exp" '$1 == e ":" { getline; getline; print; exit }' "$work/list" |
		sed 's/^ *options://; s/(.*//')
	for end in min max; do
		args=()
		while read -r opt min max; do
			case " $own $common " in *" --$opt "*) ;; *) continue ;; esac
			[ "$end" = min ] && args+=("--$opt" "$min") || args+=("--$opt" "$max")
		done <<< "$ranges"
		"$fpulab" run --accel tcg --cpus 1 --check-options --experiment "$exp" \
			"${args[@]}" > "$work/out" 2> "$work/err"
		rc=$?
		if [ "$rc" = 0 ] && grep -qF 'accepted every option' "$work/err"; then
			ok "$exp: the kernel accepts every option at its $end (${args[*]})"
		else
			not_ok "$exp: the kernel accepts every option at its $end (${args[*]})" "exit $rc" \
				"$(tail -n 5 "$work/err")"
		fi
	done
done

max_cpus=$(sed -n 's/^  --cpus 1\.\.\([0-9]*\),.*/\1/p' "$work/list")
"$fpulab" run --accel tcg --cpus "$max_cpus" --check-options > "$work/out" 2> "$work/err"
rc=$?
if [ "$rc" = 0 ] && grep -qE "guest up:.* cpus=$max_cpus( |$)" "$work/err"; then
	ok "the kernel starts the most CPUs the host allows ($max_cpus)"
else
	not_ok "the kernel starts the most CPUs the host allows ($max_cpus)" "exit $rc" "$(tail -n 5 "$work/err")"
fi
finish
