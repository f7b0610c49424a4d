//! A semantic ranker the host plugs in, fused with the lexical one.
//!
//! Words miss what a request means in other words ("a film" for `movies.find`); a host with an
//! embedding model gives an [`Embedder`], and [`HybridSearch`] ranks by both: the lexical
//! ranking and the cosine similarity of the request to each tool's text, fused by reciprocal
//! rank (each ranking adds `weight / (60 + rank)`), which needs no calibration between BM25
//! scores and similarities.

use std::collections::HashMap;
use std::sync::Arc;

use super::index::{SearchHit, SearchOptions, ToolSearch};
use crate::model::ToolDefinition;
use crate::tool::BoxFuture;

/// Turns texts into vectors of one dimension, one per text, in order: an embedding model
/// (local or remote) the host provides.
pub trait Embedder: Send + Sync {
    /// The vectors of `texts`.
    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>>;
}

/// Why an embedder gave no vectors, or vectors that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// The embedder failed: its own error (a model's, a request's), whose text this is.
    #[error("{0}")]
    Embedder(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// A batch of texts got another number of vectors.
    #[error("the embedder gave {vectors} vectors for {texts} texts")]
    VectorCount {
        /// The vectors given.
        vectors: usize,
        /// The texts asked for.
        texts: usize,
    },
    /// Vectors of two dimensions.
    #[error("the embedder gave vectors of {first} and of {other} dimensions")]
    Dimensions {
        /// The dimension of the first vector.
        first: usize,
        /// Another vector's.
        other: usize,
    },
    /// No vector, or not one of the index's dimension, for the query.
    #[error("the embedder did not give one vector of {dimension} dimensions for the query")]
    QueryVector {
        /// The index's dimension.
        dimension: usize,
    },
}

impl EmbedError {
    /// The embedder's own error, kept as the source (a message alone is one too).
    pub fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> EmbedError {
        EmbedError::Embedder(error.into())
    }
}

/// The most texts handed to the embedder at once when indexing.
pub const EMBED_BATCH: usize = 256;

/// The rank constant of reciprocal rank fusion: how much the first places count more than the
/// next ones (60, the usual choice).
const FUSION_RANK: f32 = 60.0;

/// Lexical and semantic search fused: the lexical ranking and the cosine similarity of the
/// request to each tool's text, each adding `weight / (60 + rank)` to a tool's score.
pub struct HybridSearch {
    lexical: ToolSearch,
    embedder: Arc<dyn Embedder>,
    /// Per indexed definition, its unit vector, in `names`' order.
    vectors: Vec<Vec<f32>>,
    names: Vec<String>,
    semantic_weight: f32,
}

impl std::fmt::Debug for HybridSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HybridSearch").field("lexical", &self.lexical).field("vectors", &self.vectors.len()).finish()
    }
}

