"""Goldens for Strata's colour ramps (src/services/render/colorSpaces.ts, colorRampJson.ts,
esriColorRamps.ts), computed with scikit-image's colour conversions, never with Strata.

Run from the repository root with a venv holding numpy and scikit-image:
    /tmp/v/bin/python scripts/goldens/make_colour_ramp_goldens.py
Writes test/golden/render/colour_ramps.json:
- "conversions": sRGB colours (0..255) with skimage's HSV (h in degrees), CIE Lab (D65, 2°)
  and LCh (h in radians).
- "ramps": ArcGIS colour-ramp JSON and the 256 colours of its table: entry i is the colour at
  t = i/255; a multipart ramp's P parts each take [p/P, (p+1)/P) (the last also t = 1);
  within a part u in [0, 1] interpolates the ends in the algorithm's space: Lab straight, HSV
  and LCh with the hue turned the short way (a grey end takes the other's hue), then back to
  sRGB clipped to the gamut and rounded half away from zero. The named ramps' stops are
  copied from @arcgis/core 5.1.25 (renderers/support/colorRampUtils.js), parts in Lab.
"""
import json
import math
import pathlib
import warnings

import numpy as np
from skimage import color

warnings.simplefilter("ignore")  # lab2rgb warns when it clips out-of-gamut colours


def rgb_to_hsv(c):
    h, s, v = color.rgb2hsv(np.array([[c]], dtype=float) / 255)[0, 0]
    return [h * 360, s, v]


def hsv_to_rgb(h, s, v):
    return color.hsv2rgb(np.array([[[(h % 360) / 360, s, v]]]))[0, 0] * 255


def rgb_to_lab(c):
    return list(color.rgb2lab(np.array([[c]], dtype=float) / 255)[0, 0])


def lab_to_rgb(lab):
    return color.lab2rgb(np.array([[lab]], dtype=float))[0, 0] * 255


def lab_to_lch(lab):
    return list(color.lab2lch(np.array([[lab]], dtype=float))[0, 0])


def lch_to_lab(lch):
    return list(color.lch2lab(np.array([[lch]], dtype=float))[0, 0])


def short_turn(d, full):
    if d > full / 2:
        return d - full
    if d < -full / 2:
        return d + full
    return d


def part_colour(part, u):
    a, b, alg = part["fromColor"][:3], part["toColor"][:3], part.get("algorithm", "esriCIELabAlgorithm")
    if alg == "esriCIELabAlgorithm":
        la, lb = rgb_to_lab(a), rgb_to_lab(b)
        return lab_to_rgb([x + (y - x) * u for x, y in zip(la, lb)])
    if alg == "esriHSVAlgorithm":
        ha, hb = rgb_to_hsv(a), rgb_to_hsv(b)
        h0, h1 = ha[0], hb[0]
        if ha[1] == 0 and hb[1] != 0:
            h0 = h1
        elif hb[1] == 0 and ha[1] != 0:
            h1 = h0
        h = h0 + short_turn(h1 - h0, 360) * u
        return hsv_to_rgb(h, ha[1] + (hb[1] - ha[1]) * u, ha[2] + (hb[2] - ha[2]) * u)
    ca, cb = lab_to_lch(rgb_to_lab(a)), lab_to_lch(rgb_to_lab(b))
    h0, h1 = ca[2], cb[2]
    if ca[1] < 1e-3 <= cb[1]:
        h0 = h1
    elif cb[1] < 1e-3 <= ca[1]:
        h1 = h0
    h = h0 + short_turn(h1 - h0, 2 * math.pi) * u
    return lab_to_rgb(lch_to_lab([ca[0] + (cb[0] - ca[0]) * u, ca[1] + (cb[1] - ca[1]) * u, h]))


