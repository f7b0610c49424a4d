use tool_core::prelude::*;
use tool_core::extract::Wide;

/// Sum seventeen numbers.
#[tool]
struct Sum {
    a: u32, b: u32, c: u32, d: u32, e: u32, f: u32, g: u32, h: u32,
    i: u32, j: u32, k: u32, l: u32, m: u32, n: u32, o: u32, p: u32,
    q: Option<u32>,
}

impl ToolRun for Sum {
    type Output = u32;

    async fn run(self, _ctx: &ToolContext) -> u32 {
        let Sum { a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q } = self;
        a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p + q.unwrap_or(0)
    }
}

fn main() {
    let d = <Sum as DeclaredTool>::definition();
    assert_eq!(d.parameters.len(), 17);
    assert!(!d.parameters[16].required);
    let Wide(front, (q,)) = Sum::extract(
        r#"{"q":17,"p":16,"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1,"m":1,"n":1,"o":1}"#,
    )
    .into_result()
    .unwrap();
    assert_eq!((front.0, front.15, q), (1, 16, Some(17)));
}
