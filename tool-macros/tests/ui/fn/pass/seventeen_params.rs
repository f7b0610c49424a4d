use tool_core::prelude::*;
use tool_core::extract::Wide;

/// Sum seventeen numbers.
#[tool]
#[allow(clippy::too_many_arguments)]
fn sum(
    a: u32, b: u32, c: u32, d: u32, e: u32, f: u32, g: u32, h: u32,
    i: u32, j: u32, k: u32, l: u32, m: u32, n: u32, o: u32, p: u32,
    q: Option<u32>,
) -> u32 {
    a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p + q.unwrap_or(0)
}

fn main() {
    let d = <sum as DeclaredTool>::definition();
    assert_eq!(d.parameters.len(), 17);
    assert_eq!(d.parameters[16].name, "q");
    assert_eq!(d.input_schema["required"].as_array().unwrap().len(), 16);
    let args = sum::extract(
        r#"{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1,"m":1,"n":1,"o":1,"p":16,"q":17}"#,
    )
    .into_result()
    .unwrap();
    // Past 16 parameters the arguments are a `Wide` of tuples of at most 16.
    let Wide(front, (q,)) = args;
    assert_eq!((front.0, front.15, q), (1, 16, Some(17)));
}
