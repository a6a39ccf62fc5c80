#!/usr/bin/env python3
"""Runs the Chung & Ooi validation cases 1-8 (docs/validation.md) in LIGGGHTS
3.8 on the same inputs as `talus validate` and writes results.csv
(case,point,quantity,value) beside this file; `talus validate` adds a
LIGGGHTS column to report.md when it exists.

Run by hand (not in CI):  validation/liggghts/run.sh
Needs `liggghts` on PATH (Debian: apt-get install liggghts) and python3.

Same inputs: materials, radii, velocities, e, mu, the "rigid" wall (a
primitive plane whose material has 1000x the sphere's Young's modulus and
the same Poisson ratio), dt = shortest Hertz contact time / 200; gravity
off. The model is LIGGGHTS' `hertz` + `tangential history` (no
limitForce), which talus implements. Quantities are extracted exactly as
talus does (see src/validate/cases.rs). Sphere-wall cases put every sphere
on the floor z = 0 (talus uses the floor and the wall x = 0, the same
contact); sphere pairs collide along x in lanes along y, one atom type per
talus material (case 8: the small sphere and the heavy one), with
per-type-pair e and mu.
"""
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LIGGGHTS = os.environ.get("LIGGGHTS", "liggghts")
RIGID = 1e3
PER_CONTACT = 200.0
# pair and wall model (talus' law), and model settings appended to both
# (empty: the defaults); diagnostics may set e.g. "tangential_damping off" or
# "limitForce on" (see docs/validation.md)
MODEL = "hertz tangential history"
SETTINGS = ""


def e_star(E1, nu1, E2, nu2):
    return 1.0 / ((1 - nu1**2) / E1 + (1 - nu2**2) / E2)


def mass(rho, r):
    return rho * 4.0 / 3.0 * math.pi * r**3


def hertz_tc(m_star, r_star, es, v):
    d = (15 * m_star * v * v / (16 * es * math.sqrt(r_star))) ** 0.4
    return 2.94324 * d / v


def fmt(x):
    """Rust's `{}` for an f64 (0.2 -> 0.2, 1.0 -> 1, 5.0 -> 5)."""
    if float(x).is_integer():
        return str(int(x))
    return repr(float(x))


def run(name, types, atoms, walls, dt, steps, dump_every, box):
    """types: {"E": [per type], "nu": [per type], "e": n x n, "mu": n x n
    (per type pair)}; atoms: (type, diameter, density, pos, vel, omega);
    walls: (atom type of the wall's material, primitive). Returns the dumped
    snapshots, each {id: [x y z vx vy vz wx wy wz]}."""
    tmp = tempfile.mkdtemp(prefix=f"lig-{name.replace(' ', '_')}-")
    n_types = len(types["E"])
    lines = [f"talus validation {name}", "", f"{len(atoms)} atoms", f"{n_types} atom types", ""]
    for k, ax in enumerate("xyz"):
        lines.append(f"{box[0][k]:.10e} {box[1][k]:.10e} {ax}lo {ax}hi")
    lines += ["", "Atoms", ""]
    for i, a in enumerate(atoms):
        t, d, rho, p, _, _ = a
        lines.append(f"{i+1} {t} {d:.16e} {rho:.16e} {p[0]:.16e} {p[1]:.16e} {p[2]:.16e}")
    lines += ["", "Velocities", ""]
    for i, a in enumerate(atoms):
        v, w = a[4], a[5]
        lines.append(f"{i+1} " + " ".join(f"{x:.16e}" for x in (*v, *w)))
    open(os.path.join(tmp, "in.data"), "w").write("\n".join(lines) + "\n")
    pairs = lambda m: " ".join(f"{m[i][j]:.16g}" for i in range(n_types) for j in range(n_types))
    rmax = max(a[1] for a in atoms) / 2
    inp = f"""atom_style granular
atom_modify map array
boundary f f f
newton off
communicate single vel yes
units si
hard_particles yes
read_data in.data
neighbor {0.2 * rmax:.6e} bin
neigh_modify delay 0
fix m1 all property/global youngsModulus peratomtype {' '.join(f'{x:.16g}' for x in types['E'])}
fix m2 all property/global poissonsRatio peratomtype {' '.join(f'{x:.16g}' for x in types['nu'])}
fix m3 all property/global coefficientRestitution peratomtypepair {n_types} {pairs(types['e'])}
fix m4 all property/global coefficientFriction peratomtypepair {n_types} {pairs(types['mu'])}
pair_style gran model {MODEL} {SETTINGS}
pair_coeff * *
timestep {dt:.16e}
"""
    for k, (wtype, prim) in enumerate(walls):
        inp += f"fix w{k} all wall/gran model {MODEL} primitive type {wtype} {prim} 0.0 {SETTINGS}\n"
    inp += f"""fix integr all nve/sphere
dump d all custom {dump_every} dump.txt id x y z vx vy vz omegax omegay omegaz
dump_modify d sort id format "%d %.16e %.16e %.16e %.16e %.16e %.16e %.16e %.16e %.16e"
thermo 100000
run {steps}
"""
    open(os.path.join(tmp, "in.run"), "w").write(inp)
    r = subprocess.run([LIGGGHTS, "-in", "in.run", "-log", "log.txt", "-screen", "none"], cwd=tmp)
    if r.returncode != 0:
        sys.exit(f"liggghts failed in {tmp}: see {tmp}/log.txt")
    # parse snapshots: list of {id: [x y z vx vy vz wx wy wz]}
    snaps = []
    with open(os.path.join(tmp, "dump.txt")) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("ITEM: NUMBER OF ATOMS"):
            n = int(lines[i + 1])
        if lines[i].startswith("ITEM: ATOMS"):
            snap = {}
            for l in lines[i + 1 : i + 1 + n]:
                c = l.split()
                snap[int(c[0])] = [float(x) for x in c[1:]]
            snaps.append(snap)
            i += n
        i += 1
    shutil.rmtree(tmp)
    return snaps


