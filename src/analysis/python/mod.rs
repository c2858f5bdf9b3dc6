//! Python: what differs from JavaScript for the one engine. `lower` reads tree-sitter's tree
//! into the shared syntax; `tables` lists the names; `sizes` finds allocations too large for
//! any sandbox; this file answers the engine's questions.

mod artist_dispatch;
mod classes;
mod deferred_loads;
mod expressions;
mod formats;
mod import_suggestions;
mod keyword_splats;
mod lower;
mod members;
mod memory_switches;
mod patchers;
mod qhull_options;
mod reinit;
mod settings;
mod sizes;
mod special_definitions;
mod symbolic;
pub mod tables;
#[cfg(test)]
mod tests;
mod vectorizers;
mod walks;

use std::borrow::Cow;

pub use lower::lower;

use super::dialect::{
    CallKind, Dialect, FreeName, NamespaceMember, PathMethod, StrFn, StrMethod, Tables,
};
use super::engine::Engine;
use super::engine::meaning::Value;
use super::engine::scopes::Declaring;
use super::ir::{ConstKind, Kind, NodeId};
pub(super) use tables::is_stdlib_module;
use tables::{REEXPORTED_MODULES, is_builtin, is_submodule};

pub struct Python;

pub static PYTHON: Python = Python;

