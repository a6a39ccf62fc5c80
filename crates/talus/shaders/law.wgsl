// The contact law of one pair, twin of src/cpu/law.rs (checked on random
// contacts through every branch by tests/gpu.rs,
// gpu_law_matches_cpu_law_in_every_branch): Hertz-Mindlin with LIGGGHTS'
// damping or linear spring-dashpot, tangential spring with history,
// Coulomb sliding, rolling resistance (cdt, or a spring with memory:
// epsd, epsd2), JKR adhesion, and the energy stored and
// dissipated. A wall is a `Body` with radius < 0 (infinite) and zero
// inverse mass and inertia. Prepended to the shaders that use it
// (src/gpu/shaders.rs); reads the including shader's `P: Params` for dt,
// the model and the linear parameters.

struct Body {
    vel: vec3<f32>,        // predicted v*(n): damping, friction
    omega: vec3<f32>,
    vel_half: vec3<f32>,   // v(n-1/2), which moved the positions: slip
    omega_half: vec3<f32>,
    radius: f32,      // < 0: a wall (infinite radius)
    inv_mass: f32,
    inv_inertia: f32,
}

struct PairResult {
    force_a: vec3<f32>,
    torque_a: vec3<f32>,
    torque_b: vec3<f32>,
    xi: vec3<f32>,
    kt: f32,
    roll: vec3<f32>,   // the rolling spring's torque M (epsd, epsd2): -M on a, M on b
    elastic: f32,
    dissipated: f32,
}

fn body(m: Motion, radius: f32) -> Body {
    return Body(m.vel_invm.xyz, m.omega_invi.xyz, m.vel_half.xyz, m.omega_half.xyz, radius,
                m.vel_invm.w, m.omega_invi.w);
}