def normal_history(ov, vn, m, dt):
    """As talus' normal_history: (F_max, delta_max, t_c, e) from the overlap
    and the moving sphere's normal velocity at every step (index 0 = start):
    F_max the largest m |dv|/dt, t_c from the linearly interpolated zero
    crossings, e = |v_n last| / |v_n first|."""
    first = next(k for k, d in enumerate(ov) if d > 0)
    last = first + next(k for k, d in enumerate(ov[first:]) if d <= 0) - 1
    cross = lambda i, j: i + (j - i) * ov[i] / (ov[i] - ov[j])
    t_c = (cross(last, last + 1) - cross(first - 1, first)) * dt
    dmax = max(ov[first : last + 1])
    fmax = max(m * abs(vn[k + 1] - vn[k]) / dt for k in range(len(vn) - 1))
    return fmax, dmax, t_c, abs(vn[-1]) / abs(vn[0])


def case1(out):
    r, v = 0.01, 10.0
    fams = [("glass", 48e9, 0.20, 2800.0), ("limestone", 20e9, 0.25, 2500.0)]
    for name, E, nu, rho in fams:
        m = mass(rho, r)
        es = e_star(E, nu, E, nu)
        tcs = [hertz_tc(0.5 * mass(f[3], r), 0.5 * r, e_star(f[1], f[2], f[1], f[2]), 2 * v) for f in fams]
        dt = min(tcs) / PER_CONTACT
        tc = hertz_tc(0.5 * m, 0.5 * r, es, 2 * v)
        gap = 2 * v * 10 * dt
        atoms = [
            (1, 2 * r, rho, (0.0, 0.0, 0.0), (v, 0.0, 0.0), (0, 0, 0)),
            (1, 2 * r, rho, (2 * r + gap, 0.0, 0.0), (-v, 0.0, 0.0), (0, 0, 0)),
        ]
        types = {"E": [E], "nu": [nu], "e": [[1.0]], "mu": [[0.35]]}
        steps = int(math.ceil((10 * dt + 1.15 * max(tcs)) / dt)) + 6
        snaps = run("case1-" + name, types, atoms, [], dt, steps, 1, ((-0.05, -0.05, -0.05), (0.07, 0.05, 0.05)))
        ov = [2 * r - (s[2][0] - s[1][0]) for s in snaps]
        vx = [s[1][3] for s in snaps]
        fmax, dmax, t_c, e = normal_history(ov, vx, m, dt)
        for q, val in (("F_max", fmax), ("delta_max", dmax), ("t_c", t_c), ("e", e)):
            out.append(("1", name, q, val))
        print(f"case 1 {name}: F_max {fmax:.6g} N, delta_max {dmax:.6g} m, t_c {t_c:.6g} s (theory {tc:.6g}), e {e:.6g}")


