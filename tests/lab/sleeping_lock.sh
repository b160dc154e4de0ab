#!/bin/bash
# SPDX-License-Identifier: MIT
# Experiment sleeping-lock (docs/sleeping-lock.md): every policy with FP in
# every task completes with exact counts and no integrity error; under
# --icount each wait loop costs per pass exactly what its disassembly says,
# and two runs give identical counts; a lost wake-up fails the run.
set -u
. "$(dirname "$0")/lib.sh"
OPS=120
VARIANTS="task current current-volatile current-stack"

# row_fields NAME KEY...: every row of NAME's CSV, the KEY columns, comma-separated
row_fields() {
	local name=$1
	shift
	awk -F, -v keys="$*" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; nk = split(keys, k, " "); next }
		{ s = ""; for (j = 1; j <= nk; j++) s = s (j > 1 ? "," : "") $col[k[j]]; print s }
	' "$work/$name.csv"
}

# pass_insns KERNEL FUNCTION: instructions of one wait-loop pass in FUNCTION's
# disassembly: from the return of `call schedule` round the loop to the next
# `call schedule`, following unconditional and backward jumps: the path where
# the lock is taken (the compiler puts the exit out of line).
pass_insns() {
	objdump -d --no-show-raw-insn "$1" | awk -v fn="$2" '
		function pad(h) { return substr("0000000000000000", 1, 16 - length(h)) h }
		$0 ~ "^[0-9a-f]+ <" fn ">:$" { on = 1; next }
		on && !/^ *[0-9a-f]+:/ { if (n) exit; next }
		on {
			a = $1; sub(":", "", a); addr[n] = pad(a); at[pad(a)] = n
			line = $0; sub(/^[^\t]*\t/, "", line); ins[n++] = line
		}
		END {
			c = -1
			for (i = 0; i < n; i++) if (ins[i] ~ /^call +[0-9a-f]+ <schedule>/) c = i
			if (c < 0) { print "none"; exit }
			for (i = c + 1; count < 64; ) {
				count++
				split(ins[i], w, /[ \t]+/)
				if (w[1] == "call" && ins[i] ~ /<schedule>/) { print count; exit }
				if (w[1] ~ /^j/ && (w[1] == "jmp" || pad(w[2]) < addr[i])) {
					if (!(pad(w[2]) in at)) { print "none"; exit }
					i = at[pad(w[2])]
					continue
				}
				i++
			}
			print "none"
		}'
}

# ---- every policy, every variant, 1, 2 and 4 tasks per CPU, FP in every task ----
fpulab_csv all --cpus 2 --experiment sleeping-lock --policy all --fp-users both --repeat 1 --ops $OPS \
	--timeout 120
rows=$(($(wc -l < "$work/all.csv") - 1))
npolicies=$("$fpulab" run --list 2>/dev/null | sed -n 's/^policies (--policy[^:]*: //p' | wc -w)
if [ "$(rc_of all)" = 0 ] && [ "$npolicies" -gt 0 ] && [ "$rows" = $((npolicies * 4 * 3)) ]; then
	ok "$npolicies policies x 4 variants x 3 task counts: $rows rows, exit 0"
else
	not_ok "every policy, variant and task count runs" "exit $(rc_of all), $rows rows" \
		"$(tail -n 8 "$work/all.err")"
fi
bad=$(row_fields all policy tasks variant round_trips acquisitions integrity_errors |
	awk -F, -v ops=$OPS '$4 != ops || $5 != 2 * ops || $6 != 0')
[ -z "$bad" ] && [ "$rows" -gt 0 ] &&
	ok "every row: $OPS operations, acquisitions = 2 x $OPS, 0 integrity errors" ||
	not_ok "acquisitions = 2 x ops, no integrity error" "$bad"
bad=$(row_fields all policy tasks variant contended passes sleeps wakeups wake_retaken |
	awk -F, '$5 != $4 + $6 || ($7 > $5) || ($8 > $6)')
[ -z "$bad" ] && ok "every row: passes = contended + sleeps; wake-ups <= passes; retaken <= sleeps" ||
	not_ok "passes = contended + sleeps" "$bad"
bad=$(row_fields all policy tasks variant sleeps wakeups | awk -F, '$2 >= 4 && ($4 == 0 || $5 == 0)')
[ -z "$bad" ] && ok "2 and 4 tasks per CPU: the lock is contended (sleeps and wake-ups in every row)" ||
	not_ok "tasks sharing a CPU contend" "$bad"

