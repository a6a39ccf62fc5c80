#!/usr/bin/env python3
"""The poured heap of clumps of `talus validate --full` (case "clump-heap",
crates/talus-studies/src/validate/cases/clump_heap.rs) in LIGGGHTS 3.8:
dumbbells, 4-sphere tetrahedra and single spheres of the dumbbell's volume,
each poured by a wall into a closed box, at rest; the heap's angle of
repose and its solid fraction, written to clump_heap_results.csv beside
this file (quantity,value; the rows of kinds not run are kept), which the
talus case reads into its rows.

Run by hand (not in CI):  validation/liggghts/run.sh clump-heap [kind ...]
                     or:  python3 validation/liggghts/clump_heap.py [kind ...]
kinds: dumbbell, tetrahedron, sphere (default: all three). Each kind is
poured POURS times (LIGGGHTS' seeds from a list), the CSV holding each
pour's measures and their means and standard deviations; --pours N pours
fewer. Sensitivity runs (printed, not written to the CSV, which holds the
judged set-up): --seed N (that pour alone), --e X (the restitution;
talus: --set clump-heap.restitution=X) and --settings "..." (LIGGGHTS
model settings appended to the pair style and the walls, e.g.
"tangential_damping off limitForce on") and --k K (cohesion sjkr with that
cohesionEnergyDensity, J/m3, grains and walls; talus: --set
clump-heap.cohesion=K; its results go to clump_heap_sjkr_K_results.csv,
which the talus case judges against), --mu-r X (rolling_friction epsd2
with that coefficientRollingFriction, grains and walls; talus: --set
clump-heap.rolling=X; its results go to clump_heap_epsd2_X_results.csv,
judged likewise). CLUMP_HEAP_KEEP=<folder> keeps
each run's input, log and last snapshot there.
Needs `liggghts` on PATH (Debian: apt-get install liggghts) and python3.

Same inputs as the talus case: members of radius 1 mm (the sphere: the
dumbbell's union volume), glass-like (2500 kg/m3, E = 5 MPa, nu = 0.25,
e = 0.5, mu = 0.5 grain-grain and grain-wall, no rolling friction), model
`hertz tangential history`; dt = 1e-5 s. A box 70 mm long between two
walls (x = 0 and x = 70 mm, primitive planes) on a plane floor z = 0, a
slab 9 mm deep and periodic across y. The grains are poured at a fixed
rate from a box region by the wall x = 0 (x 0-17 mm, z 65-85 mm, the whole
depth, each grain wholly inside: `all_in yes`), at 1 m/s downwards, random
orientations, a batch every 18 ms (`insert/rate/region`; talus: `[[insert]]`
with the same region, rate, count and interval; each code's own random
placements), then left to settle. Clumps: `fix particletemplate/multisphere`
(mass and inertia by Monte Carlo, ntry 10^6) and `fix multisphere`
(the rigid-body integrator; spheres: `fix nve/sphere`).

Estimators (step for step those of the talus case, on the member spheres
of the last snapshot): the surface is the highest member top in bins of
2 mm along x; the angle of repose is the angle of a least-squares line
through the bins with centres in 30-85 % of the box (past the pour's
impact, short of the far wall); the solid fraction is the share of the
points of a grid (0.1 mm) over the bulk box x 24.5-45.5 mm, z 4-16 mm (the
whole depth) that lie inside some member sphere (periodic across y), so a
clump's overlapping members count once.
"""
import math
import os
import subprocess
import sys
import tempfile
import time

from slope import fit_slope  # least squares: the line's slope

HERE = os.path.dirname(os.path.abspath(__file__))
LIGGGHTS = os.environ.get("LIGGGHTS", "liggghts")

# the constants of crates/talus-studies/src/validate/cases/clump_heap.rs
G, DT, RHO = 9.81, 1.0e-5, 2500.0
R = 0.001  # member radius
D = 2.0 * R  # the profile's bin width
LENGTH, DEPTH, TOP = 0.070, 0.009, 0.090
POUR = ((0.0, 0.017), (0.0, DEPTH), (0.065, 0.085))
V_POUR = 1.0  # m/s, downwards
T_POUR, END, EVERY = 1.2, 1.8, 0.018  # s: the pour, the run's end, between batches
FIT = (0.30, 0.85)  # the angle's fit, fractions of LENGTH
BULK = ((0.35 * LENGTH, 0.65 * LENGTH), (0.004, 0.016))  # x and z of the bulk box
GRID = 1.0e-4  # the solid fraction's grid spacing
TET_EDGE = 1.5 * R


