#!/bin/bash
# SPDX-License-Identifier: MIT
# What the person at the PC sees, read from the kernel's text shadow of the
# screen (lab/screen.h; every cell is drawn from it): under UEFI (OVMF) the
# framebuffer drawn with GRUB's font, and under BIOS (SeaBIOS) too: GRUB
# 2.06 sets up a framebuffer there as well (the VGA text path of
# lab/screen.c is for machines where it does not). And the
# clear failures: no serial port (results on screen only), no local APIC
# (a panic message), no XSAVE (FXSAVE, said on the screen). A screendump of
# each boot is kept in build/test-image/ for a person to look at.
. "$(dirname "$0")/lib.sh"

why=$(image_tools_missing)
[ -z "$why" ] && ! command -v nm > /dev/null && why="no nm (binutils)"
if [ -n "$why" ]; then
	skip "screen checks" "$why"
	finish
	exit
fi
make_image costs --cmdline 'exp=costs repeat=1 rt=10' ||
	{ not_ok "mkimage" "$(cat "$work/costs.mkimage")"; finish; exit; }

# No serial port: the results on screen, and the screen says so.
BOOT_NO_SERIAL=1 boot_screen noserial "$work/costs.iso" seabios 1 120
screen_has noserial 'serial: no COM1 port: the results are on this screen only' &&
	ok "no serial port: the screen says the results are on it only" ||
	not_ok "no serial port: the screen says so" "$(head -n 12 "$work/noserial.screen")"
screen_has noserial 'screen: framebuffer 800x600, 100x37 characters' &&
	ok "BIOS: GRUB's framebuffer, drawn with its font (100x37 characters)" ||
	not_ok "BIOS: GRUB's framebuffer, drawn with its font" "$(head -n 3 "$work/noserial.screen")"
grep -qE '^  nm-trap +[0-9]+$' "$work/noserial.screen" && screen_has noserial 'done: 2 runs, 1 configurations skipped, 0 hung' &&
	ok "no serial port: the costs table and the end on screen" ||
	not_ok "no serial port: the costs table and the end on screen" "$(cat "$work/noserial.screen")"
grep -q '@fpulab' "$work/noserial.screen" && not_ok "no record on the screen" || ok "no record on the screen"
[ ! -s "$work/noserial.serial" ] && ok "no serial port: nothing was written to one" ||
	not_ok "no serial port: nothing was written to one"

# No local APIC: a panic on screen and serial, not a silent hang.
BOOT_CPU=max,-apic boot_screen noapic "$work/costs.iso" seabios 1 120
screen_has noapic 'PANIC' && screen_has noapic 'no local APIC' &&
	ok "no APIC: the panic is on the screen" || not_ok "no APIC: the panic is on the screen" "$(tail -n 5 "$work/noapic.screen")"
serial_has noapic 'this CPU has no local APIC' && ok "no APIC: and on serial" ||
	not_ok "no APIC: and on serial" "$(tail_of noapic)"

# No XSAVE: FXSAVE does, and the screen says what that leaves out.
BOOT_CPU=Nehalem boot_screen noxsave "$work/costs.iso" seabios 1 120
screen_has noxsave 'no XSAVE (CPUID.1:ECX[26] clear): FXSAVE saves x87 and SSE only' &&
	screen_has noxsave 'done: 2 runs, 1 configurations skipped, 0 hung' && ok "no XSAVE: said on the screen, the run ends" ||
	not_ok "no XSAVE: said on the screen, the run ends" "$(head -n 12 "$work/noxsave.screen")"
[ "$(hello_get noxsave insn)" = fxsave ] && ok "no XSAVE: hello says insn=fxsave" ||
	not_ok "no XSAVE: hello says insn=fxsave" "insn=$(hello_get noxsave insn)"
finish
