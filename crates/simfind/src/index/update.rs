//! One index update: a SQLite transaction that holds the write lock from the
//! moment the stored state is read until every change is written (or none is).
//! `Index::begin_update` opens it; `commit` makes it visible at once.

use super::*;
use rusqlite::params_from_iter;
use rusqlite::types::Value;

use super::BASE;

/// An update in progress: one SQLite transaction holding the write lock.
pub struct Update<'a> {
    pub(super) tx: rusqlite::Transaction<'a>,
    pub(super) path: &'a Path,
    pub(super) params: &'a Params,
    pub(super) options: OpenOptions,
    pub(super) summary: UpdateSummary,
    /// The index's in-memory copy of the lookup tail, kept equal to the
    /// tail as this transaction sees it (`tail`).
    pub(super) tail: super::tail::TailCache<'a>,
    /// The tail (in keys) from which the commit merges it into the lookup.
    pub(super) merge_at: usize,
}

impl fmt::Debug for Update<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Update")
            .field("path", &self.path)
            .field("summary", &self.summary)
            .finish()
    }
}

impl Update<'_> {
    fn err(&self, e: rusqlite::Error) -> IndexError {
        classify(self.path, e, self.options.busy_timeout)
    }

    fn invalid(&self, reason: String) -> IndexError {
        IndexError::Invalid {
            path: self.path.to_owned(),
            reason,
        }
    }

    /// Every indexed document as of this transaction, sorted by path bytes.
    pub fn documents(&self) -> Result<Vec<StoredDoc>, IndexError> {
        all_documents(&self.tx, self.path, self.params).map_err(|e| self.err(e))?
    }

    /// Paths and metadata of every indexed file as of this transaction, sorted by
    /// path bytes.
    pub fn files(&self) -> Result<Vec<StoredFile>, IndexError> {
        stored_files(&self.tx).map_err(|e| self.err(e))
    }

    /// Hands `each` the path (its bytes, as stored) and metadata of every
    /// indexed file as of this transaction, without an allocation per file:
    /// an unchanged re-index of a million files reads nothing else. They come
    /// in the table's order, not sorted: `ORDER BY path` walked the path index
    /// and looked each row up in the table from it, a tenth of that re-index,
    /// where one pass over the table reads fewer pages. Rows are added in walk
    /// order, so that order is runs of sorted paths, which a caller sorts in
    /// about one pass.
    pub fn each_file(&self, mut each: impl FnMut(&[u8], FileStat)) -> Result<(), IndexError> {
        let mut run = || -> rusqlite::Result<()> {
            let mut stmt = self
                .tx
                .prepare_cached("SELECT path, size, mtime_ns, dev, inode FROM documents")?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let path = r.get_ref(0)?.as_blob().map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(
                        0,
                        rusqlite::types::Type::Blob,
                        Box::new(e),
                    )
                })?;
                let stat = FileStat {
                    size: sql_to_u64(r.get(1)?),
                    mtime_ns: r.get(2)?,
                    dev: r.get::<_, Option<i64>>(3)?.map(sql_to_u64),
                    inode: r.get::<_, Option<i64>>(4)?.map(sql_to_u64),
                };
                each(path, stat);
            }
            Ok(())
        };
        run().map_err(|e| self.err(e))
    }

    fn check(&self, doc: &IndexedDoc) -> Result<(), IndexError> {
        // A document without shingles has no signature and never pairs.
        let (n, bands) = if doc.shingle_count == 0 {
            (0, 0)
        } else {
            (self.params.n as usize, self.params.bands as usize)
        };
        if doc.signature.len() != n {
            return Err(self.invalid(format!(
                "{} has {} shingles and a signature of {} values, the index expects {n}",
                doc.path.display(),
                doc.shingle_count,
                doc.signature.len(),
            )));
        }
        if doc.band_keys.len() != bands {
            return Err(self.invalid(format!(
                "{} has {} shingles and {} band keys, the index expects {bands}",
                doc.path.display(),
                doc.shingle_count,
                doc.band_keys.len(),
            )));
        }
        if doc.binary && doc.shingle_count != 0 {
            return Err(self.invalid(format!(
                "{} is marked binary but has shingles",
                doc.path.display()
            )));
        }
        Ok(())
    }

    fn insert_band_keys(&self, id: i64, keys: &[u64]) -> Result<(), IndexError> {
        super::tail::store(&self.tx, id, keys).map_err(|e| self.err(e))?;
        self.tail.add(id, keys);
        Ok(())
    }

    /// Forgets the band keys of document `id`, and the tail in memory if
    /// they were in it (read again, without them, by the next lookup).
    fn forget_keys(&self, id: i64) -> Result<(), IndexError> {
        if super::tail::forget(&self.tx, id).map_err(|e| self.err(e))? {
            self.tail.reset();
        }
        Ok(())
    }

    /// Adds a document whose path is not yet indexed.
    pub fn add(&mut self, doc: &IndexedDoc) -> Result<RowId, IndexError> {
        self.check(doc)?;
        let inserted = {
            let mut stmt = self
                .tx
                .prepare_cached(
                    "INSERT INTO documents (path, size, mtime_ns, dev, inode, content_hash, \
                     shingle_count, signature, binary) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
                     ON CONFLICT (path) DO NOTHING",
                )
                .map_err(|e| self.err(e))?;
            stmt.execute(params_from_iter(document_row(doc)))
                .map_err(|e| self.err(e))?
        };
        if inserted == 0 {
            return Err(self.invalid(format!("{} is already indexed", doc.path.display())));
        }
        let id = self.tx.last_insert_rowid();
        self.insert_band_keys(id, &doc.band_keys)?;
        self.summary.added += 1;
        Ok(RowId(id))
    }

    /// Replaces the stored values of an indexed document; it keeps its id.
    pub fn change(&mut self, doc: &IndexedDoc) -> Result<RowId, IndexError> {
        self.check(doc)?;
        let id: Option<i64> = {
            let mut stmt = self
                .tx
                .prepare_cached(
                    "UPDATE documents SET size = ?2, mtime_ns = ?3, dev = ?4, inode = ?5, \
                     content_hash = ?6, shingle_count = ?7, signature = ?8, binary = ?9 \
                     WHERE path = ?1 RETURNING id",
                )
                .map_err(|e| self.err(e))?;
            stmt.query_row(params_from_iter(document_row(doc)), |r| r.get(0))
                .optional()
                .map_err(|e| self.err(e))?
        };
        let Some(id) = id else {
            return Err(self.invalid(format!(
                "{} is not indexed, cannot change it",
                doc.path.display()
            )));
        };
        self.forget_keys(id)?;
        self.insert_band_keys(id, &doc.band_keys)?;
        self.summary.changed += 1;
        Ok(RowId(id))
    }

    /// Stores the bytes of document `id`, one that is not a file (its
    /// `path` an id, no device or inode): exact verification reads them
    /// here ([`Index::stored_texts`]). Replaces what `id` had.
    pub fn store_text(&mut self, id: RowId, body: &[u8]) -> Result<(), IndexError> {
        self.tx
            .prepare_cached("INSERT OR REPLACE INTO texts (doc, body) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![id.0, body]))
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// True if `path` is indexed, as of this transaction.
    pub fn is_indexed(&self, path: &Path) -> Result<bool, IndexError> {
        self.tx
            .prepare_cached("SELECT 1 FROM documents WHERE path = ?1")
            .and_then(|mut s| s.exists([path_to_blob(path)]))
            .map_err(|e| self.err(e))
    }

    /// The directory the stored relative paths are relative to: the current
    /// directory (canonical) of the run that last wrote them, recorded by
    /// [`Update::record_base`]; `None` in indexes written before it was.
    fn base(&self) -> Result<Option<PathBuf>, IndexError> {
        self.tx
            .prepare_cached("SELECT value FROM params WHERE name = ?1")
            .and_then(|mut s| s.query_row([BASE], |r| r.get::<_, String>(0)).optional())
            .map(|v| v.map(PathBuf::from))
            .map_err(|e| self.err(e))
    }

    /// Records the current directory as the one the stored relative paths
    /// are relative to (after [`Update::rebase`] and the walk, every
    /// relative path stored is spelled from it). Nothing is recorded when
    /// it cannot be had or is not UTF-8 (the params table holds text).
    pub fn record_base(&mut self) -> Result<(), IndexError> {
        let Some(cwd) = std::env::current_dir()
            .and_then(|d| d.canonicalize())
            .ok()
            .and_then(|d| d.to_str().map(str::to_string))
        else {
            return Ok(());
        };
        if self.base()?.is_some_and(|b| b.as_os_str() == cwd.as_str()) {
            return Ok(());
        }
        self.tx
            .execute(
                "INSERT OR REPLACE INTO params (name, value) VALUES (?1, ?2)",
                rusqlite::params![BASE, cwd],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Makes the stored relative paths absolute when this run's current
    /// directory is not the one they were written from ([`Update::base`]):
    /// `share/a.txt` indexed from `/srv` is `/srv/share/a.txt`, whatever
    /// directory the index is updated from, and [`Update::respell`] then
    /// gives it the spelling of this run's root. Read against the current
    /// directory, a relative path named another file or none, and the
    /// update took the share for gone. An index written before the base was
    /// recorded is read against the current directory, as then. Returns how
    /// many paths were rewritten.
    pub fn rebase(&mut self) -> Result<u64, IndexError> {
        use std::os::unix::ffi::OsStrExt;
        let Some(base) = self.base()? else {
            return Ok(0);
        };
        let cwd = std::env::current_dir().and_then(|d| d.canonicalize()).ok();
        if cwd.as_deref() == Some(base.as_path()) {
            return Ok(0);
        }
        let mut renames: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        self.each_file(|bytes, _| {
            let path = Path::new(std::ffi::OsStr::from_bytes(bytes));
            if path.is_relative() {
                renames.push((bytes.to_vec(), path_to_blob(&base.join(path))));
            }
        })?;
        // OR IGNORE: a file stored under both spellings keeps its absolute
        // row; the relative one is not walked again and goes as removed.
        let mut stmt = self
            .tx
            .prepare_cached("UPDATE OR IGNORE documents SET path = ?2 WHERE path = ?1")
            .map_err(|e| classify(self.path, e, self.options.busy_timeout))?;
        for (from, to) in &renames {
            stmt.execute(rusqlite::params![from, to])
                .map_err(|e| classify(self.path, e, self.options.busy_timeout))?;
        }
        Ok(renames.len() as u64)
    }

    /// Gives the stored paths under another spelling of `root` (the same
    /// directory, relative or absolute, through a symlink, with `./` or a
    /// trailing `/`) the spelling `root`, so that a root spelled
    /// differently than when it was indexed is the same root: its files are
    /// found unchanged rather than added under one spelling and removed
    /// under the other. Nothing is done when a stored path already lies
    /// under `root` as spelled, or `root` cannot be resolved. A relative
    /// stored spelling is resolved against the current directory (after
    /// [`Update::rebase`], the one it was written from). Returns
    /// how many paths were renamed.
    pub fn respell(&mut self, root: &Path) -> Result<u64, IndexError> {
        use std::os::unix::ffi::OsStrExt;
        let Ok(canonical) = root.canonicalize() else {
            return Ok(0);
        };
        // The spelling of each stored directory's root, found from its
        // canonical form: a stored `S/rel/name` whose directory resolves to
        // `canonical/rel` lies under `S`, another spelling of `root`.
        let mut resolved: HashMap<PathBuf, Option<PathBuf>> = HashMap::new();
        let mut spellings: Vec<PathBuf> = Vec::new();
        let mut same = false;
        self.each_file(|bytes, _| {
            if same {
                return;
            }
            let path = Path::new(std::ffi::OsStr::from_bytes(bytes));
            if path.starts_with(root) {
                same = true;
                return;
            }
            let Some(dir) = path.parent() else { return };
            if spellings.iter().any(|s| dir.starts_with(s)) {
                return;
            }
            let spelled = resolved
                .entry(dir.to_path_buf())
                .or_insert_with(|| {
                    let real = dir.canonicalize().ok()?;
                    let depth = real.strip_prefix(&canonical).ok()?.components().count();
                    let mut spelled = dir.to_path_buf();
                    for _ in 0..depth {
                        spelled.pop();
                    }
                    (spelled.canonicalize().ok()? == canonical).then_some(spelled)
                })
                .clone();
            if let Some(s) = spelled
                && s.as_os_str() != root.as_os_str()
            {
                spellings.push(s);
            }
        })?;
        if same || spellings.is_empty() {
            return Ok(0);
        }
        let mut renames: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        self.each_file(|bytes, _| {
            let path = Path::new(std::ffi::OsStr::from_bytes(bytes));
            if let Some(rest) = spellings.iter().find_map(|s| path.strip_prefix(s).ok()) {
                renames.push((bytes.to_vec(), path_to_blob(&root.join(rest))));
            }
        })?;
        let mut stmt = self
            .tx
            .prepare_cached("UPDATE documents SET path = ?2 WHERE path = ?1")
            .map_err(|e| classify(self.path, e, self.options.busy_timeout))?;
        for (from, to) in &renames {
            stmt.execute(rusqlite::params![from, to])
                .map_err(|e| classify(self.path, e, self.options.busy_timeout))?;
        }
        Ok(renames.len() as u64)
    }

    /// Forgets an indexed path (its band keys go with it).
    pub fn remove(&mut self, path: &Path) -> Result<(), IndexError> {
        let id: Option<i64> = self
            .tx
            .prepare_cached("SELECT id FROM documents WHERE path = ?1")
            .and_then(|mut s| s.query_row([path_to_blob(path)], |r| r.get(0)).optional())
            .map_err(|e| self.err(e))?;
        if let Some(id) = id {
            self.forget_keys(id)?;
        }
        let deleted = self
            .tx
            .prepare_cached("DELETE FROM documents WHERE path = ?1")
            .and_then(|mut s| s.execute([path_to_blob(path)]))
            .map_err(|e| self.err(e))?;
        if deleted == 0 {
            return Err(self.invalid(format!(
                "{} is not indexed, cannot remove it",
                path.display()
            )));
        }
        self.summary.removed += 1;
        Ok(())
    }

    /// Makes every change of this update visible at once.
    pub fn commit(self) -> Result<UpdateSummary, IndexError> {
        let summary = self.summary;
        // Nothing changed: nothing to merge, and a read-only index stays
        // untouched.
        if summary != UpdateSummary::default() {
            let merge = |tx: &rusqlite::Transaction<'_>| -> rusqlite::Result<bool> {
                if self.merge_at > 0
                    && super::tail::tail_keys(tx, self.params.bands)? < self.merge_at
                {
                    return Ok(false);
                }
                Ok(super::tail::merge(tx)? > 0)
            };
            if merge(&self.tx).map_err(|e| self.err(e))? {
                // Read again, empty, by the next lookup.
                self.tail.reset();
            }
        }
        let (path, options) = (self.path, self.options);
        self.tx
            .commit()
            .map_err(|e| classify(path, e, options.busy_timeout))?;
        self.tail.kept();
        Ok(summary)
    }
}

/// The columns `?1`…`?9` of a document row (path, size, mtime_ns, dev, inode,
/// content_hash, shingle_count, signature, binary), in the order both the
/// insert and the update statements bind them.
fn document_row(doc: &IndexedDoc) -> [Value; 9] {
    [
        Value::Blob(path_to_blob(&doc.path)),
        Value::Integer(u64_to_sql(doc.stat.size)),
        Value::Integer(doc.stat.mtime_ns),
        doc.stat
            .dev
            .map_or(Value::Null, |d| Value::Integer(u64_to_sql(d))),
        doc.stat
            .inode
            .map_or(Value::Null, |i| Value::Integer(u64_to_sql(i))),
        Value::Blob(hash_to_blob(doc.content_hash).to_vec()),
        Value::Integer(u64_to_sql(doc.shingle_count)),
        Value::Blob(signature_to_blob(&doc.signature)),
        Value::Integer(reason_to_binary(doc.binary, doc.not_compared.as_ref())),
    ]
}