impl Dialect for Python {
    fn tables(&self) -> &'static Tables {
        &tables::TABLES
    }

    /// As the survey of the image found (`from os import *` binds `open`, not `print`).
    fn star_import_binds(&self, module: &str, name: &str) -> bool {
        members::star_binds(module, name).unwrap_or(true)
    }

    fn constructs_in_memory_file(&self, name: &str) -> bool {
        matches!(name, "io.StringIO" | "io.BytesIO")
    }

    /// The hand-written table, then what the survey of the image found.
    fn path_function(&self, name: &str) -> Option<crate::analysis::dialect::PathFunction> {
        crate::analysis::dialect::listed_path_function(&tables::TABLES, name)
            .or_else(|| members::path_function(name))
    }

    fn declaring(&self) -> Declaring {
        Declaring::EveryBinding
    }

    fn index_reads_member(&self) -> bool {
        false
    }

    fn free_name(&self, _name: &str) -> FreeName {
        FreeName::Itself
    }

    fn is_builtin(&self, name: &str) -> bool {
        is_builtin(name)
    }

    fn member_module(&self, module: &str, member: &str) -> Option<Cow<'static, str>> {
        let path = crate::analysis::dotted(module, member);
        if let Some(members::Member::Module(target)) = members::member(&path) {
            return Some(Cow::Borrowed(target));
        }
        if is_submodule(&path) {
            return Some(Cow::Owned(path));
        }
        // `shutil.os`, and `tempfile._os`: a module under a private alias.
        let public = member.trim_start_matches('_');
        let name = if REEXPORTED_MODULES.contains(&member) {
            member
        } else if public.len() < member.len() && REEXPORTED_MODULES.contains(&public) {
            public
        } else {
            return None;
        };
        Some(Cow::Owned(
            self.canonical(name).unwrap_or_else(|| name.to_owned()),
        ))
    }

    fn is_module(&self, path: &str) -> bool {
        is_stdlib_module(path) || is_submodule(path) || members::is_module(path)
    }

    /// One spelling per meaning: `posix` and `nt` are the platform modules `os` re-exports
    /// (and `posixpath` is `os.path`, `_io` is `io`), `builtins.eval` is `eval` (but
    /// `builtins.__dict__` stays the builtins' namespace), `__builtins__` is `builtins`, and a
    /// function another package took from a module with capabilities is that function
    /// (`matplotlib.Path` is `pathlib.Path`, as the image's survey says).
    fn canonical(&self, name: &str) -> Option<String> {
        for (alias, meaning) in [
            ("posixpath", "os.path"),
            ("posix", "os"),
            ("nt", "os"),
            ("_io", "io"),
        ] {
            if crate::analysis::is_under(name, alias) {
                return Some(format!("{meaning}{}", &name[alias.len()..]));
            }
        }
        if name == "__builtins__" {
            return Some("builtins".to_owned());
        }
        match name.strip_prefix("builtins.") {
            Some(rest) if rest != "__dict__" && !rest.starts_with("__dict__.") => {
                Some(rest.to_owned())
            }
            _ => match members::member(name) {
                Some(members::Member::Alias(target)) => Some(target.to_owned()),
                _ => None,
            },
        }
    }

    fn call_kind(&self, name: &str) -> Option<CallKind> {
        let getattr = CallKind::GetAttr {
            object: 0,
            name: 1,
            descriptor: false,
            always: true,
        };
        Some(match name {
            "__import__" | "importlib.__import__" => CallKind::Import {
                top_level: true,
                colon: false,
            },
            "importlib.import_module" => CallKind::Import {
                top_level: false,
                colon: false,
            },
            "pkgutil.resolve_name" => CallKind::Import {
                top_level: false,
                colon: true,
            },
            "importlib.util.find_spec"
            | "importlib.find_loader"
            | "pkgutil.find_loader"
            | "pkgutil.get_loader" => CallKind::FindModule,
            "getattr" | "object.__getattribute__" | "type.__getattribute__" => getattr,
            "setattr" | "delattr" => CallKind::SetAttr,
            "operator.attrgetter" => CallKind::AttrGetter,
            "operator.methodcaller" => CallKind::MethodCaller,
            "matplotlib.artist.getp"
            | "matplotlib.artist.get"
            | "matplotlib.pyplot.getp"
            | "matplotlib.pyplot.get"
            | "matplotlib.pylab.getp"
            | "matplotlib.pylab.get"
            | "matplotlib.artist.ArtistInspector" => CallKind::Accessor { prefix: "get_" },
            "matplotlib.artist.setp" | "matplotlib.pyplot.setp" | "matplotlib.pylab.setp" => {
                CallKind::Accessor { prefix: "set_" }
            }
            // An artist class's own dispatch, called through the class on any object
            // (`Artist.properties(tree)` calls every `get_*` of `tree`).
            _ if let Some(prefix) = artist_dispatch::prefix(name) => CallKind::Accessor { prefix },
            "globals" | "locals" => CallKind::Globals,
            "vars" => CallKind::Vars,
            "importlib.reload" => CallKind::Identity,
            _ => return None,
        })
    }

    fn namespace_member(&self, owner: &str, member: &str) -> Option<NamespaceMember> {
        if owner == "sys" && member == "modules" {
            return Some(NamespaceMember::Modules);
        }
        if member == "__dict__" {
            return Some(NamespaceMember::DictOf);
        }
        let is_namespace = owner == "sys.modules"
            || owner == "globals()"
            || owner == "locals()"
            || owner.ends_with(".__dict__");
        (is_namespace && tables::NAMESPACE_METHODS.contains(&member))
            .then_some(NamespaceMember::Lookup)
    }

    fn is_settings_owner(&self, owner: &str, by_item: bool) -> bool {
        settings::is_settings_owner(owner, by_item)
    }

    fn is_own_module(&self, module: &str) -> bool {
        module == "__main__"
    }

    fn reads_parameters_from_calls(&self) -> bool {
        true
    }

    fn operators_give_numbers(&self) -> bool {
        false
    }

    fn iterates_numbers(&self, name: &str) -> bool {
        name == "range"
    }

    fn is_builtins(&self, module: &str) -> bool {
        module == "builtins"
    }

    fn constant(&self, name: &str) -> Option<&'static str> {
        Some(match name {
            "os.sep" | "os.path.sep" => "/",
            "os.curdir" | "os.path.curdir" | "os.extsep" => ".",
            "os.pardir" | "os.path.pardir" => "..",
            _ => return None,
        })
    }

    fn string_function(&self, name: &str) -> Option<StrFn> {
        Some(match name {
            "str" => StrFn::Recode,
            "chr" => StrFn::Chr { all: false },
            "base64.b64decode" | "base64.standard_b64decode" => StrFn::Base64 { url_safe: false },
            "base64.urlsafe_b64decode" => StrFn::Base64 { url_safe: true },
            "bytes.fromhex" | "binascii.unhexlify" | "binascii.a2b_hex" => StrFn::Hex,
            "codecs.decode" => StrFn::Codec { decode: true },
            "codecs.encode" => StrFn::Codec { decode: false },
            "os.path.join" => StrFn::PathJoin,
            "pathlib.Path" | "pathlib.PurePath" | "pathlib.PosixPath" | "pathlib.PurePosixPath" => {
                StrFn::PurePath
            }
            "os.path.normpath" => StrFn::NormPath,
            "os.path.abspath" => StrFn::AbsPath,
            "os.path.realpath" => StrFn::RealPath,
            "os.fspath" | "os.fsdecode" => StrFn::Same,
            "os.path.expanduser" => StrFn::ExpandUser,
            _ => return None,
        })
    }

    fn string_method(&self, method: &str) -> Option<StrMethod> {
        Some(match method {
            "join" => StrMethod::JoinOnSeparator,
            "decode" | "encode" => StrMethod::Recode,
            "strip" => StrMethod::Strip {
                start: true,
                end: true,
                chars: true,
            },
            "lstrip" => StrMethod::Strip {
                start: true,
                end: false,
                chars: true,
            },
            "rstrip" => StrMethod::Strip {
                start: false,
                end: true,
                chars: true,
            },
            "lower" | "casefold" => StrMethod::Lower,
            "upper" => StrMethod::Upper,
            "replace" => StrMethod::Replace,
            "split" => StrMethod::Split { max_splits: true },
            "joinpath" => StrMethod::JoinPath,
            "resolve" => StrMethod::Resolve,
            "absolute" => StrMethod::Absolute,
            "as_posix" => StrMethod::AsPosix,
            "expanduser" => StrMethod::ExpandUser,
            "with_suffix" => StrMethod::WithSuffix,
            "with_name" => StrMethod::WithName,
            _ => return None,
        })
    }

    /// Settings that load code (see `settings`), and their writers: followed where they are
    /// used directly, so `partial(rcParams.update)`, `operator.setitem(rcParams, ...)` or
    /// `pd.set_option` handed to `map` is a value the analyzer cannot follow.
    fn is_tracked_name(&self, name: &str) -> bool {
        settings::is_settings_name(name)
    }

    /// `__dunder__` names, private `_names` (a library's internals: `ndarray.ctypes._ctypes`,
    /// `ForwardRef._evaluate`) and the members that hand out a capability on whatever object
    /// has them (an event loop's `subprocess_shell`), which the analyzer cannot type.
    fn is_special_attribute(&self, name: &str) -> bool {
        name.starts_with('_') && name.len() > 1 || tables::CAPABILITY_ATTRIBUTES.contains(&name)
    }

    fn divides_paths(&self) -> bool {
        true
    }

    /// An indented definition keeps its lines' indentation inside a block of its own.
    fn standalone(&self, indent: &str, text: &str) -> String {
        if indent.is_empty() {
            text.to_owned()
        } else {
            format!("if True:\n{indent}{text}")
        }
    }

    fn path_method(&self, method: &str) -> Option<PathMethod> {
        Some(match method {
            "read_text" | "write_text" | "read_bytes" | "write_bytes" | "open" | "touch"
            | "unlink" | "mkdir" | "rmdir" | "iterdir" | "walk" | "exists" | "is_file"
            | "is_dir" | "is_symlink" | "is_mount" | "is_junction" | "is_socket" | "is_fifo"
            | "is_block_device" | "is_char_device" | "stat" | "lstat" | "chmod" | "lchmod"
            | "owner" | "group" | "readlink" => PathMethod::OnReceiver,
            "rename" | "replace" | "symlink_to" | "hardlink_to" | "link_to" | "copy" | "move" => {
                PathMethod::ReceiverAndArgument(0, "target")
            }
            "copy_into" | "move_into" => PathMethod::ReceiverAndArgument(0, "target_dir"),
            "glob" | "rglob" => PathMethod::Pattern(0, "pattern"),
            "samefile" => PathMethod::ReceiverAndArgument(0, "other_path"),
            "to_csv" | "to_json" | "to_hdf" => PathMethod::Argument(0, "path_or_buf"),
            "to_excel" => PathMethod::Argument(0, "excel_writer"),
            "to_parquet" | "to_feather" | "to_stata" | "to_pickle" | "to_orc" => {
                PathMethod::Argument(0, "path")
            }
            "to_html" | "to_latex" | "to_markdown" | "to_string" => PathMethod::Argument(0, "buf"),
            "to_xml" => PathMethod::Argument(0, "path_or_buffer"),
            "savefig" => PathMethod::Argument(0, "fname"),
            "tofile" => PathMethod::Argument(0, "fid"),
            // `ndarray.dump(file)` pickles the array into a file; a figure canvas's
            // `print_figure(filename)` is what `savefig` calls.
            "dump" => PathMethod::Argument(0, "file"),
            // A canvas's `print_<format>` methods write what `print_figure` does, each
            // backend naming the file its own way; an image's `write_png(fname)`.
            "print_figure" | "print_png" | "print_jpg" | "print_jpeg" | "print_tif"
            | "print_tiff" | "print_webp" | "print_gif" | "print_raw" | "print_rgba"
            | "print_pdf" | "print_ps" | "print_eps" | "print_svg" | "print_svgz" | "print_pgf" => {
                PathMethod::Argument(0, "filename|filename_or_obj|fname_or_fh|outfile")
            }
            "write_png" => PathMethod::Argument(0, "fname"),
            // An archive's members written out (a `ZipFile`, `np.load(f).zip`): where to.
            "extract" => PathMethod::Argument(1, "path"),
            "extractall" => PathMethod::Argument(0, "path"),
            _ => return None,
        })
    }

    /// The widest signature `pathlib.Path` (and `os.DirEntry`) gives each method over the
    /// Python versions the sandbox may run. A snippet's own subclass could change one, but
    /// the strict policy denies a `pathlib` class handed to a class statement, and the
    /// standard one only warns about paths.
    fn path_method_signature(&self, method: &str) -> Option<(usize, &'static [&'static str])> {
        const FOLLOW: &[&str] = &["follow_symlinks"];
        Some(match method {
            "read_text" => (3, &["encoding", "errors", "newline"]),
            "write_text" => (4, &["data", "encoding", "errors", "newline"]),
            "read_bytes" | "rmdir" | "iterdir" | "lstat" | "readlink" | "is_symlink"
            | "is_mount" | "is_junction" | "is_socket" | "is_fifo" | "is_block_device"
            | "is_char_device" => (0, &[]),
            "walk" => (3, &["top_down", "on_error", "follow_symlinks"]),
            "lchmod" => (1, &["mode"]),
            "copy" | "copy_into" => (
                1,
                &[
                    "target",
                    "target_dir",
                    "follow_symlinks",
                    "dirs_exist_ok",
                    "preserve_metadata",
                ],
            ),
            "move" => (1, &["target"]),
            "move_into" => (1, &["target_dir"]),
            "write_bytes" => (1, &["data"]),
            "open" => (5, &["mode", "buffering", "encoding", "errors", "newline"]),
            "touch" => (2, &["mode", "exist_ok"]),
            "unlink" => (1, &["missing_ok"]),
            "mkdir" => (3, &["mode", "parents", "exist_ok"]),
            "glob" | "rglob" => (1, &["pattern", "case_sensitive", "recurse_symlinks"]),
            "exists" | "is_file" | "is_dir" | "stat" | "owner" | "group" => (0, FOLLOW),
            "chmod" => (1, &["mode", "follow_symlinks"]),
            "rename" | "replace" | "hardlink_to" | "link_to" => (1, &["target"]),
            "symlink_to" => (2, &["target", "target_is_directory"]),
            "samefile" => (1, &["other_path"]),
            _ => return None,
        })
    }

    /// `yaml.load(s, Loader=yaml.SafeLoader)` is `yaml.safe_load`.
    fn refine_call(&self, e: &mut Engine, call: NodeId, name: String) -> String {
        let safe = match name.as_str() {
            "yaml.load" => "yaml.safe_load",
            "yaml.load_all" => "yaml.safe_load_all",
            _ => return name,
        };
        let Some(loader) = e.arg(call, 1, "Loader") else {
            return name;
        };
        let loaders = e.resolve(loader, 0);
        let all_safe = !loaders.is_empty()
            && loaders.iter().all(|m| match m.value {
                Value::Name(p) => {
                    let l = e.paths.text(p);
                    l.starts_with("yaml.")
                        && matches!(
                            l.rsplit('.').next(),
                            Some("SafeLoader" | "CSafeLoader" | "BaseLoader" | "CBaseLoader")
                        )
                }
                _ => false,
            });
        if all_safe { safe.to_owned() } else { name }
    }

    fn report_text(&self, e: &mut Engine, id: NodeId, text: &str) {
        formats::report_fields(e, id, text);
    }

    fn report(&self, e: &mut Engine, id: NodeId) {
        match e.ir.kind(id) {
            Kind::Call { .. } => {
                sizes::report_call(e, id);
                report_pickled_arrays(e, id);
                expressions::report(e, id);
                settings::report(e, id);
                formats::report_call(e, id);
                vectorizers::report(e, id);
                classes::report(e, id);
                deferred_loads::report(e, id);
                special_definitions::report(e, id);
                symbolic::report(e, id);
                import_suggestions::report(e, id);
                walks::report_call(e, id);
                memory_switches::report(e, id);
                artist_dispatch::report_through_own_class(e, id);
                keyword_splats::report(e, id);
                qhull_options::report(e, id);
            }
            Kind::Class { .. } => special_definitions::report(e, id),
            Kind::Assign { .. } => {
                settings::report(e, id);
                vectorizers::report(e, id);
                memory_switches::report_store(e, id);
            }
            Kind::AugAssign { .. } => {
                settings::report(e, id);
                memory_switches::report_store(e, id);
            }
            Kind::Pair { .. } => {
                vectorizers::report(e, id);
                deferred_loads::report(e, id);
            }
            Kind::Index { .. } => deferred_loads::report(e, id),
            Kind::Attr { .. } => {
                settings::report(e, id);
                expressions::report_value(e, id);
                classes::report(e, id);
                deferred_loads::report(e, id);
                import_suggestions::report(e, id);
                reinit::report(e, id);
                patchers::report(e, id);
                formats::report_bound(e, id);
                memory_switches::report_array_class_value(e, id);
                artist_dispatch::report_own_class_value(e, id);
            }
            Kind::Str { .. } | Kind::Arg { .. } => reinit::report(e, id),
            Kind::Binary { .. } => sizes::report_binary(e, id),
            Kind::Name(sym)
                if e.name(sym) == "__builtins__" && super::detect::is_maximal(e, id) =>
            {
                e.dynamic(
                    id,
                    super::facts::DynamicKind::Introspection,
                    "`__builtins__` reached",
                )
            }
            Kind::Name(_) => {
                walks::report_carried_name(e, id);
                memory_switches::report_array_class_value(e, id);
            }
            _ => {}
        }
    }
}

/// `np.load(..., allow_pickle=True)` unpickles object arrays: a call of `pickle.load`.
fn report_pickled_arrays(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    let loads = e
        .resolve(callee, 0)
        .iter()
        .any(|m| matches!(m.value, Value::Name(p) if e.paths.text(p) == "numpy.load"));
    let allows = e.splatted(call)
        || e.arg(call, 2, "allow_pickle").is_some_and(|v| {
            !matches!(
                e.ir.kind(v),
                Kind::Const(ConstKind::False | ConstKind::Null)
            ) && e.int_value(v, false) != Some(0)
        });
    if loads && allows {
        let pickle = e.path_meaning("pickle.load", "pickle".len());
        super::detect::report_use(e, call, pickle, super::detect::Site::Call, Vec::new());
    }
}
