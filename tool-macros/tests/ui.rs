//! Compile-fail and compile-pass cases of `#[tool]`, run with trybuild.
//!
//! Regenerate the expected errors with `TRYBUILD=overwrite cargo test -p tool-tests --test ui`
//! and read every changed `.stderr` before committing it.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*/fail/*.rs");
    t.pass("ui/*/pass/*.rs");
}
