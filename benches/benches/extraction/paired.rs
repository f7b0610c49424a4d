//! The statistics of paired measurements (a limit and a way timed in alternating blocks),
//! shared by `benches/extraction.rs` and `examples/extract_loop.rs`.

/// Per-call times of one block pair: (limit, way), in nanoseconds.
pub type Pair = (f64, f64);

/// The statistics of a paired function's block pairs, as JSON: the median and quartiles of
/// the per-pair ratios; and the same median over the **quiet** pairs only, those whose limit
/// ran within 10% of the limit's floor (`limit_floor_ns`: the 5th percentile of the limit's
/// block times, so that one lucky block does not set it).
///
/// Why the quiet median: on this shared host the ratio itself depends on how busy the other
/// tenants keep the core. When the limit runs at its floor (36-39 ns for one parameter) a
/// one-parameter `extract` reads about 1.13x; when the same limit takes 55-60 ns, about 1.28x.
/// Pairing removes the bias of a slow spell falling on one side only, not that dependence.
/// Choosing pairs by the limit's speed alone never favours the way measured: a quiet limit
/// block beside a slowed way block stays in.
pub fn paired_stats(pairs: &[Pair]) -> String {
    if pairs.is_empty() {
        return "{}".to_owned();
    }
    let quantile = |values: &[f64], q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    let sorted = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values
    };
    let ratios = sorted(pairs.iter().map(|(limit, way)| way / limit).collect());
    let floor = quantile(&sorted(pairs.iter().map(|p| p.0).collect()), 0.05);
    let quiet = sorted(pairs.iter().filter(|p| p.0 <= floor * 1.1).map(|(limit, way)| way / limit).collect());
    format!(
        "{{\"median\": {:.4}, \"q1\": {:.4}, \"q3\": {:.4}, \"pairs\": {}, \"quiet_median\": {:.4}, \"quiet_pairs\": {}, \"limit_floor_ns\": {:.1}}}",
        quantile(&ratios, 0.5),
        quantile(&ratios, 0.25),
        quantile(&ratios, 0.75),
        ratios.len(),
        quantile(&quiet, 0.5),
        quiet.len(),
        floor
    )
}
