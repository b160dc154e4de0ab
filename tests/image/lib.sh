# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Sourced by the tests/image scripts (make test-image): TAP output
# (tests/tap.sh), images made by tools/mkimage, and QEMU boots of them
# through GRUB on SeaBIOS (QEMU's default firmware) or OVMF (UEFI).
# Sets root, build, fpulab, work (removed at exit).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fpulab=${FPULAB:-$root/build/fpulab}
build=$(dirname "$fpulab")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$root/tests/tap.sh"

# What a boot needs; each missing piece is a reason to skip, said once.
image_tools_missing() {
	command -v grub-mkrescue >/dev/null 2>&1 || { echo "no grub-mkrescue (tools/ensure-deps image)"; return; }
	[ -d /usr/lib/grub/i386-pc ] || { echo "no GRUB for BIOS (grub-pc-bin)"; return; }
	[ -d /usr/lib/grub/x86_64-efi ] || { echo "no GRUB for UEFI (grub-efi-amd64-bin)"; return; }
	command -v xorriso >/dev/null 2>&1 || { echo "no xorriso"; return; }
	command -v mformat >/dev/null 2>&1 || { echo "no mtools"; return; }
	command -v qemu-system-x86_64 >/dev/null 2>&1 || { echo "no qemu-system-x86_64"; return; }
}
ovmf_code() {
	for f in /usr/share/OVMF/OVMF_CODE_4M.fd /usr/share/OVMF/OVMF_CODE.fd; do
		[ -e "$f" ] && { echo "$f"; return; }
	done
}

# make_image NAME [mkimage options]: $work/NAME.iso
make_image() {
	local name=$1
	shift
	"$root/tools/mkimage" -o "$work/$name.iso" --kernel "$build/lab.elf" "$@" > "$work/$name.mkimage" 2>&1
}

# boot NAME IMAGE FIRMWARE CPUS SECONDS [QEMU args...]: boot IMAGE (a CD; with
# BOOT_MEDIA=usb, a copy of it as a USB stick on xHCI, as `dd` writes one) on
# q35 with FIRMWARE (seabios | ovmf), COM1 into $work/NAME.serial, QEMU's
# exit status into $work/NAME.rc (124: killed after SECONDS), the QMP socket
# at $work/NAME.qmp when the test wants one (BOOT_QMP=1), the wall time in
# seconds into $work/NAME.time.
boot() {
	local name=$1 image=$2 fw=$3 cpus=$4 secs=$5
	shift 5
	local fwargs='' serial="-serial file:$work/$name.serial" qmp='' media="-cdrom $image"
	if [ "${BOOT_MEDIA:-}" = usb ]; then
		cp "$image" "$work/$name.stick"
		media="-device qemu-xhci,id=xhci -drive if=none,id=stick,format=raw,file=$work/$name.stick"
		media="$media -device usb-storage,bus=xhci.0,drive=stick,bootindex=0"
	fi
	if [ "$fw" = ovmf ]; then
		cp "$(dirname "$(ovmf_code)")/OVMF_VARS_4M.fd" "$work/$name.vars" 2>/dev/null ||
			cp /usr/share/OVMF/OVMF_VARS.fd "$work/$name.vars"
		fwargs="-drive if=pflash,format=raw,readonly=on,file=$(ovmf_code) -drive if=pflash,format=raw,file=$work/$name.vars"
	fi
	[ "${BOOT_NO_SERIAL:-}" = 1 ] && serial=
	[ "${BOOT_QMP:-}" = 1 ] && qmp="-qmp unix:$work/$name.qmp,server=on,wait=off"
	local t0
	t0=$(date +%s)
	# shellcheck disable=SC2086
	timeout "$secs" qemu-system-x86_64 -M q35 -accel tcg,thread=single -cpu "${BOOT_CPU:-max}" \
		-smp "$cpus" -m 512M -nodefaults -no-user-config -display none -vga std $serial \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 -no-reboot $fwargs $qmp \
		$media "$@" > "$work/$name.out" 2>&1
	echo $? > "$work/$name.rc"
	echo $(($(date +%s) - t0)) > "$work/$name.time"
	touch "$work/$name.serial"
	mkdir -p "$build/test-image" # kept, for a failure's whole story
	cp "$work/$name.serial" "$build/test-image/$name.serial"
}
rc_of() { cat "$work/$1.rc"; }

