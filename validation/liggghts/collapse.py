#!/usr/bin/env python3
"""The column collapse of `talus validate --full` (case "collapse",
src/validate/cases/collapse.rs) in LIGGGHTS 3.8, side by side: the run-out
and the front at the same aspect ratios, printed and written to
collapse_results.csv beside this file (a,quantity,value; the rows of
other aspect ratios already there are kept).

Run by hand (not in CI):  validation/liggghts/run.sh collapse [a ...]
                     or:  python3 validation/liggghts/collapse.py [a ...]
Needs `liggghts` on PATH (Debian: apt-get install liggghts) and python3.
Compare with talus on the same set-up (a plane floor, no rolling friction):

  talus validate --full --cases collapse --set collapse.floor=plane \\
      --set collapse.rolling=0 --set collapse.only=1,3

Same inputs as the talus case: glass beads (r uniform in 0.9-1.1 mm, 2500
kg/m3, E = 5 MPa, nu = 0.25, e = 0.5, mu = 0.5), model `hertz tangential
history` (talus' law), no rolling friction (LIGGGHTS' cdt and epsd models
are not talus' rolling law); dt = 1e-5 s; the slab 9 mm deep and periodic
across y; floor, back wall and gate as primitive planes (`fix wall/gran
... primitive`), the gate removed (`unfix`) at the release, where talus
pulls it away at 5 m/s. The beads are placed at random in the same box as
talus' (random sequential addition, Python's random with a fixed seed, so
not talus' draws), rain down and settle until the same release time; the
front and the top are measured every 2 ms with the talus case's
estimators, step for step (`front`, `mean_top`).
"""
import math
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LIGGGHTS = os.environ.get("LIGGGHTS", "liggghts")

# the constants of src/validate/cases/collapse.rs
G, RMIN, RMAX, D, SPACING = 9.81, 0.0009, 0.0011, 0.002, 0.00225
SITES_X, SITES_Y = 16, 4
WIDTH, DEPTH = SITES_X * SPACING, SITES_Y * SPACING
SIZED_FOR, RAIN, DT, SAMPLE, BUMP_HEIGHT = 0.60, 0.25, 1.0e-5, 0.002, 0.0006
RHO = 2500.0
MEAN_R3 = (RMAX**4 - RMIN**4) / (4.0 * (RMAX - RMIN))


def layers(a):
    lattice = 4.0 / 3.0 * math.pi * MEAN_R3 / SPACING**3
    return math.ceil(a * WIDTH * SIZED_FOR / (lattice * SPACING))


def rain_height(a):
    solid = layers(a) * SITES_X * SITES_Y * 4.0 / 3.0 * math.pi * MEAN_R3
    return BUMP_HEIGHT + math.ceil(1e3 * solid / (RAIN * WIDTH * DEPTH)) / 1e3


def ceil_cs(t):
    return math.ceil(t * 100.0) / 100.0


def schedule(a):
    release = ceil_cs(0.15 + 2.5 * math.sqrt(rain_height(a) / G))
    end = release + ceil_cs(6.0 * math.sqrt(a * WIDTH / G))
    return release, end, WIDTH * (3.0 + 2.0 * a)


def place(a):
    """Random sequential addition of the case's count in its box."""
    rng = random.Random(11)
    n = layers(a) * SITES_X * SITES_Y
    top = rain_height(a)
    radii = sorted((rng.uniform(RMIN, RMAX) for _ in range(n)), reverse=True)
    cell = 2 * RMAX
    grid, out = {}, []
    for r in radii:
        for _ in range(100000):
            p = (rng.uniform(r, WIDTH - r), rng.uniform(0.0, DEPTH), rng.uniform(BUMP_HEIGHT + r, top - r))
            c = tuple(int(math.floor(p[k] / cell)) for k in range(3))
            ok = True
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    for dz in (-1, 0, 1):
                        for q, rq in grid.get((c[0] + dx, c[1] + dy, c[2] + dz), []):
                            ddy = p[1] - q[1]
                            ddy -= DEPTH * round(ddy / DEPTH)  # periodic across y
                            if (p[0] - q[0]) ** 2 + ddy**2 + (p[2] - q[2]) ** 2 < (r + rq) ** 2:
                                ok = False
            if ok:
                grid.setdefault(c, []).append((p, r))
                out.append((p, r))
                break
        else:
            sys.exit(f"a = {a}: placed only {len(out)} of {n}")
    return out


def front(pos_rad, from_densest=False):
    """talus' collapse::front_from, step for step."""
    x_max = max([p[0] for p in pos_rad] + [0.0]) + D
    full = [0] * (math.ceil(x_max / D) + 1)
    for p in pos_rad:
        if p[0] >= 0.0:
            full[int(math.floor(p[0] / D))] += 1
    start = 0
    if from_densest:
        for i, n in enumerate(full):
            if n > full[start]:
                start = i
    last = start
    for i in range(start, len(full)):
        if full[i] > 0:
            last = i
        elif i > last + 1:
            break
    return max([p[0] + p[3] for p in pos_rad if p[0] >= 0.0 and math.floor(p[0] / D) <= last] + [0.0])


def mean_top(pos_rad, x0, x1):
    """talus' collapse::mean_top, step for step."""
    n = max(math.ceil(x1 / D), 1)
    top = [None] * n
    for p in pos_rad:
        i = math.floor(p[0] / D)
        if 0 <= i < n:
            h = p[2] + p[3]
            top[i] = h if top[i] is None else max(top[i], h)
    tops = [t for t in top[int(math.floor(x0 / D)) :] if t is not None]
    return sum(tops) / len(tops) if tops else 0.0


