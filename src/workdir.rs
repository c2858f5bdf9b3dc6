//! Files in the sandbox's work dir, as the gateway sees them: the entries a caller sends in
//! (checked and decoded before anything runs) and the paths of files coming back. One rule for
//! both: a path is relative, names no `.`/`..` part, and stays inside the work dir.

use base64::Engine as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::policy::{Limits, format_size};

/// Longest path accepted, in bytes, and longest single name in it (Linux's limits).
const MAX_PATH_BYTES: usize = 1024;
const MAX_NAME_BYTES: usize = 255;

/// A file to write into the work dir before the code runs.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// Where the file goes, relative to the work dir (`data.csv`, `input/a.json`); no
    /// absolute paths and no `..`. Directories are created as needed.
    pub path: String,
    /// The file's contents: text, or base64 for binary data (see `encoding`).
    pub content: String,
    /// How `content` is written: `utf-8` (the default) or `base64`.
    #[serde(default)]
    pub encoding: Encoding,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum Encoding {
    #[default]
    #[serde(rename = "utf-8")]
    Utf8,
    #[serde(rename = "base64")]
    Base64,
}

/// A checked and decoded input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputFile {
    /// Normalised: relative, `/`-separated, no empty, `.` or `..` parts.
    pub path: String,
    pub content: Vec<u8>,
}

/// A file entry that cannot be used; nothing runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("files[{index}] ({path:?}): {problem}")]
pub struct FileError {
    pub index: usize,
    pub path: String,
    pub problem: String,
}

/// The path as it is kept: relative and normalised, or why it cannot be.
pub fn normalize(path: &str) -> Result<String, String> {
    if path.is_empty() {
        return Err("the path is empty; give a relative path such as data.csv".into());
    }
    if path.starts_with('/') || path.starts_with('\\') {
        return Err("the path is absolute; give it relative to the work dir, e.g. data.csv".into());
    }
    if let Some(c) = path.chars().find(|c| c.is_control() || *c == '\\') {
        return Err(format!(
            "the path holds {c:?}; use plain names separated by `/`"
        ));
    }
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                return Err("the path has a `..` part; paths must stay inside the work dir".into());
            }
            name if name.len() > MAX_NAME_BYTES => {
                return Err(format!("a name in the path is over {MAX_NAME_BYTES} bytes"));
            }
            name => parts.push(name),
        }
    }
    if parts.is_empty() {
        return Err("the path names no file; give a relative path such as data.csv".into());
    }
    let joined = parts.join("/");
    if joined.len() > MAX_PATH_BYTES {
        return Err(format!("the path is over {MAX_PATH_BYTES} bytes"));
    }
    Ok(joined)
}

/// Checks and decodes every entry against the policy's limits: all or nothing.
pub fn decode(entries: &[FileEntry], limits: &Limits) -> Result<Vec<InputFile>, FileError> {
    let fail = |index: usize, path: &str, problem: String| FileError {
        index,
        path: path.to_owned(),
        problem,
    };
    if entries.len() > limits.files_in as usize {
        let last = &entries[limits.files_in as usize];
        return Err(fail(
            limits.files_in as usize,
            &last.path,
            format!(
                "{} files were sent; the policy allows at most {} per call. Send fewer files, or combine them (e.g. one CSV).",
                entries.len(),
                limits.files_in
            ),
        ));
    }
    let mut files: Vec<InputFile> = Vec::with_capacity(entries.len());
    let mut total: u64 = 0;
    for (index, entry) in entries.iter().enumerate() {
        let path = normalize(&entry.path).map_err(|p| fail(index, &entry.path, p))?;
        let content = match entry.encoding {
            Encoding::Utf8 => entry.content.as_bytes().to_vec(),
            Encoding::Base64 => base64::engine::general_purpose::STANDARD
                .decode(entry.content.trim())
                .map_err(|e| {
                    fail(
                        index,
                        &entry.path,
                        format!("`content` is not valid base64 ({e}); encode binary data with standard base64, or send text with encoding utf-8"),
                    )
                })?,
        };
        total += content.len() as u64;
        if total > limits.files_in_bytes {
            return Err(fail(
                index,
                &entry.path,
                format!(
                    "the files sent reach {} with this one; the policy allows {} in all per call. Send less data, or reduce it first.",
                    format_size(total),
                    format_size(limits.files_in_bytes)
                ),
            ));
        }
        for earlier in &files {
            let clash = if earlier.path == path {
                Some("is sent twice")
            } else if path.starts_with(&format!("{}/", earlier.path))
                || earlier.path.starts_with(&format!("{path}/"))
            {
                Some("is both a file and a directory")
            } else {
                None
            };
            if let Some(clash) = clash {
                return Err(fail(
                    index,
                    &entry.path,
                    format!(
                        "the path {clash} (with {:?}); give each file its own path",
                        earlier.path
                    ),
                ));
            }
        }
        files.push(InputFile { path, content });
    }
    Ok(files)
}