def members(kind):
    """The grain's spheres (x, y, z, r) in its own frame."""
    if kind == "dumbbell":
        return [(-0.5 * R, 0.0, 0.0, R), (0.5 * R, 0.0, 0.0, R)]
    if kind == "tetrahedron":
        c = TET_EDGE / (2.0 * math.sqrt(2.0))
        return [(c, c, c, R), (c, -c, -c, R), (-c, c, -c, R), (-c, -c, c, R)]
    if kind == "sphere":
        # the dumbbell's union volume: 2 (4/3 pi R^3) less the lens pi (4R + d)(2R - d)^2 / 12 at d = R
        return [(0.0, 0.0, 0.0, R * (27.0 / 16.0) ** (1.0 / 3.0))]
    sys.exit(f"unknown kind {kind} (dumbbell, tetrahedron, sphere)")


# grains poured: the same solid volume of each kind (~1.13e-5 m^3)
COUNT = {"dumbbell": 1600, "tetrahedron": 770, "sphere": 1600}
KINDS = ["dumbbell", "tetrahedron", "sphere"]
POURS = 6  # pours of each kind (seeds 0-5), their measures averaged: one pour's angle scatters by 1-3 degrees


def profile(pos_rad):
    """The highest member top in bins of D along x: [(x, top)], None where empty."""
    n = math.ceil(LENGTH / D - 1e-9)
    top = [None] * n
    for p in pos_rad:
        i = min(max(int(math.floor(p[0] / D)), 0), n - 1)
        h = p[2] + p[3]
        top[i] = h if top[i] is None else max(top[i], h)
    return [((i + 0.5) * D, h) for i, h in enumerate(top)]



def repose(prof):
    """The angle of repose (degrees) and the lowest surface over the bulk box (m)."""
    lo, hi = FIT[0] * LENGTH, FIT[1] * LENGTH
    pts = [(x, h) for x, h in prof if h is not None and lo <= x <= hi]
    if len(pts) < 4:
        return float("nan"), float("nan")
    b = fit_slope(pts)
    (x0, x1), _ = BULK
    over = [h if h is not None else 0.0 for x, h in prof if x0 - 0.5 * D <= x <= x1 + 0.5 * D]
    return math.degrees(math.atan(-b)), min(over)


def solid_fraction(pos_rad):
    """The share of the bulk box's grid points (cell centres, spacing GRID,
    the slab's whole depth) inside some member sphere, periodic across y."""
    (x0, x1), (z0, z1) = BULK
    nx, ny, nz = (round((x1 - x0) / GRID), round(DEPTH / GRID), round((z1 - z0) / GRID))
    grid = [bytearray(nx) for _ in range(ny * nz)]
    for p in pos_rad:
        cx, cy, cz, r = p
        if cx + r < x0 or cx - r > x1 or cz + r < z0 or cz - r > z1:
            continue
        kz0 = max(math.ceil((cz - r - z0) / GRID - 0.5), 0)
        kz1 = min(math.floor((cz + r - z0) / GRID - 0.5), nz - 1)
        for image in (-DEPTH, 0.0, DEPTH):
            y = cy + image
            if y + r < 0.0 or y - r > DEPTH:
                continue
            ky0 = max(math.ceil((y - r) / GRID - 0.5), 0)
            ky1 = min(math.floor((y + r) / GRID - 0.5), ny - 1)
            for kz in range(kz0, kz1 + 1):
                dz = z0 + (kz + 0.5) * GRID - cz
                for ky in range(ky0, ky1 + 1):
                    dy = (ky + 0.5) * GRID - y
                    rem = r * r - dy * dy - dz * dz
                    if rem <= 0.0:
                        continue
                    half = math.sqrt(rem)
                    i0 = max(math.ceil((cx - half - x0) / GRID - 0.5), 0)
                    i1 = min(math.floor((cx + half - x0) / GRID - 0.5), nx - 1)
                    if i1 >= i0:
                        grid[kz * ny + ky][i0 : i1 + 1] = b"\x01" * (i1 - i0 + 1)
    inside = sum(row.count(1) for row in grid)
    return inside / (nx * ny * nz)


