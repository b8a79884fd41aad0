#!/usr/bin/env python3
"""Checks Pepper's onboarding animation (Apple/App/Onboarding/onboarding.json) by playing it in a
real Lottie player, Debian's rlottie (librlottie0-1), through its C API:

- the committed Lottie file and its SVG export for the console are what
  scripts/make-onboarding-animation.py makes (the source and its outputs are in step);
- rlottie loads it (a file it cannot parse is refused: checked with a broken copy);
- it plays for its stated length: 90 frames at 30 fps, 3 seconds, from the player's own
  frame count, frame rate and duration, and from the file's `ip`, `op` and `fr`;
- its frames are drawn (no blank frame) and change as intended: the first frame (the page with
  its three orange ads, the shield low and small) and the last (no ad left, the shield centred
  with its white check mark) differ in more than a tenth of their pixels, and the middle of the
  picture is blue only at the end;
- PNGs of frames 0, 15, 30, 45, 60, 75 and 89, and a strip of them, go to artifacts/onboarding/.

    scripts/check-onboarding-animation.py [--out DIR]

Exits 0 and prints one line per check on success; exits 1 naming what failed; exits 2 when
rlottie is not installed (apt-get install librlottie0-1; scripts/test.sh installs it).
"""
from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANIMATION = ROOT / "Apple/App/Onboarding/onboarding.json"
STATED_FRAMES = 90
STATED_RATE = 30
STATED_SECONDS = 3.0
SHOWN_FRAMES = [0, 15, 30, 45, 60, 75, 89]
AD_ORANGE = (0xE8, 0x77, 0x2E)
SHIELD_BLUE = (0x0B, 0x57, 0xA4)

failures: list[str] = []


def check(condition: bool, text: str) -> None:
    print(("ok   " if condition else "FAIL ") + text)
    if not condition:
        failures.append(text)


class Player:
    """rlottie's C API (rlottie_capi.h)."""

    def __init__(self):
        name = ctypes.util.find_library("rlottie") or "librlottie.so.0-1"
        try:
            self.lib = ctypes.CDLL(name)
        except OSError:
            print("rlottie is not installed: apt-get install librlottie0-1 (scripts/test.sh installs it)", file=sys.stderr)
            sys.exit(2)
        lib = self.lib
        lib.lottie_animation_from_data.restype = ctypes.c_void_p
        lib.lottie_animation_from_data.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
        lib.lottie_animation_destroy.argtypes = [ctypes.c_void_p]
        lib.lottie_animation_get_size.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t)]
        lib.lottie_animation_get_duration.restype = ctypes.c_double
        lib.lottie_animation_get_duration.argtypes = [ctypes.c_void_p]
        lib.lottie_animation_get_totalframe.restype = ctypes.c_size_t
        lib.lottie_animation_get_totalframe.argtypes = [ctypes.c_void_p]
        lib.lottie_animation_get_framerate.restype = ctypes.c_double
        lib.lottie_animation_get_framerate.argtypes = [ctypes.c_void_p]
        lib.lottie_animation_render.argtypes = [
            ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint32), ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t,
        ]

    def load(self, data: bytes, key: str):
        return self.lib.lottie_animation_from_data(data, key.encode(), b"")

    def render(self, animation, frame: int, width: int, height: int) -> list[tuple[int, int, int, int]]:
        """The frame as straight (not premultiplied) RGBA pixels, row by row."""
        buffer = (ctypes.c_uint32 * (width * height))()
        self.lib.lottie_animation_render(animation, frame, buffer, width, height, width * 4)
        pixels = []
        for value in buffer:
            a, r, g, b = value >> 24 & 0xFF, value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF
            if a:
                r, g, b = (min(255, round(c * 255 / a)) for c in (r, g, b))
            pixels.append((r, g, b, a))
        return pixels


