//! The rules of record inputs (which fields apply to which kind, per-field
//! scores, linking) and of important words (which inputs and companions they
//! combine with, and the shingles they imply). Checked before any input is
//! opened; [`RecordFields::check_fields`] once the inputs' fields are known.

use super::SpecError;
use super::input::InputKind;
use crate::text::ShingleKind;

/// How records are read and scored, as given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordFields {
    pub kind: InputKind,
    /// JSON Lines: the id's dotted path, when given.
    pub id_field: Option<String>,
    /// JSON Lines: the text's dotted paths.
    pub text_fields: Vec<String>,
    /// CSV/TSV: the id column, when given.
    pub id_column: Option<String>,
    /// CSV/TSV: the text columns.
    pub columns: Vec<String>,
    /// Sets: one `id<TAB>token` pair a line.
    pub pairs: bool,
    /// One score per field, combined by `weights`.
    pub per_field: bool,
    pub weights: Vec<f64>,
    /// Pairs only across the two inputs.
    pub link: bool,
    /// The fields whose bands make candidates (per-field scores).
    pub candidate_fields: Vec<String>,
    /// The fields of the blocking keys (per-field scores).
    pub block_fields: Vec<String>,
    /// Score pairs by the Fellegi–Sunter model (per field, its weights
    /// learned) instead of the weighted Jaccard mean.
    pub fellegi_sunter: bool,
}

impl RecordFields {
    /// Every field against the kind it belongs to, then per-field scores and
    /// linking against the `inputs` named (`stdin` of them standard input),
    /// in this order.
    pub fn check(&self, inputs: usize, stdin: usize) -> Result<(), SpecError> {
        let kind = self.kind;
        let table = kind.is_table();
        let jsonl = kind == InputKind::Jsonl;
        // First: the model implies per-field scores, which would otherwise
        // be refused in its name.
        if self.fellegi_sunter && !(table || jsonl) {
            return Err(SpecError::NotForInput {
                field: "fellegi_sunter",
                input: kind,
            });
        }
        if self.fellegi_sunter && !self.weights.is_empty() {
            return Err(SpecError::Conflict {
                field: "fellegi_sunter",
                with: "weights",
            });
        }
        for (given, field, applies) in [
            (self.id_field.is_some(), "id_field", jsonl),
            (!self.text_fields.is_empty(), "text_fields", jsonl),
            (self.id_column.is_some(), "id_column", table),
            (!self.columns.is_empty(), "columns", table),
            (self.pairs, "pairs", kind == InputKind::Sets),
            (self.per_field, "per_field", table || jsonl),
        ] {
            if given && !applies {
                return Err(SpecError::NotForInput { field, input: kind });
            }
        }
        if !self.candidate_fields.is_empty() && !self.per_field {
            return Err(SpecError::Requires {
                field: "candidate_fields",
                needs: "per_field",
            });
        }
        if !self.block_fields.is_empty() && !self.per_field {
            return Err(SpecError::Requires {
                field: "block_fields",
                needs: "per_field",
            });
        }
        if !self.weights.is_empty() && !self.per_field {
            return Err(SpecError::Requires {
                field: "weights",
                needs: "per_field",
            });
        }
        if !self.weights.is_empty() && self.weights.iter().all(|&w| w == 0.0) {
            return Err(SpecError::WeightsAllZero);
        }
        if self.link && inputs != 2 {
            return Err(SpecError::LinkInputs { given: inputs });
        }
        if stdin > 1 {
            return Err(SpecError::StdinTwice);
        }
        Ok(())
    }

