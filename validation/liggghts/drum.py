#!/usr/bin/env python3
"""The rotating drum of `talus validate --full` (case "drum",
src/validate/cases/drum.rs) in LIGGGHTS 3.8: the dynamic angle of repose
at the same rotation rates, written to drum_results.csv beside this file
(case,point,quantity,value), which the talus case reads into its rows.

Run by hand (not in CI):  validation/liggghts/run.sh drum
                     or:  python3 validation/liggghts/drum.py [--mu-r X] [omega ...]
--mu-r X (X > 0): rolling springs, `rolling_friction epsd2` with
coefficientRollingFriction X for every pair of types (bead-bead and
bead-wall), from the settling on; talus: --set drum.rolling=X. Its
results go to drum_epsd2_X_results.csv (X as Python's {:g}; the same
columns), which the talus case judges against with that option; without
it, drum_results.csv, no rolling friction.
Needs `liggghts` on PATH (Debian: apt-get install liggghts) and python3.

Same inputs as the talus case: 2000 glass beads (r uniform in 1.8-2.0 mm,
2500 kg/m3, E = 5 MPa, nu = 0.25) with e = 0.5 and mu = 0.4 between beads,
0.5 against the steel drum (E = 200 GPa, nu = 0.3); model `hertz
tangential history` (talus' law), no rolling friction (LIGGGHTS' cdt and
epsd models are not talus' rolling law; epsd2 is, and --mu-r adds it); dt = 1.9e-5 s; the drum is
scenes/drum.stl (mm, scale 0.001) as `fix mesh/surface` with `fix
wall/gran`, turned about +y through the origin by `fix move/mesh ...
rotate` (right-hand rule, as talus' motion). The bed starts on a lattice
in the same region as talus' (spacing 2.2 r_max, the lowest 2000 of 2025
sites; radii from Python's random with a fixed seed, so not talus' draws),
settles 0.3 s in the drum at rest, is stopped, and each rate then starts
from that bed as in talus: the drum turns max(SPIN_UP rad, MIN_SPIN_UP s),
then SAMPLES snapshots spaced over max(WINDOW rad, MIN_WINDOW s) (the same step counts
as talus' `schedule`).

The angle is computed here by surface_angle(), step for step the talus
case's estimator (see its doc comment in drum.rs): the mid-plane slab
|y - L/2| <= L/4, the highest bead of each 4 mm column along x with at
least 3 beads within 2.5 of its radii, the columns in the central 60 % of
the surface's x-range, a least-squares line, atan(-slope) in degrees.
"""
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STL = os.path.join(ROOT, "scenes", "drum.stl")
LIGGGHTS = os.environ.get("LIGGGHTS", "liggghts")

# the constants of src/validate/cases/drum.rs
R_DRUM, LEN, DT, G = 0.05, 0.04, 1.9e-5, 9.81
OMEGAS = [0.5, 1.5, 4.4]
SETTLE, SPIN_UP, MIN_SPIN_UP, WINDOW, MIN_WINDOW, SAMPLES = 0.3, 0.7, 0.3, 1.2, 1.0, 20
RMIN, RMAX, N = 0.0018, 0.002, 2000
REGION = ((-0.0338, 0.0002, -0.0338), (0.0338, LEN - 0.0002, 0.0338))
RHO = 2500.0
MU_R = 0.0  # rolling friction with epsd2 (--mu-r); 0: none, the dry case


HEAD = """atom_style granular
atom_modify map array
boundary f f f
newton off
communicate single vel yes
units si
hard_particles yes
read_data in.data
neighbor {skin:.6e} bin
neigh_modify delay 0
fix m1 all property/global youngsModulus peratomtype 5.0e6 2.0e11
fix m2 all property/global poissonsRatio peratomtype 0.25 0.3
fix m3 all property/global coefficientRestitution peratomtypepair 2 0.5 0.5 0.5 0.5
fix m4 all property/global coefficientFriction peratomtypepair 2 0.4 0.5 0.5 0.6
{rolling_coeff}pair_style gran model hertz tangential history{rolling}
pair_coeff * *
timestep {dt:.16e}
fix gravi all gravity {g} vector 0.0 0.0 -1.0
fix cad all mesh/surface file {stl} type 2 scale 0.001
fix walls all wall/gran model hertz tangential history{rolling} mesh n_meshes 1 meshes cad
fix integr all nve/sphere
thermo 10000
"""


def head():
    """The input's common part: the contact model with or without epsd2."""
    rolling, coeff = "", ""
    if MU_R > 0.0:
        rolling = " rolling_friction epsd2"
        coeff = f"fix m5 all property/global coefficientRollingFriction peratomtypepair 2 {MU_R} {MU_R} {MU_R} {MU_R}\n"
    return HEAD.format(skin=0.2 * RMAX, dt=DT, g=G, stl=STL, rolling=rolling, rolling_coeff=coeff)


