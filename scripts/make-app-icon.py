#!/usr/bin/env python3
"""Pepper's app icon, drawn from a few shapes, and its asset catalog checked against it.

    make-app-icon.py            write every PNG of Apple/App/Assets.xcassets/AppIcon.appiconset
    make-app-icon.py --check    fail unless the catalog is whole and its PNGs are what this
                                script draws (scripts/test.sh runs this)

The icon: a red chili pepper with a green cap on a deep green square, full bleed for iOS (the
system rounds the corners) and inside Apple's rounded square with a transparent margin for macOS
(whose icons carry their own shape). Every size is drawn at that size from signed distances, not
scaled down from the largest, so small sizes stay sharp.

`--check` reads every Contents.json of the catalog: each image it names exists, is a PNG whose
pixel size is `size` × `scale`, and (for the app icon) equals this script's drawing; every file in
a set is named by its Contents.json; the accent colour has components in range. Needs numpy.
"""
from __future__ import annotations

import argparse
import json
import struct
import sys
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "Apple" / "App" / "Assets.xcassets"
ICONSET = CATALOG / "AppIcon.appiconset"

# (idiom, platform, points, scale): one universal 1024-point image for iOS (Xcode 14 and later
# make every smaller size from it), and the ten images macOS needs.
IMAGES = [("universal", "ios", 1024, 1)] + [
    ("mac", None, points, scale) for points in (16, 32, 128, 256, 512) for scale in (1, 2)
]

BACKGROUND_TOP = np.array([0x17, 0x6B, 0x45]) / 255  # deep green
BACKGROUND_BOTTOM = np.array([0x0B, 0x3D, 0x27]) / 255
PEPPER = np.array([0xE0, 0x2A, 0x1F]) / 255  # chili red
PEPPER_SHADE = np.array([0xA8, 0x16, 0x12]) / 255
CAP = np.array([0x8C, 0xC8, 0x4B]) / 255  # fresh green


def bezier(p0, p1, p2, t):
    """Points of the quadratic Bézier p0-p1-p2 at parameters t."""
    t = t[:, None]
    return (1 - t) ** 2 * np.array(p0) + 2 * (1 - t) * t * np.array(p1) + t**2 * np.array(p2)


def swept(x, y, centres, radii):
    """Signed distance to a union of discs along a path (negative inside)."""
    d = np.full(x.shape, np.inf)
    for (cx, cy), r in zip(centres, radii):
        d = np.minimum(d, np.hypot(x - cx, y - cy) - r)
    return d


def coverage(d, pixel):
    """How much of a pixel a shape covers, from its signed distance (antialiasing)."""
    return np.clip(0.5 - d / pixel, 0.0, 1.0)[..., None]


def draw_art(x, y, pixel):
    """The picture in unit coordinates (0..1, y down): RGB and full opacity."""
    rgb = BACKGROUND_TOP + (BACKGROUND_BOTTOM - BACKGROUND_TOP) * y[..., None]
    x = x + 0.07  # the pod leans right: centred by its weight, not its box
    # The body: a curved, tapering pod from under the cap down to a tip bottom left.
    t = np.linspace(0.0, 1.0, 72)
    centres = bezier((0.60, 0.34), (0.78, 0.74), (0.24, 0.84), t)
    radii = 0.155 * (1 - t) ** 0.8 + 0.012
    body = swept(x, y, centres, radii)
    # Its shaded side: what the pod, moved up and left, leaves of it.
    shade = np.maximum(-swept(x + 0.03, y + 0.02, centres, radii * 0.95), body)
    # A highlight along the upper side.
    light_t = np.linspace(0.08, 0.55, 30)
    light = swept(x, y, bezier((0.53, 0.33), (0.66, 0.62), (0.45, 0.74), light_t), 0.028 * (1 - light_t) + 0.008)
    rgb = rgb * (1 - coverage(body, pixel)) + PEPPER * coverage(body, pixel)
    rgb = rgb * (1 - coverage(shade, pixel)) + PEPPER_SHADE * coverage(shade, pixel)
    white = np.array([1.0, 0.86, 0.8])
    glow = coverage(np.maximum(light, body), pixel) * 0.55
    rgb = rgb * (1 - glow) + white * glow
    # The cap over the pod's top, and its stem curling up and right.
    cap = np.hypot((x - 0.585) / 1.25, y - 0.285) - 0.105
    cap = np.maximum(cap, -(y - 0.245))  # flat on top
    stem_t = np.linspace(0.0, 1.0, 40)
    stem = swept(x, y, bezier((0.585, 0.26), (0.58, 0.14), (0.72, 0.12), stem_t), np.full(40, 0.030) - 0.008 * stem_t)
    green = np.minimum(cap, stem)
    rgb = rgb * (1 - coverage(green, pixel)) + CAP * coverage(green, pixel)
    return rgb