fn pair_law(pp: Pair, a: Body, b: Body, n: vec3<f32>, overlap: f32, hist: vec4<f32>,
            roll_old: vec3<f32>) -> PairResult {
    let dt = P.gravity_dt.w;
    let b_wall = b.radius < 0.0;
    var r_star = a.radius;
    if (!b_wall) { r_star = a.radius * b.radius / (a.radius + b.radius); }
    let m_star = 1.0 / (a.inv_mass + b.inv_mass);
    let arm_a = n * (a.radius - 0.5 * overlap);
    var arm_b = vec3<f32>(0.0);
    if (!b_wall) { arm_b = n * -(b.radius - 0.5 * overlap); }
    let v_rel = (a.vel + cross(a.omega, arm_a)) - (b.vel + cross(b.omega, arm_b));
    let vn = dot(v_rel, n);
    let vt = v_rel - n * vn;
    let v_half = (a.vel_half + cross(a.omega_half, arm_a)) - (b.vel_half + cross(b.omega_half, arm_b));
    let vt_half = v_half - n * dot(v_half, n);

    var kn: f32; var gn: f32; var kt: f32; var gt: f32; var elastic_n: f32; var fn_el: f32;
    // JKR (Hertz-Mindlin only): the contact radius a in the stiffnesses
    // and the damping, JKR's force (its Hertz part; the pull below) and
    // potential (src/cpu/law.rs)
    let jkr = P.models.x == COHESION_JKR;
    var js = JkrState(0.0, 0.0, 0.0, 0.0, false, 0.0, 0.0);
    if (jkr) {
        js = jkr_at(r_star, pp.e_star, pp.surface_energy, overlap);
        kn = 4.0 / 3.0 * pp.e_star * js.a;
        kt = 8.0 * pp.g_star * js.a;
        let q = sqrt(js.a * m_star);
        gn = pp.damp_n * q;
        gt = pp.damp_t * q;
        elastic_n = js.potential;
        fn_el = js.hertz;
    } else if (P.periodic.w == 0u) {
        let sq = sqrt(r_star * overlap);
        kn = 4.0 / 3.0 * pp.e_star * sq;
        let st = 8.0 * pp.g_star * sq;
        let q = sqrt(sq * m_star);
        gn = pp.damp_n * q;
        gt = pp.damp_t * q;
        kt = st;
        elastic_n = 0.4 * kn * overlap * overlap;
        fn_el = kn * overlap;
    } else {
        let l = log(pp.restitution);
        let pi2 = 9.869604401089358;
        if (P.linear.y > 0.0) {
            let tc = P.linear.y;
            kn = m_star * (pi2 + l * l) / (tc * tc);
            gn = -2.0 * l * m_star / tc;
        } else {
            kn = P.linear.x;
            gn = -2.0 * l * sqrt(m_star * kn) / sqrt(pi2 + l * l);
        }
        kt = P.linear.z * kn;
        gt = gn * sqrt(P.linear.z);
        elastic_n = 0.5 * kn * overlap * overlap;
        fn_el = kn * overlap;
    }
    let fn_total = fn_el + gn * vn;

    let xi_old = hist.xyz;
    var xi = xi_old - n * dot(xi_old, n);
    let old_len2 = dot(xi_old, xi_old);
    let new_len2 = dot(xi, xi);
    if (new_len2 > 0.0) { xi = xi * sqrt(old_len2 / new_len2); }
    var kt_old = kt;
    if (hist.w > 0.0) { kt_old = hist.w; }
    let elastic_t_old = 0.5 * kt_old * dot(xi, xi);
    xi = xi + vt_half * dt;
    var ft = -kt * xi - gt * vt;
    let ft_max = pp.friction * max(fn_total, 0.0);
    let ft_len = sqrt(dot(ft, ft));
    if (ft_len > ft_max) {
        if (ft_len > 0.0) { ft = ft * (ft_max / ft_len); } else { ft = vec3<f32>(0.0); }
        if (kt > 0.0) { xi = ft * (-1.0 / kt); } else { xi = vec3<f32>(0.0); }
    }
    let elastic_t = 0.5 * kt * dot(xi, xi);
    var coh = cohesion(pp, a, b, b_wall, r_star, overlap);
    if (jkr) { coh = vec2<f32>(js.pull, 0.0); }
    let force_a = n * (coh.x - fn_total) + ft;
    var torque_a = cross(arm_a, ft);
    var torque_b = cross(arm_b, -ft);

    var dissipated_roll = 0.0;
    var roll = vec3<f32>(0.0);
    var elastic_roll = 0.0;
    var elastic_roll_old = 0.0;
    if (P.models.z != ROLLING_CDT) {
        // rolling spring with memory (src/cpu/law.rs, `rolling_spring`)
        let r2 = r_star * r_star;
        var kr = kt * r2;
        var kr_old = kt_old * r2;
        if (P.models.z == ROLLING_EPSD) {
            kr = 2.25 * kn * pp.rolling_friction * pp.rolling_friction * r2;
            kr_old = kr;
        }
        var e_old = 0.0;
        if (kr_old > 0.0) { e_old = 0.5 * dot(roll_old, roll_old) / kr_old; }
        let wh = a.omega_half - b.omega_half;
        let w_half = wh - n * dot(wh, n);
        var m = roll_old + w_half * (kr * dt);
        let m_len = sqrt(dot(m, m));
        let m_max = pp.rolling_friction * r_star * abs(fn_total);
        let capped = m_len > m_max;
        if (capped) { m = m * (m_max / m_len); }
        let w_rel = a.omega - b.omega;
        var applied = m;
        if (P.models.z == ROLLING_EPSD && !capped) {
            let i_r = 1.4 / (a.inv_mass / (a.radius * a.radius) + b.inv_mass / (b.radius * b.radius));
            let coef = pp.rolling_damping * 2.0 * sqrt(i_r * kr);
            applied = m + (w_rel - n * dot(w_rel, n)) * coef;
        }
        if (kr > 0.0) { elastic_roll = 0.5 * dot(m, m) / kr; }
        torque_a = torque_a - applied;
        torque_b = torque_b + applied;
        roll = m;
        dissipated_roll = dot(applied, w_rel) * dt - (elastic_roll - e_old);
        elastic_roll_old = e_old;
    } else if (pp.rolling_friction > 0.0) {
        let w_rel = a.omega - b.omega;
        let w_roll = w_rel - n * dot(w_rel, n);
        let w_len = sqrt(dot(w_roll, w_roll));
        if (w_len > 0.0) {
            let inv_i = a.inv_inertia + b.inv_inertia;
            var m = pp.rolling_friction * r_star * max(fn_total, 0.0);
            // one contact removes at most 1/ROLLING_SHARE of the rolling
            // spin in a step (pair.rs: several must not reverse it)
            if (inv_i > 0.0) { m = min(m, w_len / (f32(ROLLING_SHARE) * inv_i * dt)); }
            let mr = w_roll * (-m / w_len);
            torque_a = torque_a + mr;
            torque_b = torque_b - mr;
            dissipated_roll = m * w_len * dt;
        }
    }
    let dissipated_n = gn * vn * vn * dt;
    let dissipated_t = -dot(ft, vt) * dt - (elastic_t - elastic_t_old);
    var lost = dissipated_n + dissipated_t + dissipated_roll;
    if (jkr) {
        // a contact that has touched (k_t > 0 stored) holds past touching
        // down to delta_c; surfaces that touch snap in (src/cpu/law.rs,
        // `jkr_select`)
        let held = hist.w > 0.0;
        if (!(overlap > 0.0 || (held && js.holds))) {
            var parted = 0.0;
            if (held) { parted = elastic_t_old + elastic_roll_old + js.parting_loss; }
            let z = vec3<f32>(0.0);
            return PairResult(z, z, z, z, 0.0, z, 0.0, parted);
        }
        if (!held) { lost += js.snap_in_loss; }
    }
    return PairResult(force_a, torque_a, torque_b, xi, kt, roll,
                      elastic_n + elastic_t + coh.y + elastic_roll, lost);
}