impl HybridSearch {
    /// Embeds `definitions` and indexes them both ways: the lexical index with `options`, and each
    /// tool's text (name, description, parameter names) embedded in batches of [`EMBED_BATCH`]
    /// (an async constructor, since it waits for the embedder: named for that work, not `build`).
    pub async fn embed<'a>(
        definitions: impl IntoIterator<Item = &'a ToolDefinition>,
        options: SearchOptions,
        embedder: Arc<dyn Embedder>,
    ) -> Result<HybridSearch, EmbedError> {
        let definitions: Vec<&ToolDefinition> = definitions.into_iter().collect();
        let lexical = ToolSearch::with_options(definitions.iter().copied(), options);
        let texts: Vec<String> = definitions.iter().map(|d| embedding_text(d)).collect();
        let mut vectors = Vec::with_capacity(texts.len());
        for batch in texts.chunks(EMBED_BATCH) {
            let got = embedder.embed(batch).await?;
            if got.len() != batch.len() {
                return Err(EmbedError::VectorCount { vectors: got.len(), texts: batch.len() });
            }
            vectors.extend(got);
        }
        let dimension = vectors.first().map_or(0, Vec::len);
        if let Some(other) = vectors.iter().find(|v| v.len() != dimension) {
            return Err(EmbedError::Dimensions { first: dimension, other: other.len() });
        }
        vectors.iter_mut().for_each(|v| normalise(v));
        let names = definitions.iter().map(|d| d.name.clone()).collect();
        Ok(HybridSearch { lexical, embedder, vectors, names, semantic_weight: 1.0 })
    }

    /// How much the semantic ranking counts against the lexical one (1: as much).
    pub fn semantic_weight(mut self, weight: f32) -> Self {
        self.semantic_weight = weight.max(0.0);
        self
    }

    /// The lexical index inside.
    pub fn lexical(&self) -> &ToolSearch {
        &self.lexical
    }

    /// The best `limit` tools for `query` by both rankings fused. A query that is a tool's
    /// name still puts that tool first.
    pub async fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, EmbedError> {
        if limit == 0 || self.names.is_empty() {
            return Ok(Vec::new());
        }
        let depth = (limit * 4).max(50);
        let lexical = self.lexical.search(query, depth);
        let text = [query.to_owned()];
        let mut asked = self.embedder.embed(&text).await?;
        let Some(mut vector) = asked.pop().filter(|v| asked.is_empty() && v.len() == self.dimension()) else {
            return Err(EmbedError::QueryVector { dimension: self.dimension() });
        };
        normalise(&mut vector);
        // The best similarity per name: definitions that share a name are one tool.
        let mut similar: HashMap<&str, f32> = HashMap::new();
        for (name, v) in self.names.iter().zip(&self.vectors) {
            let similarity: f32 = v.iter().zip(&vector).map(|(a, b)| a * b).sum();
            let best = similar.entry(name).or_insert(f32::MIN);
            *best = best.max(similarity);
        }
        let mut semantic: Vec<(&str, f32)> = similar.into_iter().collect();
        semantic.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        semantic.truncate(depth);
        let mut fused: HashMap<String, (f32, Option<SearchHit>, Option<f32>)> = HashMap::new();
        for (rank, hit) in lexical.into_iter().enumerate() {
            let entry = fused.entry(hit.name.clone()).or_insert((0.0, None, None));
            entry.0 += 1.0 / (FUSION_RANK + rank as f32 + 1.0);
            entry.1 = Some(hit);
        }
        for (rank, (name, similarity)) in semantic.into_iter().enumerate() {
            let entry = fused.entry(name.to_owned()).or_insert((0.0, None, None));
            entry.0 += self.semantic_weight / (FUSION_RANK + rank as f32 + 1.0);
            entry.2 = Some(similarity);
        }
        let mut hits: Vec<SearchHit> = fused
            .into_iter()
            .map(|(name, (score, lexical, similarity))| {
                let (exact_name, matches) = lexical.map_or((false, Vec::new()), |hit| (hit.exact_name, hit.matches));
                SearchHit { name, score, exact_name, matches, similarity }
            })
            .collect();
        hits.sort_by(|a, b| {
            b.exact_name.cmp(&a.exact_name).then(b.score.total_cmp(&a.score)).then_with(|| a.name.cmp(&b.name))
        });
        hits.truncate(limit);
        Ok(hits)
    }

    fn dimension(&self) -> usize {
        self.vectors.first().map_or(0, Vec::len)
    }
}

/// What is embedded of a tool: its name in words, its description, its parameters' names.
pub fn embedding_text(definition: &ToolDefinition) -> String {
    let mut text = definition.name.replace(['_', '.', '-'], " ");
    text.push_str(": ");
    text.push_str(definition.description.trim());
    if !definition.parameters.is_empty() {
        text.push_str(" (");
        let names: Vec<&str> = definition.parameters.iter().map(|p| p.name.as_str()).collect();
        text.push_str(&names.join(", "));
        text.push(')');
    }
    text
}

fn normalise(vector: &mut [f32]) {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|x| *x /= norm);
    }
}
