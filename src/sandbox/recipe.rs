//! The choices an image built from the embedded recipe is made with: the Debian suite its
//! packages come from, and Debian packages a team adds (`--suite`, `--deb-packages FILE`).
//! The image's tag covers both (see [`super::images::image_for`]).

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use crate::analysis::Language;

/// What our images are built from besides the embedded recipe.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recipe {
    /// The suite of both languages' images; unset: each language's own default
    /// ([`Suite::default_for`]).
    pub suite: Option<Suite>,
    /// Debian package names added to the recipe's own list, sorted, without duplicates.
    pub deb_packages: Vec<String>,
}

/// A Debian release the recipes are known to build on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// Debian 12: Python 3.11, Node.js 18 (end of life upstream).
    Bookworm,
    /// Debian 13, the stable release: Python 3.13, Node.js 20 (end of life upstream).
    Trixie,
    /// Debian 14 while it is testing: Python 3.14, Node.js 24. A moving release: its
    /// packages change between builds, and it has no security team's updates of its own.
    Forky,
}

impl Suite {
    pub const ALL: [Suite; 3] = [Suite::Bookworm, Suite::Trixie, Suite::Forky];

    /// The suite a language's image comes from unless one is chosen: the stable release when
    /// its interpreter is supported upstream (Python 3.13 on trixie), else the release that
    /// has a supported one (Node.js 24 on forky; trixie's Node.js 20 reached its end of life
    /// in April 2026).
    pub fn default_for(language: Language) -> Suite {
        match language {
            Language::Python => Suite::Trixie,
            Language::JavaScript => Suite::Forky,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Suite::Bookworm => "bookworm",
            Suite::Trixie => "trixie",
            Suite::Forky => "forky",
        }
    }
}

impl fmt::Display for Suite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Suite {
    type Err = String;

    fn from_str(s: &str) -> Result<Suite, String> {
        Suite::ALL
            .into_iter()
            .find(|suite| suite.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown Debian suite `{s}`; the recipes build on bookworm, trixie and forky"
                )
            })
    }
}

impl Recipe {
    /// The suite `language`'s image comes from.
    pub fn suite(&self, language: Language) -> Suite {
        self.suite.unwrap_or(Suite::default_for(language))
    }

    /// Reads a `--deb-packages` file: one Debian package name a line, `#` starts a comment.
    /// A name that is not a Debian package name is refused here, naming its line, before
    /// anything is built (the names go to apt as they are).
    pub fn read_deb_packages(path: &Path) -> Result<Vec<String>, String> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "cannot read the Debian package list {}: {e}",
                path.display()
            )
        })?;
        let mut names = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let name = line.split('#').next().unwrap_or_default().trim();
            if name.is_empty() {
                continue;
            }
            if !is_package_name(name) {
                return Err(format!(
                    "{} line {}: `{name}` is not a Debian package name\n  hint: one package a line (lower-case letters, digits, `+`, `-`, `.`), `#` for comments",
                    path.display(),
                    number + 1
                ));
            }
            names.push(name.to_owned());
        }
        names.sort();
        names.dedup();
        if names.is_empty() {
            return Err(format!(
                "the Debian package list {} names no package\n  hint: one package a line, e.g. python3-requests",
                path.display()
            ));
        }
        Ok(names)
    }
}

/// Debian policy §5.6.7: lower-case letters, digits, `+`, `-` and `.`, at least two
/// characters, starting with a letter or digit.
fn is_package_name(name: &str) -> bool {
    name.len() >= 2
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+-.".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<String>, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("packages.txt");
        std::fs::write(&path, text).unwrap();
        Recipe::read_deb_packages(&path)
    }

    #[test]
    fn package_lists_allow_comments_and_are_sorted() {
        let names = read("# ours\npython3-six  # six\n\nnode-semver\npython3-six\n").unwrap();
        assert_eq!(names, ["node-semver", "python3-six"]);
    }

    #[test]
    fn a_name_apt_would_read_as_an_option_or_a_list_is_refused_with_its_line() {
        for bad in ["-o=Dpkg::x", "a,b", "Python3", "x", "a b"] {
            let error = read(&format!("ok-name\n{bad}\n")).unwrap_err();
            assert!(error.contains("line 2"), "{bad}: {error}");
        }
        assert!(
            read("# nothing\n")
                .unwrap_err()
                .contains("names no package")
        );
    }

    #[test]
    fn suites_parse_by_name() {
        assert_eq!("trixie".parse(), Ok(Suite::Trixie));
        assert_eq!("forky".parse(), Ok(Suite::Forky));
        assert!("sid".parse::<Suite>().is_err());
    }
}