def fmt(x):
    """Rust's `{}` for an f64 (0.5 -> 0.5, 4.0 -> 4)."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def schedule(omega):
    """(steps before the window, steps between samples), as talus'."""
    spin = round(max(SPIN_UP / omega, MIN_SPIN_UP) / DT)
    window = max(WINDOW / omega, MIN_WINDOW)
    return spin, round(window / SAMPLES / DT)


def lattice():
    """The lowest N of the region's lattice sites (spacing 2.2 r_max), each
    jittered by less than (s/2 - r_max) like talus', radii uniform."""
    rng = random.Random(7)
    s = 2.2 * RMAX
    lo, hi = REGION
    n = [int((hi[k] - lo[k]) / s + 1e-9) for k in range(3)]
    sites = [
        (lo[0] + s / 2 + i * s, lo[1] + s / 2 + j * s, lo[2] + s / 2 + k * s)
        for k in range(n[2])
        for j in range(n[1])
        for i in range(n[0])
    ][:N]
    jit = 0.999 * (s / 2 - RMAX)
    out = []
    for p in sites:
        q = tuple(p[k] + rng.uniform(-jit, jit) for k in range(3))
        out.append((q, rng.uniform(RMIN, RMAX)))
    return out


def write_data(path, beads):
    lo, hi = (-0.052, -0.002, -0.052), (0.052, LEN + 0.002, 0.052)
    lines = ["talus drum", "", f"{len(beads)} atoms", "2 atom types", ""]
    for k, ax in enumerate("xyz"):
        lines.append(f"{lo[k]:.10e} {hi[k]:.10e} {ax}lo {ax}hi")
    lines += ["", "Atoms", ""]
    for i, (p, r) in enumerate(beads):
        lines.append(f"{i+1} 1 {2*r:.16e} {RHO:.16e} {p[0]:.16e} {p[1]:.16e} {p[2]:.16e}")
    open(path, "w").write("\n".join(lines) + "\n")


def liggghts(tmp, script):
    open(os.path.join(tmp, "in.run"), "w").write(script)
    r = subprocess.run([LIGGGHTS, "-in", "in.run", "-log", "log.txt", "-screen", "screen.txt"], cwd=tmp)
    if r.returncode != 0:
        sys.exit(f"liggghts failed in {tmp}: see {tmp}/log.txt")


def read_dump(path):
    """Snapshots of a dump `id x y z radius`: [[x, y, z, r] in id order]."""
    snaps, lines, i = [], open(path).read().split("\n"), 0
    while i < len(lines):
        if lines[i].startswith("ITEM: NUMBER OF ATOMS"):
            n = int(lines[i + 1])
        if lines[i].startswith("ITEM: ATOMS"):
            rows = sorted((int(c[0]), [float(x) for x in c[1:5]]) for c in (l.split() for l in lines[i + 1 : i + 1 + n]))
            snaps.append([r for _, r in rows])
            i += n
        i += 1
    return snaps


