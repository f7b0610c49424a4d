use tool_core::prelude::*;

/// Sum sixteen numbers.
#[tool]
#[allow(clippy::too_many_arguments)]
fn sum16(
    a: u8, b: u8, c: u8, d: u8, e: u8, f: u8, g: u8, h: u8,
    i: u8, j: u8, k: u8, l: u8, m: u8, n: u8, o: u8, p: Option<u8>,
) -> u32 {
    [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p.unwrap_or(0)].iter().map(|&x| u32::from(x)).sum()
}

fn main() {
    let d = <sum16 as DeclaredTool>::definition();
    assert_eq!(d.parameters.len(), 16);
    assert_eq!(d.parameters[15].name, "p");
    assert!(!d.parameters[15].required);
    assert_eq!(d.input_schema["required"].as_array().unwrap().len(), 15);
    let args = sum16::extract(
        r#"{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1,"m":1,"n":1,"o":1}"#,
    )
    .into_result()
    .unwrap();
    assert_eq!(args.0, 1);
    assert_eq!(args.15, None);
}