def table(ramp):
    parts = ramp["colorRamps"] if ramp["type"] == "multipart" else [ramp]
    out = []
    for i in range(256):
        scaled = i / 255 * len(parts)
        p = min(len(parts) - 1, math.floor(scaled))
        c = np.clip(part_colour(parts[p], scaled - p), 0, 255)
        out.append([int(math.floor(x + 0.5)) for x in c])
    return out


def lab_parts(*stops):
    return [{"type": "algorithmic", "algorithm": "esriCIELabAlgorithm", "fromColor": a, "toColor": b} for a, b in stops]


NAMED = {
    "Elevation #1": lab_parts(
        ([175, 240, 233], [255, 255, 179]), ([255, 255, 179], [0, 128, 64]), ([0, 128, 64], [252, 186, 3]),
        ([252, 186, 3], [128, 0, 0]), ([120, 0, 0], [105, 48, 13]), ([105, 48, 13], [171, 171, 171]),
        ([171, 171, 171], [255, 252, 255])),
    "Temperature": lab_parts(
        ([255, 252, 255], [255, 0, 255]), ([255, 0, 255], [0, 0, 255]), ([0, 0, 255], [0, 255, 255]),
        ([0, 255, 255], [0, 255, 0]), ([0, 255, 0], [255, 255, 0]), ([255, 255, 0], [255, 128, 0]),
        ([255, 128, 0], [128, 0, 0])),
    "Slope": lab_parts(([56, 168, 0], [255, 255, 0]), ([255, 255, 0], [255, 0, 0])),
    "Yellow to Red": lab_parts(([245, 245, 0], [255, 0, 0])),
}

RAMPS = [
    ("hsv, from the SDK's algorithmic example",
     {"type": "algorithmic", "algorithm": "esriHSVAlgorithm", "fromColor": [10, 20, 200, 255], "toColor": [250, 240, 10, 255]}),
    ("hsv, grey start takes the end's hue",
     {"type": "algorithmic", "algorithm": "esriHSVAlgorithm", "fromColor": [128, 128, 128], "toColor": [255, 0, 0]}),
    ("hsv, hue wraps through red",
     {"type": "algorithmic", "algorithm": "esriHSVAlgorithm", "fromColor": [255, 0, 64], "toColor": [255, 64, 0]}),
    ("lab", {"type": "algorithmic", "algorithm": "esriCIELabAlgorithm", "fromColor": [0, 0, 255, 255], "toColor": [255, 200, 0, 255]}),
    ("lch", {"type": "algorithmic", "algorithm": "esriLabLChAlgorithm", "fromColor": [0, 0, 255], "toColor": [255, 200, 0]}),
    ("multipart lch + lab, from the SDK's custom multipart example",
     {"type": "multipart", "colorRamps": [
         {"type": "algorithmic", "algorithm": "esriLabLChAlgorithm", "fromColor": [0, 0, 128, 255], "toColor": [255, 255, 255, 255]},
         {"type": "algorithmic", "algorithm": "esriCIELabAlgorithm", "fromColor": [255, 255, 255, 255], "toColor": [128, 0, 0, 255]}]}),
]

COLOURS = [[0, 0, 0], [255, 255, 255], [255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 128, 0], [10, 20, 200],
           [250, 240, 10], [128, 128, 128], [175, 240, 233], [120, 0, 0], [1, 2, 3], [200, 100, 250]]


def main():
    out = {
        "conversions": [
            {"rgb": c, "hsv": rgb_to_hsv(c), "lab": rgb_to_lab(c), "lch": lab_to_lch(rgb_to_lab(c))} for c in COLOURS
        ],
        "ramps": [{"label": label, "ramp": ramp, "table": table(ramp)} for label, ramp in RAMPS],
        "named": [
            {"name": name, "table": table({"type": "multipart", "colorRamps": parts} if len(parts) > 1 else parts[0])}
            for name, parts in NAMED.items()
        ],
    }
    path = pathlib.Path("test/golden/render/colour_ramps.json")
    path.write_text(json.dumps(out, default=float) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
