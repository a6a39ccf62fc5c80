#!/usr/bin/env python3
"""Writes the flat silo bottom with a round orifice (binary STL, mm).

    python3 scenes/make_orifice_stl.py            # writes scenes/orifice_12mm.stl
    python3 scenes/make_orifice_stl.py 10 out.stl # a 10 mm orifice

An annulus in the plane z = 0 from the orifice (diameter D, default 12 mm)
out to radius 21 mm (the silo of scenes/beverloo_silo.toml is 40 mm across).
The hole is a 64-gon with the circle's area; the rings grow geometrically so
the triangles stay about as wide as long. Normals face up (+z), toward the
beads. Python 3 standard library only; the same bytes on every run.
"""

import math
import os
import stl_binary
import sys

N = 64
OUTER = 21.0  # mm


def plate(diameter):
    th = 2.0 * math.pi / N
    equal_area = math.sqrt(2.0 * math.pi / (N * math.sin(th)))
    radii = [0.5 * diameter * equal_area]
    while radii[-1] < OUTER:
        r = radii[-1]
        nxt = min(r * (1.0 + th), OUTER)
        if OUTER - nxt < 0.3 * r * th:
            nxt = OUTER
        radii.append(nxt)

    def p(r, k):
        return (r * math.cos(th * k), r * math.sin(th * k), 0.0)

    tris = []
    for r0, r1 in zip(radii, radii[1:]):
        for k in range(N):
            a, b, c, d = p(r0, k), p(r0, k + 1), p(r1, k + 1), p(r1, k)
            # counter-clockwise seen from above: normals up
            tris.append((a, c, b))
            tris.append((a, d, c))
    return tris


if __name__ == "__main__":
    d = float(sys.argv[1]) if len(sys.argv) > 1 else 12.0
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "orifice_%gmm.stl" % d)
    tris = plate(d)
    stl_binary.write(out, tris, "talus orifice plate")
    print("%s: %d triangles, orifice %g mm" % (out, len(tris), d))
