//! What the members of real modules are, as surveyed in the sandbox image
//! (`module_members.py` writes `module_members.txt`; `tests/module_members.rs` fails when the
//! committed table no longer matches the image).
//!
//! A module's member may be another module under another name (`enum.bltns` is `builtins`,
//! `matplotlib.pyplot.np` is `numpy`, `pandas.pandas` is `pandas`), or a function taken from a
//! module with capabilities (`tarfile.bltn_open` is `open`, `matplotlib.Path` is
//! `pathlib.Path`). Spelled that way a name would match no table and no allowlist entry; with
//! this survey it means what it is.
//!
//! The survey also lists every function and class of the data libraries that takes a file by
//! a parameter named for one (`numpy.fromregex(file)`, `matplotlib.rc_params_from_file(fname)`,
//! `pandas.read_xml(stylesheet=)`): those are path functions like the hand-written ones, so a
//! reader nobody thought of still has its path judged.

use foldhash::{HashMap, HashMapExt};
use std::sync::OnceLock;

use crate::analysis::dialect::PathFunction;

const TABLE: &str = include_str!("module_members.txt");

/// What a surveyed member is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    /// The module of that name.
    Module(&'static str),
    /// The function or class of that qualified name.
    Alias(&'static str),
}

fn table() -> &'static HashMap<&'static str, Member> {
    static MAP: OnceLock<HashMap<&'static str, Member>> = OnceLock::new();
    MAP.get_or_init(|| {
        TABLE
            .lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| {
                let mut parts = line.split(' ');
                let (kind, key, target) = (parts.next()?, parts.next()?, parts.next()?);
                let member = match kind {
                    "module" => Member::Module(target),
                    "alias" => Member::Alias(target),
                    _ => return None, // `path` and `star` lines: see below
                };
                Some((key, member))
            })
            .collect()
    })
}

/// The file parameters of a data library's function or class, as the survey found them.
pub fn path_function(name: &str) -> Option<PathFunction> {
    static MAP: OnceLock<HashMap<&'static str, PathFunction>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        let mut found: HashMap<&'static str, (Vec<usize>, Vec<&'static str>)> = HashMap::new();
        for line in TABLE.lines() {
            let mut parts = line.split(' ');
            let (Some("path"), Some(function), Some(at), Some(parameter)) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let entry = found.entry(function).or_default();
            entry.0.extend(at.parse::<usize>().ok());
            entry.1.push(parameter);
        }
        // Built once for the life of the process, like the static tables it joins.
        found
            .into_iter()
            .map(|(name, (positions, keywords))| {
                let function = PathFunction {
                    name,
                    positions: Vec::leak(positions),
                    keywords: Vec::leak(keywords),
                };
                (name, function)
            })
            .collect()
    });
    map.get(name).copied()
}

/// Whether `from module import *` binds `name`: `None` when the survey did not look at the
/// module (a module the strict policy does not allow), which may then bind any name.
pub fn star_binds(module: &str, name: &str) -> Option<bool> {
    static MAP: OnceLock<HashMap<&'static str, foldhash::HashSet<&'static str>>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        TABLE
            .lines()
            .filter_map(|line| {
                let mut parts = line.split(' ');
                (parts.next()? == "star").then_some(())?;
                Some((parts.next()?, parts.collect()))
            })
            .collect()
    });
    map.get(module).map(|names| names.contains(name))
}

/// What `owner.member` is, if the survey says it is a module or an alias.
pub fn member(path: &str) -> Option<Member> {
    table().get(path).copied()
}

/// True when the survey found a module of that name (`numpy.random`, `matplotlib.cbook`).
pub fn is_module(name: &str) -> bool {
    static MODULES: OnceLock<foldhash::HashSet<&'static str>> = OnceLock::new();
    MODULES
        .get_or_init(|| {
            table()
                .values()
                .filter_map(|m| match m {
                    Member::Module(name) => Some(*name),
                    Member::Alias(_) => None,
                })
                .collect()
        })
        .contains(name)
}

#[cfg(test)]
mod tests {
    use super::{Member, member};

    #[test]
    fn a_star_import_binds_only_what_the_module_has() {
        assert_eq!(super::star_binds("os", "open"), Some(true));
        assert_eq!(super::star_binds("os", "system"), Some(true));
        assert_eq!(super::star_binds("os", "print"), Some(false));
        assert_eq!(super::star_binds("math", "sqrt"), Some(true));
        assert_eq!(super::star_binds("math", "open"), Some(false));
        assert_eq!(super::star_binds("subprocess", "run"), None);
    }

    #[test]
    fn the_survey_knows_modules_held_under_other_names() {
        assert_eq!(member("enum.bltns"), Some(Member::Module("builtins")));
        assert_eq!(member("timeit.gc"), Some(Member::Module("gc")));
        assert_eq!(member("fnmatch.posixpath"), Some(Member::Module("os.path")));
        assert_eq!(
            member("matplotlib.pyplot.np"),
            Some(Member::Module("numpy"))
        );
        assert_eq!(member("pandas.pandas"), Some(Member::Module("pandas")));
        assert_eq!(
            member("matplotlib.Path"),
            Some(Member::Alias("pathlib.Path"))
        );
        assert_eq!(member("numpy.zeros"), None);
    }

    #[test]
    fn the_survey_knows_which_data_functions_take_files() {
        let fromregex = super::path_function("numpy.fromregex").expect("numpy.fromregex");
        assert_eq!(
            (fromregex.positions, fromregex.keywords),
            (&[0][..], &["file"][..])
        );
        let xml = super::path_function("pandas.read_xml").expect("pandas.read_xml");
        assert!(xml.keywords.contains(&"stylesheet"), "{xml:?}");
        assert!(super::path_function("numpy.zeros").is_none());
    }
}
