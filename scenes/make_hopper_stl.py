#!/usr/bin/env python3
"""Writes the conical hopper meshes shipped with the scenes (binary STL).

    python3 scenes/make_hopper_stl.py            # writes scenes/hopper.stl and scenes/hopper_fine.stl

The hopper is the lateral surface of a frustum, axis along +z, outlet
(radius 8 mm) at z = 0, top (radius 50 mm) at z = 80 mm, in millimetres (so
a scene reads it with `scale = 0.001`). Like a mesh exported from CAD it is
not a perfect surface of revolution: the vertices of each ring are spaced
unevenly around the axis and the rings unevenly along it (a deterministic
pseudo-random jitter; the vertices stay exactly on the cone), and each quad
is split along a diagonal chosen at random. Triangles are counter-clockwise
seen from the axis, so their normals face inward, toward the particles.

Python 3 standard library only; the output is the same bytes on every run.

    hopper.stl       64 around x 10 rings   -> 1280 triangles, 64 kB
    hopper_fine.stl 100 around x 50 rings   -> 10000 triangles, 0.5 MB
"""

import math
import os
import random
import struct

R_OUTLET = 8.0  # mm, at z = 0
R_TOP = 50.0  # mm, at z = HEIGHT
HEIGHT = 80.0  # mm


def radius(z):
    return R_OUTLET + (R_TOP - R_OUTLET) * z / HEIGHT


def hopper(around, rings, seed):
    """Triangles [(a, b, c)] of the frustum, `around` vertices per ring and
    `rings` bands of quads between `rings + 1` rings."""
    rng = random.Random(seed)
    # ring heights: uniform bands with up to +-30 % jitter, ends exact
    dz = HEIGHT / rings
    zs = [0.0] + [k * dz + rng.uniform(-0.3, 0.3) * dz for k in range(1, rings)] + [HEIGHT]
    dth = 2.0 * math.pi / around
    ring_pts = []
    for j, z in enumerate(zs):
        # each ring turned by its own offset, vertices jittered by up to +-30 %
        turn = rng.uniform(0.0, 1.0) * dth
        ths = [turn + (k + rng.uniform(-0.3, 0.3)) * dth for k in range(around)]
        r = radius(z)
        ring_pts.append([(r * math.cos(t), r * math.sin(t), z) for t in ths])
    tris = []
    for j in range(rings):
        lo, hi = ring_pts[j], ring_pts[j + 1]
        for k in range(around):
            k1 = (k + 1) % around
            p00, p10, p11, p01 = lo[k], lo[k1], hi[k1], hi[k]
            # (p00, p10, p11) turns counter-clockwise about +z, then up:
            # its normal points outward; reversed, inward
            if rng.random() < 0.5:
                quad = [(p00, p11, p10), (p00, p01, p11)]
            else:
                quad = [(p00, p01, p10), (p10, p01, p11)]
            tris.extend(quad)
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
    """Every normal faces the axis (inward) and no triangle is degenerate."""
    for t in tris:
        n = unit_normal(t)
        cx = sum(p[0] for p in t) / 3.0
        cy = sum(p[1] for p in t) / 3.0
        assert n[0] * cx + n[1] * cy < 0.0, "normal does not face the axis"


def write_stl(path, tris, name):
    header = ("talus " + name + " (scenes/make_hopper_stl.py), mm").encode("ascii")
    with open(path, "wb") as f:
        f.write(header.ljust(80, b" ")[:80])
        f.write(struct.pack("<I", len(tris)))
        for t in tris:
            f.write(struct.pack("<3f", *unit_normal(t)))
            for p in t:
                f.write(struct.pack("<3f", *p))
            f.write(struct.pack("<H", 0))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for name, around, rings, seed in [
        ("hopper", 64, 10, 1),
        ("hopper_fine", 100, 50, 2),
    ]:
        tris = hopper(around, rings, seed)
        check(tris)
        path = os.path.join(here, name + ".stl")
        write_stl(path, tris, name)
        print(f"{path}: {len(tris)} triangles, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
