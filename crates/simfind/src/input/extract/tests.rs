//! Unit tests of the extraction stage on small inputs built here; the
//! documents of real producers are tested through the binary
//! (`tests/engines/documents.rs`, made by `scripts/make-documents.sh`).

use std::time::Duration;

use super::sniff::{Format, sniff};
use super::{Extract, Failure, Unextracted};

fn extracted(bytes: &[u8]) -> Option<Result<String, Failure>> {
    Extract::auto().run(bytes).map(|r| {
        r.map(|t| String::from_utf8(t).unwrap())
            .map_err(|u| u.failure)
    })
}

fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn plain_utf8_text_is_left_as_it_is() {
    for text in [
        &b"just some text, nothing to extract\n"[..],
        b"=======\nwidgets\n=======\n\nRenders as <html><body>...</body></html>\n",
        // A Debian copyright file: header lines, but not a message's.
        b"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\
          Upstream-Name: foo\nSource: https://example.org\n\nFiles: *\nCopyright: 2020 Someone\n",
        // Quotes a PDF header near its top, yet does not end as a PDF.
        b"The file began with %PDF-1.7 and then nothing else.\n",
        b"Date: Monday\nSubject: minutes\n\nThe minutes of the meeting.\n",
        // UTF-8 with a few damaged bytes stays UTF-8 (decoded lossily).
        b"\xC3\x9Cn\xC3\xAFcode \xC3\x84RGER \xFF\xFE and the rest",
    ] {
        assert_eq!(sniff(text), None, "{}", String::from_utf8_lossy(text));
        assert!(extracted(text).is_none());
    }
    // Binary that is no known format: not extracted, so "looks binary".
    assert_eq!(sniff(b"\x7fELF\x02\x01\x01\x00\x00\x00"), None);
    assert_eq!(sniff(b"PK\x03\x04 not really a zip at all"), None);
    // Small 16-bit numbers have UTF-16's zero pattern, not its text.
    let numbers: Vec<u8> = (0u16..2000).flat_map(|n| (n % 31).to_le_bytes()).collect();
    assert_eq!(sniff(&numbers), None);
}

#[test]
fn formats_are_told_by_content() {
    assert_eq!(sniff(b"%PDF-1.4\n..."), Some(Format::Pdf));
    assert_eq!(sniff(b"{\\rtf1\\ansi hello}"), Some(Format::Rtf));
    assert_eq!(
        sniff(b"\n  <!DOCTYPE html><html><body>x</body></html>"),
        Some(Format::Html)
    );
    assert_eq!(
        sniff(b"<?xml version=\"1.0\"?>\n<!-- c --><html xmlns=\"http://www.w3.org/1999/xhtml\">"),
        Some(Format::Html)
    );
    let mail = b"Return-Path: <a@example.org>\nFrom: A <a@example.org>\nTo: b@example.org\n\
                 Subject: hi\n  continued\n\nBody.\n";
    assert_eq!(sniff(mail), Some(Format::Mail));
    let mut mbox = b"From a@example.org Sat Nov 28 10:00:00 2026\n".to_vec();
    mbox.extend_from_slice(mail);
    assert_eq!(sniff(&mbox), Some(Format::Mbox));
    assert_eq!(sniff(b"\xEF\xBB\xBFtext"), Some(Format::Utf8Bom));
    assert_eq!(sniff(b"\xFF\xFEt\x00e\x00x\x00t\x00"), Some(Format::Utf16));
    assert_eq!(
        sniff(b"\xFF\xFE\x00\x00t\x00\x00\x00e\x00\x00\x00"),
        Some(Format::Utf32)
    );
    let le: Vec<u8> = "plain words in UTF-16 without a mark"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    assert_eq!(sniff(&le), Some(Format::Utf16));
    let be: Vec<u8> = "plain words in UTF-16 without a mark"
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    assert_eq!(sniff(&be), Some(Format::Utf16));
    assert_eq!(
        sniff(b"caf\xe9 cr\xe8me br\xfbl\xe9e"),
        Some(Format::Legacy8Bit)
    );
}

