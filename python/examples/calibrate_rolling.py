"""Calibrating rolling friction against a target heap angle, by bisection
over short runs.

What it shows: a scene built as a Python dict (no TOML file), run from
Python many times with one parameter changed, measured in numpy from
`sim.positions()` and `sim.radii()`, and a calibration loop around it.

The test: 300 glass-like beads (radius 1.35-1.65 mm) stand in a loose
column, 38 mm wide and 57 mm tall, against a back wall, in a quasi-2D slab
7.6 mm deep (periodic across, y). Released at t = 0, the column collapses
onto a rough floor and leaves a half heap against the wall. After 0.25 s
of simulated time (the heap is at rest by then) its angle is measured:
the free surface is cut into bins one mean bead diameter wide along x,
each bin's height is its highest bead top, the flank runs from the highest
bin to the toe, 5 % of its bins (1-2) are dropped at each end (the crest
at the wall and the toe on the floor) and a least-squares line goes
through the rest; angle = atan |slope|.

Rolling resistance is LIGGGHTS' `epsd2` model ([contact] rolling =
"epsd2", the usual calibration choice: a spring that holds a static torque
up to mu_r R* F_n; the default `cdt` cannot hold one, so a heap would creep),
and the glass-glass `rolling_friction` mu_r is what the bisection varies;
the floor and the wall stay rough ([[interactions]]: friction 0.8, rolling
friction 0.5) whatever mu_r is. The angle grows with mu_r, from about
18 degrees at 0 to about 24 at 0.5, steeply up to mu_r ~ 0.2 and slowly
beyond (the collapse is dynamic: the heap stays below the static angle of
repose): the script measures the bracket's two ends first and refuses a
target outside them.

The heap is small (about 9 beads high), so its angle scatters by about
1 degree (standard deviation) from one heap to the next (another seed, a
nearby mu_r): bisection steps narrower than that scatter choose at random,
and the default tolerance, 1.5 degrees, allows for it. `--seeds K` averages
K heaps per evaluation (K times the time). Runs are deterministic on the
CPU path (the same angles every time, whatever the thread count); the GPU
path computes in f32 and gives other heaps.

Young's modulus is 1 MPa, softer than the shipped scenes' 5 MPa, so that
dt = "auto" (0.2 x the Rayleigh time) is 3.0e-5 s: a run is ~8300 steps.

Run from the repository root:

    python python/examples/calibrate_rolling.py
    python python/examples/calibrate_rolling.py --target 22 --iterations 5
    python python/examples/calibrate_rolling.py --backend gpu

Exit status: 0 when the last midpoint's angle is within --tol of the
target, 1 when it is not, 2 when the target lies outside the angles of the
bracket's ends (or the angle does not grow across the bracket).
About 35 s on 2 CPU cores with the defaults (6 runs).
"""

import argparse
import sys
import time

import numpy as np

import talus

# --- the scene (SI units) ---------------------------------------------------

RADIUS = 1.5e-3  # m, mean bead radius (uniform within +-10 %)
SPACING = 2.3 * 1.1 * RADIUS  # m, lattice spacing of the loose column
NX, NY, NZ = 10, 2, 15  # lattice sites: 300 beads
DURATION = 0.25  # s of simulated time per heap
BIN_DIAMETERS = 1.0  # surface bins' width, in mean diameters
TRIM = 0.05  # fraction of the flank's bins dropped at each end
ADAPTER = None  # what the runs ran on (set by measure)


def heap_scene(rolling_friction, seed=1):
    """The scene as a dict with the TOML's structure: a column of beads
    against a back wall (x = 0) on a floor (z = 0), periodic along y."""
    width, depth, height = NX * SPACING, NY * SPACING, NZ * SPACING
    glass = {
        "name": "glass",
        "density": 2500.0,  # kg/m3
        "youngs_modulus": 1.0e6,  # Pa, softened for a large dt
        "poisson_ratio": 0.25,
        "restitution": 0.5,
        "friction": 0.5,
        "rolling_friction": float(rolling_friction),
    }
    rough = dict(glass, name="rough", rolling_friction=0.0)
    return {
        "simulation": {
            "duration": DURATION,
            "dt": "auto",
            "gravity": [0.0, 0.0, -9.81],
            "seed": seed,
        },
        "domain": {
            "min": [0.0, 0.0, 0.0],
            "max": [0.2, depth, height + 0.005],
            "periodic": [False, True, False],
        },
        "contact": {"model": "hertz_mindlin", "rolling": "epsd2"},
        "materials": [glass, rough],
        # the floor and the wall are rough whatever the beads' mu_r
        "interactions": [
            {"materials": ["glass", "rough"], "friction": 0.8, "rolling_friction": 0.5}
        ],
        "particles": [
            {
                "generator": "lattice",  # jittered sites: a loose, disordered column
                "region": {"min": [0.0, 0.0, 0.0], "max": [width, depth, height]},
                "spacing": SPACING,
                "radius": {"min": 0.9 * RADIUS, "max": 1.1 * RADIUS},
                "material": "glass",
                "count": NX * NY * NZ,
            }
        ],
        "walls": [
            {"name": "floor", "type": "plane", "point": [0.0, 0.0, 0.0],
             "normal": [0.0, 0.0, 1.0], "material": "rough"},
            {"name": "back", "type": "plane", "point": [0.0, 0.0, 0.0],
             "normal": [1.0, 0.0, 0.0], "material": "rough"},
        ],
    }


# --- the measurement (numpy) ------------------------------------------------


