//! A real, small embedder for the tests of hybrid search: each text is the bag of its lower-case
//! character trigrams (within words), hashed into 512 dimensions. It finds a misspelled or
//! differently cut word ("wether", "look up" for `lookup`) that words alone miss.

use tool_core::search::{EmbedError, Embedder};
use tool_core::BoxFuture;

/// The trigram embedder; counts its calls.
#[derive(Default)]
pub struct Trigrams {
    pub calls: std::sync::atomic::AtomicUsize,
}

pub const DIMENSIONS: usize = 512;

pub fn vector(text: &str) -> Vec<f32> {
    let mut out = vec![0f32; DIMENSIONS];
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let chars: Vec<char> = format!(" {} ", word.to_lowercase()).chars().collect();
        for gram in chars.windows(3) {
            // FNV-1a: a fixed hash, so vectors are the same on every run.
            let mut hash: u32 = 0x811c9dc5;
            for c in gram {
                for b in c.to_string().bytes() {
                    hash = (hash ^ u32::from(b)).wrapping_mul(0x01000193);
                }
            }
            out[hash as usize % DIMENSIONS] += 1.0;
        }
    }
    out
}

impl Embedder for Trigrams {
    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async move { Ok(texts.iter().map(|t| vector(t)).collect()) })
    }
}