// A JKR contact at one overlap (src/cpu/jkr.rs, `Jkr::at`).
struct JkrState {
    a: f32,           // contact radius
    hertz: f32,       // 4 E* a^3 / (3 R*)
    pull: f32,        // sqrt(8 pi gamma E* a^3)
    potential: f32,   // Phi(a)
    holds: bool,      // delta > delta_c
    snap_in_loss: f32, // -Phi(a0) = 0.6 pi gamma a0^2
    parting_loss: f32, // Phi(a_s) = 0.4 pi gamma a_s^2
}

// JKR's contact radius by Newton's method on f(s) = s^4/R* - C s - delta,
// s = sqrt(a), C = sqrt(2 pi gamma / E*), from the nearer of two starts
// right of the root (src/cpu/jkr.rs: why), JKR_NEWTON_STEPS steps; the
// force's parts, the potential, and the two losses.
fn jkr_at(r: f32, e: f32, gamma: f32, delta: f32) -> JkrState {
    let pi = 3.141592653589793;
    let c = sqrt(2.0 * pi * gamma / e);
    let s_part = pow(c * r * 0.25, 1.0 / 3.0);
    let a_part = s_part * s_part;
    let d_part = -(3.0 * a_part * a_part / r);
    var s = sqrt(sqrt(r * max(delta, 0.0))) + pow(r * c, 1.0 / 3.0);
    if (s_part > 0.0) {
        let t = sqrt(max(delta - d_part, 0.0) * r / (6.0 * s_part * s_part));
        s = min(s, s_part + t);
    }
    for (var i = 0u; i < JKR_NEWTON_STEPS; i++) {
        let s3 = s * s * s;
        let f = s3 * s / r - c * s - delta;
        let fp = 4.0 * s3 / r - c;
        let next = s - f / fp;
        // only rounding at a double root can step left of a_s: stay there
        if (next > s_part && fp > 0.0) { s = next; } else { s = s_part; }
    }
    let s3 = s * s * s;
    let a0 = pow(c * r, 2.0 / 3.0);
    return JkrState(
        s * s,
        4.0 / 3.0 * e * s3 * s3 / r,
        2.0 * e * c * s3,
        s * s * s * s * (8.0 / 15.0 * e * s3 * s3 / (r * r) - 4.0 / 3.0 * e * c * s3 / r + pi * gamma),
        delta > d_part,
        0.6 * pi * gamma * a0 * a0,
        0.4 * pi * gamma * a_part * a_part,
    );
}

// The cohesive pull (x, >= 0: along n on a) and its potential (y, <= 0)
// of LIGGGHTS' `cohesion sjkr` / `sjkr2` (src/cpu/law.rs, `cohesion`: the
// areas and the potentials' closed forms).
fn cohesion(pp: Pair, a: Body, b: Body, b_wall: bool, r_star: f32, delta: f32) -> vec2<f32> {
    let pi = 3.141592653589793;
    let k = pp.cohesion;
    if (P.models.x == COHESION_SJKR) {
        var a2: f32; var u: f32;
        if (b_wall) {
            let r = a.radius;
            a2 = delta * (2.0 * r - delta);
            u = delta * delta * (r - delta / 3.0);
        } else {
            let s = a.radius + b.radius;
            let dd = a.radius - b.radius;
            let d = s - delta;
            a2 = delta * (s + d) * (d * d - dd * dd) / (4.0 * d * d);
            u = delta * delta * ((2.0 * s + d) / 3.0 - dd * dd / d) * 0.25;
        }
        return vec2<f32>(k * pi * a2, -(k * pi * u));
    }
    if (P.models.x == COHESION_SJKR2) {
        var g = 4.0 * pi;
        if (b_wall) { g = 2.0 * pi; }
        let f = k * g * r_star * delta;
        return vec2<f32>(f, -(0.5 * f * delta));
    }
    return vec2<f32>(0.0);
}
