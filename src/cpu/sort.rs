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
/// order, ascending index inside each cell).
pub fn sort(keys: &[u32], counts: &[u32], starts: &mut Vec<u32>, order: &mut Vec<u32>) {
    exclusive_scan(counts, starts);
    order.clear();
    order.resize(keys.len(), 0);
    let mut next: Vec<u32> = starts[..counts.len()].to_vec();
    for (i, &k) in keys.iter().enumerate() {
        let slot = &mut next[k as usize];
        order[*slot as usize] = i as u32;
        *slot += 1;
    }
}
