#!/usr/bin/env python3
"""Writes the starting beads of scenes/slope.toml (Chiou's particles on the
slope): scenes/slope.csv, talus' particle CSV (x,y,z,vx,vy,vz,wx,wy,wz,
radius,material).

    python3 scenes/make_slope_csv.py

10 000 glass beads, radius uniform in 0.9-1.1 mm, placed by random
sequential addition (largest first; Python's random, seed 13) in the box
x 0-100 mm, y 0-9 mm (periodic: images across y count), z 10-199 mm, at
least 1 um apart, coordinates to 0.1 um. The LIGGGHTS side by side
(validation/liggghts/slope.py) starts from the same file, so both codes
drop the same beads. Python 3 standard library only; the same bytes on
every run.
"""

import math
import os
import random

COUNT, RMIN, RMAX = 10000, 0.0009, 0.0011
LENGTH, DEPTH, FROM = 0.10, 0.009, 0.01
MEAN_R3 = (RMAX**4 - RMIN**4) / (4.0 * (RMAX - RMIN))
GAP = 1e-6


def top():
    solid = COUNT * 4.0 / 3.0 * math.pi * MEAN_R3
    return FROM + math.ceil(1e3 * solid / (0.25 * LENGTH * DEPTH)) / 1e3


def place():
    rng = random.Random(13)
    hi = top()
    radii = sorted((round(rng.uniform(RMIN, RMAX), 7) for _ in range(COUNT)), reverse=True)
    cell = 2 * RMAX + GAP
    ny = int(DEPTH // cell) + 1
    grid, out = {}, []
    for r in radii:
        for _ in range(100000):
            p = tuple(
                round(v, 7)
                for v in (rng.uniform(r, LENGTH - r), rng.uniform(0.0, DEPTH), rng.uniform(FROM + r, hi - r))
            )
            k = (int(p[0] // cell), int(p[1] // cell), int(p[2] // cell))
            ok = True
            for dx in (-1, 0, 1):
                for ky in range(ny):  # every row across y: its images are neighbours too
                    for dz in (-1, 0, 1):
                        for q, rq in grid.get((k[0] + dx, ky, k[2] + dz), []):
                            ddy = p[1] - q[1]
                            ddy -= DEPTH * round(ddy / DEPTH)
                            if (p[0] - q[0]) ** 2 + ddy**2 + (p[2] - q[2]) ** 2 < (r + rq + GAP) ** 2:
                                ok = False
            if ok:
                grid.setdefault(k, []).append((p, r))
                out.append((p, r))
                break
        else:
            raise SystemExit(f"placed only {len(out)} of {COUNT}")
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "slope.csv")
    with open(path, "w") as f:
        f.write("x,y,z,vx,vy,vz,wx,wy,wz,radius,material\n")
        for p, r in place():
            f.write(f"{p[0]:.7f},{p[1]:.7f},{p[2]:.7f},0,0,0,0,0,0,{r:.7f},glass\n")
    print(f"{path}: {COUNT} beads, z up to {top():.3f} m")


if __name__ == "__main__":
    main()
