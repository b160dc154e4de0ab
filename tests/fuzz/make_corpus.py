#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the synthesized part of tests/fuzz/corpus/import/.

Names carry the expected verdict, which the replay checks:
  ok-*.bin            accepted (unless XSTATE_BV needs components this host lacks)
  bad-<class>-*.bin   rejected with that class: short, xstate_bv, xcomp_bv,
                      reserved, mxcsr
The ok-xsave-*.bin files are real XSAVE images taken on an AMD EPYC (kept as is).
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "import")

STD_OFF = {2: (576, 256)}  # YMM: architectural standard offset/size


def image(bv=3, xcomp=0, mxcsr=0x1F80, fcw=0x037F, size=None, fill=True, reserved=None):
    ext = max([576] + [o + s for i, (o, s) in STD_OFF.items() if bv & (1 << i)])
    b = bytearray(size if size is not None else ext)
    legacy = bytearray(576)
    struct.pack_into("<HHBBHQQII", legacy, 0, fcw, 0, 0, 0, 0, 0, 0, mxcsr, 0xFFFF)
    if fill:
        for i in range(160, 416):  # XMM
            legacy[i] = (i * 7 + 3) & 0xFF
    struct.pack_into("<QQ", legacy, 512, bv, xcomp)
    if reserved is not None:
        off, val = reserved
        legacy[off] = val
    n = min(len(b), 576)
    b[:n] = legacy[:n]
    if fill and bv & 4 and len(b) >= 832:
        for i in range(576, 832):
            b[i] = (i * 13 + 1) & 0xFF
    return bytes(b)


def st_reg(value_bits_mant, exp, sign=0):
    return struct.pack("<QH", value_bits_mant, (sign << 15) | exp) + bytes(6)


FILES = {
    # accepted
    "ok-init.bin": image(bv=0, fill=False),
    "ok-x87-sse.bin": image(bv=3),
    "ok-avx.bin": image(bv=7),
    "ok-ymm-only.bin": image(bv=4),
    "ok-trailing-bytes.bin": image(bv=7) + bytes(range(256)) * 8,
    "ok-mxcsr-daz-fz-rc.bin": image(bv=3, mxcsr=0xFFC0),
    "ok-mxcsr-flags-without-sse.bin": image(bv=1, mxcsr=0x7F80 | 0x3F),
    "ok-sw-reserved-area.bin": None,  # filled below
    "ok-x87-pending-exception.bin": None,
    "ok-init-garbage-legacy.bin": None,
    # rejected
    "bad-short-empty.bin": b"",
    "bad-short-1.bin": b"\x7f",
    "bad-short-fxsave-only.bin": image(bv=3)[:512],
    "bad-short-575.bin": image(bv=3)[:575],
    "bad-short-avx-header-only.bin": image(bv=7, size=576),
    "bad-short-avx-831.bin": image(bv=7)[:831],
    "bad-xstate_bv-bit63.bin": image(bv=(1 << 63) | 3),
    "bad-xstate_bv-bndregs.bin": image(bv=3 | 1 << 3, size=1024),
    "bad-xstate_bv-pkru.bin": image(bv=3 | 1 << 9, size=4096),
    "bad-xstate_bv-cet_u.bin": image(bv=3 | 1 << 11, size=4096),
    "bad-xstate_bv-bit62.bin": image(bv=3 | 1 << 62, size=4096),
    "bad-xstate_bv-all-ones.bin": image(bv=(1 << 64) - 1, size=4096),
    "bad-xcomp_bv-compacted.bin": image(bv=7, xcomp=(1 << 63) | 7),
    "bad-xcomp_bv-bit0.bin": image(bv=3, xcomp=1),
    "bad-xcomp_bv-bit62.bin": image(bv=3, xcomp=1 << 62),
    "bad-reserved-byte16.bin": image(bv=3, reserved=(528, 1)),
    "bad-reserved-byte24.bin": image(bv=3, reserved=(536, 0x80)),
    "bad-reserved-byte63.bin": image(bv=3, reserved=(575, 0xFF)),
    "bad-mxcsr-bit16.bin": image(bv=3, mxcsr=0x1F80 | 1 << 16),
    "bad-mxcsr-bit18.bin": image(bv=3, mxcsr=0x1F80 | 1 << 18),
    "bad-mxcsr-bit31.bin": image(bv=3, mxcsr=0x1F80 | 1 << 31),
    "bad-mxcsr-all-ones.bin": image(bv=3, mxcsr=0xFFFFFFFF),
    "bad-mxcsr-without-sse.bin": image(bv=1, mxcsr=0x1F80 | 1 << 20),
}

b = bytearray(image(bv=3))
b[464:512] = b"\xa5" * 48  # software-available bytes: ignored by the CPU
FILES["ok-sw-reserved-area.bin"] = bytes(b)

# ST0 = 1.0 valid, FSW.ES|IE set with IE unmasked in FCW: pending #MF, XRSTOR does not fault.
b = bytearray(image(bv=3, fcw=0x037E))
struct.pack_into("<HB", b, 2, 0x3881, 0x80)
b[32:48] = st_reg(0x8000000000000000, 0x3FFF)
FILES["ok-x87-pending-exception.bin"] = bytes(b)

# XSTATE_BV = 0: the legacy bytes are ignored by XRSTOR (except MXCSR).
b = bytearray(image(bv=0))
b[0:24] = bytes(range(0x40, 0x58))
b[32:160] = b"\xee" * 128
FILES["ok-init-garbage-legacy.bin"] = bytes(b)

os.makedirs(OUT, exist_ok=True)
for name, data in FILES.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
print(f"{len(FILES)} files in {OUT}")