    /// The weights and candidate fields against the `fields` the inputs
    /// turned out to have (known once they are read).
    pub fn check_fields(&self, fields: &[String]) -> Result<(), SpecError> {
        if self.per_field && !self.weights.is_empty() && self.weights.len() != fields.len() {
            return Err(SpecError::WeightsCount {
                weights: self.weights.len(),
                fields: fields.to_vec(),
            });
        }
        for (field, names) in [
            ("candidate_fields", &self.candidate_fields),
            ("block_fields", &self.block_fields),
        ] {
            if let Some(unknown) = names.iter().find(|f| !fields.contains(f)) {
                return Err(SpecError::UnknownField {
                    field,
                    name: unknown.clone(),
                    fields: fields.to_vec(),
                });
            }
        }
        Ok(())
    }
}

/// What a file scan's important words may be given beside; each refused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Beside {
    /// Signatures kept in a store (an index).
    pub stored: bool,
    /// Byte-identical grouping instead of similarity.
    pub identical_by: bool,
    /// A vector or weighted family instead of MinHash on sets.
    pub family: bool,
    /// A report that explains shared passages.
    pub report: bool,
}

/// Important words (`Some(n)`) where there are whole texts to rank, and on
/// files, beside none of what they cannot combine with; refusals in the
/// order of [`Beside`]'s fields.
pub fn important_words_with(
    important_words: Option<usize>,
    kind: InputKind,
    per_field: bool,
    beside: Beside,
) -> Result<(), SpecError> {
    if important_words.is_none() {
        return Ok(());
    }
    if !matches!(
        kind,
        InputKind::Files | InputKind::Jsonl | InputKind::Csv | InputKind::Tsv | InputKind::Parquet
    ) || per_field
    {
        return Err(SpecError::ImportantWordsInput);
    }
    if kind != InputKind::Files {
        return Ok(());
    }
    for (given, with) in [
        (beside.stored, "stored"),
        (beside.identical_by, "identical_by"),
        (beside.family, "family"),
        (beside.report, "report"),
    ] {
        if given {
            return Err(SpecError::Conflict {
                field: "important_words",
                with,
            });
        }
    }
    Ok(())
}

