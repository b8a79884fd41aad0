#!/usr/bin/env python3
"""Pepper's onboarding animation: a web page with three ads, a shield that rises over it while
the ads fade out, and a check mark drawn on the shield. 90 frames at 30 fps (3 seconds), 200 by
200 points; the first frame is the page full of ads, the last the clean page under the shield.

    scripts/make-onboarding-animation.py          write the two outputs below
    scripts/make-onboarding-animation.py --check  exit 1 if a committed output differs from what this script makes

Outputs, both made from the one description below (`animation()`):
- Apple/App/Onboarding/onboarding.json: the Lottie file the app plays with lottie-ios
  (`OnboardingView`); a resource of the app target.
- Sources/Console/Pages/OnboardingAnimation.swift: the same animation exported as an SVG whose
  SMIL animations follow the Lottie keyframes (same times, same values, same easing), served by
  `pepper console` at /assets/onboarding.svg for its setup page: no script of any kind.

scripts/check-onboarding-animation.py renders the Lottie file with Debian's rlottie and checks it.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOTTIE_PATH = ROOT / "Apple/App/Onboarding/onboarding.json"
SWIFT_PATH = ROOT / "Sources/Console/Pages/OnboardingAnimation.swift"

FRAME_RATE = 30
FRAMES = 90  # 3 seconds
SIZE = 200

# Colours as Lottie wants them (0...1), from the console's palette.
ACCENT = "#0b57a4"
AD = "#e8772e"
AD_MARK = "#ffffff"
PAGE = "#ffffff"
PAGE_LINE = "#c9ccd6"
TEXT_LINE = "#dde0e8"
CHECK = "#ffffff"

# Easing: out of a keyframe slowly, into the next slowly (After Effects' "easy ease").
EASE_OUT = {"x": [0.33], "y": [0]}
EASE_IN = {"x": [0.67], "y": [1]}


def colour(hex_text: str) -> list[float]:
    value = hex_text.lstrip("#")
    return [round(int(value[i : i + 2], 16) / 255, 4) for i in (0, 2, 4)] + [1]


def static(value):
    return {"a": 0, "k": value}


def animated(*keys: tuple[int, object]):
    """Keyframes at frames `t` with values `s`, eased; the last one holds."""
    frames = []
    for index, (time, value) in enumerate(keys):
        key = {"t": time, "s": value if isinstance(value, list) else [value]}
        if index < len(keys) - 1:
            key["o"] = EASE_OUT
            key["i"] = EASE_IN
        frames.append(key)
    return {"a": 1, "k": frames}


def group(name: str, items: list[dict]) -> dict:
    transform = {
        "ty": "tr", "nm": "Transform", "p": static([0, 0]), "a": static([0, 0]), "s": static([100, 100]),
        "r": static(0), "o": static(100), "sk": static(0), "sa": static(0),
    }
    return {"ty": "gr", "nm": name, "it": items + [transform]}


def rect(name: str, centre: list[float], size: list[float], radius: float) -> dict:
    return {"ty": "rc", "nm": name, "d": 1, "p": static(centre), "s": static(size), "r": static(radius)}


def fill(hex_text: str) -> dict:
    return {"ty": "fl", "nm": "Fill", "c": static(colour(hex_text)), "o": static(100), "r": 1}


def stroke(hex_text: str, width: float) -> dict:
    return {"ty": "st", "nm": "Stroke", "c": static(colour(hex_text)), "o": static(100), "w": static(width), "lc": 2, "lj": 2, "ml": 4}


def path(name: str, vertices, in_tangents, out_tangents, closed: bool) -> dict:
    return {"ty": "sh", "nm": name, "ks": static({"v": vertices, "i": in_tangents, "o": out_tangents, "c": closed})}


def layer(index: int, name: str, shapes: list[dict], position, scale=None, opacity=None) -> dict:
    return {
        "ddd": 0, "ind": index, "ty": 4, "nm": name, "sr": 1, "ao": 0, "bm": 0, "ip": 0, "op": FRAMES, "st": 0,
        "ks": {
            "o": opacity or static(100), "r": static(0), "a": static([0, 0, 0]),
            "p": position if "a" in position else static(position),
            "s": scale or static([100, 100, 100]),
        },
        "shapes": shapes,
    }


def animation() -> dict:
    # The shield, around its own centre: a flat top and sides that curve into a point.
    shield = path(
        "Shield",
        [[0, -52], [45, -38], [0, 52], [-45, -38]],
        [[0, 0], [0, 0], [30, -18], [0, 45]],
        [[0, 0], [0, 45], [-30, -18], [0, 0]],
        True,
    )
    check = path("Check", [[-20, 0], [-5, 16], [22, -16]], [[0, 0], [0, 0], [0, 0]], [[0, 0], [0, 0], [0, 0]], False)
    # The check mark is drawn on, from its start to its end (a trim path), once the ads are gone.
    draw_on = {"ty": "tm", "nm": "Draw on", "s": static(0), "o": static(0), "m": 1, "e": animated((56, 0), (72, 100))}
    shield_layer = layer(
        1, "Shield",
        [group("Check mark", [check, draw_on, stroke(CHECK, 10)]), group("Shield", [shield, fill(ACCENT)])],
        animated((0, [100, 196, 0]), (36, [100, 104, 0])),
        scale=animated((0, [60, 60, 100]), (36, [100, 100, 100])),
    )

    def ad(index: int, name: str, centre: list[float], size: list[float], fade_start: int) -> dict:
        # An ad: an orange block with a white bar, shrinking a little as it fades out.
        bar = rect("Bar", [0, 0], [size[0] * 0.5, 6], 3)
        block = rect("Block", [0, 0], size, 4)
        return layer(
            index, name,
            [group("Bar", [bar, fill(AD_MARK)]), group("Block", [block, fill(AD)])],
            centre + [0],
            scale=animated((fade_start, [100, 100, 100]), (fade_start + 16, [70, 70, 100])),
            opacity=animated((fade_start, 100), (fade_start + 16, 0)),
        )

    ads = [
        ad(2, "Ad 1", [62, 74], [60, 34], 24),
        ad(3, "Ad 2", [142, 116], [52, 44], 32),
        ad(4, "Ad 3", [78, 156], [76, 24], 40),
    ]
    # The page: a card with a title bar and lines of text.
    lines = [rect(f"Line {n}", [100, y], [132, 6], 3) for n, y in enumerate([48, 98, 134, 178], start=1)]
    page_layer = layer(
        5, "Page",
        [
            group("Title bar", [rect("Title bar", [100, 27], [160, 14], 4), fill(PAGE_LINE)]),
            group("Text", lines + [fill(TEXT_LINE)]),
            group("Card", [rect("Card", [100, 100], [172, 184], 10), stroke(PAGE_LINE, 2), fill(PAGE)]),
        ],
        [0, 0],
    )
    return {
        "v": "5.7.4", "nm": "Pepper onboarding", "fr": FRAME_RATE, "ip": 0, "op": FRAMES, "w": SIZE, "h": SIZE, "ddd": 0,
        "assets": [], "markers": [],
        "layers": [shield_layer] + ads + [page_layer],
    }


# --------------------------------------------------------------------------------------------
# The SVG export: the subset of Lottie used above (shape layers; rectangles, paths, fills,
# strokes and a trim path's end; layer position, scale and opacity), as SMIL animations.


def number(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def svg_colour(rgba: list[float]) -> str:
    return "#" + "".join(f"{round(c * 255):02x}" for c in rgba[:3])


def path_data(shape: dict) -> str:
    data = shape["ks"]["k"]
    vertices, ins, outs = data["v"], data["i"], data["o"]
    parts = [f"M{number(vertices[0][0])} {number(vertices[0][1])}"]
    count = len(vertices)
    segments = count if data["c"] else count - 1
    for index in range(segments):
        start, end = vertices[index], vertices[(index + 1) % count]
        out, into = outs[index], ins[(index + 1) % count]
        if out == [0, 0] and into == [0, 0]:
            parts.append(f"L{number(end[0])} {number(end[1])}")
        else:
            parts.append(
                "C" + " ".join(number(v) for v in (start[0] + out[0], start[1] + out[1], end[0] + into[0], end[1] + into[1], end[0], end[1]))
            )
    return "".join(parts) + ("Z" if data["c"] else "")


class SVGExport:
    def __init__(self, lottie: dict):
        self.lottie = lottie
        self.duration = (lottie["op"] - lottie["ip"]) / lottie["fr"]

    def animation(self, prop: dict, element: str, attribute: str, value) -> str:
        """A SMIL animation following a Lottie property's keyframes (same times, values and
        easing), played once and then held: no style sheet and no script, so it plays where a
        page's content security policy allows neither (the console's)."""
        first, last = self.lottie["ip"], self.lottie["op"]
        keys = list(prop["k"])
        if keys[0]["t"] > first:
            keys.insert(0, {"t": first, "s": keys[0]["s"]})
        if keys[-1]["t"] < last:
            keys.append({"t": last, "s": keys[-1]["s"]})
        times = ";".join(number((key["t"] - first) / (last - first)) for key in keys)
        values = ";".join(value(key["s"]) for key in keys)
        splines = ";".join(
            f"{number(key['o']['x'][0])} {number(key['o']['y'][0])} {number(key['i']['x'][0])} {number(key['i']['y'][0])}"
            if "o" in key else "0 0 1 1"
            for key in keys[:-1]
        )
        kind = f' type="{attribute}"' if element == "animateTransform" else ""
        name = "transform" if element == "animateTransform" else attribute
        return (
            f'<{element} attributeName="{name}"{kind} dur="{number(self.duration)}s" fill="freeze" calcMode="spline"'
            f' keyTimes="{times}" values="{values}" keySplines="{splines}"/>'
        )

    def wrap(self, prop: dict, element: str, attribute: str, value, static_attribute, inner: str) -> str:
        if prop["a"]:
            return f"<g>{self.animation(prop, element, attribute, value)}{inner}</g>"
        text = static_attribute(prop["k"])
        return f"<g {text}>{inner}</g>" if text else inner

    def shapes(self, items: list[dict]) -> str:
        out = []
        # Lottie paints a layer's first group on top: SVG paints the last element on top.
        for item in reversed(items):
            if item["ty"] == "gr":
                out.append(self.group(item["it"]))
        return "".join(out)

    def group(self, items: list[dict]) -> str:
        geometry = [i for i in items if i["ty"] in ("rc", "sh")]
        paint = []
        trim = next((i for i in items if i["ty"] == "tm"), None)
        for item in items:
            if item["ty"] == "fl":
                paint.append(f'fill="{svg_colour(item["c"]["k"])}"')
            elif item["ty"] == "st":
                paint.append(
                    f'stroke="{svg_colour(item["c"]["k"])}" stroke-width="{number(item["w"]["k"])}" stroke-linecap="round" stroke-linejoin="round"'
                )
        if not any(p.startswith("fill") for p in paint):
            paint.append('fill="none"')
        elements = []
        for shape in geometry:
            if shape["ty"] == "rc":
                (x, y), (w, h), r = shape["p"]["k"], shape["s"]["k"], shape["r"]["k"]
                elements.append(
                    f'<rect x="{number(x - w / 2)}" y="{number(y - h / 2)}" width="{number(w)}" height="{number(h)}" rx="{number(r)}"/>'
                )
            else:
                if trim is not None:
                    # A trim path from 0 to `e` percent: a dash as long as the path, offset by what is not drawn yet.
                    drawn = self.animation(trim["e"], "animate", "stroke-dashoffset", lambda s: number(100 - s[0]))
                    elements.append(f'<path d="{path_data(shape)}" pathLength="100" stroke-dasharray="100 100" stroke-dashoffset="100">{drawn}</path>')
                else:
                    elements.append(f'<path d="{path_data(shape)}"/>')
        # Lottie paints a group's earlier items on top: SVG paints later elements on top.
        return f'<g {" ".join(paint)}>{"".join(reversed(elements))}</g>'

    def layer(self, layer: dict) -> str:
        transform = layer["ks"]
        inner = self.shapes(layer["shapes"])
        anchor = transform["a"]["k"]
        if anchor[:2] != [0, 0]:
            inner = f'<g transform="translate({number(-anchor[0])} {number(-anchor[1])})">{inner}</g>'
        inner = self.wrap(
            transform["s"], "animateTransform", "scale", lambda s: f"{number(s[0] / 100)} {number(s[1] / 100)}",
            lambda s: "" if s[:2] == [100, 100] else f'transform="scale({number(s[0] / 100)} {number(s[1] / 100)})"', inner,
        )
        inner = self.wrap(
            transform["p"], "animateTransform", "translate", lambda p: f"{number(p[0])} {number(p[1])}",
            lambda p: "" if p[:2] == [0, 0] else f'transform="translate({number(p[0])} {number(p[1])})"', inner,
        )
        return self.wrap(
            transform["o"], "animate", "opacity", lambda o: number(o[0] / 100),
            lambda o: "" if o == 100 else f'opacity="{number(o / 100)}"', inner,
        )

    def svg(self) -> str:
        # Lottie's first layer is on top: SVG draws the last element on top.
        body = "".join(self.layer(layer) for layer in reversed(self.lottie["layers"]))
        width, height = self.lottie["w"], self.lottie["h"]
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}">'
            f"<title>{self.lottie['nm']}</title>{body}</svg>"
        )


def swift_source(svg: str, lottie: dict) -> str:
    seconds = number((lottie["op"] - lottie["ip"]) / lottie["fr"])
    return f'''// Made by scripts/make-onboarding-animation.py from the same description as the app's
// Apple/App/Onboarding/onboarding.json: do not edit by hand (scripts/check-onboarding-animation.py
// checks that the two are in step).

/// The onboarding's animation as an SVG (the app plays the same one as a Lottie file): a page with
/// ads, a shield rising over it while the ads fade out, a check mark drawn on the shield, in
/// {seconds} seconds, played once. SVG and its own animations (SMIL): no style sheet, no script.
enum OnboardingAnimation {{
    /// Its length in seconds.
    static let seconds = {seconds}
    /// The SVG document.
    static let svg = ##"""
        {svg}
        """##
}}
'''


def outputs() -> dict[Path, str]:
    lottie = animation()
    return {
        LOTTIE_PATH: json.dumps(lottie, separators=(",", ":")) + "\n",
        SWIFT_PATH: swift_source(SVGExport(lottie).svg(), lottie),
    }


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for target, text in outputs().items():
        if check:
            if not target.exists() or target.read_text() != text:
                stale.append(str(target.relative_to(ROOT)))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            print(f"wrote {target.relative_to(ROOT)} ({len(text):,} bytes)")
    if stale:
        print("out of step with scripts/make-onboarding-animation.py (run it): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