# serial_has NAME TEXT: the boot's COM1 log holds TEXT.
serial_has() { tr -d '\r' < "$work/$1.serial" | grep -qF -- "$2"; }
# hello_get NAME KEY: KEY's value in the boot's hello record.
hello_get() {
	tr -d '\r' < "$work/$1.serial" | sed -n 's/^@fpulab hello //p' | tr ' ' '\n' |
		sed -n "s/^$2=//p" | head -n 1
}
# tail_of NAME: the boot's last serial lines, for a failure's detail.
tail_of() { tr -d '\r' < "$work/$1.serial" | grep -v '^$' | tail -n 5 | cut -c1-160; }

# boot_screen NAME IMAGE FIRMWARE CPUS SECONDS [QEMU args...]: boot as boot()
# does but without isa-debug-exit, as on a real PC (the kernel halts at its
# end), with QEMU's monitor on its standard input: every 2 s the kernel's
# text shadow of the screen (screen_shadow in lab.elf, lab/screen.h) is read
# out of guest memory (pmemsave) into $work/NAME.screen, one line a row,
# until it shows "done:" or "PANIC", or SECONDS pass; then a screendump
# ($work/NAME.png, kept in $build/test-image/ for a person to look at), quit.
boot_screen() {
	local name=$1 image=$2 fw=$3 cpus=$4 secs=$5
	shift 5
	local addr fwargs='' serial="-serial file:$work/$name.serial"
	addr=$(nm "$build/lab.elf" | awk '$3 == "screen_shadow" { print "0x" $1 }')
	if [ "$fw" = ovmf ]; then
		cp "$(dirname "$(ovmf_code)")/OVMF_VARS_4M.fd" "$work/$name.vars" 2>/dev/null ||
			cp /usr/share/OVMF/OVMF_VARS.fd "$work/$name.vars"
		fwargs="-drive if=pflash,format=raw,readonly=on,file=$(ovmf_code) -drive if=pflash,format=raw,file=$work/$name.vars"
	fi
	[ "${BOOT_NO_SERIAL:-}" = 1 ] && serial=
	touch "$work/$name.screen"
	# shellcheck disable=SC2086 # $serial and $fwargs are lists of options
	monitor_script "$name" "$addr" "$secs" |
		timeout $((secs + 30)) qemu-system-x86_64 -M q35 -accel tcg,thread=single \
			-cpu "${BOOT_CPU:-max}" -smp "$cpus" -m 512M -nodefaults -no-user-config \
			-display none -vga std $serial -no-reboot $fwargs -monitor stdio \
			-cdrom "$image" "$@" > "$work/$name.out" 2>&1
	mkdir -p "$build/test-image"
	cp "$work/$name.png" "$work/$name.screen" "$work/$name.serial" "$build/test-image/" 2>/dev/null
	touch "$work/$name.serial"
}

# The monitor's commands for boot_screen, paced by what the shadow shows.
monitor_script() {
	local name=$1 addr=$2 secs=$3 t=0
	while [ "$t" -lt "$secs" ]; do
		sleep 2
		t=$((t + 2))
		echo "pmemsave $addr 10264 \"$work/$name.mem\""
		sleep 0.5
		shadow_text "$work/$name.mem" > "$work/$name.screen"
		grep -qE '^done:|PANIC' "$work/$name.screen" && break
	done
	echo "$t" > "$work/$name.time"
	echo "screendump $work/$name.png -f png"
	sleep 1
	echo quit
}

# shadow_text FILE: a pmemsave of struct screen_shadow as text, a line per
# row, trailing blanks cut; nothing before the kernel set its magic.
shadow_text() {
	[ -s "$1" ] && [ "$(head -c 7 "$1" | tr -d '\0')" = FPUSCRN ] || return 0
	local rows
	rows=$(od -An -tu4 -j8 -N4 "$1" | tr -d ' ')
	tail -c +25 "$1" | head -c $((rows * 160)) | fold -w 160 | sed 's/ *$//'
}
screen_has() { grep -qF -- "$2" "$work/$1.screen"; }