#[test]
fn text_encodings_decode_to_the_same_text() {
    let text = "Ærøskøbing, café crème — the same words";
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    assert_eq!(extracted(&utf16).unwrap().unwrap(), text);
    let unmarked_be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    assert_eq!(extracted(&unmarked_be).unwrap().unwrap(), text);
    let utf32: Vec<u8> = [0xFF, 0xFE, 0, 0]
        .into_iter()
        .chain(text.chars().flat_map(|c| (c as u32).to_le_bytes()))
        .collect();
    assert_eq!(extracted(&utf32).unwrap().unwrap(), text);
    let bom = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
    assert_eq!(extracted(&bom).unwrap().unwrap(), text);
    // Latin-1 / Windows-1252: decoded, not replaced.
    let latin1 = b"Le caf\xe9 de la gare servait une cr\xe8me br\xfbl\xe9e excellente.";
    assert_eq!(
        extracted(latin1).unwrap().unwrap(),
        "Le café de la gare servait une crème brûlée excellente."
    );
}

#[cfg(feature = "extract-html")]
#[test]
fn html_gives_its_visible_text() {
    let page = b"<!DOCTYPE html><html><head><title>T</title><style>p { color: red }</style>\
        <script>var hidden = 'not text';</script></head><body><nav>Home</nav>\
        <p>Fish &amp; chips&nbsp;at&#32;the <b>harbour</b>.</p><table><tr><td>one</td><td>two</td></tr></table>\
        </body></html>";
    let text = words(&extracted(page).unwrap().unwrap());
    assert!(text.contains("Fish & chips at the harbour."), "{text}");
    assert!(text.contains("one") && text.contains("two"), "{text}");
    assert!(
        !text.contains("color") && !text.contains("hidden"),
        "{text}"
    );
    assert!(!text.contains('<'), "{text}");
}

