# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Sourced by the tests/lab scripts: TAP output (tests/tap.sh), and fpulab runs kept as CSV.
# Sets fpulab (the binary, $FPULAB or build/fpulab), build (its folder) and
# work (a temporary folder removed at exit).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fpulab=${FPULAB:-$root/build/fpulab}
# shellcheck disable=SC2034 # used by the scripts that source this file
build=$(dirname "$fpulab")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$root/tests/tap.sh"

# fpulab_csv NAME ARGS...: fpulab run --format csv ARGS into $work/NAME.csv,
# its stderr into $work/NAME.err, its exit status into $work/NAME.rc.
fpulab_csv() {
	local name=$1
	shift
	"$fpulab" run --accel tcg --format csv "$@" > "$work/$name.csv" 2> "$work/$name.err"
	echo $? > "$work/$name.rc"
}

rc_of() { cat "$work/$1.rc"; }

# csv_get NAME KEY [COLUMN=VALUE ...]: KEY of the first row of NAME's CSV
# whose columns have those values. Fields are RFC 4180: a quoted field may
# hold commas and doubled quotes (the provenance columns do).
csv_get() {
	local name=$1 key=$2
	shift 2
	awk -v k="$key" -v filters="$*" '
		function fields(line, v,    n, i, c, fld, q) {
			n = 0; fld = ""; q = 0
			for (i = 1; i <= length(line); i++) {
				c = substr(line, i, 1)
				if (q && c == "\"" && substr(line, i + 1, 1) == "\"") { fld = fld c; i++ }
				else if (c == "\"") q = !q
				else if (c == "," && !q) { v[++n] = fld; fld = "" }
				else fld = fld c
			}
			v[++n] = fld
			return n
		}
		NR == 1 {
			nc = fields($0, h)
			for (i = 1; i <= nc; i++) col[h[i]] = i
			nf = split(filters, f, " ")
			next
		}
		{
			delete v
			fields($0, v)
			for (j = 1; j <= nf; j++) {
				split(f[j], kv, "=")
				if (v[col[kv[1]]] != kv[2]) next
			}
			print v[col[k]]
			exit
		}
	' "$work/$name.csv"
}
