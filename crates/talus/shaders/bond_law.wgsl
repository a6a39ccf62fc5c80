// One parallel bond's step (Potyondy & Cundall 2004), twin of
// src/bonds/law.rs (checked on random bonds by tests/gpu_bonds.rs): the
// bond between a and b (b's centre at a's + dist n) carries on a a normal
// force (along n, > 0 tension), a shear force, a twisting and a bending
// moment, grown from the half-step relative motion at the disc midway into
// the gap; broken in tension where F_n/A + |M_b| R/I reaches sigma_c, else
// in shear where |F_s|/A + |M_t| R/J reaches tau_c (the energy it held
// then released); damping on the predicted relative motion, not stored.
// Prepended after law.wgsl (its `Body`).

const BOND_INTACT: u32 = 0u;
const BOND_TENSION: u32 = 1u;
const BOND_SHEAR: u32 = 2u;
// one of its particles left the run (an outlet, the open domain)
const BOND_GONE: u32 = 3u;

// A bond's constants: x: kn = E/L, y: ks = kn / ratio (Pa/m), z: R (m),
// w: damping (fraction of critical); strengths: x sigma_c, y tau_c (Pa;
// < 0: never).
struct BondParams {
    k: vec4<f32>,
    strength: vec4<f32>,
}

// What a bond carries, on a: normal (x of nt), twist (y of nt), shear,
// bend.
struct BondState {
    nt: vec2<f32>,
    shear: vec3<f32>,
    bend: vec3<f32>,
}

struct BondResult {
    force_a: vec3<f32>,
    torque_a: vec3<f32>,
    torque_b: vec3<f32>,
    state: BondState,
    broke: u32,
    elastic: f32,
    dissipated: f32,
}

// v turned into the plane normal to n, its length kept.
fn bond_into_plane(v: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    let p = v - n * dot(v, n);
    let len_old = dot(v, v);
    let len_new = dot(p, p);
    if (len_new > 0.0) { return p * sqrt(len_old / len_new); }
    return p;
}

fn bond_energy(kna: f32, ksa: f32, ksj: f32, kni: f32, s: BondState) -> f32 {
    return 0.5 * (s.nt.x * s.nt.x / kna + dot(s.shear, s.shear) / ksa
                  + s.nt.y * s.nt.y / ksj + dot(s.bend, s.bend) / kni);
}

fn bond_law(bp: BondParams, dt: f32, a: Body, b: Body, n: vec3<f32>, dist: f32,
            old: BondState) -> BondResult {
    let pi = 3.141592653589793;
    let r = bp.k.z;
    let area = pi * r * r;
    let i2 = 0.25 * pi * r * r * r * r;
    let j2 = 2.0 * i2;
    let gap = dist - a.radius - b.radius;
    let arm_a = n * (a.radius + 0.5 * gap);
    let arm_b = n * -(b.radius + 0.5 * gap);
    let du = ((b.vel_half + cross(b.omega_half, arm_b)) - (a.vel_half + cross(a.omega_half, arm_a))) * dt;
    let dth = (b.omega_half - a.omega_half) * dt;
    let du_n = dot(du, n);
    let dth_n = dot(dth, n);
    let du_t = du - n * du_n;
    let dth_t = dth - n * dth_n;
    let kna = bp.k.x * area;
    let ksa = bp.k.y * area;
    let ksj = bp.k.y * j2;
    let kni = bp.k.x * i2;
    let s = BondState(vec2<f32>(old.nt.x + kna * du_n, old.nt.y + ksj * dth_n),
                      bond_into_plane(old.shear, n) + du_t * ksa,
                      bond_into_plane(old.bend, n) + dth_t * kni);
    let sigma = s.nt.x / area + sqrt(dot(s.bend, s.bend)) * r / i2;
    let tau = sqrt(dot(s.shear, s.shear)) / area + abs(s.nt.y) * r / j2;
    var broke = BOND_INTACT;
    if (bp.strength.x >= 0.0 && sigma >= bp.strength.x) {
        broke = BOND_TENSION;
    } else if (bp.strength.y >= 0.0 && tau >= bp.strength.y) {
        broke = BOND_SHEAR;
    }
    let z = vec3<f32>(0.0);
    if (broke != BOND_INTACT) {
        return BondResult(z, z, z, BondState(vec2<f32>(0.0), z, z), broke, 0.0,
                          bond_energy(kna, ksa, ksj, kni, old));
    }
    let m_star = 1.0 / (a.inv_mass + b.inv_mass);
    let i_star = 1.0 / (a.inv_inertia + b.inv_inertia);
    let v = (b.vel + cross(b.omega, arm_b)) - (a.vel + cross(a.omega, arm_a));
    let w = b.omega - a.omega;
    let v_n = dot(v, n);
    let w_n = dot(w, n);
    let v_t = v - n * v_n;
    let w_t = w - n * w_n;
    let zeta = 2.0 * bp.k.w;
    let cn = zeta * sqrt(m_star * kna);
    let cs = zeta * sqrt(m_star * ksa);
    let ct = zeta * sqrt(i_star * ksj);
    let cb = zeta * sqrt(i_star * kni);
    let f_shear = s.shear + v_t * cs;
    let force_a = n * (s.nt.x + cn * v_n) + f_shear;
    let moment = n * (s.nt.y + ct * w_n) + s.bend + w_t * cb;
    let torque_a = moment + cross(arm_a, f_shear);
    let torque_b = cross(arm_b, -f_shear) - moment;
    let lost = (cn * v_n * v_n + cs * dot(v_t, v_t) + ct * w_n * w_n + cb * dot(w_t, w_t)) * dt;
    return BondResult(force_a, torque_a, torque_b, s, broke,
                      bond_energy(kna, ksa, ksj, kni, s), lost);
}