def render(size: int, platform: str = "ios") -> np.ndarray:
    """The icon as size × size RGBA bytes (`platform` "ios": full bleed; "mac": Apple's rounded
    square, 824 of 1024 points, with a transparent margin)."""
    pixel = 1.0 / size
    centres = (np.arange(size) + 0.5) * pixel
    y, x = np.meshgrid(centres, centres, indexing="ij")
    if platform == "ios":
        rgb = draw_art(x, y, pixel)
        alpha = np.ones(x.shape + (1,))
    else:
        inset, half, corner = 100 / 1024, 412 / 1024, 185 / 1024
        ux, uy = (x - inset) / (2 * half), (y - inset) / (2 * half)
        rgb = draw_art(ux, uy, pixel / (2 * half))
        qx = np.maximum(np.abs(x - 0.5) - (half - corner), 0.0)
        qy = np.maximum(np.abs(y - 0.5) - (half - corner), 0.0)
        square = np.hypot(qx, qy) - corner + np.minimum(np.maximum(np.abs(x - 0.5), np.abs(y - 0.5)) - (half - corner), 0.0)
        alpha = coverage(square, pixel)
    rgba = np.concatenate([np.clip(rgb, 0, 1), alpha], axis=-1)
    return np.round(rgba * 255).astype(np.uint8)