# ---- wait-loop bytes: the kernel's own figure is its symbol size ----
for v in $VARIANTS; do
	fn=sl_wait_${v//-/_}
	want=$(nm -S "$build/lab.elf" | awk -v f="$fn" '$4 == f { print $2 }')
	got=$(awk -F, -v v="$v" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["variant"] == v { print $c["wait_bytes"]; exit }' "$work/all.csv")
	if [ -n "$want" ] && [ -n "$got" ] && [ "$got" = $((16#$want)) ]; then
		ok "$v: wait function $got bytes, as nm -S says"
	else
		not_ok "$v: wait function size" "row: $got, nm -S: 0x$want"
	fi
done

# ---- --icount: instructions per pass against the disassembly ----
for i in 1 2; do
	fpulab_csv ic$i --experiment sleeping-lock --policy eager,lazy --fp-users none,both \
		--repeat 1 --ops $OPS --icount --timeout 120
done
declare -A slope dis
for v in $VARIANTS; do
	read -r cp ct <<< "$(awk -F, -v v="$v" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["variant"] == v { print $c["cal_passes"], $c["cal_ticks"]; exit }' "$work/ic1.csv")"
	dis[$v]=$(pass_insns "$build/lab.elf" "sl_wait_${v//-/_}")
	if [ -n "${ct:-}" ] && [ "${cp:-0}" -gt 0 ] && [ $((ct % cp)) = 0 ]; then
		slope[$v]=$((ct / cp))
		ok "$v: $cp passes in exactly ${slope[$v]} instructions each (${dis[$v]} in the loop, the rest one schedule() round trip)"
	else
		slope[$v]=x
		not_ok "$v: whole instructions per pass" "cal_passes=${cp:-} cal_ticks=${ct:-}"
	fi
done
base=$((slope[task] - dis[task]))
bad=""
for v in $VARIANTS; do
	[ "$((slope[$v] - dis[$v]))" = "$base" ] 2> /dev/null || bad="$bad $v(measured ${slope[$v]}, loop ${dis[$v]})"
done
[ -z "$bad" ] && ok "every variant: measured - disassembly = $base, the same schedule() round trip" ||
	not_ok "passes cost what the disassembly says" "$bad"
if [ "${slope[current-volatile]}" -gt "${slope[current]}" ] 2> /dev/null; then
	ok "current-volatile costs $((slope[current-volatile] - slope[current])) instruction(s) per pass more than current"
else
	not_ok "current-volatile costs more per pass than current" \
		"${slope[current-volatile]} vs ${slope[current]}"
fi
keys=(policy tasks variant fp_users ticks switches nm_traps saves restores contended passes sleeps wakeups wake_retaken cal_ticks)
if [ "$(rc_of ic1)" = 0 ] && [ "$(rc_of ic2)" = 0 ] && [ -s "$work/ic1.csv" ] &&
   cmp -s <(row_fields ic1 "${keys[@]}") <(row_fields ic2 "${keys[@]}"); then
	ok "two --icount boots: identical instruction counts and events ($(($(wc -l < "$work/ic1.csv") - 1)) rows)"
else
	not_ok "two --icount boots are identical" "exit $(rc_of ic1) $(rc_of ic2)" \
		"$(diff <(row_fields ic1 "${keys[@]}") <(row_fields ic2 "${keys[@]}") | head -n 4)"
fi

# ---- a lost wake-up fails the run, naming the waiting tasks ----
fpulab_csv lost --kernel "$build/lab-test.elf" --experiment sleeping-lock --policy eager \
	--fp-users none --state-api current --tasks 4 --repeat 1 --drop-wakeup 5 --icount --timeout 120
if [ "$(rc_of lost)" != 0 ] && grep -q "lost wake-up: no system call finished" "$work/lost.err" &&
   grep -q "task [0-9]* (slock) state blocked" "$work/lost.err"; then
	ok "a dropped wake-up is caught: exit $(rc_of lost), the waiters named"
else
	not_ok "a lost wake-up fails the run" "exit $(rc_of lost)" "$(tail -n 6 "$work/lost.err")"
fi
fpulab_csv nodrop --kernel "$build/lab.elf" --experiment sleeping-lock --policy eager \
	--fp-users none --state-api current --tasks 2 --repeat 1 --drop-wakeup 5
if [ "$(rc_of nodrop)" != 0 ] && grep -q "needs the test kernel" "$work/nodrop.err"; then
	ok "--drop-wakeup is refused by lab.elf"
else
	not_ok "--drop-wakeup needs the test kernel" "exit $(rc_of nodrop)"
fi
# without --kernel, --drop-wakeup boots lab-test.elf, as --inject does
"$fpulab" run --experiment sleeping-lock --policy eager --fp-users none --state-api current \
	--tasks 2 --repeat 1 --drop-wakeup 5 --check-options > /dev/null 2> "$work/dw.err"
if grep -q "test_policies=[a-z]" "$work/dw.err" && grep -q "accepted every option" "$work/dw.err"; then
	ok "--drop-wakeup without --kernel boots lab-test.elf"
else
	not_ok "--drop-wakeup without --kernel boots lab-test.elf" "$(tail -n 3 "$work/dw.err")"
fi

finish
