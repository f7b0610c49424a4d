//! Compile-fail and compile-pass cases of `#[tool]`, run with trybuild. They live here, not in
//! `tests/`, because trybuild compiles every dependency of the package again: this package's
//! dev-dependencies are the few a tool needs.
//!
//! The slowest test of the suite, and it must be: each of the 95 cases is a crate that rustc
//! compiles (the 23 that pass are also linked and run), and in a fresh target directory trybuild
//! first builds `tool-core` and every crate under it again, checked and built, with its own
//! `--cfg trybuild`, so none of the suite's builds can serve. Warm, the cases alone take a
//! fraction of that.
//!
//! Regenerate the expected errors with `TRYBUILD=overwrite cargo test -p tool-macros --test ui`
//! and read every changed `.stderr` before committing it.

#[test]
fn ui() {
    // trybuild builds the cases in a project of its own, which does not take this workspace's
    // profile: without this, every pass case links a binary with full debug info of all the
    // crates under it. Nothing reads a case's backtrace. (The only test of this binary, so no
    // other thread reads the environment.)
    std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "0");
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/fail/*.rs");
    t.pass("tests/ui/*/pass/*.rs");
}