def png(pixels: np.ndarray) -> bytes:
    """RGBA bytes as a PNG file (no filter, deflate level 9)."""
    height, width, _ = pixels.shape
    raw = b"".join(b"\x00" + pixels[row].tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def read_png(path: Path) -> np.ndarray:
    """A PNG this script wrote (8-bit RGBA, no interlace; any row filter) as RGBA bytes."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    offset, idat, width = 8, b"", 0
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset : offset + 8])
        body = data[offset + 8 : offset + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if (depth, colour, interlace) != (8, 6, 0):
                raise ValueError(f"{path}: not 8-bit RGBA without interlace")
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    raw = zlib.decompress(idat)
    stride = width * 4
    rows, previous = [], bytearray(stride)
    for row in range(height):
        line = raw[row * (stride + 1) : (row + 1) * (stride + 1)]
        kind, current = line[0], bytearray(line[1:])
        for i in range(stride if kind else 0):
            left = current[i - 4] if i >= 4 else 0
            up, corner = previous[i], previous[i - 4] if i >= 4 else 0
            if kind == 1:
                current[i] = (current[i] + left) & 0xFF
            elif kind == 2:
                current[i] = (current[i] + up) & 0xFF
            elif kind == 3:
                current[i] = (current[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                best = min((abs(p - left), 0, left), (abs(p - up), 1, up), (abs(p - corner), 2, corner))[2]
                current[i] = (current[i] + best) & 0xFF
        rows.append(bytes(current))
        previous = current
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(height, width, 4)


def file_name(idiom: str, points: int, scale: int) -> str:
    return f"icon-{idiom}-{points}@{scale}x.png"


def contents() -> dict:
    images = []
    for idiom, platform, points, scale in IMAGES:
        image = {"filename": file_name(idiom, points, scale), "idiom": idiom, "size": f"{points}x{points}"}
        if platform:
            image["platform"] = platform
        else:
            image["scale"] = f"{scale}x"
        images.append(image)
    return {"images": images, "info": {"author": "xcode", "version": 1}}


def write() -> None:
    ICONSET.mkdir(parents=True, exist_ok=True)
    (ICONSET / "Contents.json").write_text(json.dumps(contents(), indent=2) + "\n")
    for idiom, platform, points, scale in IMAGES:
        (ICONSET / file_name(idiom, points, scale)).write_bytes(png(render(points * scale, platform or "mac")))
        print(f"wrote {file_name(idiom, points, scale)}")


def check() -> list[str]:
    problems = []
    if not (CATALOG / "Contents.json").exists():
        return [f"{CATALOG}/Contents.json is missing"]
    for manifest in sorted(CATALOG.rglob("Contents.json")):
        folder = manifest.parent
        try:
            spec = json.loads(manifest.read_text())
        except json.JSONDecodeError as error:
            problems.append(f"{manifest}: not JSON ({error})")
            continue
        if spec.get("info", {}).get("version") != 1:
            problems.append(f"{manifest}: info.version is not 1")
        named = set()
        for image in spec.get("images", []):
            name = image.get("filename")
            if name is None:
                continue  # an empty slot
            named.add(name)
            path = folder / name
            if not path.exists():
                problems.append(f"{manifest}: names {name}, which is not there")
                continue
            try:
                pixels = read_png(path)
            except ValueError as error:
                problems.append(str(error))
                continue
            points = float(image.get("size", "0x0").split("x")[0])
            scale = int(image.get("scale", "1x").rstrip("x"))
            want = round(points * scale)
            if pixels.shape[:2] != (want, want):
                problems.append(f"{path}: {pixels.shape[1]}×{pixels.shape[0]} pixels, its Contents.json says {want}×{want}")
                continue
            if folder == ICONSET:
                drawn = render(want, "ios" if image.get("idiom") == "universal" else "mac")
                difference = int(np.abs(drawn.astype(int) - pixels.astype(int)).max())
                # One step of rounding between numpy builds; a changed drawing moves far more.
                if difference > 1:
                    problems.append(f"{path}: differs from what scripts/make-app-icon.py draws (by up to {difference}); run it")
                if image.get("idiom") == "universal" and pixels[..., 3].min() != 255:
                    problems.append(f"{path}: the iOS icon has transparent pixels (App Store Connect refuses them)")
        present = {p.name for p in folder.iterdir() if p.is_file() and p.name != "Contents.json"}
        for stray in sorted(present - named):
            problems.append(f"{folder}/{stray}: not named by its Contents.json")
        for colour in spec.get("colors", []):
            components = colour.get("color", {}).get("components", {})
            for key in ("red", "green", "blue", "alpha"):
                value = float(components.get(key, -1))
                if not 0 <= value <= 1:
                    problems.append(f"{manifest}: {key} is {components.get(key)}, not a number from 0 to 1")
    if (ICONSET / "Contents.json").exists() and json.loads((ICONSET / "Contents.json").read_text()) != contents():
        problems.append(f"{ICONSET}/Contents.json is not what scripts/make-app-icon.py writes; run it")
    for required in ("AppIcon.appiconset", "AccentColor.colorset"):
        if not (CATALOG / required / "Contents.json").exists():
            problems.append(f"{CATALOG}/{required} is missing")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="check the catalog against this script instead of writing it")
    arguments = parser.parse_args()
    if not arguments.check:
        write()
        return 0
    problems = check()
    for problem in problems:
        print(f"make-app-icon: {problem}", file=sys.stderr)
    if not problems:
        print(f"make-app-icon: {CATALOG.relative_to(ROOT)} is whole and its icon is this script's drawing")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