#[cfg(feature = "extract-html")]
#[test]
fn a_page_nested_thousands_deep_is_named_not_rendered() {
    let deep = format!(
        "<!DOCTYPE html><html><body>{}deep{}</body></html>",
        "<div>".repeat(50_000),
        "</div>".repeat(50_000)
    );
    match extracted(deep.as_bytes()).unwrap() {
        Err(Failure::Damaged(reason)) => assert!(reason.contains("nested deeper"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // Thousands of paragraphs left open, as sloppy pages do, are a page.
    let sloppy = format!(
        "<!DOCTYPE html><html><body>{}</body></html>",
        "<p>a paragraph never closed ".repeat(5_000)
    );
    assert!(extracted(sloppy.as_bytes()).unwrap().is_ok());
}

#[cfg(feature = "extract-mail")]
#[test]
fn a_message_gives_its_subject_and_decoded_body() {
    let mail = b"From: A <a@example.org>\r\nTo: b@example.org\r\nSubject: =?utf-8?q?Caf=C3=A9?=\r\n\
        Message-ID: <1@example.org>\r\nMIME-Version: 1.0\r\n\
        Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n\
        The cr=C3=A8me of a long line that was soft=\r\n broken by the encoder.\r\n";
    let text = words(&extracted(mail).unwrap().unwrap());
    assert_eq!(
        text,
        "Café The crème of a long line that was soft broken by the encoder."
    );
    assert!(!text.contains("example.org"));
}

#[cfg(feature = "extract-office")]
mod office {
    use std::io::{Cursor, Write};

    use zip::ZipWriter;
    use zip::write::SimpleFileOptions;

    use super::*;

    fn zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        for (name, data) in entries {
            writer
                .start_file(*name, SimpleFileOptions::default())
                .unwrap();
            writer.write_all(data).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    const TYPES: (&str, &[u8]) = ("[Content_Types].xml", b"<Types/>");

    #[test]
    fn a_docx_gives_its_runs_tables_and_footnotes_not_deleted_text() {
        let body = br#"<w:document xmlns:w="w"><w:body>
            <w:p><w:r><w:t>Split </w:t></w:r><w:r><w:t>ru</w:t></w:r><w:r><w:t>ns &amp; more</w:t></w:r></w:p>
            <w:p><w:del><w:r><w:delText>deleted words</w:delText></w:r></w:del>
                 <w:r><w:instrText>PAGE \* MERGEFORMAT</w:instrText></w:r><w:r><w:t>kept</w:t></w:r></w:p>
            <w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell one</w:t></w:r></w:p></w:tc>
                          <w:tc><w:p><w:r><w:t>cell two</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
            </w:body></w:document>"#;
        let notes = br#"<w:footnotes xmlns:w="w"><w:footnote><w:p><w:r><w:t>A footnote.</w:t></w:r></w:p></w:footnote></w:footnotes>"#;
        let docx = zip(&[
            TYPES,
            ("word/document.xml", body),
            ("word/footnotes.xml", notes),
        ]);
        assert_eq!(sniff(&docx), Some(Format::Docx));
        let text = words(&extracted(&docx).unwrap().unwrap());
        assert_eq!(text, "Split runs & more kept cell one cell two A footnote.");
    }

    #[test]
    fn an_odt_keeps_its_spaces_and_leaves_out_tracked_changes() {
        let content = br#"<office:document-content xmlns:office="o" xmlns:text="t"><office:body><office:text>
            <text:tracked-changes><text:changed-region><text:deletion><text:p>gone</text:p></text:deletion></text:changed-region></text:tracked-changes>
            <text:h>Title</text:h><text:p>a<text:s text:c="3"/>b<text:tab/>c<text:line-break/>d</text:p>
            </office:text></office:body></office:document-content>"#;
        let odt = zip(&[
            ("mimetype", b"application/vnd.oasis.opendocument.text"),
            ("content.xml", content),
        ]);
        assert_eq!(sniff(&odt), Some(Format::Odt));
        let text = extracted(&odt).unwrap().unwrap();
        assert!(text.contains("a   b\tc\nd"), "{text:?}");
        assert!(text.contains("Title") && !text.contains("gone"), "{text:?}");
    }

    #[test]
    fn an_xlsx_gives_shared_and_inline_strings_and_numbers() {
        let shared =
            r#"<sst><si><t>name</t></si><si><r><t>Jo</t></r><r><t>sé</t></r><rPh><t>ホセ</t></rPh></si></sst>"#
                .as_bytes();
        let sheet = br#"<worksheet><sheetData>
            <row><c t="s"><v>0</v></c><c><v>42.5</v></c></row>
            <row><c t="s"><v>1</v></c><c t="inlineStr"><is><t>inline</t></is></c></row>
            </sheetData></worksheet>"#;
        let xlsx = zip(&[
            TYPES,
            ("xl/workbook.xml", b"<workbook/>"),
            ("xl/sharedStrings.xml", shared),
            ("xl/worksheets/sheet1.xml", sheet),
        ]);
        assert_eq!(sniff(&xlsx), Some(Format::Xlsx));
        assert_eq!(
            words(&extracted(&xlsx).unwrap().unwrap()),
            "name 42.5 José inline"
        );
    }

    #[test]
    fn an_entity_bomb_expands_to_nothing() {
        let body = br#"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
            <w:document xmlns:w="w"><w:body><w:p><w:r><w:t>before &c; after</w:t></w:r></w:p></w:body></w:document>"#;
        let docx = zip(&[TYPES, ("word/document.xml", body)]);
        assert_eq!(words(&extracted(&docx).unwrap().unwrap()), "before after");
    }

    #[test]
    fn a_document_cut_short_is_a_damaged_document_of_its_kind_not_an_archive() {
        let body = format!(
            "<w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>{}</w:t></w:r></w:p></w:body></w:document>",
            "words ".repeat(2000)
        );
        let docx = zip(&[
            TYPES,
            ("_rels/.rels", b"<Relationships/>"),
            ("word/document.xml", body.as_bytes()),
        ]);
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        let stored =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        writer.start_file("mimetype", stored).unwrap();
        writer
            .write_all(b"application/vnd.oasis.opendocument.presentation")
            .unwrap();
        writer
            .start_file("content.xml", SimpleFileOptions::default())
            .unwrap();
        writer.write_all(body.as_bytes()).unwrap();
        let odp = writer.finish().unwrap().into_inner();
        for (whole, format) in [(docx, Format::Docx), (odp, Format::Odp)] {
            // Cut in the middle: the central directory at the end is gone.
            let cut = &whole[..whole.len() / 2];
            assert_eq!(sniff(cut), Some(format));
            match extracted(cut).unwrap() {
                Err(Failure::Damaged(reason)) => assert!(reason.contains("cut short"), "{reason}"),
                other => panic!("{format:?}: {other:?}"),
            }
        }
        // A plain zip cut short stays unrecognised (an archive, by its magic).
        let plain = zip(&[("notes.txt", "words ".repeat(2000).as_bytes())]);
        assert_eq!(sniff(&plain[..plain.len() / 2]), None);
        // The local headers alone do not make an office document.
        let types_only = zip(&[TYPES, ("other/part.xml", body.as_bytes())]);
        assert_eq!(sniff(&types_only[..types_only.len() / 2]), None);
    }

    #[test]
    fn a_damaged_or_bombed_part_is_named_not_read() {
        let cut = zip(&[
            TYPES,
            ("word/document.xml", b"<w:document><w:body><w:p><w:t>half"),
        ]);
        match extracted(&cut).unwrap() {
            Err(Failure::Damaged(reason)) => {
                assert!(reason.contains("word/document.xml"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
        let empty = zip(&[
            TYPES,
            ("word/document.xml", b"<w:document><w:body/></w:document>"),
        ]);
        assert_eq!(extracted(&empty).unwrap(), Err(Failure::NoText));
        // Declared larger than the cap: refused before inflating.
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        writer
            .start_file(TYPES.0, SimpleFileOptions::default())
            .unwrap();
        writer.write_all(TYPES.1).unwrap();
        writer
            .start_file(
                "word/document.xml",
                SimpleFileOptions::default().large_file(true),
            )
            .unwrap();
        let block = vec![b' '; 1 << 20];
        for _ in 0..257 {
            writer.write_all(&block).unwrap();
        }
        let bomb = writer.finish().unwrap().into_inner();
        assert!(bomb.len() < 1 << 20);
        match extracted(&bomb).unwrap() {
            Err(Failure::Damaged(reason)) => assert!(reason.contains("zip bomb"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_panicking_extractor_is_a_damaged_document_and_prints_nothing() {
    let result = super::guard::isolated(b"x", Duration::from_secs(5), |_| {
        panic!("unexpected encoding")
    });
    match result {
        Err(Failure::Damaged(reason)) => {
            assert!(reason.contains("unexpected encoding"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_extractor_over_its_budget_is_given_up() {
    let started = std::time::Instant::now();
    let result = super::guard::isolated(b"x", Duration::from_millis(50), |_| {
        std::thread::sleep(Duration::from_secs(2));
        Ok("late".to_string())
    });
    assert_eq!(result, Err(Failure::TimedOut(Duration::from_millis(50))));
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn extraction_lists_parse_and_name_what_is_wrong() {
    let list: Extract = "pdf, docx".parse().unwrap();
    assert!(list.includes(Format::Pdf) && list.includes(Format::Docx));
    assert!(!list.includes(Format::Html));
    let office: Extract = "office".parse().unwrap();
    assert!(office.includes(Format::Odt) && office.includes(Format::Xlsx));
    assert!("none".parse::<Extract>().unwrap().is_none());
    assert_eq!("auto".parse::<Extract>().unwrap(), Extract::auto());
    let err = "pdf,doc".parse::<Extract>().unwrap_err();
    assert!(err.to_string().contains("\"doc\""), "{err}");
    // A format not extracted is left as bytes.
    let only_pdf: Extract = "pdf".parse().unwrap();
    assert!(only_pdf.run(b"\xEF\xBB\xBFtext").is_none());
    assert_eq!(Extract::NONE.recipe_name(), "none");
    assert!(list.recipe_name().starts_with("pdf,docx@"));
}

/// `--transform`: what the user's command prints for `raw`, with the
/// budget and cap given.
fn transformed(
    command: &str,
    globs: &[&str],
    path: Option<&str>,
    raw: &[u8],
    budget: Duration,
    max_text: usize,
) -> Option<Result<String, Failure>> {
    let globs: Vec<String> = globs.iter().map(|g| g.to_string()).collect();
    let mut extract =
        Extract::auto().with_transform(super::Transform::new(command, &globs).unwrap());
    extract.budget = budget;
    extract.max_text = max_text;
    extract
        .run_named(path.map(std::path::Path::new), raw)
        .map(|r| {
            r.map(|t| String::from_utf8(t).unwrap())
                .map_err(|u| u.failure)
        })
}

const BUDGET: Duration = Duration::from_secs(20);

#[test]
fn a_transform_reads_the_bytes_on_stdin_or_as_a_private_copy() {
    let raw = b"Report \x00\x01 on the QUARTERLY figures";
    let on_stdin = transformed(
        "tr -d '\\000\\001' | tr A-Z a-z",
        &[],
        None,
        raw,
        BUDGET,
        1 << 20,
    );
    assert_eq!(
        on_stdin,
        Some(Ok("report  on the quarterly figures".to_string()))
    );
    // `{}`: a temporary copy holding the same bytes, with the file's
    // extension, never the file's own path (which a shell would misread).
    let script = "case {} in *.doc) ;; *) echo wrong extension >&2; exit 9;; esac; \
                  test {} != \"/share/it's; rm -rf ~.doc\" && tr -d '\\000\\001' < {}";
    let copy = transformed(
        script,
        &[],
        Some("/share/it's; rm -rf ~.doc"),
        raw,
        BUDGET,
        1 << 20,
    );
    assert_eq!(
        copy,
        Some(Ok("Report  on the QUARTERLY figures".to_string()))
    );
}

#[test]
fn a_transform_applies_only_to_the_paths_its_globs_match() {
    let run =
        |path: Option<&str>| transformed("echo made", &["*.doc", "*.wpd"], path, b"x", BUDGET, 64);
    assert_eq!(run(Some("a/b/REPORT.DOC")), Some(Ok("made\n".to_string())));
    assert_eq!(run(Some("old.wpd")), Some(Ok("made\n".to_string())));
    // Not matched: the built-in extraction decides (plain text: nothing).
    assert_eq!(run(Some("notes.txt")), None);
    // No path (standard input): only a command without globs applies.
    assert_eq!(run(None), None);
    assert_eq!(
        transformed("echo made", &[], None, b"x", BUDGET, 64),
        Some(Ok("made\n".to_string()))
    );
}

#[test]
fn a_failing_transform_names_its_status_and_first_error_line() {
    let failed = transformed(
        "echo partial; printf '\\nno such format\\nmore\\n' >&2; exit 3",
        &[],
        None,
        b"x",
        BUDGET,
        64,
    );
    let Some(Err(Failure::Damaged(reason))) = failed else {
        panic!("{failed:?}")
    };
    assert_eq!(reason, "the command exited with status 3: no such format");
    let killed = transformed("kill -9 $$", &[], None, b"x", BUDGET, 64);
    assert!(
        matches!(&killed, Some(Err(Failure::Damaged(r))) if r == "the command was killed by signal 9"),
        "{killed:?}"
    );
    // Nothing printed, or only whitespace: no text.
    assert_eq!(
        transformed("printf '  \\n'", &[], None, b"x", BUDGET, 64),
        Some(Err(Failure::NoText))
    );
    // A command that does not read its input is not a failure for that.
    let big = vec![b'a'; 4 << 20];
    assert_eq!(
        transformed("echo ok", &[], None, &big, BUDGET, 64),
        Some(Ok("ok\n".to_string()))
    );
}

#[test]
fn a_transform_over_its_budget_is_killed_with_its_children() {
    let marker = tempfile::NamedTempFile::new().unwrap().into_temp_path();
    let marker = marker.to_str().unwrap().to_string();
    // A pipeline whose last stage outlives the shell, holding the output
    // pipe: the budget ends it all, and the child never writes its mark.
    let command = format!("(sleep 3; echo late > {marker}) | cat & sleep 60");
    let started = std::time::Instant::now();
    let late = transformed(&command, &[], None, b"x", Duration::from_millis(300), 64);
    assert_eq!(
        late,
        Some(Err(Failure::TimedOut(Duration::from_millis(300))))
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        "",
        "the pipeline's child lived on"
    );
}

#[test]
fn a_transform_output_is_cut_at_the_text_cap() {
    let started = std::time::Instant::now();
    // `yes` never ends: the cap stops it, well within the budget.
    let cut = transformed("yes abc", &[], None, b"x", BUDGET, 1000);
    let Some(Ok(text)) = cut else {
        panic!("{cut:?}")
    };
    assert_eq!(text.len(), 1000);
    assert!(text.starts_with("abc\nabc\n"));
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_stored_transform_runs_again_only_when_given_again() {
    let transform = super::Transform::new("antiword -", &["*.doc".to_string()]).unwrap();
    let extract = Extract::only([Format::Pdf]).with_transform(transform.clone());
    let stored = extract.recipe_name();
    // Without a stored command, nothing needs giving again.
    assert_eq!(
        Extract::from_recipe_name(&Extract::auto().recipe_name(), None),
        Ok(Extract::auto())
    );
    assert_eq!(
        Extract::from_recipe_name(&stored, Some(&transform)),
        Ok(extract)
    );
    let refused = Extract::from_recipe_name(&stored, None).unwrap_err();
    assert_eq!(
        refused,
        crate::params::ExtractionError::TransformNotGiven {
            command: "antiword -".to_string(),
            globs: vec!["*.doc".to_string()],
        }
    );
    let refused = refused.to_string();
    // The library names the settings, not the command line's flags.
    assert!(
        refused.contains("\"antiword -\"")
            && refused.contains("give the same {transform} and {transform_globs}")
            && !refused.contains("--"),
        "{refused}"
    );
    let other = super::Transform::new("catdoc", &["*.doc".to_string()]).unwrap();
    assert!(Extract::from_recipe_name(&stored, Some(&other)).is_err());
    // Without a transform the stored name is what it always was.
    assert_eq!(
        Extract::only([Format::Pdf]).recipe_name(),
        format!("pdf@{}", super::EXTRACTORS_VERSION)
    );
}

#[test]
fn a_transform_is_refused_when_it_cannot_run() {
    use super::transform::TransformError;
    assert_eq!(
        super::Transform::new("  ", &[]).unwrap_err(),
        TransformError::EmptyCommand
    );
    assert_eq!(
        super::Transform::new("a\0b", &[]).unwrap_err(),
        TransformError::NulInCommand
    );
    assert!(matches!(
        super::Transform::new("cat", &["[".to_string()]).unwrap_err(),
        TransformError::BadGlob { glob, .. } if glob == "["
    ));
}

#[test]
fn binary_files_are_named_by_the_kind_their_magic_bytes_tell() {
    use super::sniff::binary_kind;
    let mut tar = vec![0u8; 512];
    tar[257..262].copy_from_slice(b"ustar");
    let cases: [(&[u8], Option<Format>); 12] = [
        (b"\x89PNG\r\n\x1A\n\0\0\0\rIHDR", Some(Format::Image)),
        (b"\xFF\xD8\xFF\xE0\0\x10JFIF\0", Some(Format::Image)),
        (b"RIFF\0\0\0\0WEBPVP8 ", Some(Format::Image)),
        (b"\0\0\0\x18ftypheic\0\0", Some(Format::Image)),
        (b"\0\0\0\x18ftypisom\0\0", Some(Format::Video)),
        (b"\x1F\x8B\x08\0\0\0\0\0", Some(Format::Archive)),
        (&tar, Some(Format::Archive)),
        (
            b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\0\0",
            Some(Format::OldOffice),
        ),
        (b"\x7FELF\x02\x01\x01\0", Some(Format::Executable)),
        (b"SQLite format 3\0\x10\0", Some(Format::Database)),
        (b"RIFF\0\0\0\0WAVEfmt ", Some(Format::Audio)),
        (b"\0\x01\x02 no known signature", None),
    ];
    for (bytes, kind) in cases {
        assert_eq!(binary_kind(bytes), kind, "{bytes:?}");
    }
    // Kinds are never formats to extract, nor names --extract takes.
    for kind in [Format::Image, Format::OldOffice, Format::Archive] {
        assert!(kind.is_binary_kind() && !kind.built_in() && !Format::ALL.contains(&kind));
        assert!(Format::by_name(kind.name()).is_empty());
    }
}

#[test]
fn a_range_of_a_paged_text_is_located_by_page() {
    use super::pages_of;
    let text = b"first page\x0Csecond page\x0Cthird";
    assert_eq!(pages_of(text, 0..5), (1, 1));
    assert_eq!(pages_of(text, 11..17), (2, 2));
    assert_eq!(pages_of(text, 6..20), (1, 2));
    assert_eq!(pages_of(text, 0..text.len()), (1, 3));
    assert_eq!(pages_of(text, 23..28), (3, 3));
}

#[test]
fn a_stored_reason_reads_back_as_the_same_category() {
    let failures = [
        Failure::NoText,
        Failure::Encrypted,
        Failure::Damaged("a parser's message".into()),
        Failure::TooLarge(1 << 28),
        Failure::TimedOut(Duration::from_secs(30)),
        Failure::Unreadable,
    ];
    let mut codes = std::collections::BTreeSet::new();
    for (place, &format) in super::STORED_ORDER.iter().enumerate() {
        assert_eq!(super::format_code(format) as usize, place, "{format:?}");
    }
    let formats = super::STORED_ORDER;
    for format in formats {
        for failure in &failures {
            let why = Unextracted {
                format,
                failure: failure.clone(),
            };
            let code = why.stored_code();
            assert!(code >= 1 && codes.insert(code), "{why:?}: {code}");
            let back = Unextracted::from_stored_code(code).unwrap();
            assert_eq!(back.category(), why.category());
            // Its details are not made up: none print.
            let shown = back.reason();
            assert!(shown.starts_with(&back.category()), "{shown}");
            assert!(!shown.contains("()") && !shown.contains(" of 0"), "{shown}");
        }
    }
    assert_eq!(Unextracted::from_stored_code(0), None);
    assert_eq!(Unextracted::from_stored_code(7), None);
    assert_eq!(Unextracted::from_stored_code(u32::MAX), None);
}

#[test]
fn text_in_any_script_reads_and_glyph_numbers_do_not() {
    for text in [
        "The keeper lit the lamp.",
        "Der Leuchtturmwärter zündete die Lampe an.",
        "灯台守がランプを灯した。",
        "Смотритель маяка зажёг лампу.",
        // A few stray controls, as some producers leave, are still text.
        "ligature\u{2} here and there\u{1} in a long sentence of words",
    ] {
        assert!(super::readable(text), "{text:?}");
    }
    for junk in [
        "\u{1}\u{2}\u{3}\u{4} \u{5}\u{6}\u{3}\u{7}",
        "\u{E001}\u{E002}\u{E003} a",
        "\u{FFFD}\u{FFFD}\u{FFFD}ab",
    ] {
        assert!(!super::readable(junk), "{junk:?}");
    }
}

/// The reasons name settings as `{name}` for each face to spell, and say
/// them in plain words when displayed: no flag is spelled by the library.
#[test]
fn unextracted_reasons_name_settings_not_flags() {
    use super::{Failure, Format, Unextracted};
    let cases = [
        (
            Format::OldOffice,
            Failure::NoText,
            "{transform} with a converter",
        ),
        (
            Format::Image,
            Failure::NoText,
            "{include_binary} compares its bytes",
        ),
        (
            Format::Transform,
            Failure::Damaged("exit 4".into()),
            "failed by {transform}",
        ),
        (
            Format::Transform,
            Failure::TimedOut(std::time::Duration::from_secs(2)),
            "{transform} time budget",
        ),
    ];
    for (format, failure, words) in cases {
        let why = Unextracted { format, failure };
        assert!(why.reason().contains(words), "{}", why.reason());
        let shown = why.to_string();
        assert!(!shown.contains('{') && !shown.contains("--"), "{shown}");
    }
}