def write_png(path: Path, pixels: list[tuple[int, int, int, int]], width: int, height: int) -> None:
    rows = b"".join(b"\x00" + bytes(c for pixel in pixels[y * width : (y + 1) * width] for c in pixel) for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def near(pixel: tuple[int, int, int, int], colour: tuple[int, int, int], tolerance: int = 24) -> bool:
    return pixel[3] > 200 and all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], colour))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts/onboarding")
    arguments = parser.parse_args()

    generated = subprocess.run([sys.executable, str(ROOT / "scripts/make-onboarding-animation.py"), "--check"], capture_output=True, text=True)
    check(generated.returncode == 0, "the Lottie file and the console's SVG are what scripts/make-onboarding-animation.py makes "
          + generated.stderr.strip())

    data = ANIMATION.read_bytes()
    document = json.loads(data)
    player = Player()
    broken = player.load(data[: len(data) // 2], "broken")
    check(not broken, "rlottie refuses a cut-off copy of the file (so loading the whole one means something)")
    animation = player.load(data, str(ANIMATION))
    check(bool(animation), "rlottie loads the animation")
    if not animation:
        print("FAILED: " + "; ".join(failures))
        return 1

    width, height = ctypes.c_size_t(), ctypes.c_size_t()
    player.lib.lottie_animation_get_size(animation, ctypes.byref(width), ctypes.byref(height))
    width, height = width.value, height.value
    frames = player.lib.lottie_animation_get_totalframe(animation)
    rate = player.lib.lottie_animation_get_framerate(animation)
    duration = player.lib.lottie_animation_get_duration(animation)
    file_seconds = (document["op"] - document["ip"]) / document["fr"]
    check((width, height) == (document["w"], document["h"]) == (200, 200), f"its size is 200 x 200 (rlottie: {width} x {height})")
    check(document["fr"] == STATED_RATE and abs(rate - STATED_RATE) < 1e-9, f"it runs at {STATED_RATE} fps (file: {document['fr']}, rlottie: {rate})")
    check(document["op"] - document["ip"] == STATED_FRAMES and frames == STATED_FRAMES,
          f"it has {STATED_FRAMES} frames (file: op - ip = {document['op'] - document['ip']}, rlottie: {frames})")
    # rlottie 0.1's "duration" is the time of the last frame, (frames - 1) / rate: the play
    # length is its frame count over its rate.
    check(abs(file_seconds - STATED_SECONDS) < 1e-9 and abs(frames / rate - STATED_SECONDS) < 1e-6
          and abs(duration - (frames - 1) / rate) < 1e-6,
          f"it plays for {STATED_SECONDS} s (file: (op - ip) / fr = {file_seconds}; rlottie: {frames} frames / {rate} fps,"
          f" last frame at {duration:.4f} s)")
    check(all(layer.get("op", 0) >= document["op"] for layer in document["layers"]),
          "every layer lasts to the end (nothing vanishes at the last frame)")

    arguments.out.mkdir(parents=True, exist_ok=True)
    rendered = {}
    for frame in SHOWN_FRAMES:
        pixels = player.render(animation, frame, width, height)
        rendered[frame] = pixels
        write_png(arguments.out / f"frame-{frame:03}.png", pixels, width, height)
        opaque = sum(1 for p in pixels if p[3] > 0)
        check(opaque > width * height // 2, f"frame {frame} is drawn ({opaque} of {width * height} pixels painted)")
    strip = []
    for y in range(height):
        for frame in SHOWN_FRAMES:
            strip += rendered[frame][y * width : (y + 1) * width]
    write_png(arguments.out / "frames.png", strip, width * len(SHOWN_FRAMES), height)

    first, last = rendered[SHOWN_FRAMES[0]], rendered[SHOWN_FRAMES[-1]]
    changed = sum(1 for a, b in zip(first, last) if max(abs(x - y) for x, y in zip(a, b)) > 32)
    check(changed > width * height // 10, f"the first and last frames differ ({changed} of {width * height} pixels, more than a tenth)")
    orange_first = sum(near(p, AD_ORANGE) for p in first)
    orange_last = sum(near(p, AD_ORANGE) for p in last)
    check(orange_first > 2_000 and orange_last == 0, f"the ads are there at first and gone at the end (orange pixels: {orange_first} -> {orange_last})")
    centre = [(x, y) for y in range(80, 100) for x in range(62, 72)]  # on the shield, beside its check mark
    blue_first = sum(near(first[y * width + x], SHIELD_BLUE) for x, y in centre)
    blue_last = sum(near(last[y * width + x], SHIELD_BLUE) for x, y in centre)
    check(blue_first == 0 and blue_last == len(centre), f"the shield ends in the middle (blue there: {blue_first} -> {blue_last} of {len(centre)})")
    white_check = sum(1 for y in range(96, 122) for x in range(80, 128) if near(last[y * width + x], (255, 255, 255)))
    check(white_check > 150, f"the check mark is drawn on the shield at the end ({white_check} white pixels there)")
    player.lib.lottie_animation_destroy(animation)

    print(f"frames in {arguments.out.relative_to(ROOT) if arguments.out.is_relative_to(ROOT) else arguments.out}")
    if failures:
        print("FAILED: " + "; ".join(failures))
        return 1
    print("onboarding animation: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
