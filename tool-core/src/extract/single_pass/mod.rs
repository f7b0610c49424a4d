//! The single pass: typed arguments read straight from the raw text, lenient where the model
//! was sloppy.
//!
//! Every parameter is deserialized through [`Converting`], a thin wrapper around serde_json's
//! deserializer. While what arrives is what the type asks for, the wrapper only hands it on, as
//! a `#[derive(Deserialize)]` struct would read it. Where it is not (`"42"`
//! for a `u32`, a list sent as JSON text, an enum token in the wrong case), the value is
//! converted by the tree path's own code (the same schema node, the same rules, the same
//! warnings) and handed to the type: a scalar by [`convert::scalar_change`], read from the text
//! as it is (no `Value` built for it), anything else by [`convert::convert_node`].
//!
//! Whatever the single pass cannot settle makes it fail: a repair of the raw text, a null word
//! inside an option, a value that stays wrong after conversion. Extraction then starts again on
//! the tree path, which reports every problem. The single pass never gives a result the tree
//! path would not give.
//!
//! The parts: what the pass shares and where a value is (`pass.rs`), the deserializer every
//! value is read through and the wrappers of the lists, maps and enums it hands the type
//! (`converting.rs`), the keys and variant names noted on the way (`key_capture.rs`,
//! `variant_capture.rs`), what is handed to the type's visitor (`feed.rs`), and the JSON
//! pointer of a conversion, written capped (`pointer_sink.rs`).

mod converting;
mod feed;
mod key_capture;
mod pass;
mod pointer_sink;
mod variant_capture;

pub use converting::ParamSeed;
pub use pass::Pass;