def read_last(path):
    """The last snapshot of a dump `id x y z radius vx vy vz`: [[x, y, z, r]] and the largest speed."""
    lines = open(path).read().split("\n")
    last, i = None, 0
    while i < len(lines):
        if lines[i].startswith("ITEM: NUMBER OF ATOMS"):
            n = int(lines[i + 1])
        if lines[i].startswith("ITEM: ATOMS"):
            last = [[float(x) for x in l.split()[1:8]] for l in lines[i + 1 : i + 1 + n]]
            i += n
        i += 1
    pos = [p[:4] for p in last]
    vmax = max([math.sqrt(p[4] ** 2 + p[5] ** 2 + p[6] ** 2) for p in last] + [0.0])
    return pos, vmax


# LIGGGHTS' seeds (primes > 10000): the templates', the distribution's, the insertion's
SEEDS = [(15485863, 32452843, 49979687), (15485867, 32452867, 49979693), (86028121, 67867967, 104395301),
         (86028157, 67867979, 122949823), (141650939, 160481183, 179424673), (141650963, 160481219, 179424691)]


def script(kind, seed=0, e=0.5, settings="", k=0.0, mu_r=0.0):
    coh = " cohesion sjkr" if k > 0.0 else ""  # a model keyword: before the settings
    coh += " rolling_friction epsd2" if mu_r > 0.0 else ""
    m = members(kind)
    s_template, s_dist, s_insert = SEEDS[seed]
    pad = " " + settings if settings else ""
    (xa, xb), (ya, yb), (za, zb) = POUR
    n = COUNT[kind]
    every, steps = round(EVERY / DT), round(END / DT)
    if kind == "sphere":
        template = f"fix pts all particletemplate/sphere {s_template} atom_type 1 density constant {RHO} radius constant {m[0][3]:.16e}\n"
        integrate = "fix integr all nve/sphere\n"
    else:
        spheres = " ".join(f"{x:.16e} {y:.16e} {z:.16e} {r:.16e}" for x, y, z, r in m)
        template = (
            f"fix pts all particletemplate/multisphere {s_template} atom_type 1 density constant {RHO} "
            f"nspheres {len(m)} ntry 1000000 spheres {spheres} type 1\n"
        )
        integrate = "fix ms all multisphere\n"
    return f"""atom_style granular
atom_modify map array
boundary f p f
newton off
communicate single vel yes
units si
hard_particles yes
region box block 0.0 {LENGTH:.16e} 0.0 {DEPTH:.16e} -0.001 {TOP:.16e} units box
create_box 1 box
neighbor {0.2 * R:.6e} bin
neigh_modify delay 0
fix m1 all property/global youngsModulus peratomtype 5.0e6
fix m2 all property/global poissonsRatio peratomtype 0.25
fix m3 all property/global coefficientRestitution peratomtypepair 1 {e}
fix m4 all property/global coefficientFriction peratomtypepair 1 0.5
{f"fix m5 all property/global cohesionEnergyDensity peratomtypepair 1 {k}" if k > 0.0 else ""}
{f"fix m6 all property/global coefficientRollingFriction peratomtypepair 1 {mu_r}" if mu_r > 0.0 else ""}
pair_style gran model hertz tangential history{coh}{pad}
pair_coeff * *
timestep {DT:.16e}
fix gravi all gravity {G} vector 0.0 0.0 -1.0
fix floor all wall/gran model hertz tangential history{coh} primitive type 1 zplane 0.0{pad}
fix back all wall/gran model hertz tangential history{coh} primitive type 1 xplane 0.0{pad}
fix end all wall/gran model hertz tangential history{coh} primitive type 1 xplane {LENGTH:.16e}{pad}
{template}fix pdd all particledistribution/discrete {s_dist} 1 pts 1.0
{integrate}region pour block {xa:.16e} {xb:.16e} {ya:.16e} {yb:.16e} {za:.16e} {zb:.16e} units box
fix ins all insert/rate/region seed {s_insert} distributiontemplate pdd nparticles {n} particlerate {n / T_POUR:.10e} insert_every {every} overlapcheck yes all_in yes vel constant 0.0 0.0 {-V_POUR} orientation random region pour ntry_mc 100000
thermo 10000
dump d all custom {steps} final.txt id x y z radius vx vy vz
dump_modify d sort id format "%d %.10e %.10e %.10e %.10e %.10e %.10e %.10e"
run {steps}
"""


