// The list's history across its two binding pages (src/gpu/data.rs,
// `HIST_PAGES`): one buffer bound twice, `nbr_hist` holding the entries
// below P.level_count.z and `nbr_hist_hi` the rest, so one binding's limit
// does not cap the list. Prepended to the stages that declare both
// (neighbours.wgsl, contacts.wgsl).

fn hist_set(e: u32, h: vec4<f32>) {
    let page = P.level_count.z;
    if (e < page) { nbr_hist[e] = h; } else { nbr_hist_hi[e - page] = h; }
}

fn hist_get(e: u32) -> vec4<f32> {
    let page = P.level_count.z;
    if (e < page) { return nbr_hist[e]; }
    return nbr_hist_hi[e - page];
}
