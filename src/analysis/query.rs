//! Raw tree-sitter queries, for policy authors who need a pattern the facts do not express.
//! Each run is bounded by a match limit and a time limit.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::StreamingIterator;
use tree_sitter::{Query, QueryCursor, QueryCursorOptions, Tree};

use super::{Language, Span};

/// In-progress matches a query may hold; beyond this tree-sitter drops the oldest.
const MATCH_LIMIT: u32 = 256;
/// Matches reported per query and snippet.
const MAX_RESULTS: usize = 100;
/// Longest one query may run over one snippet.
const QUERY_TIME_LIMIT: Duration = Duration::from_millis(200);

/// A compiled query. Nodes captured as `@match` are reported; with no such capture, the first
/// capture of each match is.
pub struct RawQuery {
    language: Language,
    query: Query,
}

impl std::fmt::Debug for RawQuery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawQuery")
            .field("language", &self.language)
            .finish_non_exhaustive()
    }
}

/// A query that does not compile, with its 1-based position inside the query text.
#[derive(Debug, thiserror::Error)]
#[error("{message} (query line {line}, column {column})")]
pub struct RawQueryError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl RawQuery {
    pub fn compile(language: Language, source: &str) -> Result<RawQuery, RawQueryError> {
        let query = Query::new(&language.grammar(), source).map_err(|e| RawQueryError {
            line: e.row + 1,
            column: e.column + 1,
            message: format!("{:?} error: {}", e.kind, e.message.trim()),
        })?;
        if query.capture_names().is_empty() {
            return Err(RawQueryError {
                line: 1,
                column: 1,
                message: "the query captures nothing; name the node to report, e.g. `@match`"
                    .into(),
            });
        }
        Ok(RawQuery { language, query })
    }

    pub fn language(&self) -> Language {
        self.language
    }

    pub(super) fn run(&self, tree: &Tree, source: &str) -> Result<Vec<Span>, String> {
        let preferred = self.query.capture_index_for_name("match");
        let mut cursor = QueryCursor::new();
        cursor.set_match_limit(MATCH_LIMIT);
        let started = Instant::now();
        let mut timed_out = false;
        let mut progress = |_: &tree_sitter::QueryCursorState| {
            if started.elapsed() > QUERY_TIME_LIMIT {
                timed_out = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = QueryCursorOptions::new().progress_callback(&mut progress);
        let mut matches =
            cursor.matches_with_options(&self.query, tree.root_node(), source.as_bytes(), options);
        let mut spans = Vec::new();
        while let Some(m) = matches.next() {
            let capture = m
                .captures()
                .iter()
                .find(|c| Some(c.index) == preferred)
                .or_else(|| m.captures().first());
            if let Some(c) = capture {
                spans.push(Span::from_bytes(
                    source,
                    c.node.start_byte(),
                    c.node.end_byte(),
                ));
            }
            if spans.len() >= MAX_RESULTS {
                break;
            }
        }
        drop(matches);
        if timed_out {
            return Err(format!(
                "query ran longer than {} ms",
                QUERY_TIME_LIMIT.as_millis()
            ));
        }
        if cursor.did_exceed_match_limit() {
            return Err(format!("query exceeded {MATCH_LIMIT} in-progress matches"));
        }
        Ok(spans)
    }
}

#[cfg(test)]
mod tests {
    use super::super::analyze;
    use super::*;

    #[test]
    fn a_query_reports_its_match_capture() {
        let q = RawQuery::compile(
            Language::Python,
            r#"(call function: (identifier) @f (#eq? @f "print")) @match"#,
        )
        .unwrap();
        let analysis = analyze(Language::Python, b"x = 1\nprint(x)\n");
        let spans = analysis.query(&q).unwrap();
        assert_eq!(spans.len(), 1);
        assert_eq!((spans[0].line, spans[0].column), (2, 1));
    }

    #[test]
    fn a_bad_query_names_its_position() {
        let err = RawQuery::compile(Language::Python, "(call\n  (nonsense_node))").unwrap_err();
        assert_eq!(err.line, 2);
    }
}
