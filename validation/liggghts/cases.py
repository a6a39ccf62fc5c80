#!/usr/bin/env python3
"""Runs validation cases 1, 3 and 4 (docs/validation.md) in LIGGGHTS 3.8 on
the same inputs as `talus validate` and writes results.csv
(case,point,quantity,value) beside this file; `talus validate` adds a
LIGGGHTS column to report.md when it exists.

Run by hand (not in CI):  validation/liggghts/run.sh
Needs `liggghts` on PATH (Debian: apt-get install liggghts) and python3.

Same inputs: materials, radii, velocities, e, mu, the "rigid" wall (a
primitive plane whose material has 1000x the sphere's Young's modulus and
the same Poisson ratio), dt = shortest Hertz contact time / 200; gravity
off. The model is LIGGGHTS' `hertz` + `tangential history` (no
limitForce), which talus implements. Quantities are extracted exactly as
talus does (see src/validate/cases.rs).
"""
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LIGGGHTS = os.environ.get("LIGGGHTS", "liggghts")
RIGID = 1e3
PER_CONTACT = 200.0


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
    """types: list of (E, nu, rho); e_mat, mu_mat: n x n lists via atoms'
    pair tables; atoms: (type, diameter, density, pos, vel, omega)."""
    tmp = tempfile.mkdtemp(prefix=f"lig-{name}-")
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
pair_style gran model hertz tangential history
pair_coeff * *
timestep {dt:.16e}
"""
    for k, (wtype, prim) in enumerate(walls):
        inp += f"fix w{k} all wall/gran model hertz tangential history primitive type {wtype} {prim} 0.0\n"
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
    return snaps


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
        first = next(k for k, d in enumerate(ov) if d > 0)
        last = first + next(k for k, d in enumerate(ov[first:]) if d <= 0) - 1
        cross = lambda i, j: i + (j - i) * ov[i] / (ov[i] - ov[j])
        t_c = (cross(last, last + 1) - cross(first - 1, first)) * dt
        dmax = max(ov[first : last + 1])
        fmax = max(m * abs(vx[k + 1] - vx[k]) / dt for k in range(len(vx) - 1))
        e = abs(snaps[-1][2][3] - snaps[-1][1][3]) / (2 * v)
        for q, val in (("F_max", fmax), ("delta_max", dmax), ("t_c", t_c), ("e", e)):
            out.append(("1", name, q, val))
        print(f"case 1 {name}: F_max {fmax:.6g} N, delta_max {dmax:.6g} m, t_c {t_c:.6g} s (theory {tc:.6g}), e {e:.6g}")


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
        spacing = 6 * r + 2 * 25.0 * 3 * (10 * dt + max(tcs))
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


def main():
    out = []
    case1(out)
    case3(out)
    case4(out)
    case6(out)
    path = os.path.join(HERE, "results.csv")
    with open(path, "w") as f:
        f.write("case,point,quantity,value\n")
        for c, p, q, v in out:
            f.write(f"{c},{p},{q},{v:.10e}\n")
    print(f"{len(out)} values -> {path}")


if __name__ == "__main__":
    main()