def heap_angle(positions, radii):
    """Angle of the heap's flank (degrees) and the number of bins fitted.

    Bins of BIN_DIAMETERS mean diameters along x from the back wall; a
    bin's height is its highest bead top (z + r). The flank runs from the
    highest bin to the toe (stopping at the first empty bin, so a stray
    bead far out does not count); TRIM of its bins are dropped at each
    end; a least-squares line goes through the rest."""
    x, top = positions[:, 0], positions[:, 2] + radii
    width = BIN_DIAMETERS * 2.0 * radii.mean()
    k = np.floor(x / width).astype(int)
    k -= k.min()
    n = k.max() + 1
    surface = np.full(n, np.nan)
    np.fmax.at(surface, k, top)  # fmax ignores the NaN of an empty bin
    centre = (np.arange(n) + 0.5) * width + np.floor(x.min() / width) * width
    crest = int(np.nanargmax(surface))
    flank = np.arange(crest, n)
    empty = np.flatnonzero(np.isnan(surface[flank]))
    if empty.size:
        flank = flank[: empty[0]]
    cut = int(round(TRIM * flank.size))
    fit = flank[cut: flank.size - cut]
    if fit.size < 3:
        raise RuntimeError(f"the flank has {flank.size} bins, {fit.size} left to fit: no heap?")
    slope, _ = np.polyfit(centre[fit], surface[fit], 1)
    return float(np.degrees(np.arctan(abs(slope)))), int(fit.size)


def measure(rolling_friction, backend, seeds):
    """Run the heap (once per seed) and return the mean angle (degrees),
    the fitted bins of the last heap and the wall time (s)."""
    global ADAPTER
    start = time.perf_counter()
    angles = []
    for seed in range(1, seeds + 1):
        with talus.Simulation(heap_scene(rolling_friction, seed), backend=backend) as sim:
            sim.run(until=DURATION)
            angle, bins = heap_angle(sim.positions(), sim.radii())
            ADAPTER = f"{sim.backend} on {sim.adapter}, dt = {sim.dt:.3e} s"
        angles.append(angle)
    return float(np.mean(angles)), bins, time.perf_counter() - start


# --- the calibration ---------------------------------------------------------


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--target", type=float, default=21.0, help="target heap angle (degrees; default 21)")
    p.add_argument("--iterations", type=int, default=4, help="bisection steps after the two ends (default 4)")
    p.add_argument("--backend", choices=["cpu", "gpu", "auto"], default="cpu", help="default cpu")
    p.add_argument("--bracket", type=float, nargs=2, default=[0.0, 0.5], metavar=("LO", "HI"),
                   help="rolling friction bracket (default 0 0.5)")
    p.add_argument("--tol", type=float, default=1.5,
                   help="accepted |angle - target| at the end (degrees; default 1.5, for the heaps' scatter)")
    p.add_argument("--seeds", type=int, default=1, help="heaps averaged per evaluation (default 1)")
    a = p.parse_args()
    if a.iterations < 1 or a.seeds < 1 or not 0.0 <= a.bracket[0] < a.bracket[1]:
        p.error("expected --iterations >= 1, --seeds >= 1 and 0 <= LO < HI")

    t0 = time.perf_counter()
    lo, hi = a.bracket
    print(f"heap of {NX * NY * NZ} beads, r = {0.9 * RADIUS * 1e3:.2f}-{1.1 * RADIUS * 1e3:.2f} mm, "
          f"{DURATION} s per run, backend {a.backend}; target {a.target:.2f} deg +- {a.tol:.2f}")
    print(f"{'':>8} {'mu_r':>8} {'angle (deg)':>12} {'bins':>5} {'time (s)':>9}")
    a_lo, bins, secs = measure(lo, a.backend, a.seeds)
    print(f"{'end':>8} {lo:8.4f} {a_lo:12.2f} {bins:5d} {secs:9.1f}", flush=True)
    a_hi, bins, secs = measure(hi, a.backend, a.seeds)
    print(f"{'end':>8} {hi:8.4f} {a_hi:12.2f} {bins:5d} {secs:9.1f}", flush=True)
    if not a_hi > a_lo:
        print(f"error: the angle does not grow across the bracket ({a_lo:.2f} deg at mu_r = {lo}, "
              f"{a_hi:.2f} deg at {hi}): no bisection", file=sys.stderr)
        return 2
    if not a_lo <= a.target <= a_hi:
        print(f"error: target {a.target:.2f} deg is outside the bracket's angles "
              f"[{a_lo:.2f}, {a_hi:.2f}] deg (mu_r in [{lo}, {hi}]): choose a target inside, "
              f"or widen --bracket", file=sys.stderr)
        return 2

    mid = angle = None
    for i in range(1, a.iterations + 1):
        mid = 0.5 * (lo + hi)
        angle, bins, secs = measure(mid, a.backend, a.seeds)
        if angle < a.target:
            lo = mid
        else:
            hi = mid
        print(f"{'iter ' + str(i):>8} {mid:8.4f} {angle:12.2f} {bins:5d} {secs:9.1f}   "
              f"bracket now [{lo:.4f}, {hi:.4f}]", flush=True)

    ok = abs(angle - a.target) <= a.tol
    print(f"rolling friction {mid:.4f} (last bracket [{lo:.4f}, {hi:.4f}]) gives {angle:.2f} deg: "
          f"{'within' if ok else 'NOT within'} {a.tol:.2f} deg of the target {a.target:.2f} deg "
          f"({time.perf_counter() - t0:.1f} s in all; {ADAPTER})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
