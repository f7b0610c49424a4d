//! Tool search: a catalog of thousands of tools, found by what a request asks for.
//!
//! [`ToolSearch`] ranks tools by BM25F over each tool's search document: its name split into
//! words, its description, its parameters' names and descriptions, the values they take, its
//! tags ([`SearchField`]). English words are stemmed, stop words left out, and Chinese,
//! Japanese and Korean text is searched by pairs of characters. It is deterministic, needs no
//! network, and says why each tool matched ([`TermMatch`]).

mod discovered; // what a conversation's searches found
mod document; // a tool's search document: its fields and their texts
mod highlight; // the words a query matched, marked in a tool's texts
mod hybrid; // a host's embedder, fused with the lexical ranking
mod index; // BM25F: the index and the ranking
mod request; // the request's tools, deferred, with our search or the provider's
mod response; // the provider's searches read back, and our search's answers in its shape
mod text; // text cut into terms
mod tool; // the search as a tool the model calls

pub use discovered::{Discovered, MAX_DISCOVERED};
pub use document::SearchField;
pub use highlight::{highlight, Highlight};
pub use hybrid::{embedding_text, EmbedError, Embedder, HybridSearch, EMBED_BATCH};
pub use index::{SearchHit, SearchOptions, TermMatch, ToolSearch};
pub use request::{
    check_deferral, definitions_with_search, Namespaces, RequestTools, SearchMode, SearchRequest, SearchRequestBuilder,
    SearchRequestError, MAX_ANTHROPIC_DEFERRED,
};
pub use response::{
    anthropic_tool_result, execute_openai_tool_search_output, read_response, ProviderSearch, SearchExecution,
    SearchOutcome, SearchResponse, SearchStream,
};
pub use tool::{SearchToolBuilder, DEFAULT_SEARCH_LIMIT, MAX_QUERY_BYTES, SEARCH_TOOL_NAME};
