//! `sandbox-lint`: analysis and policy without execution, for audits, CI and air-gapped review.
//!
//! This module gathers inputs (files, directories, stdin), judges each one, and renders the
//! reports in the three output formats; the binary only parses arguments and sets the exit code.

mod human;
mod json;
mod sarif;

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::analysis::{Language, analyze};
use crate::policy::{Finding, Policy, Verdict};

pub use human::{explain_rule, list_rules, render_human};
pub use json::render_json;
pub use sarif::render_sarif;

/// Directories never descended into: dependencies and version-control data are not the
/// snippets under review.
const SKIPPED_DIRECTORIES: &[&str] = &["node_modules", "__pycache__"];

/// One snippet to check.
pub struct Input {
    /// As shown in reports: the path given or found, or `-` for stdin.
    pub path: String,
    pub language: Language,
    origin: Origin,
}

enum Origin {
    File(PathBuf),
    Stdin,
}

/// How reports are written out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Compiler-style diagnostics with the source lines, and a summary.
    Human,
    /// One JSON document.
    Json,
    /// SARIF 2.1.0.
    Sarif,
}

/// The judgement of one snippet.
pub struct FileReport {
    pub path: String,
    pub language: Language,
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
    /// The snippet's part of the human or JSON output, written by the worker that judged it
    /// (writing them all after judging was the one part of a run on a single core).
    pub rendered: String,
}

/// A path that could not be used, with the reason.
#[derive(Debug)]
pub struct InputError {
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Expands PATH arguments: files as given, directories recursively (`.py`, `.js`, `.mjs`,
/// `.cjs`, sorted, skipping hidden entries and dependency folders), `-` as stdin.
/// `language` overrides detection by extension (and, in directories, selects the files).
pub fn collect_inputs(
    paths: &[String],
    language: Option<Language>,
) -> (Vec<Input>, Vec<InputError>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    for arg in paths {
        if arg == "-" {
            inputs.push(Input {
                path: "-".into(),
                language: language.unwrap_or(Language::Python),
                origin: Origin::Stdin,
            });
            continue;
        }
        let path = Path::new(arg);
        if path.is_dir() {
            walk_directory(path, language, &mut inputs, &mut errors);
        } else if path.exists() {
            match language.or_else(|| Language::from_path(path)) {
                Some(language) => inputs.push(Input {
                    path: arg.clone(),
                    language,
                    origin: Origin::File(path.to_path_buf()),
                }),
                None => errors.push(InputError {
                    path: arg.clone(),
                    message: "cannot tell the language from the extension; pass --language python or --language javascript".into(),
                }),
            }
        } else {
            errors.push(InputError {
                path: arg.clone(),
                message: "no such file or directory".into(),
            });
        }
    }
    (inputs, errors)
}

fn walk_directory(
    root: &Path,
    language: Option<Language>,
    inputs: &mut Vec<Input>,
    errors: &mut Vec<InputError>,
) {
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                errors.push(InputError {
                    path: dir.display().to_string(),
                    message: e.to_string(),
                });
                continue;
            }
        };
        // Each name read once: `DirEntry::file_name` copies it, and sorting by it called it
        // for every comparison.
        let mut entries: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| (e.file_name(), e))
            .collect();
        entries.sort_by(|(a, _), (b, _)| a.cmp(b));
        let mut subdirs = Vec::new();
        for (name, entry) in entries {
            let name = name.to_string_lossy();
            if name.starts_with('.') || SKIPPED_DIRECTORIES.contains(&name.as_ref()) {
                continue;
            }
            let path = entry.path();
            // Symlinks are not followed, so a link cycle cannot loop the walk.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                subdirs.push(path);
            } else if kind.is_file()
                && let Some(found) = Language::from_path(&path)
                && language.is_none_or(|l| l == found)
            {
                inputs.push(Input {
                    // `display` writes through the formatter; for a UTF-8 path (nearly all)
                    // the text is the same copied directly.
                    path: path
                        .to_str()
                        .map_or_else(|| path.display().to_string(), str::to_owned),
                    language: found,
                    origin: Origin::File(path),
                });
            }
        }
        pending.extend(subdirs.into_iter().rev());
    }
}

impl Input {
    /// Reads the snippet's bytes (stdin at most once).
    pub fn read(&self) -> std::io::Result<Vec<u8>> {
        match &self.origin {
            Origin::File(path) => std::fs::read(path),
            Origin::Stdin => {
                let mut bytes = Vec::new();
                std::io::stdin().read_to_end(&mut bytes)?;
                Ok(bytes)
            }
        }
    }
}

/// Analyzes and judges one snippet, and renders its part of the output in `format`.
pub fn lint_source(
    policy: &Policy,
    path: &str,
    language: Language,
    bytes: &[u8],
    format: Format,
) -> FileReport {
    let analysis = analyze(language, bytes);
    let judgement = policy.judge(&analysis);
    let mut report = FileReport {
        path: path.to_owned(),
        language,
        verdict: judgement.verdict,
        findings: judgement.findings,
        rendered: String::new(),
    };
    report.rendered = match format {
        Format::Human => human::render_file(&report, analysis.source()),
        Format::Json => json::render_file(&report),
        Format::Sarif => String::new(),
    };
    report
}

/// Reads and judges every input, spread over the machine's cores (files are independent);
/// reports come back in input order. Each worker takes the next unjudged file, so one part of
/// a directory full of large files does not leave the other cores idle.
pub fn lint_all(
    policy: &Policy,
    inputs: &[Input],
    format: Format,
) -> (Vec<FileReport>, Vec<InputError>) {
    let lint_one = |input: &Input| match input.read() {
        Ok(bytes) => Ok(lint_source(
            policy,
            &input.path,
            input.language,
            &bytes,
            format,
        )),
        Err(e) => Err(InputError {
            path: input.path.clone(),
            message: e.to_string(),
        }),
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(inputs.len().max(1));
    let results: Vec<Result<FileReport, InputError>> = if threads <= 1 {
        inputs.iter().map(lint_one).collect()
    } else {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let work = || {
            let mut done = Vec::new();
            loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(input) = inputs.get(index) else {
                    return done;
                };
                done.push((index, lint_one(input)));
            }
        };
        let mut indexed: Vec<_> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("a lint worker does not panic"))
                .collect()
        });
        indexed.sort_unstable_by_key(|(index, _)| *index);
        indexed.into_iter().map(|(_, result)| result).collect()
    };
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    for result in results {
        match result {
            Ok(report) => reports.push(report),
            Err(error) => errors.push(error),
        }
    }
    (reports, errors)
}

/// Counts for the closing summary.
#[derive(Debug, Default, serde::Serialize)]
pub struct Summary {
    pub files: usize,
    pub allowed: usize,
    pub warned: usize,
    pub denied: usize,
    pub findings: usize,
    pub errors: usize,
}

impl Summary {
    pub fn of(reports: &[FileReport], errors: usize) -> Summary {
        let count = |v: Verdict| reports.iter().filter(|r| r.verdict == v).count();
        Summary {
            files: reports.len(),
            allowed: count(Verdict::Allow),
            warned: count(Verdict::Warn),
            denied: count(Verdict::Deny),
            findings: reports.iter().map(|r| r.findings.len()).sum(),
            errors,
        }
    }
}