def case2(out):
    """Sphere on the rigid plane, e = 1, mu = 0; every step dumped."""
    r, v = 0.1, 0.2
    fams = [("Al alloy", 70e9, 0.30, 2699.0), ("Mg alloy", 40e9, 0.35, 1800.0)]
    tcs = [hertz_tc(mass(rho, r), r, e_star(E, nu, RIGID * E, nu), v) for _, E, nu, rho in fams]
    dt = min(tcs) / PER_CONTACT
    steps = int(math.ceil((10 * dt + 1.15 * max(tcs)) / dt)) + 6
    for (name, E, nu, rho), tc in zip(fams, tcs):
        m = mass(rho, r)
        atoms = [(1, 2 * r, rho, (0.0, 0.0, r + v * 10 * dt), (0.0, 0.0, -v), (0, 0, 0))]
        types = {"E": [E, RIGID * E], "nu": [nu, nu], "e": [[1.0] * 2] * 2, "mu": [[0.0] * 2] * 2}
        snaps = run("case2-" + name, types, atoms, [(2, "zplane")], dt, steps, 1, ((-0.5, -0.5, -0.2), (0.5, 0.5, 0.5)))
        ov = [r - s[1][2] for s in snaps]
        vz = [s[1][5] for s in snaps]
        fmax, dmax, t_c, e = normal_history(ov, vz, m, dt)
        for q, val in (("F_max", fmax), ("delta_max", dmax), ("t_c", t_c), ("e", e)):
            out.append(("2", name, q, val))
        print(f"case 2 {name}: F_max {fmax:.6g} N, delta_max {dmax:.6g} m, t_c {t_c:.6g} s (theory {tc:.6g}), e {e:.6g}")


def wall_case(name, fams, r, impacts, pair_e, mu, box_len):
    """fams: (label, E, nu, rho); impacts: list of (v_n, v_t, point label,
    restitution[, spin about +y]). One LIGGGHTS run per family: floor z = 0, spheres in
    lanes along y, moving +x. Returns {(fam, label): (after, before)}."""
    tcs = []
    for f in fams:
        es = e_star(f[1], f[2], RIGID * f[1], f[2])
        for (vn, *_) in impacts:
            tcs.append(hertz_tc(mass(f[3], r), r, es, vn))
    dt = min(tcs) / PER_CONTACT
    steps = int(math.ceil((10 * dt + 1.2 * max(tcs)) / dt))
    res = {}
    for (fam, E, nu, rho) in fams:
        # types 1..n spheres (one per distinct e), n+1 the wall
        es_list = sorted(set(i[3] for i in impacts))
        n = len(es_list) + 1
        e_tab = [[1.0] * n for _ in range(n)]
        for k, e in enumerate(es_list):
            e_tab[k][n - 1] = e_tab[n - 1][k] = e
        types = {
            "E": [E] * (n - 1) + [RIGID * E],
            "nu": [nu] * n,
            "e": e_tab,
            "mu": [[mu] * n for _ in range(n)],
        }
        vmax = max(abs(i[1]) + i[0] for i in impacts)
        spacing = max(6 * r, 4 * r + 2 * vmax * 3 * (10 * dt + max(tcs)))
        atoms = []
        for k, (vn, vt, label, e, *spin) in enumerate(impacts):
            y = spacing * (k + 1)
            z = r + vn * 10 * dt
            w = (0.0, spin[0] if spin else 0.0, 0.0)
            atoms.append((es_list.index(e) + 1, 2 * r, rho, (0.0, y, z), (vt, 0.0, -vn), w))
        ymax = spacing * (len(impacts) + 2)
        box = ((-box_len, 0.0, -2 * r), (box_len, ymax, 4 * r + box_len))
        # run to separation + 4 steps, in the same way as talus
        snaps = run(f"{name}-{fam}", types, atoms, [(n, "zplane")], dt, steps + 200, steps + 200, box)
        after = snaps[-1]
        for k, (vn, vt, label, *_) in enumerate(impacts):
            a = after[k + 1]
            if r - a[2] >= 0 or a[5] <= 0:
                sys.exit(f"{name} {fam} {label}: not separated after {steps + 200} steps")
            res[(fam, label)] = (a, (vn, vt))
    return res, dt


def case3(out):
    r, v = 0.0025, 3.9
    fams = [("Al oxide", 380e9, 0.23, 4000.0), ("cast iron", 100e9, 0.25, 7000.0)]
    es = [0.2, 0.4, 0.6, 0.8, 1.0]
    impacts = [(v, 0.0, f"e={fmt(e)}", e) for e in es]
    res, dt = wall_case("case3", fams, r, impacts, None, 0.0, 0.01)
    for (fam, label), (a, (vn, vt)) in res.items():
        en = a[5] / vn
        out.append(("3", f"{fam} {label}", "e", en))
        print(f"case 3 {fam} {label}: e {en:.6g}")


