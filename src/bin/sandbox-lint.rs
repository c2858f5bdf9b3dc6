//! `sandbox-lint`: checks Python and JavaScript snippets against a sandbox policy without
//! running them. Exit status: 0 nothing denied, 1 something denied, 2 usage, policy or read error.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::lint::{self, Summary};
use code_sandbox_mcp::policy::{self, DEFAULT_POLICY, Verdict};

/// Analysis allocates many small, short-lived values (names, meanings, facts); with glibc's
/// allocator, allocating and freeing them was a sixth of this command's instructions.
#[global_allocator]
static ALLOCATOR: rust_allocator::Mimalloc = rust_allocator::Mimalloc;

/// Rust's allocations through mimalloc, by its plain `malloc` whenever that aligns enough.
/// Asked for an alignment, mimalloc takes a slower path, and for a block whose size is not a
/// power of two and that its free lists cannot serve at once it over-allocates; its `malloc`
/// aligns every block to 16 bytes, or to its size when smaller, as C's `malloc` must.
mod rust_allocator {
    use std::alloc::{GlobalAlloc, Layout};
    use std::ffi::c_void;

    use libmimalloc_sys::{
        mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
        mi_zalloc_aligned,
    };

    /// The alignment mimalloc's `malloc` gives a block at least this large.
    const MALLOC_ALIGNMENT: usize = 16;

    fn malloc_aligns(size: usize, align: usize) -> bool {
        align <= MALLOC_ALIGNMENT && align <= size
    }

    pub struct Mimalloc;

    /// A block for `layout` from mimalloc's `plain` function when that aligns enough, else
    /// from its `aligned` one.
    ///
    /// # Safety
    /// `plain` and `aligned` must be mimalloc's allocation functions of one kind.
    unsafe fn allocate(
        layout: Layout,
        plain: unsafe extern "C" fn(usize) -> *mut c_void,
        aligned: unsafe extern "C" fn(usize, usize) -> *mut c_void,
    ) -> *mut u8 {
        let (size, align) = (layout.size(), layout.align());
        let block = if malloc_aligns(size, align) {
            unsafe { plain(size) }
        } else {
            unsafe { aligned(size, align) }
        };
        block.cast()
    }

    // SAFETY: every block comes from mimalloc, which frees any of its blocks with `mi_free`
    // and reallocates any with `mi_realloc` or `mi_realloc_aligned`; a block from the plain
    // functions is aligned as `malloc_aligns` requires, the others as asked.
    unsafe impl GlobalAlloc for Mimalloc {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            unsafe { allocate(layout, mi_malloc, mi_malloc_aligned) }
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            unsafe { allocate(layout, mi_zalloc, mi_zalloc_aligned) }
        }

        unsafe fn dealloc(&self, block: *mut u8, _layout: Layout) {
            unsafe { mi_free(block.cast::<c_void>()) }
        }

        unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let block = block.cast::<c_void>();
            let moved = if malloc_aligns(new_size, layout.align()) {
                unsafe { mi_realloc(block, new_size) }
            } else {
                unsafe { mi_realloc_aligned(block, new_size, layout.align()) }
            };
            moved.cast()
        }
    }
}

/// tree-sitter's C library allocates through its own hooks (glibc's `malloc` unless told
/// otherwise): building and freeing each syntax tree's nodes there cost as many instructions
/// as half the analyzer. These route it to mimalloc too.
mod tree_sitter_allocator {
    use std::ffi::c_void;

    use libmimalloc_sys::{mi_free, mi_malloc, mi_realloc, mi_zalloc};

    /// tree-sitter requires allocations that never return null, as its default does (it
    /// aborts when out of memory).
    fn non_null(pointer: *mut c_void) -> *mut c_void {
        if pointer.is_null() {
            std::process::abort();
        }
        pointer
    }

    unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
        non_null(unsafe { mi_malloc(size) })
    }

    unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
        let Some(total) = count.checked_mul(size) else {
            std::process::abort();
        };
        non_null(unsafe { mi_zalloc(total) })
    }

    unsafe extern "C" fn realloc(pointer: *mut c_void, size: usize) -> *mut c_void {
        non_null(unsafe { mi_realloc(pointer, size) })
    }

    unsafe extern "C" fn free(pointer: *mut c_void) {
        unsafe { mi_free(pointer) }
    }

    /// Installs the hooks. Must run before any other tree-sitter call (a pointer must be
    /// freed by the allocator that made it) and before any thread starts.
    pub fn install() {
        // SAFETY: the four functions are one allocator family, never return null, and
        // align like `malloc` (mimalloc aligns to 16 bytes, as glibc does); `main` calls this
        // first, while no tree-sitter object exists and no other thread runs.
        unsafe {
            tree_sitter::set_allocator(Some(tree_sitter::Allocator {
                malloc,
                calloc,
                realloc,
                free,
            }))
        }
    }
}

