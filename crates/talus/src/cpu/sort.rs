//! Stage 2, sort: exclusive scan of the cell counts and a counting-sort
//! scatter into cell order. Inside a cell particles keep ascending index, so
//! the order is deterministic (the GPU sorts each cell by index to match).

/// Exclusive scan: `starts[c]` = first slot of cell `c`; `starts[n] = total`.
pub fn exclusive_scan(counts: &[u32], starts: &mut Vec<u32>) {
    starts.clear();
    starts.reserve(counts.len() + 1);
    let mut acc = 0u32;
    for &c in counts {
        starts.push(acc);
        acc += c;
    }
    starts.push(acc);
}

/// Fills `starts` (scan of `counts`) and `order` (particle indices in cell
/// order, ascending index inside each cell). `counts` doubles as the scatter
/// cursor, as on the GPU: zeroed, then counted up again, so it ends as it
/// began and nothing is allocated per step.
pub fn sort(keys: &[u32], counts: &mut [u32], starts: &mut Vec<u32>, order: &mut Vec<u32>) {
    exclusive_scan(counts, starts);
    order.clear();
    order.resize(keys.len(), 0);
    counts.fill(0);
    for (i, &k) in keys.iter().enumerate() {
        let c = &mut counts[k as usize];
        order[(starts[k as usize] + *c) as usize] = i as u32;
        *c += 1;
    }
}