/// The shingles of important words: single words. A kind or length given
/// must be those.
pub fn important_words_shingles(
    kind: Option<ShingleKind>,
    k: Option<usize>,
) -> Result<(ShingleKind, usize), SpecError> {
    if !matches!(kind, None | Some(ShingleKind::Word)) || !matches!(k, None | Some(1)) {
        return Err(SpecError::ImportantWordsShingles);
    }
    Ok((ShingleKind::Word, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(kind: InputKind) -> RecordFields {
        RecordFields {
            kind,
            ..RecordFields::default()
        }
    }

    #[test]
    fn each_field_applies_to_its_kinds_only() {
        let given = |f: &mut RecordFields, field: &str| match field {
            "id_field" => f.id_field = Some("id".into()),
            "text_fields" => f.text_fields = vec!["t".into()],
            "id_column" => f.id_column = Some("id".into()),
            "columns" => f.columns = vec!["c".into()],
            "pairs" => f.pairs = true,
            "per_field" => f.per_field = true,
            _ => unreachable!(),
        };
        let applies: [(&str, &[InputKind]); 6] = [
            ("id_field", &[InputKind::Jsonl]),
            ("text_fields", &[InputKind::Jsonl]),
            (
                "id_column",
                &[InputKind::Csv, InputKind::Tsv, InputKind::Parquet],
            ),
            (
                "columns",
                &[InputKind::Csv, InputKind::Tsv, InputKind::Parquet],
            ),
            ("pairs", &[InputKind::Sets]),
            (
                "per_field",
                &[
                    InputKind::Jsonl,
                    InputKind::Csv,
                    InputKind::Tsv,
                    InputKind::Parquet,
                ],
            ),
        ];
        for (field, kinds) in applies {
            for &kind in InputKind::ALL {
                let mut f = fields(kind);
                given(&mut f, field);
                let result = f.check(1, 0);
                if kinds.contains(&kind) {
                    assert_eq!(result, Ok(()), "{field} {kind}");
                } else {
                    assert_eq!(
                        result,
                        Err(SpecError::NotForInput { field, input: kind }),
                        "{field} {kind}"
                    );
                }
            }
        }
    }

    #[test]
    fn weights_and_candidate_fields_need_per_field_scores() {
        let mut f = fields(InputKind::Csv);
        f.candidate_fields = vec!["a".into()];
        f.weights = vec![1.0];
        assert_eq!(
            f.check(1, 0),
            Err(SpecError::Requires {
                field: "candidate_fields",
                needs: "per_field"
            })
        );
        f.candidate_fields.clear();
        assert_eq!(
            f.check(1, 0),
            Err(SpecError::Requires {
                field: "weights",
                needs: "per_field"
            })
        );
        f.per_field = true;
        assert_eq!(f.check(1, 0), Ok(()));
        f.weights = vec![0.0, 0.0];
        assert_eq!(f.check(1, 0), Err(SpecError::WeightsAllZero));
    }

    #[test]
    fn linking_takes_two_inputs_and_stdin_is_one_input() {
        let mut f = fields(InputKind::Jsonl);
        f.link = true;
        assert_eq!(f.check(3, 0), Err(SpecError::LinkInputs { given: 3 }));
        assert_eq!(f.check(2, 0), Ok(()));
        assert_eq!(f.check(2, 2), Err(SpecError::StdinTwice));
    }

    #[test]
    fn fields_read_are_checked_against_weights_and_candidates() {
        let names = vec!["title".to_owned(), "body".to_owned()];
        let mut f = fields(InputKind::Csv);
        f.per_field = true;
        f.weights = vec![1.0];
        assert_eq!(
            f.check_fields(&names),
            Err(SpecError::WeightsCount {
                weights: 1,
                fields: names.clone()
            })
        );
        f.weights = vec![1.0, 2.0];
        f.candidate_fields = vec!["author".into()];
        assert_eq!(
            f.check_fields(&names),
            Err(SpecError::UnknownField {
                field: "candidate_fields",
                name: "author".into(),
                fields: names.clone()
            })
        );
        f.candidate_fields = vec!["body".into()];
        assert_eq!(f.check_fields(&names), Ok(()));
    }

    #[test]
    fn important_words_rank_whole_texts_beside_nothing_they_cannot_combine_with() {
        let none = Beside::default();
        assert_eq!(
            important_words_with(None, InputKind::Vectors, true, none),
            Ok(())
        );
        for kind in [InputKind::Sets, InputKind::Vectors, InputKind::Bits] {
            assert_eq!(
                important_words_with(Some(5), kind, false, none),
                Err(SpecError::ImportantWordsInput)
            );
        }
        assert_eq!(
            important_words_with(Some(5), InputKind::Csv, true, none),
            Err(SpecError::ImportantWordsInput)
        );
        let all = Beside {
            stored: true,
            identical_by: true,
            family: true,
            report: true,
        };
        // Records are read whole: no refusal beside them.
        assert_eq!(
            important_words_with(Some(5), InputKind::Jsonl, false, all),
            Ok(())
        );
        assert_eq!(
            important_words_with(Some(5), InputKind::Files, false, all),
            Err(SpecError::Conflict {
                field: "important_words",
                with: "stored"
            })
        );
        let report = Beside {
            report: true,
            ..none
        };
        assert_eq!(
            important_words_with(Some(5), InputKind::Files, false, report),
            Err(SpecError::Conflict {
                field: "important_words",
                with: "report"
            })
        );
    }

    #[test]
    fn important_words_are_single_words() {
        assert_eq!(
            important_words_shingles(None, None),
            Ok((ShingleKind::Word, 1))
        );
        assert_eq!(
            important_words_shingles(Some(ShingleKind::Word), Some(1)),
            Ok((ShingleKind::Word, 1))
        );
        assert_eq!(
            important_words_shingles(Some(ShingleKind::Char), None),
            Err(SpecError::ImportantWordsShingles)
        );
        assert_eq!(
            important_words_shingles(None, Some(2)),
            Err(SpecError::ImportantWordsShingles)
        );
    }
}
