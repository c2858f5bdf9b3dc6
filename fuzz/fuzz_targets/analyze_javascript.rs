//! Arbitrary bytes as JavaScript: the analyzer and the standard policy must not panic or hang.
#![no_main]

use code_sandbox_mcp::analysis::{Language, analyze};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    static POLICY: std::sync::OnceLock<code_sandbox_mcp::policy::Policy> = std::sync::OnceLock::new();
    let policy = POLICY.get_or_init(|| code_sandbox_mcp::policy::load("strict").unwrap());
    let analysis = analyze(Language::JavaScript, data);
    let _ = policy.judge(&analysis);
});