def surface_angle(pos_rad, y_mid, half_width):
    """talus' drum::surface_angle, step for step (degrees, positive when the
    surface rises toward -x); None with fewer than 4 columns."""
    w = 0.004
    cols = {}
    for i, p in enumerate(pos_rad):
        if abs(p[1] - y_mid) <= half_width:
            cols.setdefault(math.floor(p[0] / w), []).append(i)

    def packed(i):
        p = pos_rad[i]
        reach2 = (2.5 * p[3]) ** 2
        n = 0
        for j, q in enumerate(pos_rad):
            if j != i and (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + (p[2] - q[2]) ** 2 < reach2:
                n += 1
        return n >= 3

    tops = []
    for c in sorted(cols):
        for i in sorted(cols[c], key=lambda i: -pos_rad[i][2]):
            if packed(i):
                tops.append(((c + 0.5) * w, pos_rad[i][2]))
                break
    if len(tops) < 4:
        return None
    lo, hi = tops[0][0], tops[-1][0]
    a, b = lo + 0.2 * (hi - lo), hi - 0.2 * (hi - lo)
    pts = [t for t in tops if a <= t[0] <= b]
    if len(pts) < 4:
        return None
    n = len(pts)
    mx = sum(p[0] for p in pts) / n
    mz = sum(p[1] for p in pts) / n
    sxz = sum((p[0] - mx) * (p[1] - mz) for p in pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return math.degrees(math.atan(-sxz / sxx))


def settle(tmp):
    """The lattice bed settled SETTLE s in the drum at rest: [(pos, r)]."""
    write_data(os.path.join(tmp, "in.data"), lattice())
    steps = round(SETTLE / DT)
    script = head() + f"""dump d all custom {steps} settled.txt id x y z radius
dump_modify d sort id format "%d %.16e %.16e %.16e %.16e"
run {steps}
"""
    t0 = time.time()
    liggghts(tmp, script)
    last = read_dump(os.path.join(tmp, "settled.txt"))[-1]
    print(f"settled {len(last)} beads in {time.time() - t0:.0f} s ({steps} steps)", flush=True)
    return [((p[0], p[1], p[2]), p[3]) for p in last]


def rate(tmp, bed, omega):
    """SAMPLES angles at omega, and the wall-clock seconds."""
    write_data(os.path.join(tmp, "in.data"), bed)
    spin, every = schedule(omega)
    period = 2.0 * math.pi / omega
    script = head() + f"""fix rot all move/mesh mesh cad rotate origin 0.0 0.0 0.0 axis 0.0 1.0 0.0 period {period:.16e}
run {spin}
reset_timestep 0
dump d all custom {every} dump.txt id x y z radius
dump_modify d sort id format "%d %.16e %.16e %.16e %.16e"
run {SAMPLES * every}
"""
    t0 = time.time()
    liggghts(tmp, script)
    secs = time.time() - t0
    snaps = read_dump(os.path.join(tmp, "dump.txt"))[1:]  # the first is at the window's start
    angles = []
    for s in snaps:
        a = surface_angle(s, 0.5 * LEN, 0.25 * LEN)
        if a is None:
            sys.exit(f"omega = {omega}: no free surface found ({tmp})")
        angles.append(a)
    return angles, secs, spin + SAMPLES * every


def tilted_bed(deg):
    """The bed of drum.rs' test `angle_of_a_tilted_lattice`, tilted by deg."""
    s, c = math.sin(math.radians(deg)), math.cos(math.radians(deg))
    p = []
    for i in range(-20, 21):
        for k in range(-12, 1):
            for j in range(4):
                u, w = i * 0.0021, k * 0.0021
                p.append([u * c - w * s, 0.0021 * j, -(u * s + w * c), 0.001])
    return p


def main():
    if sys.argv[1:] == ["--selftest"]:
        # the same numbers as `cargo test --release --lib drum -- --nocapture`
        for deg in (-10.0, 0.0, 15.0, 30.0):
            print(f"tilt {deg}: {surface_angle(tilted_bed(deg), 0.003, 0.01):.12f}")
        return
    global MU_R
    args = sys.argv[1:]
    if "--mu-r" in args:
        i = args.index("--mu-r")
        if i + 1 >= len(args):
            sys.exit("--mu-r: expected a rolling friction > 0")
        MU_R = float(args[i + 1])
        del args[i : i + 2]
        if not MU_R > 0.0:
            sys.exit(f"--mu-r: expected a rolling friction > 0, got {MU_R}")
    omegas = [float(a) for a in args] or OMEGAS
    # the dry drum, or one with rolling springs in a file of its own
    name = "drum_results.csv" if MU_R == 0.0 else f"drum_epsd2_{MU_R:g}_results.csv"
    path = os.path.join(HERE, name)
    # keep the rates not rerun
    rows = {}
    if os.path.exists(path):
        for line in open(path).read().splitlines()[1:]:
            c = line.split(",")
            if len(c) == 4:
                rows[(c[0], c[1], c[2])] = c[3]
    tmp = tempfile.mkdtemp(prefix="lig-drum-")
    bed = settle(tmp)
    for omega in omegas:
        angles, secs, steps = rate(tmp, bed, omega)
        n = len(angles)
        m = sum(angles) / n
        sd = math.sqrt(sum((a - m) ** 2 for a in angles) / max(n - 1, 1))
        fr = omega * omega * R_DRUM / G
        print(f"{f'epsd2 mu_r {MU_R:g}, ' if MU_R else ''}omega {fmt(omega)} rad/s (Fr {fr:.3g}): angle {m:.2f} +- {sd:.2f} deg over {n} snapshots; {steps} steps in {secs:.0f} s; {', '.join(f'{a:.1f}' for a in angles)}", flush=True)
        p = f"ω={fmt(omega)}"
        for q, v in (("angle", m), ("angle_std", sd), ("samples", n), ("froude", fr), ("wall_seconds", secs)):
            rows[("drum", p, q)] = f"{v:.10e}"
        for k, a in enumerate(angles):
            rows[("drum", p, f"angle_{k}")] = f"{a:.10e}"
        with open(path, "w") as f:
            f.write("case,point,quantity,value\n")
            for k in sorted(rows):
                f.write(f"{k[0]},{k[1]},{k[2]},{rows[k]}\n")
    shutil.rmtree(tmp)
    print(f"-> {path}")


if __name__ == "__main__":
    main()
