// Not a stage: the ghosts' exchange of a run on several ranks
// (src/gpu/ghosts.rs, src/dist/gpu_rank.rs). After a step's integration
// `ghost_pack` copies the listed particles' f32 position, fixed-point
// position and motion record into rows of GHOST_WORDS words, which the host
// sends to the ranks holding copies of them; `ghost_unpack` writes the rows
// received into the listed copies before the next step. In a run with
// clumps (the list's count word flagged by GHOST_PARTS) each row also
// carries the particle's part in a clump (its lever and member index:
// GHOST_PART_WORDS more), which a copy takes as a row of no clump here (its
// owner moves it). The list is [count, index, index, ...]; a thread per
// listed particle, each touching its own row and particle only.

@group(0) @binding(0) var<storage, read> list: array<u32>;
@group(0) @binding(1) var<storage, read_write> rows: array<u32>;

@group(1) @binding(0) var<storage, read_write> pos: array<vec4<f32>>;
@group(1) @binding(1) var<storage, read_write> motion: array<Motion>;
@group(1) @binding(2) var<storage, read_write> posfx: array<array<u32, FX_WORDS>>;
@group(1) @binding(3) var<storage, read_write> clump_row: array<MemberRow>;

// The count word's flag: the rows carry the particles' parts in clumps.
const GHOST_PARTS: u32 = 0x80000000u;

fn listed() -> u32 { return list[0] & ~GHOST_PARTS; }
fn with_parts() -> bool { return (list[0] & GHOST_PARTS) != 0u; }
fn row_words() -> u32 { return select(GHOST_WORDS, GHOST_WORDS + GHOST_PART_WORDS, with_parts()); }

@compute @workgroup_size(256)
fn ghost_pack(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let k = flat_index(wid, nwg, lid);
    if (k >= listed()) { return; }
    let i = list[k + 1u];
    let at = k * row_words();
    let p = pos_at(i);
    let m = motion_at(i);
    let fx = posfx_at(i);
    for (var c = 0u; c < 4u; c++) {
        rows[at + c] = bitcast<u32>(p[c]);
        rows[at + 4u + c] = bitcast<u32>(m.vel_invm[c]);
        rows[at + 8u + c] = bitcast<u32>(m.omega_invi[c]);
        rows[at + 12u + c] = bitcast<u32>(m.vel_half[c]);
        rows[at + 16u + c] = bitcast<u32>(m.omega_half[c]);
    }
    for (var c = 0u; c < FX_WORDS; c++) { rows[at + 20u + c] = fx[c]; }
    if (with_parts()) {
        let r = clump_row_at(i);
        let b = at + GHOST_WORDS;
        for (var c = 0u; c < 4u; c++) { rows[b + c] = bitcast<u32>(r.lever_a[c]); }
        rows[b + 4u] = bitcast<u32>(r.lever_b.x);
        rows[b + 5u] = bitcast<u32>(r.lever_b.y);
        rows[b + 6u] = r.body;
        rows[b + 7u] = r.member;
    }
}

// The material word keeps the copy's GHOST bit (the sender's is clear).
@compute @workgroup_size(256)
fn ghost_unpack(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let k = flat_index(wid, nwg, lid);
    if (k >= listed()) { return; }
    let i = list[k + 1u];
    let at = k * row_words();
    var p: vec4<f32>;
    var m: Motion;
    var fx: array<u32, FX_WORDS>;
    for (var c = 0u; c < 4u; c++) {
        p[c] = bitcast<f32>(rows[at + c]);
        m.vel_invm[c] = bitcast<f32>(rows[at + 4u + c]);
        m.omega_invi[c] = bitcast<f32>(rows[at + 8u + c]);
        m.vel_half[c] = bitcast<f32>(rows[at + 12u + c]);
        m.omega_half[c] = bitcast<f32>(rows[at + 16u + c]);
    }
    m.vel_half.w = bitcast<f32>(rows[at + 15u] | GHOST);
    for (var c = 0u; c < FX_WORDS; c++) { fx[c] = rows[at + 20u + c]; }
    pos_put(i, p);
    motion_put(i, m);
    posfx_put(i, fx);
    if (with_parts()) {
        let b = at + GHOST_WORDS;
        var r: MemberRow;
        for (var c = 0u; c < 4u; c++) { r.lever_a[c] = bitcast<f32>(rows[b + c]); }
        r.lever_b = vec2<f32>(bitcast<f32>(rows[b + 4u]), bitcast<f32>(rows[b + 5u]));
        r.body = NONE;
        r.member = rows[b + 7u];
        clump_row_put(i, r);
    }
}
