"""Post-processing a run with numpy: the solid (packing) fraction by layer,
computed from a snapshot and checked against `talus analyze DIR layers`.

What it shows: a run that writes a run directory (`out=`), read back with
`talus.read_run`, its last snapshot as numpy arrays, an exact volume
computation vectorised in numpy, and `talus.analyze` called from Python
(its CSV parsed with the csv module: no pandas needed).

The run: beads of glass (radius 0.9-1.1 mm, settle.toml's material) start
on a jittered lattice in a 20 mm x 20 mm box and settle onto its floor for
0.15 s (simulated time). The scene is a dict, so the run directory names no
scene file.

The computation, as `talus analyze` does it (crates/talus-studies/src/
analyze/fraction.rs `layered_profile`, volume.rs `sphere_in_box`):

- the region: `--region` if given, else the domain box of the run's scene
  file, else (a scene given as a dict, as here) the particles' bounding
  box, min(x - r) to max(x + r) on each axis;
- `--bins` (default 20) equal slices of the region along z; slice k holds
  the boxes' x-y rectangle between z_k and z_k+1 (the last ends exactly at
  the region's top);
- fraction_k = sum_i V(sphere i inside slice k) / V(slice k), exact: a
  sphere whose x-y disc lies inside the rectangle (all of them with the
  default region of a dict scene) contributes the slab between two
  spherical caps, pi [r^2 (b - a) - (b^3 - a^3) / 3], a and b the slice's
  bounds relative to the centre clamped to [-r, r]; a sphere that pokes
  through the region's sides (a bead pressed into a side wall, a region
  inside the bed) contributes the integral over z of its cross-section
  (a disc) inside the rectangle, by Gauss-Legendre quadrature on the
  pieces where that area is analytic (talus does the same, adaptively).

Then `talus.analyze(DIR, "layers", "--bins", N[, "--region", R])` writes
DIR/analysis/layers.csv (header lo,hi,fraction; fractions with 12
decimals). The two must agree to 1e-9 relative, with an absolute floor of
1e-12 for the CSV's rounding (and the slices' bounds exactly); the script
exits 1 if they do not.

Run from the repository root (about 15 s on 2 CPU cores):

    python python/examples/layers.py
    python python/examples/layers.py --out out/layers --bins 12
    python python/examples/layers.py --region box:0.004,0.004,0,0.016,0.016,0.024
"""

import argparse
import csv
import os
import sys
import tempfile
import time
import tomllib

import numpy as np

import talus

DURATION = 0.15  # s of simulated time
RTOL, ATOL = 1e-9, 1e-12  # agreement asked of the two profiles


