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

/// The survey, read once per process: members by qualified name, the modules among them,
/// and the path functions with their file parameters.
struct Survey {
    members: HashMap<&'static str, Member>,
    modules: foldhash::HashSet<&'static str>,
    path_functions: HashMap<&'static str, PathFunction>,
}

fn survey() -> &'static Survey {
    static SURVEY: OnceLock<Survey> = OnceLock::new();
    SURVEY.get_or_init(Survey::read)
}

impl Survey {
    /// One pass over the table's lines (`kind key target [parameter]`), splitting on bytes:
    /// the first file a process judges waits for this, so it is kept to a walk of the text
    /// and one insertion per line.
    fn read() -> Survey {
        let mut members = HashMap::with_capacity(TABLE.len() / 48);
        let mut paths: HashMap<&'static str, (Vec<usize>, Vec<&'static str>)> = HashMap::new();
        for line in TABLE.split('\n') {
            let mut fields = words(line);
            let (Some(kind), Some(key), Some(third)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            match kind {
                "module" => {
                    members.insert(key, Member::Module(third));
                }
                "alias" => {
                    members.insert(key, Member::Alias(third));
                }
                "path" => {
                    let Some(parameter) = fields.next() else {
                        continue;
                    };
                    let entry = paths.entry(key).or_default();
                    entry.0.extend(third.parse::<usize>().ok());
                    entry.1.push(parameter);
                }
                _ => {}
            }
        }
        let modules = members
            .values()
            .filter_map(|m| match m {
                Member::Module(name) => Some(*name),
                Member::Alias(_) => None,
            })
            .collect();
        // Built once for the life of the process, like the static tables it joins.
        let path_functions = paths
            .into_iter()
            .map(|(name, (positions, keywords))| {
                let function = PathFunction {
                    name,
                    positions: Vec::leak(positions),
                    keywords: Vec::leak(keywords),
                };
                (name, function)
            })
            .collect();
        Survey {
            members,
            modules,
            path_functions,
        }
    }
}

/// The space-separated fields of a line, as `str::split(' ')` gives them, found by a plain
/// byte scan (the text is ASCII and a line is a few dozen bytes).
fn words(line: &'static str) -> impl Iterator<Item = &'static str> {
    let mut rest = Some(line);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.bytes().position(|b| b == b' ') {
            Some(at) => {
                rest = Some(&current[at + 1..]);
                Some(&current[..at])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

/// The file parameters of a data library's function or class, as the survey found them.
pub fn path_function(name: &str) -> Option<PathFunction> {
    survey().path_functions.get(name).copied()
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
    survey().members.get(path).copied()
}

/// True when the survey found a module of that name (`numpy.random`, `matplotlib.cbook`).
pub fn is_module(name: &str) -> bool {
    survey().modules.contains(name)
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
