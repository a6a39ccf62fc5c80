// Stage 2 (end), reorder: one generic kernel pair over u32 words moves
// every per-particle array (src/gpu/data.rs, `ParticleBuffers::arrays`),
// dispatched once per array: `gather_words` (one thread per particle,
// looping over its words) gathers an array `arr` of the working set B into
// the scratch array `scr` in the new cell order, S[j] = B[order[j]];
// `copy_words` (one thread per word) copies it back, B[j] = S[j]. A
// dispatch moves one part of an array: `G.words` u32 words of each
// particle's record of `G.stride` words, from word `G.offset` (an array
// wider than the scratch goes in parts); adding one binds nothing new. The
// copy leaves the scratch zero: it may be the pair sums (contacts.wgsl,
// `acc`), zero between steps. Both arrays are paged by particles (src/gpu/pages.rs:
// `arr_word`, `scr_word`). Part of the sort stage (src/gpu/sort.rs); runs
// only on a step that rebuilds the neighbour list.

// One part of an array: words per particle (the words in all are words ·
// the active count, ctl[CTL_COUNT]), of records `stride` words long, from
// word `offset`.
struct Gather {
    words: u32,
    stride: u32,
    offset: u32,
    pad0: u32,
}

@group(0) @binding(0) var<storage, read> ctl: array<u32, CTL_LEN>;

fn idle() -> bool {
    return ctl[CTL_FROZEN] != NONE || ctl[CTL_REBUILD] == 0u;
}

@group(1) @binding(0) var<uniform> G: Gather;
@group(1) @binding(1) var<storage, read_write> arr: array<u32>;
@group(1) @binding(2) var<storage, read_write> scr: array<u32>;

@group(2) @binding(0) var<storage, read> order: array<u32>;

@compute @workgroup_size(256)
fn gather_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let j = flat_index(wid, nwg, lid);
    if (j >= ctl[CTL_COUNT] || idle()) { return; }
    let o = order[j];
    for (var k = 0u; k < G.words; k++) {
        scr_word_put(j, k, arr_word(o, G.offset + k));
    }
}

@compute @workgroup_size(256)
fn copy_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let t = flat_index(wid, nwg, lid);
    if (t >= G.words * ctl[CTL_COUNT] || idle()) { return; }
    let j = t / G.words;
    let k = t % G.words;
    arr_word_put(j, G.offset + k, scr_word(j, k));
    // left zero: the scratch may be the pair sums (src/gpu/data.rs)
    scr_word_put(j, k, 0u);
}