def settle_scene():
    """settle.toml's beads and walls in a smaller box (a dict with the
    TOML's structure)."""
    side = 0.02  # m
    glass = {
        "name": "glass",
        "density": 2500.0,  # kg/m3
        "youngs_modulus": 5.0e6,  # Pa (softened, as the shipped scenes)
        "poisson_ratio": 0.25,
        "restitution": 0.5,
        "friction": 0.5,
        "rolling_friction": 0.01,
    }

    def plane(name, point, normal):
        return {"name": name, "type": "plane", "point": point, "normal": normal, "material": "glass"}

    return {
        "simulation": {
            "duration": DURATION,
            "dt": "auto",
            "gravity": [0.0, 0.0, -9.81],
            "output_interval": 0.01,  # s between snapshots
        },
        "domain": {"min": [0.0, 0.0, 0.0], "max": [side, side, 0.05]},
        "contact": {"model": "hertz_mindlin"},
        "materials": [glass],
        "particles": [
            {
                "generator": "lattice",
                "region": {"min": [0.0, 0.0, 0.0], "max": [side, side, 0.05]},
                "radius": {"min": 0.0009, "max": 0.0011},
                "material": "glass",
                "count": 800,
            }
        ],
        "walls": [
            plane("floor", [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
            plane("x0", [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
            plane("x1", [side, 0.0, 0.0], [-1.0, 0.0, 0.0]),
            plane("y0", [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
            plane("y1", [0.0, side, 0.0], [0.0, -1.0, 0.0]),
        ],
    }


# --- exact volumes, vectorised ----------------------------------------------


def sphere_between(r, a, b):
    """Volume of spheres of radius r between heights a <= b relative to
    their centres (clamped to [-r, r]): the difference of two caps."""
    a, b = np.clip(a, -r, r), np.clip(b, -r, r)
    return np.where(b > a, np.pi * (r * r * (b - a) - (b**3 - a**3) / 3.0), 0.0)


def quadrant_area(a, b, rho):
    """Area of {x <= a, y <= b} inside discs of radius rho centred at the
    origin (arrays broadcast)."""
    rho = np.maximum(rho, 0.0)
    safe = np.where(rho > 0, rho, 1.0)

    def s(x):  # integral of sqrt(rho^2 - x^2) dx
        x = np.clip(x, -rho, rho)
        return 0.5 * (x * np.sqrt(np.maximum(rho * rho - x * x, 0.0))
                      + rho * rho * np.arcsin(np.clip(x / safe, -1.0, 1.0)))

    x_hi = np.minimum(a, rho)
    # b >= rho: the disc's whole chords left of x_hi
    full = 2.0 * (s(x_hi) - s(-rho))
    # b < rho: chords cut at y = b where |x| < w, whole (b > 0) or none outside
    w = np.sqrt(np.maximum(rho * rho - b * b, 0.0))
    p, q = np.maximum(-w, -rho), np.minimum(w, x_hi)
    cut = np.where(q > p, b * (q - p) + s(q) - s(p), 0.0)
    for lo, hi in ((-rho, -w), (w, rho)):
        p, q = np.maximum(lo, -rho), np.minimum(hi, x_hi)
        cut = cut + np.where((b > 0) & (q > p), 2.0 * (s(q) - s(p)), 0.0)
    area = np.where(b >= rho, full, cut)
    return np.where((rho <= 0) | (x_hi <= -rho) | (b <= -rho), 0.0, area)


def disc_in_rect(cx, cy, rho, x0, x1, y0, y1):
    """Area of discs (centre (cx, cy), radius rho) inside [x0, x1] x [y0, y1]."""
    a0, a1, b0, b1 = x0 - cx, x1 - cx, y0 - cy, y1 - cy
    v = (quadrant_area(a1, b1, rho) - quadrant_area(a0, b1, rho)
         - quadrant_area(a1, b0, rho) + quadrant_area(a0, b0, rho))
    return np.clip(v, 0.0, np.pi * rho * rho)


GL_X, GL_W = np.polynomial.legendre.leggauss(48)


def sphere_in_box_clipped(c, r, lo, hi):
    """Volume inside the box [lo, hi] of spheres (centres c (m, 3), radii r)
    that may cross its x or y faces: the integral over z of the disc's area
    inside the rectangle, split where that area stops being analytic (the
    disc's radius passing a face's or a corner's distance), each piece by
    Gauss-Legendre in theta with z = m - h cos(theta)."""
    a = np.maximum(lo[2] - c[:, 2], -r)
    b = np.minimum(hi[2] - c[:, 2], r)
    ex = np.abs(np.stack([lo[0] - c[:, 0], hi[0] - c[:, 0]], 1))
    ey = np.abs(np.stack([lo[1] - c[:, 1], hi[1] - c[:, 1]], 1))
    corners = np.sqrt(ex[:, :, None] ** 2 + ey[:, None, :] ** 2).reshape(len(r), 4)
    kinks = np.concatenate([ex, ey, corners], 1)
    zk = np.sqrt(np.maximum(r[:, None] ** 2 - kinks**2, 0.0))
    zk = np.where(kinks < r[:, None], zk, np.nan)
    cuts = np.concatenate([a[:, None], b[:, None], zk, -zk], 1)
    cuts = np.where((cuts >= a[:, None]) & (cuts <= b[:, None]), cuts, np.nan)
    cuts = np.sort(cuts, 1)  # NaN last
    p0, p1 = cuts[:, :-1], cuts[:, 1:]
    ok = np.isfinite(p0) & np.isfinite(p1) & (p1 > p0)
    p0, p1 = np.where(ok, p0, 0.0), np.where(ok, p1, 0.0)
    m, h = 0.5 * (p0 + p1), 0.5 * (p1 - p0)
    theta = 0.5 * np.pi * (GL_X + 1.0)  # [0, pi]
    z = m[..., None] - h[..., None] * np.cos(theta)
    rr = r[:, None, None]
    rho = np.sqrt(np.maximum(rr * rr - z * z, 0.0))
    area = disc_in_rect(c[:, 0, None, None], c[:, 1, None, None], rho, lo[0], hi[0], lo[1], hi[1])
    piece = (area * h[..., None] * np.sin(theta) * GL_W).sum(-1) * 0.5 * np.pi
    return np.where(b > a, (piece * ok).sum(1), 0.0)


def sphere_in_box(c, r, lo, hi):
    """Volume of each sphere inside the axis-aligned box [lo, hi], exact
    (closed form when the sphere's x-y disc is inside the box's rectangle,
    as in talus's `sphere_in_box`)."""
    v = np.zeros(len(r))
    reach = np.all((c + r[:, None] > lo) & (c - r[:, None] < hi), 1)
    inside_xy = np.all((c[:, :2] - r[:, None] >= lo[:2]) & (c[:, :2] + r[:, None] <= hi[:2]), 1)
    easy = reach & inside_xy
    v[easy] = sphere_between(r[easy], lo[2] - c[easy, 2], hi[2] - c[easy, 2])
    hard = reach & ~inside_xy
    if hard.any():
        v[hard] = sphere_in_box_clipped(c[hard], r[hard], lo, hi)
    return v


def layer_fractions(c, r, lo, hi, n):
    """Slices' bounds along z and their solid fractions (layered_profile)."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    k = np.arange(n + 1, dtype=float)
    z = lo[2] + (hi[2] - lo[2]) * k / n  # the same arithmetic as talus
    z[-1] = hi[2]
    area = (hi[0] - lo[0]) * (hi[1] - lo[1])
    out = np.empty(n)
    for i in range(n):
        a, b = lo.copy(), hi.copy()
        a[2], b[2] = z[i], z[i + 1]
        vol = area * (b[2] - a[2])
        out[i] = sphere_in_box(c, r, a, b).sum() / vol if vol > 0 else 0.0
    return z[:-1], z[1:], out


def default_region(run, c, r):
    """talus analyze's region when --region is not given."""
    if run.scene_file:
        with open(run.scene_file, "rb") as f:
            d = tomllib.load(f)["domain"]
        return np.array(d["min"], float), np.array(d["max"], float)
    return (c - r[:, None]).min(0), (c + r[:, None]).max(0)


def parse_region(text):
    if not text.startswith("box:"):
        sys.exit("error: --region: this example takes a box, box:x0,y0,z0,x1,y1,z1")
    v = [float(t) for t in text[4:].split(",")]
    if len(v) != 6:
        sys.exit("error: --region: expected box:x0,y0,z0,x1,y1,z1")
    return np.array(v[:3]), np.array(v[3:])


def read_csv(path):
    """A CSV with a header as a dict of float64 arrays, by column name."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return {name: np.array([float(row[j]) for row in rows[1:]]) for j, name in enumerate(rows[0])}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", help="run directory to write (default: a temporary directory, removed after)")
    p.add_argument("--bins", type=int, default=20, help="layers (default 20, as talus analyze)")
    p.add_argument("--region", help="box:x0,y0,z0,x1,y1,z1 (default: talus analyze's)")
    p.add_argument("--backend", choices=["cpu", "gpu", "auto"], default="cpu")
    a = p.parse_args()
    if not 1 <= a.bins <= 100000:
        p.error("--bins: expected a whole number between 1 and 100000")
    with tempfile.TemporaryDirectory(prefix="talus-layers-") as tmp:
        out = a.out or os.path.join(tmp, "run")
        return compare(out, a)


def compare(out, a):
    t0 = time.perf_counter()
    with talus.Simulation(settle_scene(), backend=a.backend, out=out) as sim:
        n_beads = len(sim)
        sim.run(until=DURATION)
        e = sim.energy()
    print(f"ran {n_beads} beads for {DURATION} s ({sim.step} steps of {sim.dt:.3e} s, "
          f"{sim.backend}) in {time.perf_counter() - t0:.1f} s; kinetic energy now "
          f"{e['kinetic_translational']:.2e} J; wrote {out}")

    run = talus.read_run(out)
    snap = run.snapshot(-1)
    if "shape" in snap and np.any(snap["shape"] >= 0):
        sys.exit("error: the run holds clumps; this example sums spheres")
    c, r = snap["positions"], snap["radii"]
    lo, hi = parse_region(a.region) if a.region else default_region(run, c, r)
    t1 = time.perf_counter()
    z0, z1, mine = layer_fractions(c, r, lo, hi, a.bins)
    t2 = time.perf_counter()
    args = ["--bins", str(a.bins)]
    if a.region:
        args += ["--region", a.region]
    text = talus.analyze(out, "layers", *args)
    t3 = time.perf_counter()
    theirs = read_csv(os.path.join(out, "analysis", "layers.csv"))
    print(f"snapshot {len(run) - 1} (t = {snap['time']:.6f} s), {len(r)} spheres; region "
          f"[{', '.join(f'{v:.6g}' for v in lo)}] to [{', '.join(f'{v:.6g}' for v in hi)}] m"
          f"{'' if a.region else (' (the scene domain)' if run.scene_file else ' (the particles bounding box: a dict scene names no file)')}")
    print(f"talus analyze says: {text.splitlines()[0]}")
    if len(theirs["fraction"]) != len(mine):
        print(f"error: layers.csv has {len(theirs['fraction'])} layers, numpy {len(mine)}", file=sys.stderr)
        return 1
    print(f"{'z lo (mm)':>10} {'z hi (mm)':>10} {'numpy':>16} {'talus analyze':>16} {'rel. diff':>10}")
    diff = np.abs(mine - theirs["fraction"])
    rel = diff / np.maximum(np.abs(theirs["fraction"]), 1e-300)
    for i in range(a.bins):
        print(f"{z0[i] * 1e3:10.4f} {z1[i] * 1e3:10.4f} {mine[i]:16.12f} {theirs['fraction'][i]:16.12f} "
              f"{rel[i] if theirs['fraction'][i] else diff[i]:10.1e}")
    bounds_ok = np.array_equal(z0, theirs["lo"]) and np.array_equal(z1, theirs["hi"])
    ok = bounds_ok and bool(np.all(diff <= RTOL * np.abs(theirs["fraction"]) + ATOL))
    print(f"whole region {mine.mean():.6f} (the layers' mean: equal volumes); numpy "
          f"{(t2 - t1) * 1e3:.0f} ms, talus analyze {(t3 - t2) * 1e3:.0f} ms")
    print(f"slice bounds {'identical' if bounds_ok else 'DIFFER'}; largest difference "
          f"{diff.max():.1e} (allowed {RTOL:.0e} x fraction + {ATOL:.0e}): "
          f"{'agree' if ok else 'DISAGREE'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