/// How a returned file is described to the client.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileInfo {
    /// Relative to the work dir.
    pub path: String,
    pub size: u64,
    /// Lowercase hex SHA-256 of the contents.
    pub sha256: String,
    pub mime: String,
    /// `sandbox://runs/<run-id>/files/<path>`, readable with resources/read for a while.
    pub uri: String,
}

/// The media type of a file, by its name's extension.
pub fn mime_of(path: &str) -> &'static str {
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "csv" => "text/csv",
        "tsv" => "text/tab-separated-values",
        "txt" | "log" | "md" | "py" | "js" | "mjs" | "ts" => "text/plain",
        "json" => "application/json",
        "html" | "htm" => "text/html",
        "xml" => "application/xml",
        "yaml" | "yml" => "application/yaml",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "parquet" => "application/vnd.apache.parquet",
        _ => "application/octet-stream",
    }
}

/// A path as it appears in a URI: each byte outside the unreserved set and `/` escaped.
pub fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The inverse of [`uri_path`]; `None` for a malformed escape or bytes that are not UTF-8.
pub fn uri_path_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, content: &str, encoding: Encoding) -> FileEntry {
        FileEntry {
            path: path.into(),
            content: content.into(),
            encoding,
        }
    }

    #[test]
    fn paths_are_normalised_and_kept_inside() {
        assert_eq!(normalize("a/./b//c.csv").unwrap(), "a/b/c.csv");
        assert_eq!(normalize("./data.csv").unwrap(), "data.csv");
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a/..",
            ".",
            "a\\b",
            "a\nb",
            "\\x",
        ] {
            assert!(normalize(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(normalize(&"a".repeat(256)).is_err());
    }

    #[test]
    fn entries_decode_or_name_the_bad_one() {
        let limits = Limits::default();
        let files = decode(
            &[
                entry("a.txt", "hi", Encoding::Utf8),
                entry("b.bin", "AAEC", Encoding::Base64),
            ],
            &limits,
        )
        .unwrap();
        assert_eq!(files[1].content, vec![0, 1, 2]);
        let error = decode(
            &[
                entry("a.txt", "hi", Encoding::Utf8),
                entry("../b", "x", Encoding::Utf8),
            ],
            &limits,
        )
        .unwrap_err();
        assert_eq!((error.index, error.path.as_str()), (1, "../b"));
        assert!(error.to_string().contains("files[1]"), "{error}");
        let error = decode(&[entry("x", "%%%", Encoding::Base64)], &limits).unwrap_err();
        assert!(error.problem.contains("base64"), "{error}");
        let error = decode(
            &[
                entry("a/b", "1", Encoding::Utf8),
                entry("a", "2", Encoding::Utf8),
            ],
            &limits,
        )
        .unwrap_err();
        assert!(
            error.problem.contains("both a file and a directory"),
            "{error}"
        );
        let error = decode(
            &[
                entry("a", "1", Encoding::Utf8),
                entry("./a", "2", Encoding::Utf8),
            ],
            &limits,
        )
        .unwrap_err();
        assert!(error.problem.contains("twice"), "{error}");
    }

    #[test]
    fn limits_name_the_entry_that_crosses_them() {
        let limits = Limits {
            files_in: 2,
            files_in_bytes: 5,
            ..Limits::default()
        };
        let three: Vec<_> = ["a", "b", "c"]
            .iter()
            .map(|p| entry(p, "", Encoding::Utf8))
            .collect();
        let error = decode(&three, &limits).unwrap_err();
        assert!(error.problem.contains("at most 2"), "{error}");
        let big = [
            entry("a", "123", Encoding::Utf8),
            entry("b", "456", Encoding::Utf8),
        ];
        let error = decode(&big, &limits).unwrap_err();
        assert_eq!(error.index, 1);
        assert!(error.problem.contains("in all"), "{error}");
    }

    #[test]
    fn uri_paths_round_trip() {
        for path in ["a/b c.csv", "ü/%.txt", "plain.png"] {
            assert_eq!(uri_path_decode(&uri_path(path)).unwrap(), path);
        }
        assert_eq!(uri_path("a b/c"), "a%20b/c");
    }
}
