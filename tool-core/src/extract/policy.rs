//! How forgiving extraction is: the lenient and strict policies.

/// How forgiving extraction is.
///
/// Lenient (the default) repairs the arguments text and converts values by their declared
/// types, with a warning for each change. Strict refuses every repair and conversion as an
/// error instead, for hosts that want exact arguments. A tool (`#[tool(strict)]`) or a parameter
/// (`#[param(strict)]`) can be strict on its own; a catalog (`CatalogBuilder::strict`) makes
/// every tool strict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExtractionPolicy {
    /// Refuse repairs and conversions.
    pub strict: bool,
}

impl ExtractionPolicy {
    /// Repair and convert, with warnings.
    pub const LENIENT: ExtractionPolicy = ExtractionPolicy { strict: false };
    /// Refuse every repair and conversion.
    pub const STRICT: ExtractionPolicy = ExtractionPolicy { strict: true };
}
