//! `sandbox-lint`: analysis and policy without execution, for audits, CI and air-gapped review.
//!
//! This module gathers inputs (files, directories, stdin), judges each one, and renders the
//! reports in the three output formats; the binary only parses arguments and sets the exit code.

mod human;
mod json;
mod sarif;

use std::borrow::Borrow;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::analysis::{Analysis, Language, analyze};
use crate::policy::{Finding, Policy, Verdict};

pub use human::{explain_rule, list_rules, render_human};
pub use json::{render_json, write_json};
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
    report(policy, path, language, analyze(language, bytes), format)
}

/// Judges an analyzed snippet and renders its part of the output in `format` (the analysis
/// is done with then).
fn report(
    policy: &Policy,
    path: &str,
    language: Language,
    analysis: Analysis,
    format: Format,
) -> FileReport {
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
    match lint_all_loading(|| Ok::<_, std::convert::Infallible>(policy), inputs, format) {
        Ok((_, reports, errors)) => (reports, errors),
    }
}

/// [`lint_all`] while `load` makes the policy on the calling thread: the other cores read
/// and analyze files meanwhile (analysis does not need the policy), and judge them once it
/// is there. The calling thread then takes files too. When `load` fails, nothing is judged
/// and its error is returned.
pub fn lint_all_loading<P, E>(
    load: impl FnOnce() -> Result<P, E>,
    inputs: &[Input],
    format: Format,
) -> Result<(P, Vec<FileReport>, Vec<InputError>), E>
where
    P: Borrow<Policy> + Send + Sync,
{
    // Set once `load` returns: the policy, or `None` when it failed.
    let loaded: OnceLock<Option<P>> = OnceLock::new();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        // Analyzed before the policy was there, to be judged once it is.
        let mut waiting = Vec::new();
        loop {
            if matches!(loaded.get(), Some(None)) {
                return Vec::new();
            }
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(input) = inputs.get(index) else {
                break;
            };
            let analysis = match input.read() {
                Ok(bytes) => analyze(input.language, &bytes),
                Err(e) => {
                    done.push((
                        index,
                        Err(InputError {
                            path: input.path.clone(),
                            message: e.to_string(),
                        }),
                    ));
                    continue;
                }
            };
            match loaded.get() {
                Some(Some(policy)) => {
                    let policy = policy.borrow();
                    let report = report(policy, &input.path, input.language, analysis, format);
                    done.push((index, Ok(report)));
                }
                Some(None) => return Vec::new(),
                None => waiting.push((index, analysis)),
            }
        }
        let Some(policy) = loaded.wait() else {
            return Vec::new();
        };
        let policy = policy.borrow();
        for (index, analysis) in waiting {
            let input = &inputs[index];
            let report = report(policy, &input.path, input.language, analysis, format);
            done.push((index, Ok(report)));
        }
        done
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(inputs.len().max(1));
    let mut failure = None;
    let mut indexed = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        // Should `load` panic, the helpers waiting for the policy are told there is none,
        // so the scope can end and the panic go on.
        let unset_on_unwind = UnsetOnUnwind(&loaded);
        let mine = match load() {
            Ok(policy) => {
                let _ = loaded.set(Some(policy));
                work()
            }
            Err(error) => {
                let _ = loaded.set(None);
                failure = Some(error);
                Vec::new()
            }
        };
        drop(unset_on_unwind);
        helpers.into_iter().fold(mine, |mut all, helper| {
            all.extend(helper.join().expect("a lint worker does not panic"));
            all
        })
    });
    if let Some(error) = failure {
        return Err(error);
    }
    let policy = loaded
        .into_inner()
        .flatten()
        .expect("the policy was loaded");
    indexed.sort_unstable_by_key(|(index, _)| *index);
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    for (_, result) in indexed {
        match result {
            Ok(report) => reports.push(report),
            Err(error) => errors.push(error),
        }
    }
    Ok((policy, reports, errors))
}

/// Sets a policy cell still empty to "no policy" when dropped (by a panic while loading).
struct UnsetOnUnwind<'a, P>(&'a OnceLock<Option<P>>);

impl<P> Drop for UnsetOnUnwind<'_, P> {
    fn drop(&mut self) {
        let _ = self.0.set(None);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fixtures() -> Vec<Input> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/policies/fixtures");
        let (inputs, errors) = collect_inputs(&[root.to_owned()], None);
        assert!(errors.is_empty() && inputs.len() > 20, "{errors:?}");
        inputs
    }

    fn rendered(reports: &[FileReport]) -> Vec<(&str, &str)> {
        reports
            .iter()
            .map(|r| (r.path.as_str(), r.rendered.as_str()))
            .collect()
    }

    /// Files analyzed while the policy is still loading are judged once it is there, exactly
    /// as they are with the policy at hand from the start.
    #[test]
    fn a_policy_loading_late_judges_every_file_the_same() {
        let policy = crate::policy::load("strict").unwrap();
        let inputs = fixtures();
        let (expected, _) = lint_all(&policy, &inputs, Format::Json);
        let late = || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            crate::policy::load("strict")
        };
        let (_, reports, errors) = lint_all_loading(late, &inputs, Format::Json).unwrap();
        assert!(errors.is_empty());
        assert_eq!(rendered(&reports), rendered(&expected));
        assert!(reports.iter().any(|r| r.verdict == Verdict::Deny));
    }

    /// A policy that fails to load judges nothing and hands its error back.
    #[test]
    fn a_policy_failing_to_load_is_returned() {
        let failed = lint_all_loading(
            || crate::policy::load("no-such-preset"),
            &fixtures(),
            Format::Json,
        );
        assert!(failed.is_err());
    }

    /// A panic while loading the policy reaches the caller instead of leaving the other
    /// threads waiting for it.
    #[test]
    fn a_panic_while_loading_is_not_a_hang() {
        let inputs = fixtures();
        let outcome = std::panic::catch_unwind(|| {
            lint_all_loading(
                || -> Result<Policy, ()> { panic!("loading failed") },
                &inputs,
                Format::Json,
            )
        });
        assert!(outcome.is_err());
    }
}
