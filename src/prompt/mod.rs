//! The prompt: an agent's `Layout` filled from an `AssemblerInput` within a
//! hard byte budget (`budget`, `truncate`, with JS-exact text rules from
//! `text`), the size-only plan behind the JS fast path
//! (`size_plan`), messages dropped in blocks for a provider's prompt cache
//! (`cache_stable`), what a recipient sees (`selection`), an input read
//! from the caller's values (`host_input`), and the OpenAI-style message
//! array (`context_builder`).

pub mod budget;
pub mod cache_stable;
pub mod context_builder;
pub mod host_input;
pub mod input;
pub mod layout;
pub mod output;
pub mod sample;
pub mod selection;
pub mod size_plan;
pub mod text;
pub mod truncate;
