#!/usr/bin/env python3
"""Writes the closed rotating drum mesh shipped with the scenes (ASCII STL).

    python3 scenes/make_drum_stl.py              # writes scenes/drum.stl

The drum of scenes/drum.toml as a CAD export would give it: a closed
cylinder, radius 50 mm, 40 mm long, axis along +y from y = 0 to y = 40 mm,
in millimetres (a scene reads it with `scale = 0.001`). The lateral surface
is 96 facets around (every vertex exactly on the circle, so a facet's
middle lies 0.027 mm inside it), one band of two long triangles per facet
from end to end; each end cap is a fan of 96 triangles around its centre,
sharing the rim vertices with the lateral surface (a watertight mesh). All
normals (counter-clockwise vertex order) face inward, toward the particles.

ASCII because LIGGGHTS 3.8 (`fix mesh/surface`, validation/liggghts/drum.py)
reads ASCII STL only; talus reads either. Python 3 standard library only;
the output is the same bytes on every run. 384 triangles.
"""

import math
import os

RADIUS = 50.0  # mm
LENGTH = 40.0  # mm, along +y
AROUND = 96


def drum(around):
    """Triangles [(a, b, c)], normals facing inward."""
    th = [2.0 * math.pi * k / around for k in range(around)]
    # the angle measured from +z toward +x (a turn about +y)
    ring = lambda y: [(RADIUS * math.sin(t), y, RADIUS * math.cos(t)) for t in th]
    back, front = ring(0.0), ring(LENGTH)
    c0, c1 = (0.0, 0.0, 0.0), (0.0, LENGTH, 0.0)
    tris = []
    for k in range(around):
        k1 = (k + 1) % around
        a, b, c, d = back[k], back[k1], front[k1], front[k]
        # lateral quad; (a, b, c) turns +z -> +x (about +y), so its normal
        # u x v with u along the turn and v along +y points inward
        tris.append((a, c, b))
        tris.append((a, d, c))
        # caps: back (y = 0) faces +y, front (y = L) faces -y
        tris.append((c0, back[k], back[k1]))
        tris.append((c1, front[k1], front[k]))
    return tris


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def unit_normal(t):
    n = cross(sub(t[1], t[0]), sub(t[2], t[0]))
    length = math.sqrt(n[0] ** 2 + n[1] ** 2 + n[2] ** 2)
    return (n[0] / length, n[1] / length, n[2] / length)


def check(tris):
    """Every normal faces the inside (toward the drum's centre point)."""
    mid = (0.0, LENGTH / 2.0, 0.0)
    for t in tris:
        n = unit_normal(t)
        c = [sum(p[k] for p in t) / 3.0 for k in range(3)]
        to_mid = sub(mid, c)
        assert sum(n[k] * to_mid[k] for k in range(3)) > 0.0, "normal faces outward"


def write_stl(path, tris, name):
    with open(path, "w", newline="\n") as f:
        f.write(f"solid {name}\n")
        for t in tris:
            n = unit_normal(t)
            f.write(f"  facet normal {n[0]:.7e} {n[1]:.7e} {n[2]:.7e}\n    outer loop\n")
            for p in t:
                f.write(f"      vertex {p[0]:.9e} {p[1]:.9e} {p[2]:.9e}\n")
            f.write("    endloop\n  endfacet\n")
        f.write(f"endsolid {name}\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    tris = drum(AROUND)
    check(tris)
    path = os.path.join(here, "drum.stl")
    write_stl(path, tris, "drum")
    print(f"{path}: {len(tris)} triangles, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
