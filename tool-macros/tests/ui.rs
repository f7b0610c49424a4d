//! Compile-fail and compile-pass cases of `#[tool]`, run with trybuild. They live here, not in
//! `tests/`, because trybuild compiles every dependency of the package again: this package's
//! dev-dependencies are the few a tool needs.
//!
//! Regenerate the expected errors with `TRYBUILD=overwrite cargo test -p tool-macros --test ui`
//! and read every changed `.stderr` before committing it.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/fail/*.rs");
    t.pass("tests/ui/*/pass/*.rs");
}
