//! What the members of real modules are, as surveyed in the sandbox image
//! (`module_members.py` writes `module_members.txt`; `tests/module_members.rs` fails when the
//! committed table no longer matches the image).
//!
//! A module's member may be another module under another name (`enum.bltns` is `builtins`,
//! `matplotlib.pyplot.np` is `numpy`, `pandas.pandas` is `pandas`), or a function taken from a
//! module with capabilities (`tarfile.bltn_open` is `open`, `matplotlib.Path` is
//! `pathlib.Path`). Spelled that way a name would match no table and no allowlist entry; with
//! this survey it means what it is.

use std::collections::HashMap;
use std::sync::OnceLock;

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
                    _ => return None,
                };
                Some((key, member))
            })
            .collect()
    })
}

/// What `owner.member` is, if the survey says it is a module or an alias.
pub fn member(path: &str) -> Option<Member> {
    table().get(path).copied()
}

/// True when the survey found a module of that name (`numpy.random`, `matplotlib.cbook`).
pub fn is_module(name: &str) -> bool {
    static MODULES: OnceLock<std::collections::HashSet<&'static str>> = OnceLock::new();
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
}