def run(kind, seed=0, e=0.5, settings="", k=0.0, mu_r=0.0):
    with tempfile.TemporaryDirectory(prefix=f"talus-clump-heap-{kind}-") as tmp:
        open(os.path.join(tmp, "in.run"), "w").write(script(kind, seed, e, settings, k, mu_r))
        t0 = time.time()
        r = subprocess.run([LIGGGHTS, "-in", "in.run", "-log", "log.txt", "-screen", "screen.txt"], cwd=tmp)
        seconds = time.time() - t0
        if r.returncode != 0:
            os.system(f"tail -20 {tmp}/log.txt")
            sys.exit(f"liggghts failed for {kind}")
        pos, vmax = read_last(os.path.join(tmp, "final.txt"))
        keep = os.environ.get("CLUMP_HEAP_KEEP")  # a folder to keep the input, log and dump in
        if keep:
            os.makedirs(keep, exist_ok=True)
            for f in ("in.run", "log.txt", "final.txt"):
                os.replace(os.path.join(tmp, f), os.path.join(keep, f"{kind}_{seed}_{f}"))
    angle, lowest = repose(profile(pos))
    res = {
        "solid_fraction": solid_fraction(pos),
        "angle_deg": angle,
        "grains": len(pos) / len(members(kind)),
        "max_speed": vmax,
        "lowest_surface_over_bulk_m": lowest,
        "seconds": seconds,
    }
    print(f"{kind} (seed {seed}, e {e}{', ' + settings if settings else ''}{f', k {k}' if k else ''}{f', epsd2 mu_r {mu_r}' if mu_r else ''}): " + ", ".join(f"{k} {v:.4g}" for k, v in res.items()), flush=True)
    return res


def mean_sd(xs):
    n = len(xs)
    m = sum(xs) / n
    return m, (math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else float("nan"))


def main():
    args, opts = sys.argv[1:], {"--seed": None, "--pours": POURS, "--e": 0.5, "--settings": "", "--k": 0.0, "--mu-r": 0.0}
    for flag in opts:
        if flag in args:
            i = args.index(flag)
            opts[flag] = type(opts[flag] if opts[flag] is not None else 0)(args[i + 1])
            del args[i : i + 2]
    kinds, e, settings, coh = args or KINDS, opts["--e"], opts["--settings"], opts["--k"]
    mu_r = opts["--mu-r"]
    if coh > 0.0 and mu_r > 0.0:
        sys.exit("--k and --mu-r: one at a time (each judged set-up has its own file)")
    for k in kinds:
        members(k)
    seeds = [opts["--seed"]] if opts["--seed"] is not None else list(range(opts["--pours"]))
    if max(seeds) >= len(SEEDS) or not 0.0 < e <= 1.0:
        sys.exit(f"--seed 0-{len(SEEDS) - 1}, --pours 1-{len(SEEDS)}, --e in (0, 1]")
    rows = []
    for k in kinds:
        res = [run(k, s, e, settings, coh, mu_r) for s in seeds]
        for s, r in zip(seeds, res):
            rows += [f"{k}_{q}_seed{s},{v:.6g}" for q, v in r.items()]
        for q in ("solid_fraction", "angle_deg"):
            m, sd = mean_sd([r[q] for r in res])
            rows += [f"{k}_{q},{m:.6g}", f"{k}_{q}_sd,{sd:.6g}"]
            print(f"{k}: {q} {m:.4g} +- {sd:.3g} (sd of {len(res)})")
        rows += [f"{k}_pours,{len(res)}", f"{k}_seconds,{sum(r['seconds'] for r in res):.6g}"]
    if opts["--seed"] is not None or (e, settings) != (0.5, ""):
        return  # a sensitivity run: printed only
    # keep the rows of the other kinds already in the file; a cohesive heap
    # (--k) or one with rolling springs (--mu-r) in a file of its own
    name = "clump_heap_results.csv" if coh == 0.0 else f"clump_heap_sjkr_{coh:g}_results.csv"
    if mu_r > 0.0:
        name = f"clump_heap_epsd2_{mu_r:g}_results.csv"
    out = os.path.join(HERE, name)
    if os.path.exists(out):
        old = open(out).read().split("\n")[1:]
        rows = [r for r in old if r and not any(r.startswith(k + "_") for k in kinds)] + rows
    rows.sort(key=lambda r: (KINDS.index(r.split("_")[0]), r))
    open(out, "w").write("quantity,value\n" + "\n".join(rows) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
