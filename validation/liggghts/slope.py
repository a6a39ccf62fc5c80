#!/usr/bin/env python3
"""Particles on the slope of `talus validate --full` (case "slope",
src/validate/cases/slope.rs) in LIGGGHTS 3.8: the front's arrival at the
end wall, its speed half-way down, the deposit's extent up the slope and
its surface's angle, written to slope_results.csv beside this file
(quantity,value), which the talus case reads into its rows.

Run by hand (not in CI):  validation/liggghts/run.sh slope
                     or:  python3 validation/liggghts/slope.py
Needs `liggghts` on PATH (Debian: apt-get install liggghts) and python3.

Same inputs as the talus case: 10 000 glass beads (r uniform in 0.9-1.1
mm, 2500 kg/m3, E = 5 MPa, nu = 0.25, e = 0.5, mu = 0.5, no rolling
friction), model `hertz tangential history`; dt = 1e-5 s; a plane floor
z = 0 with gravity turned by 30 degrees about y (g sin 30, 0, -g cos 30);
back wall x = 0 and end wall x = 0.3 m as primitive planes; the slab 9 mm
deep, periodic across y. The beads are those of scenes/slope.csv, the
file talus' scene reads (scenes/make_slope_csv.py), at rest, dropped; the
front and the deposit are measured every 5 ms with the talus case's
estimators, step for step.
"""
import math
import os
import tempfile
import time

import collapse as c

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scenes", "slope.csv")
THETA, LENGTH, END, SAMPLE = 30.0, 0.30, 1.0, 0.005


def beads():
    """The starting beads of scenes/slope.csv (what talus' scene reads):
    [((x, y, z), r)] and the highest top."""
    rows = open(CSV).read().split("\n")[1:]
    out = []
    for line in rows:
        if line.strip():
            v = line.split(",")
            out.append(((float(v[0]), float(v[1]), float(v[2])), float(v[9])))
    return out


def floor_front(pos_rad):
    return c.front([p for p in pos_rad if p[2] < 4.0 * c.D], from_densest=True)


def profile(pos_rad):
    n = math.ceil(LENGTH / c.D)
    top = [0.0] * n
    for p in pos_rad:
        i = min(max(int(math.floor(p[0] / c.D)), 0), n - 1)
        top[i] = max(top[i], p[2] + p[3])
    return [((i + 0.5) * c.D, h) for i, h in enumerate(top)]


def extent(prof):
    x0 = LENGTH
    for x, h in reversed(prof):
        if h < 2.0 * c.D:
            break
        x0 = x - 0.5 * c.D
    return LENGTH - x0


def fit_slope(pts):
    n = len(pts)
    mx = sum(p[0] for p in pts) / n
    my = sum(p[1] for p in pts) / n
    sxy = sum((p[0] - mx) * (p[1] - my) for p in pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sxy / sxx


def surface_angle(prof):
    h_max = max(p[1] for p in prof)
    pts = [p for p in prof if 0.2 * h_max <= p[1] <= 0.8 * h_max]
    if len(pts) < 4:
        return float("nan")
    return math.degrees(math.atan(fit_slope(pts))) - THETA


def main():
    t = math.radians(THETA)
    start = beads()
    top = max(p[2] + r for p, r in start)
    with tempfile.TemporaryDirectory(prefix="talus-slope-") as tmp:
        c.write_data(tmp, "talus slope", start, ((0.0, LENGTH), (0.0, c.DEPTH), (-0.001, top + 0.01)))
        every, steps = round(SAMPLE / c.DT), round(END / c.DT)
        script = c.head() + f"""fix gravi all gravity {c.G} vector {math.sin(t):.16e} 0.0 {-math.cos(t):.16e}
fix floor all wall/gran model hertz tangential history primitive type 1 zplane 0.0
fix back all wall/gran model hertz tangential history primitive type 1 xplane 0.0
fix end all wall/gran model hertz tangential history primitive type 1 xplane {LENGTH:.16e}
fix integr all nve/sphere
thermo 10000
dump d all custom {every} fronts.txt id x y z radius
dump_modify d sort id format "%d %.10e %.10e %.10e %.10e"
run {steps}
"""
        t0 = time.time()
        c.liggghts(tmp, script)
        snaps = c.read_dump(os.path.join(tmp, "fronts.txt"))
    fronts = [(s * c.DT, floor_front(p)) for s, p in snaps if s > 0]
    arrival = next((tt for tt, f in fronts if f >= LENGTH - 2.0 * c.D), float("nan"))
    mid = [(tt, f) for tt, f in fronts if tt < arrival and abs(f - 0.5 * LENGTH) <= 0.03]
    prof = profile(snaps[-1][1])
    res = {
        "arrival_s": arrival,
        "mid_speed": fit_slope(mid) if len(mid) >= 2 else float("nan"),
        "extent_m": extent(prof),
        "angle_deg": surface_angle(prof),
        "beads_left": len(snaps[-1][1]),
        "seconds": time.time() - t0,
    }
    print(", ".join(f"{k} {v:.4g}" for k, v in res.items()), flush=True)
    out = os.path.join(HERE, "slope_results.csv")
    open(out, "w").write("quantity,value\n" + "".join(f"{k},{v:.6g}\n" for k, v in res.items()))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
