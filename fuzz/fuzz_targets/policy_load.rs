//! Arbitrary YAML as a policy file: loading must return a policy or an error, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(error) = code_sandbox_mcp::policy::load_str("fuzz.yaml", text) {
            let _ = error.to_string();
        }
    }
});