def case4(out):
    r, v = 0.0025, 3.9
    e, mu = 0.98, 0.092
    fams = [("Al oxide", 380e9, 0.23, 4000.0), ("Al alloy", 70e9, 0.33, 2700.0)]
    impacts = []
    for k in range(1, 18):
        th = 5.0 * k
        a = math.radians(th)
        impacts.append((v * math.cos(a), v * math.sin(a), f"θ={fmt(th)}°", e))
    res, dt = wall_case("case4", fams, r, impacts, e, mu, 0.01)
    for (fam, label), (a, (vn, vt)) in res.items():
        # floor: n = +z, t = +x, b = n x t = +y
        out.append(("4", f"{fam} {label}", "vt_ratio", a[3] / vt))
        out.append(("4", f"{fam} {label}", "omega", a[7]))
        out.append(("4", f"{fam} {label}", "en", a[5] / vn))
        print(f"case 4 {fam} {label}: vt'/vt {a[3]/vt:.6g}, omega {a[7]:.6g}, e_n {a[5]/vn:.6g}")


def case5(out):
    """Constant v_n = 5 m/s, v_t = 0.1..21 m/s, e = 1 (no damping at all)."""
    r, vn = 1e-5, 5.0
    e, mu = 1.0, 0.3
    fams = [("steel", 208e9, 0.30, 7850.0), ("polyethylene", 1e9, 0.40, 1400.0)]
    vts = [0.1, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 14.0, 16.0, 18.0, 21.0]
    impacts = [(vn, vt, f"v_t={fmt(vt)}", e) for vt in vts]
    res, dt = wall_case("case5", fams, r, impacts, e, mu, 1e-4)
    for (fam, label), (a, _) in res.items():
        ang = (a[3] - r * a[7]) / (mu * a[5])
        spin = r * a[7] / (mu * vn)
        out.append(("5", f"{fam} {label}", "angle_norm", ang))
        out.append(("5", f"{fam} {label}", "spin_norm", spin))
        print(f"case 5 {fam} {label}: (v_t' - R w')/(mu v_n') {ang:.6g}, R w'/(mu v_n) {spin:.6g}")


def case6(out):
    """Spin on the plane: talus' spin s = -omega0 about b = +y."""
    r, vn = 0.1, 0.2
    e, mu = 0.5, 0.4
    fams = [("Al alloy", 70e9, 0.30, 2699.0), ("nylon", 2.5e9, 0.40, 1000.0)]
    ws = [0.175, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 18.0, 21.0]
    impacts = [(vn, 0.0, f"ω0={fmt(w)}", e, -w) for w in ws]
    res, dt = wall_case("case6", fams, r, impacts, e, mu, 2.0)
    for (fam, label), (a, _) in res.items():
        out.append(("6", f"{fam} {label}", "omega", -a[7]))
        out.append(("6", f"{fam} {label}", "vt", -a[3]))
        print(f"case 6 {fam} {label}: omega' {-a[7]:.6g}, v_t' {-a[3]:.6g}")


def pair_case(name, pairs, e, mu):
    """Sphere pairs colliding along x, all in one LIGGGHTS run, as talus'
    pair_sweep: pairs = [(fam, label, mat_a, r_a, mat_b, r_b, v_a, w_a, v_b,
    w_b)], mat = (name, E, nu, rho). One atom type per material; every type
    pair gets e and mu (only a-b pairs ever touch). dt = shortest Hertz t_c
    of all pairs / 200; a and b start 10 dt of approach apart; lanes along y
    6 R_max apart. Returns {(fam, label): (a after, b after, pair)}."""
    mats = []
    for p in pairs:
        for mt in (p[2], p[4]):
            if mt not in mats:
                mats.append(mt)
    tcs, rmax = [], 0.0
    for (_, _, ma, ra, mb, rb, va, _, vb, _) in pairs:
        m1, m2 = mass(ma[3], ra), mass(mb[3], rb)
        tcs.append(hertz_tc(m1 * m2 / (m1 + m2), ra * rb / (ra + rb), e_star(ma[1], ma[2], mb[1], mb[2]), va[0] - vb[0]))
        rmax = max(rmax, ra, rb)
    dt = min(tcs) / PER_CONTACT
    steps = int(math.ceil((10 * dt + 1.2 * max(tcs)) / dt))
    spacing = 6 * rmax
    n = len(mats)
    types = {
        "E": [mt[1] for mt in mats],
        "nu": [mt[2] for mt in mats],
        "e": [[e] * n for _ in range(n)],
        "mu": [[mu] * n for _ in range(n)],
    }
    atoms = []
    for k, (_, _, ma, ra, mb, rb, va, wa, vb, wb) in enumerate(pairs):
        y = spacing * (k + 1)
        gap = max(va[0] - vb[0], 0.0) * 10 * dt
        atoms.append((mats.index(ma) + 1, 2 * ra, ma[3], (0.0, y, 0.0), va, wa))
        atoms.append((mats.index(mb) + 1, 2 * rb, mb[3], (ra + rb + gap, y, 0.0), vb, wb))
    box = ((-3 * rmax, 0.0, -3 * rmax), (6 * rmax, spacing * (len(pairs) + 1), 3 * rmax))
    snaps = run(name, types, atoms, [], dt, steps + 200, steps + 200, box)
    after = snaps[-1]
    res = {}
    for k, p in enumerate(pairs):
        a, b = after[2 * k + 1], after[2 * k + 2]
        d = [b[j] - a[j] for j in range(3)]
        dist = math.sqrt(sum(x * x for x in d))
        v_sep = sum((b[3 + j] - a[3 + j]) * d[j] / dist for j in range(3))
        if p[3] + p[5] - dist >= 0 or v_sep <= 0:
            sys.exit(f"{name} {p[0]} {p[1]}: not separated after {steps + 200} steps")
        res[(p[0], p[1])] = (a, b, p)
    print(f"{name}: {len(pairs)} pairs, dt {dt:.4e} s, {steps + 200} steps")
    return res, dt


