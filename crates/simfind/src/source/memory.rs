//! Texts handed in as a [`Source`]: tests, and the Python face later.

use std::sync::Arc;

use super::{DocKey, Document, Extract, Source, SourceError, not_in_source};

/// Documents held in memory, keyed by their position ([`DocKey::Memory`]).
/// Opening one shares its bytes (no copy).
#[derive(Clone, Debug)]
pub struct MemorySource {
    texts: Vec<Arc<[u8]>>,
    extract: Extract,
}

impl MemorySource {
    /// The documents `texts`, in order.
    pub fn new<T: Into<Vec<u8>>>(texts: impl IntoIterator<Item = T>) -> Self {
        MemorySource {
            texts: texts.into_iter().map(|t| Arc::from(t.into())).collect(),
            extract: Extract::NONE,
        }
    }

    /// These documents, each read as `extract` says (texts handed in are
    /// texts: nothing is extracted unless asked).
    pub fn with_extract(mut self, extract: Extract) -> Self {
        self.extract = extract;
        self
    }

    /// Adds one document; its id.
    pub fn push(&mut self, text: impl Into<Vec<u8>>) -> usize {
        self.texts.push(Arc::from(text.into()));
        self.texts.len() - 1
    }
}

impl Source for MemorySource {
    fn len(&self) -> usize {
        self.texts.len()
    }

    fn key(&self, id: usize) -> DocKey {
        DocKey::Memory(id)
    }

    fn open(&self, id: usize) -> Result<Document, SourceError> {
        self.reopen(&DocKey::Memory(id))
    }

    fn reopen(&self, key: &DocKey) -> Result<Document, SourceError> {
        match key {
            DocKey::Memory(id) if *id < self.texts.len() => {
                Ok(Document::from_shared(Arc::clone(&self.texts[*id])).extracted(&self.extract))
            }
            _ => Err(not_in_source(key)),
        }
    }
}

impl Default for MemorySource {
    fn default() -> Self {
        MemorySource::new(Vec::<Vec<u8>>::new())
    }
}