#[derive(Parser)]
#[command(
    name = "sandbox-lint",
    version,
    about = "Audit Python and JavaScript snippets against a sandbox policy, without running them",
    after_help = "Exit status: 0 when nothing is denied, 1 when something is, 2 on a usage, policy or read error.\n\
                  Policies: a path to a YAML file, or a preset: strict, standard (default), permissive."
)]
struct Cli {
    /// Files, directories (searched for .py, .js, .mjs, .cjs) or `-` for stdin.
    paths: Vec<String>,
    /// Policy file or preset name.
    #[arg(long, short, default_value = DEFAULT_POLICY)]
    policy: String,
    #[arg(long, short, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Language of stdin and of files whose extension does not tell (default for stdin: python).
    #[arg(long, short)]
    language: Option<Language>,
    /// List the policy's rules, actions and limits.
    #[arg(long, conflicts_with_all = ["paths", "explain", "print_schema"])]
    list_rules: bool,
    /// Explain a rule: why it exists, an example, what to do instead.
    #[arg(long, value_name = "RULE", conflicts_with_all = ["paths", "print_schema"])]
    explain: Option<String>,
    /// Print the JSON Schema of policy files.
    #[arg(long, conflicts_with = "paths")]
    print_schema: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
    Sarif,
}

fn main() -> ExitCode {
    tree_sitter_allocator::install();
    let cli = Cli::parse();
    if cli.print_schema {
        print!("{}", policy::model::json_schema());
        return ExitCode::SUCCESS;
    }
    if cli.list_rules || cli.explain.is_some() || cli.paths.is_empty() {
        return policy_only(&cli);
    }
    let (inputs, mut errors) = lint::collect_inputs(&cli.paths, cli.language);
    let format = match cli.format {
        Format::Human => lint::Format::Human,
        Format::Json => lint::Format::Json,
        Format::Sarif => lint::Format::Sarif,
    };
    // The policy loads while the other cores start on the files.
    let (policy, reports, read_errors) =
        match lint::lint_all_loading(|| policy::load(&cli.policy), &inputs, format) {
            Ok(linted) => linted,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        };
    errors.extend(read_errors);
    for error in &errors {
        eprintln!("error: {error}");
    }
    let summary = Summary::of(&reports, errors.len());
    let output = match format {
        lint::Format::Human => lint::render_human(&policy, &reports, &summary),
        lint::Format::Json => {
            // Written part by part: the document is the files' parts, already rendered.
            let mut stdout = std::io::stdout().lock();
            lint::write_json(&policy, &reports, &summary, &mut stdout)
                .and_then(|()| stdout.flush())
                .unwrap_or_else(|e| panic!("failed printing to stdout: {e}"));
            String::new()
        }
        lint::Format::Sarif => lint::render_sarif(&policy, &reports),
    };
    print!("{output}");
    let code = if !errors.is_empty() {
        ExitCode::from(2)
    } else if reports.iter().any(|r| r.verdict == Verdict::Deny) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    // The process ends here: freeing every report (allocated on the workers' threads) one by
    // one would only delay the exit.
    std::mem::forget(reports);
    std::mem::forget(output);
    code
}

/// The commands that need the policy and no file: `--list-rules`, `--explain`, and the usage
/// error for no paths (after the policy, so a bad policy is reported first).
fn policy_only(cli: &Cli) -> ExitCode {
    let policy = match policy::load(&cli.policy) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if cli.list_rules {
        print!("{}", lint::list_rules(&policy));
        return ExitCode::SUCCESS;
    }
    if let Some(id) = &cli.explain {
        return match policy.rule(id) {
            Some(rule) => {
                print!("{}", lint::explain_rule(&policy, rule));
                ExitCode::SUCCESS
            }
            None => {
                let ids: Vec<&str> = policy.rules.iter().map(|r| r.id.as_str()).collect();
                eprintln!(
                    "error: policy {} has no rule `{id}`\n  hint: its rules are {}",
                    policy.name,
                    ids.join(", ")
                );
                ExitCode::from(2)
            }
        };
    }
    eprintln!(
        "error: no files to check\n  hint: sandbox-lint [--policy P] PATH... (a file, a directory, or - for stdin); see --help"
    );
    ExitCode::from(2)
}