def slip(a, b, ra, rb):
    """Contact-point slip along y of a pair along x with spins about z:
    v_ay + R_a w_az - v_by + R_b w_bz (talus' PairSweep::slip)."""
    return a[4] + ra * a[8] - b[4] + rb * b[8]


def case7(out):
    """Two identical spheres at +-0.2 m/s, both spinning w0 about z."""
    r, v = 0.1, 0.2
    e, mu = 0.5, 0.4
    fams = [("Al alloy", 70e9, 0.30, 2699.0), ("copper", 120e9, 0.35, 8900.0)]
    ws = [0.175, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 14.0, 21.0]
    pairs = []
    for mt in fams:
        for w in ws:
            pairs.append((mt[0], f"ω0={fmt(w)}", mt, r, mt, r, (v, 0.0, 0.0), (0.0, 0.0, w), (-v, 0.0, 0.0), (0.0, 0.0, w)))
    res, dt = pair_case("case7", pairs, e, mu)
    for (fam, label), (a, b, p) in res.items():
        out.append(("7", f"{fam} {label}", "omega", a[8]))
        out.append(("7", f"{fam} {label}", "vt", abs(a[4])))
        u0 = slip((0, 0, 0, *p[6], *p[7]), (0, 0, 0, *p[8], *p[9]), r, r)
        print(f"case 7 {fam} {label}: omega' {a[8]:.6g}, |v_t'| {abs(a[4]):.6g}, u'/u {slip(a, b, r, r) / u0:.6g}")


def case8(out):
    """R1 = 0.1 m at 0.2 m/s spinning w0 about z onto R2 = 5 R1 at rest with
    1000x the density (same E, nu): two atom types per family."""
    r1, v = 0.1, 0.2
    r2 = 5 * r1
    e, mu = 0.5, 0.4
    fams = [("Al alloy", 70e9, 0.30, 2699.0), ("nylon", 2.5e9, 0.40, 1000.0)]
    ws = [0.175, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 14.0, 21.0]
    pairs = []
    for mt in fams:
        heavy = (mt[0] + " ×1000 ρ", mt[1], mt[2], 1000.0 * mt[3])
        for w in ws:
            pairs.append((mt[0], f"ω0={fmt(w)}", mt, r1, heavy, r2, (v, 0.0, 0.0), (0.0, 0.0, w), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)))
    res, dt = pair_case("case8", pairs, e, mu)
    for (fam, label), (a, b, p) in res.items():
        u0 = slip((0, 0, 0, *p[6], *p[7]), (0, 0, 0, *p[8], *p[9]), r1, r2)
        et = slip(a, b, r1, r2) / u0
        out.append(("8", f"{fam} {label}", "et", et))
        print(f"case 8 {fam} {label}: u'/u {et:.6g}, omega' {a[8]:.6g}, v_t' {a[4]:.6g}")


def main():
    out = []
    case1(out)
    case2(out)
    case3(out)
    case4(out)
    case5(out)
    case6(out)
    case7(out)
    case8(out)
    path = os.path.join(HERE, "results.csv")
    with open(path, "w") as f:
        f.write("case,point,quantity,value\n")
        for c, p, q, v in out:
            f.write(f"{c},{p},{q},{v:.10e}\n")
    print(f"{len(out)} values -> {path}")


if __name__ == "__main__":
    main()
