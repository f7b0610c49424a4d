//! The checks `#[tool]` expands to: each names what is wrong at the user's own code (a
//! parameter type, a return type, a `range` key on a string), once, with a note that says what
//! fits. Reached by the expansion as `tool_core::__private::..`.

use super::tool_run::ToolRun;
use crate::extract::ToolParam;
use crate::model::IntoToolOutput;

/// `<[T; N] as Checked>::Param` is `T`, where `N` is one of the `assert_*` calls below. When
/// the check fails, the compiler reports it once, at the type, and treats the type as an
/// error everywhere else: one clear error instead of one per use.
pub trait Checked {
    /// The checked type.
    type Param;
}

impl<T> Checked for [T; 0] {
    type Param = T;
}

/// Checks, at the parameter's type, that it can be a tool parameter.
pub const fn assert_param<T: ToolParam>() -> usize {
    0
}

/// Checks, at the return type, that a tool may return it.
pub const fn assert_output<T: IntoToolOutput>() -> usize {
    0
}

/// Checks, at the struct's name, that the struct has its `impl ToolRun`.
pub const fn assert_tool_run<T: ToolRun>() -> usize {
    0
}

/// Checks, at the `range` key, that the parameter is a number.
pub const fn assert_numeric<T: NumericParam>() {}

/// Checks, at the `length`/`pattern` key, that the parameter is a string.
pub const fn assert_text<T: TextParam>() {}

/// Checks, at the `header` key, that the parameter is a string, an integer or a boolean: the
/// values MCP mirrors into an HTTP header (SEP-2243).
pub const fn assert_header<T: HeaderParam>() {}

/// Types `range(..)` applies to.
#[diagnostic::on_unimplemented(
    message = "`range(..)` applies to number parameters, and `{Self}` is not a number",
    label = "`range` on a `{Self}` parameter",
    note = "use `range` on integers or floats (or `Option`s of them); for strings use `length(min = .., max = ..)`"
)]
pub trait NumericParam {}

/// Types `length(..)` and `pattern` apply to.
#[diagnostic::on_unimplemented(
    message = "`length(..)` and `pattern` apply to string parameters, and `{Self}` is not a string",
    label = "on a `{Self}` parameter",
    note = "use `length`/`pattern` on `String` (or `Option<String>`); for numbers use `range(min = .., max = ..)`"
)]
pub trait TextParam {}

/// Types `header = ".."` applies to.
#[diagnostic::on_unimplemented(
    message = "`header` mirrors a string, an integer or a boolean into an HTTP header, and `{Self}` is none of them",
    label = "`header` on a `{Self}` parameter",
    note = "use `header` on `String`, an integer type or `bool`; for one the call may leave out, give it a `default` instead of an `Option` (MCP clients refuse a header on a value that may be null)"
)]
pub trait HeaderParam {}

// `do_not_recommend` keeps the list of these impls out of the errors above: their notes
// already say which types fit.
macro_rules! marker {
    ($tr:ident: $($t:ty),*) => {$(#[diagnostic::do_not_recommend] impl $tr for $t {})*};
}
marker!(NumericParam: u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);
marker!(TextParam: String, Box<str>, std::borrow::Cow<'static, str>);
marker!(HeaderParam: String, Box<str>, std::borrow::Cow<'static, str>, bool);
marker!(HeaderParam: u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
#[diagnostic::do_not_recommend]
impl<T: NumericParam> NumericParam for Option<T> {}
#[diagnostic::do_not_recommend]
impl<T: TextParam> TextParam for Option<T> {}

/// How the instance of a type with `#[tool]` methods is made when its impl block names no
/// `create`: `Default`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` holds the state of tool methods, and there is no way to make one",
    label = "needs `Default`, or `create = \"..\"` on this impl block's `#[tool]`",
    note = "derive or implement `Default` for `{Self}`, or name an async factory: `#[tool(create = \"connect\")]` with `async fn connect(ctx: &ToolContext) -> Result<{Self}, ToolError>`"
)]
pub trait DefaultState: Sized {
    /// A new instance.
    fn make() -> Self;
}

#[diagnostic::do_not_recommend]
impl<T: Default> DefaultState for T {
    fn make() -> T {
        T::default()
    }
}
