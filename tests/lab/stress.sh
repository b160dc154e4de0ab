#!/bin/bash
# SPDX-License-Identifier: MIT
# Experiment stress under every policy (docs/stress.md): no register state lost
# or leaked, the switch target reached, every kind of event present. Then a
# negative control: the same experiment must catch a deliberately broken
# policy (test kernel), or the clean result above would mean nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fpulab=${FPULAB:-$root/build/fpulab}
build=$(dirname "$fpulab")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
S=${FPULAB_STRESS_SWITCHES:-200000} # switches per policy; .ci/run asks for 10^6
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	shift
	for l in "$@"; do echo "#   $l"; done
}

# run NAME ARGS...: stress as CSV into $work/NAME.csv, exit status in $work/NAME.rc
run() {
	local name=$1
	shift
	"$fpulab" run --accel tcg --timeout 120 --experiment stress --format csv --seed 1 "$@" \
		> "$work/$name.csv" 2> "$work/$name.err"
	echo $? > "$work/$name.rc"
}

# get NAME POLICY KEY: one value of a policy's row
get() {
	awk -F, -v p="$2" -v k="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["experiment"] == "stress" && $col["policy"] == p { print $col[k]; exit }
	' "$work/$1.csv"
}

run all --policy all --switches $S
rc=$(cat "$work/all.rc")
policies=$(sed -En 's/.*guest up:.* policies[= ]([a-z,-]+).*/\1/p' "$work/all.err" | tr , ' ')
if [ "$rc" = 0 ] && [ -n "$policies" ]; then
	ok "stress --policy all ran: exit status 0, policies: $policies"
else
	not_ok "stress --policy all ran" "exit $rc, policies '$policies'" "$(tail -n 8 "$work/all.err")"
fi
[ -n "$policies" ] || policies="eager lazy lazy-counter owner deferred smp-lazy"

for p in $policies; do
	sw=$(get all "$p" switches)
	ie=$(get all "$p" integrity_errors)
	kfs=$(get all "$p" kernel_fpu_sections)
	mig=$(get all "$p" migrations)
	tasks=$(get all "$p" tasks)
	cpus=$(get all "$p" cpus)
	if [ -z "$sw" ]; then
		not_ok "$p: a stress result row" "$(tail -n 5 "$work/all.err")"
		continue
	fi
	[ "$ie" = 0 ] && ok "$p: 0 integrity errors in $sw switches" ||
		not_ok "$p: 0 integrity errors" "integrity_errors=$ie" "$(grep -m 5 integrity "$work/all.err")"
	[ "$sw" -ge $S ] && ok "$p: switches $sw >= $S" || not_ok "$p: switches >= $S" "switches=$sw"
	if [ "$kfs" -gt 0 ] && [ "$mig" -gt 0 ] && [ "$tasks" = $((4 * cpus)) ]; then
		ok "$p: $kfs kernel-FPU sections, $mig migrations, $tasks tasks on $cpus CPUs"
	else
		not_ok "$p: kernel-FPU sections, migrations and 4 tasks per CPU" \
			"kernel_fpu_sections=$kfs migrations=$mig tasks=$tasks cpus=$cpus"
	fi
done

# Negative control: broken-lazy trusts the registers without checking the owner.
run broken --kernel "$build/lab-test.elf" --policy broken-lazy,eager --switches 20000
e=$(get broken broken-lazy integrity_errors)
g=$(get broken eager integrity_errors)
if [ "$(cat "$work/broken.rc")" = 1 ] && [ -n "$e" ] && [ "$e" -gt 0 ] && [ "$g" = 0 ]; then
	ok "stress catches broken-lazy: $e registers wrong, eager clean, exit status 1"
else
	not_ok "stress catches broken-lazy" "exit $(cat "$work/broken.rc") broken-lazy=$e eager=$g" \
		"$(tail -n 5 "$work/broken.err")"
fi
echo "1..$n"
