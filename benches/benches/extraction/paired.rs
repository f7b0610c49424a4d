//! The statistics of paired measurements (a limit and a way timed in alternating blocks),
//! shared by `benches/extraction.rs` and `examples/extract_loop.rs`.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Per-call times of one block pair: (limit, way), in nanoseconds.
pub type Pair = (f64, f64);

/// Times `calls` calls of `limit` and of `way` in alternating blocks of `block` calls, the
/// order swapped from block to block. Returns one [`Pair`] per block and the total time of
/// `way`. Both closures are generic: no call through a pointer on either side, which would
/// add the same few nanoseconds to both and pull the ratio towards 1.
pub fn alternate(calls: u64, block: u64, limit: impl Fn() -> bool, way: impl Fn() -> bool) -> (Vec<Pair>, Duration) {
    fn timed(f: &impl Fn() -> bool, n: u64) -> Duration {
        let start = Instant::now();
        for _ in 0..n {
            black_box(f());
        }
        start.elapsed()
    }
    let per_call = |spent: Duration, n: u64| spent.as_secs_f64() * 1e9 / n as f64;
    let (mut pairs, mut way_total) = (Vec::new(), Duration::ZERO);
    let mut left = calls;
    while left > 0 {
        let n = left.min(block);
        let (l, w) = if pairs.len() % 2 == 0 {
            let l = timed(&limit, n);
            (l, timed(&way, n))
        } else {
            let w = timed(&way, n);
            (timed(&limit, n), w)
        };
        way_total += w;
        pairs.push((per_call(l, n), per_call(w, n)));
        left -= n;
    }
    (pairs, way_total)
}

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
