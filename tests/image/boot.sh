#!/bin/bash
# SPDX-License-Identifier: MIT
# The bootable image's quick entry (its menu's second, tools/mkimage --default
# 1) through GRUB's multiboot2: on SeaBIOS with 1 CPU (the cross-CPU
# configurations skipped, said so) and 4 CPUs, on OVMF (UEFI: the RSDP from
# Multiboot2's ACPI tag, the framebuffer drawn with GRUB's font) with 2. Each
# ends with its done record and no integrity error; under OVMF the screen,
# read from the kernel's text shadow, shows the table and the end; and the
# same image as a USB stick (xHCI) on SeaBIOS and OVMF, with 2 CPUs.
. "$(dirname "$0")/lib.sh"

why=$(image_tools_missing)
[ -z "$why" ] && ! command -v nm > /dev/null && why="no nm (binutils)"
if [ -n "$why" ]; then
	skip "GRUB image boots" "$why"
	finish
	exit
fi
if ! make_image quick --default 1 --timeout 0; then
	not_ok "mkimage makes the image" "$(cat "$work/quick.mkimage")"
	finish
	exit
fi
ok "mkimage makes the image ($(du -k "$work/quick.iso" | cut -f1) KiB)"

check_done() { # NAME FIRMWARE CPUS BOOTNAME
	local name=$1 fw=$2 cpus=$3 bootname=$4 errs
	if ! serial_has "$name" "@fpulab done runs="; then
		not_ok "$fw, $cpus CPUs: the quick run ends" "status $(rc_of "$name" 2>/dev/null)" "$(tail_of "$name")"
		return
	fi
	ok "$fw, $cpus CPUs: the quick run ends ($(cat "$work/$name.time") s)"
	[ "$(hello_get "$name" cpus)" = "$cpus" ] && [ "$(hello_get "$name" boot)" = "$bootname" ] &&
		ok "$fw: hello says cpus=$cpus boot=$bootname" ||
		not_ok "$fw: hello says cpus=$cpus boot=$bootname" "cpus=$(hello_get "$name" cpus) boot=$(hello_get "$name" boot)"
	errs=$(tr -d '\r' < "$work/$name.serial" | grep '^@fpulab result' | grep -vc ' integrity_errors=0 ')
	[ "$errs" = 0 ] && ok "$fw, $cpus CPUs: no run with an integrity error" ||
		not_ok "$fw, $cpus CPUs: no run with an integrity error" "$errs runs"
	serial_has "$name" 'hung=0' && ok "$fw, $cpus CPUs: nothing hung" || not_ok "$fw, $cpus CPUs: nothing hung"
}

boot one "$work/quick.iso" seabios 1 600
check_done one seabios 1 multiboot2-bios
[ "$(rc_of one)" = 33 ] && ok "seabios, 1 CPU: exit status 33" || not_ok "seabios, 1 CPU: exit status 33" "$(rc_of one)"
serial_has one 'skipped: context-switch cross-cpu fp=none x87: needs 2 CPUs, this machine runs 1' &&
	serial_has one '@fpulab skip experiment=costs placement=cross-cpu' &&
	ok "1 CPU: the cross-CPU configurations are skipped, with a message" ||
	not_ok "1 CPU: the cross-CPU configurations are skipped, with a message"

boot four "$work/quick.iso" seabios 4 600
check_done four seabios 4 multiboot2-bios
[ "$(rc_of four)" = 33 ] && ok "seabios, 4 CPUs: exit status 33" || not_ok "seabios, 4 CPUs: exit status 33" "$(rc_of four)"

# The hybrid image written to a stick: its MBR for SeaBIOS, its EFI System
# Partition for OVMF, from an xHCI USB disk rather than the CD drive.
BOOT_MEDIA=usb boot usb "$work/quick.iso" seabios 2 600
check_done usb "seabios, USB stick" 2 multiboot2-bios
if [ -n "$(ovmf_code)" ]; then
	BOOT_MEDIA=usb boot usbu "$work/quick.iso" ovmf 2 900
	check_done usbu "ovmf, USB stick" 2 multiboot2-uefi
fi

if [ -z "$(ovmf_code)" ]; then
	skip "ovmf boot" "no OVMF firmware (Debian's ovmf; tools/ensure-deps ci)"
else
	boot_screen uefi "$work/quick.iso" ovmf 2 900
	check_done uefi ovmf 2 multiboot2-uefi
	serial_has uefi 'screen: framebuffer' && screen_has uefi '(EMULATED TSC (QEMU TCG), not hardware timings)' &&
		ok "ovmf: the framebuffer; the screen's tables say what the ticks are" ||
		not_ok "ovmf: the framebuffer; the screen's tables say what the ticks are" "$(head -n 8 "$work/uefi.screen")"
	grep -qE '^  ipi +[0-9]+$' "$work/uefi.screen" && screen_has uefi 'done: ' && screen_has uefi ' 0 hung' &&
		ok "ovmf: the costs table and the end are on the screen" ||
		not_ok "ovmf: the costs table and the end are on the screen" "$(tail -n 8 "$work/uefi.screen")"
fi
finish
