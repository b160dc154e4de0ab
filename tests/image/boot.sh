#!/bin/bash
# SPDX-License-Identifier: MIT
# The lab kernel boots through GRUB's multiboot2 on BIOS (SeaBIOS) and UEFI
# (OVMF): the CPUs of the MADT start (AP trampoline placed from the memory
# map), the RSDP comes from Multiboot2's ACPI tag under UEFI, and the costs
# experiment runs to its done record and exit status.
. "$(dirname "$0")/lib.sh"

why=$(image_tools_missing)
if [ -n "$why" ]; then
	skip "GRUB image boots" "$why"
	finish
	exit
fi
if ! make_image costs --cmdline 'exp=costs repeat=1 rt=10'; then
	not_ok "mkimage makes an image" "$(cat "$work/costs.mkimage")"
	finish
	exit
fi
ok "mkimage makes an image"

check_boot() { # NAME FIRMWARE CPUS BOOTNAME
	local name=$1 fw=$2 cpus=$3 bootname=$4
	if [ "$(rc_of "$name")" != 33 ]; then
		not_ok "$fw, $cpus CPUs: the kernel exits OK" "QEMU status $(rc_of "$name")" "$(tail_of "$name")"
		return
	fi
	ok "$fw, $cpus CPUs: the kernel exits OK ($(cat "$work/$name.time") s)"
	[ "$(hello_get "$name" cpus)" = "$cpus" ] && ok "$fw: hello says cpus=$cpus" ||
		not_ok "$fw: hello says cpus=$cpus" "cpus=$(hello_get "$name" cpus)"
	[ "$(hello_get "$name" boot)" = "$bootname" ] && ok "$fw: hello says boot=$bootname" ||
		not_ok "$fw: hello says boot=$bootname" "boot=$(hello_get "$name" boot)"
	serial_has "$name" "@fpulab done runs=3 skipped=0" && ok "$fw: the three costs ran" ||
		not_ok "$fw: the three costs ran" "$(tail_of "$name")"
}

boot bios "$work/costs.iso" seabios 2 120
check_boot bios seabios 2 multiboot2-bios
if [ -z "$(ovmf_code)" ]; then
	skip "ovmf boot" "no OVMF firmware (Debian's ovmf; tools/ensure-deps ci)"
else
	boot uefi "$work/costs.iso" ovmf 2 180
	check_boot uefi ovmf 2 multiboot2-uefi
fi
finish
