#!/usr/bin/env python3
"""Writes the rough floor of the column collapse (binary STL, mm).

    python3 scenes/make_rough_floor_stl.py            # scenes/collapse_floor.stl (324 mm)
    python3 scenes/make_rough_floor_stl.py 540 out.stl

Square pyramids of base 2.25 mm and height 0.6 mm, apexes up, side by
side from x = 0 to the given length (rounded up to whole pyramids) and
across y from -2.25 to 11.25 mm: the 9 mm slab of scenes/collapse.toml,
periodic across y, and one pyramid beyond it on either side. The same
triangles as `rough_floor` in src/validate/cases/collapse.rs (a unit test
compares them). Normals face up. Python 3 standard library only; the same
bytes on every run.
"""

import math
import os
import stl_binary
import sys

PITCH = 2.25  # mm
HEIGHT = 0.6  # mm
ACROSS = 4  # pyramids across the slab


def floor(length):
    nx = math.ceil(length / PITCH)
    tris = []
    for i in range(nx):
        for j in range(-1, ACROSS + 1):
            x0, y0 = i * PITCH, j * PITCH
            x1, y1 = x0 + PITCH, y0 + PITCH
            apex = (0.5 * (x0 + x1), 0.5 * (y0 + y1), HEIGHT)
            c = [(x0, y0, 0.0), (x1, y0, 0.0), (x1, y1, 0.0), (x0, y1, 0.0)]
            for k in range(4):
                # counter-clockwise seen from above: normals up
                tris.append((c[k], c[(k + 1) % 4], apex))
    return tris


if __name__ == "__main__":
    length = float(sys.argv[1]) if len(sys.argv) > 1 else 324.0
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "collapse_floor.stl")
    tris = floor(length)
    stl_binary.write(out, tris, "talus rough floor")
    print("%s: %d triangles, %g mm long" % (out, len(tris), length))