def read_dump(path):
    """Snapshots of a dump `id x y z radius`: (step, [[x, y, z, r]])."""
    snaps, lines, i = [], open(path).read().split("\n"), 0
    step = 0
    while i < len(lines):
        if lines[i].startswith("ITEM: TIMESTEP"):
            step = int(lines[i + 1])
        if lines[i].startswith("ITEM: NUMBER OF ATOMS"):
            n = int(lines[i + 1])
        if lines[i].startswith("ITEM: ATOMS"):
            snaps.append((step, [[float(x) for x in l.split()[1:5]] for l in lines[i + 1 : i + 1 + n]]))
            i += n
        i += 1
    return snaps


def write_data(tmp, title, beads, box):
    """in.data in tmp: the beads [((x, y, z), r)] in the box ((lo, hi) per
    axis), one atom type."""
    lines = [title, "", f"{len(beads)} atoms", "1 atom types", ""]
    for (lo, hi), ax in zip(box, "xyz"):
        lines.append(f"{lo:.10e} {hi:.10e} {ax}lo {ax}hi")
    lines += ["", "Atoms", ""]
    for i, (p, r) in enumerate(beads):
        lines.append(f"{i+1} 1 {2*r:.16e} {RHO:.16e} {p[0]:.16e} {p[1]:.16e} {p[2]:.16e}")
    open(os.path.join(tmp, "in.data"), "w").write("\n".join(lines) + "\n")


def head():
    """The input script up to the time step: the slab periodic across y,
    the glass beads' Hertz-Mindlin law (talus' law), no rolling friction."""
    return f"""atom_style granular
atom_modify map array
boundary f p f
newton off
communicate single vel yes
units si
hard_particles yes
read_data in.data
neighbor {0.2 * RMAX:.6e} bin
neigh_modify delay 0
fix m1 all property/global youngsModulus peratomtype 5.0e6
fix m2 all property/global poissonsRatio peratomtype 0.25
fix m3 all property/global coefficientRestitution peratomtypepair 1 0.5
fix m4 all property/global coefficientFriction peratomtypepair 1 0.5
pair_style gran model hertz tangential history
pair_coeff * *
timestep {DT:.16e}
"""


def liggghts(tmp, script):
    """Runs the script in tmp; exits with a line on failure."""
    open(os.path.join(tmp, "in.run"), "w").write(script)
    r = subprocess.run([LIGGGHTS, "-in", "in.run", "-log", "log.txt", "-screen", "screen.txt"], cwd=tmp)
    if r.returncode != 0:
        sys.exit(f"liggghts failed in {tmp}: see {tmp}/log.txt")


def run(a, tmp):
    release, end, length = schedule(a)
    beads = place(a)
    top = rain_height(a)
    write_data(tmp, "talus collapse", beads, ((0.0, length), (0.0, DEPTH), (-0.001, top + 0.01)))
    n_release, n_end, every = round(release / DT), round(end / DT), round(SAMPLE / DT)
    script = head() + f"""fix gravi all gravity {G} vector 0.0 0.0 -1.0
fix floor all wall/gran model hertz tangential history primitive type 1 zplane 0.0
fix back all wall/gran model hertz tangential history primitive type 1 xplane 0.0
fix gate all wall/gran model hertz tangential history primitive type 1 xplane {WIDTH:.16e}
fix integr all nve/sphere
thermo 10000
run {n_release}
unfix gate
dump d all custom {every} fronts.txt id x y z radius
dump_modify d sort id format "%d %.10e %.10e %.10e %.10e"
run {n_end - n_release}
"""
    t0 = time.time()
    liggghts(tmp, script)
    snaps = read_dump(os.path.join(tmp, "fronts.txt"))
    first = snaps[0][1]
    height = mean_top(first, 0.0, WIDTH)
    top_before = mean_top(first, 0.0, WIDTH / 4.0)
    fronts = [((s - n_release) * DT, front(p)) for s, p in snaps]
    last = snaps[-1][1]
    runout = fronts[-1][1]
    stop = next(t for t, f in fronts if f >= runout - D)
    tau = math.sqrt(height / G)
    res = {
        "aspect_ratio": height / WIDTH,
        "runout_ratio": (runout - WIDTH) / WIDTH,
        "stop_time_tau": stop / tau,
        "top_ratio": mean_top(last, 0.0, WIDTH / 4.0) / top_before,
        "beads_left": len(last),
        "seconds": time.time() - t0,
    }
    print(f"a = {a}: " + ", ".join(f"{k} {v:.4g}" for k, v in res.items()), flush=True)
    return res


def main():
    ratios = [float(x) for x in sys.argv[1:]] or [1.0, 3.0]
    rows = []
    for a in ratios:
        with tempfile.TemporaryDirectory(prefix="talus-collapse-") as tmp:
            for k, v in run(a, tmp).items():
                rows.append(f"{a:g},{k},{v:.6g}")
    # keep the rows of the other aspect ratios already in the file
    out = os.path.join(HERE, "collapse_results.csv")
    done = {f"{a:g}" for a in ratios}
    if os.path.exists(out):
        old = open(out).read().split("\n")[1:]
        rows = [r for r in old if r and r.split(",")[0] not in done] + rows
    rows.sort(key=lambda r: float(r.split(",")[0]))
    open(out, "w").write("a,quantity,value\n" + "\n".join(rows) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
