use tool_core::prelude::*;

/// Sum seventeen numbers.
#[tool]
#[allow(clippy::too_many_arguments)]
fn sum(
    a: u32, b: u32, c: u32, d: u32, e: u32, f: u32, g: u32, h: u32,
    i: u32, j: u32, k: u32, l: u32, m: u32, n: u32, o: u32, p: u32,
    q: u32,
) -> u32 {
    a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p + q
}

fn main() {}
