//! Path arithmetic on text, as the interpreters compute it: Python's `os.path` (posixpath)
//! and `pathlib`, and Node's `path` (POSIX). Strict judges the paths the folder computes, so
//! each function here is the interpreter's, edge cases included (empty parts, `//`, `.` and
//! `..`, trailing slashes), or declines (`None`) where the interpreter raises or consults the
//! file system. The sandbox's working directory is [`WORK_DIR`].

/// The directory snippets run in: `os.getcwd()`, `process.cwd()`, `$HOME`.
pub const WORK_DIR: &str = "/work";

/// `os.path.join`: parts joined with `/`, an absolute part starting over.
pub fn python_join<'p>(parts: impl IntoIterator<Item = &'p str>) -> String {
    let mut out = String::new();
    for part in parts {
        if part.starts_with('/') || out.is_empty() {
            out = part.to_owned();
        } else if out.ends_with('/') {
            out.push_str(part);
        } else {
            out.push('/');
            out.push_str(part);
        }
    }
    out
}

/// `os.path.normpath`: `.` and empty components dropped, `..` applied lexically (kept at the
/// start of a relative path, dropped at the root); two leading slashes are kept, one or three
/// and more become one.
pub fn python_normpath(path: &str) -> String {
    if path.is_empty() {
        return ".".to_owned();
    }
    let root = leading_root(path);
    let mut kept: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if kept.last().is_some_and(|&p| p != "..") => {
                kept.pop();
            }
            ".." if !root.is_empty() => {}
            _ => kept.push(part),
        }
    }
    let out = format!("{root}{}", kept.join("/"));
    if out.is_empty() { ".".to_owned() } else { out }
}

/// `os.path.abspath`: the path joined to the working directory, then normalized.
pub fn python_abspath(path: &str) -> String {
    python_normpath(&python_join([WORK_DIR, path]))
}

/// `os.path.realpath`, `Path.resolve()`: the absolute path, where it stays inside the work
/// dir; elsewhere links of the system's (`/bin` is `usr/bin`) decide, so `None`. A link the
/// snippet makes in the work dir is judged where it is made.
pub fn python_realpath(path: &str) -> Option<String> {
    let path = python_abspath(path);
    let inside = path == WORK_DIR
        || path
            .strip_prefix(WORK_DIR)
            .is_some_and(|rest| rest.starts_with('/'));
    inside.then_some(path)
}

/// The root POSIX path parsing keeps: `//` exactly, or `/` for one or three and more slashes.
fn leading_root(path: &str) -> &'static str {
    if path.starts_with("//") && !path.starts_with("///") {
        "//"
    } else if path.starts_with('/') {
        "/"
    } else {
        ""
    }
}

/// A `pathlib` pure POSIX path: its root and its parts (no empty or `.` parts; `..` kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurePath {
    root: &'static str,
    parts: Vec<String>,
}

impl PurePath {
    /// `PurePosixPath(*segments)`: the segments joined as `os.path.join` joins them, then
    /// parsed.
    pub fn new<'p>(segments: impl IntoIterator<Item = &'p str>) -> PurePath {
        let joined = python_join(segments);
        PurePath {
            root: leading_root(&joined),
            parts: joined
                .split('/')
                .filter(|p| !p.is_empty() && *p != ".")
                .map(str::to_owned)
                .collect(),
        }
    }

    /// `str(path)`: `.` for the empty path.
    pub fn text(&self) -> String {
        let out = format!("{}{}", self.root, self.parts.join("/"));
        if out.is_empty() { ".".to_owned() } else { out }
    }

    /// `path.parent`: the path without its last part (the path itself at a root or `.`).
    pub fn parent(&self) -> PurePath {
        let mut parent = self.clone();
        parent.parts.pop();
        parent
    }

    /// `path.name`: the last part, or empty at a root or `.`.
    fn name(&self) -> &str {
        self.parts.last().map_or("", String::as_str)
    }

    /// `path.with_name(name)`; `None` where pathlib raises (an empty path, a name that is
    /// empty, `.`, or has a `/`).
    pub fn with_name(&self, name: &str) -> Option<PurePath> {
        if self.name().is_empty() || name.is_empty() || name == "." || name.contains('/') {
            return None;
        }
        let mut out = self.clone();
        *out.parts.last_mut()? = name.to_owned();
        Some(out)
    }

    /// `path.with_suffix(suffix)`; `None` where pathlib raises or where its reading of a
    /// name's suffix has changed between versions (a name ending in `.`).
    pub fn with_suffix(&self, suffix: &str) -> Option<PurePath> {
        let name = self.name();
        let valid_suffix = suffix.is_empty()
            || (suffix.starts_with('.') && suffix != "." && !suffix.contains('/'));
        if name.is_empty() || !valid_suffix || name.ends_with('.') {
            return None;
        }
        let stem = match name.rfind('.') {
            Some(at) if at > 0 => &name[..at],
            _ => name,
        };
        self.with_name(&format!("{stem}{suffix}"))
    }

    /// `path.absolute()`: joined to the working directory, nothing else changed.
    pub fn absolute(&self) -> PurePath {
        if self.root.is_empty() {
            PurePath::new([WORK_DIR, &self.text()])
        } else {
            self.clone()
        }
    }
}

/// Node's `path.normalize` (POSIX): `.` and empty segments dropped, `..` applied (kept at the
/// start of a relative path, dropped at the root), one trailing slash kept, `.` for nothing.
pub fn node_normalize(path: &str) -> String {
    if path.is_empty() {
        return ".".to_owned();
    }
    let absolute = path.starts_with('/');
    let trailing = path.ends_with('/');
    let body = node_segments(path, !absolute);
    match (absolute, body.is_empty()) {
        (true, _) => format!(
            "/{body}{}",
            if trailing && !body.is_empty() {
                "/"
            } else {
                ""
            }
        ),
        (false, true) => if trailing { "./" } else { "." }.to_owned(),
        (false, false) => format!("{body}{}", if trailing { "/" } else { "" }),
    }
}

/// The segments of a path with `.` and empty ones dropped and `..` applied, joined by `/`.
fn node_segments(path: &str, keep_above_root: bool) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if kept.last().is_some_and(|&p| p != "..") => {
                kept.pop();
            }
            ".." if !keep_above_root => {}
            _ => kept.push(part),
        }
    }
    kept.join("/")
}

/// Node's `path.join`: the non-empty parts joined with `/` (an absolute part does not start
/// over), then normalized; `.` for nothing.
pub fn node_join<'p>(parts: impl IntoIterator<Item = &'p str>) -> String {
    let joined: Vec<&str> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    if joined.is_empty() {
        return ".".to_owned();
    }
    node_normalize(&joined.join("/"))
}

/// Node's `path.resolve`: the parts from the last absolute one on (the working directory
/// before them if none is), normalized, without a trailing slash.
pub fn node_resolve(parts: &[&str]) -> String {
    let mut taken: Vec<&str> = Vec::new();
    for part in parts.iter().rev().filter(|p| !p.is_empty()) {
        taken.push(part);
        if part.starts_with('/') {
            break;
        }
    }
    if !taken.last().is_some_and(|p| p.starts_with('/')) {
        taken.push(WORK_DIR);
    }
    taken.reverse();
    format!("/{}", node_segments(&taken.join("/"), false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_paths() {
        assert_eq!(python_normpath(""), ".");
        assert_eq!(python_normpath("a/./b//c/"), "a/b/c");
        assert_eq!(python_normpath("../a/.."), "..");
        assert_eq!(python_normpath("/../etc"), "/etc");
        assert_eq!(python_normpath("//a"), "//a");
        assert_eq!(python_normpath("///a"), "/a");
        assert_eq!(python_abspath("x/../../etc"), "/etc");
        assert_eq!(PurePath::new([""]).text(), ".");
        assert_eq!(PurePath::new(["a/", "", "b/."]).text(), "a/b");
        assert_eq!(PurePath::new(["a", "/b"]).text(), "/b");
        assert_eq!(PurePath::new(["//a"]).parent().text(), "//");
        assert_eq!(PurePath::new(["a"]).parent().text(), ".");
        assert_eq!(
            PurePath::new(["a/b.txt"])
                .with_suffix(".py")
                .unwrap()
                .text(),
            "a/b.py"
        );
        assert_eq!(
            PurePath::new([".bashrc"]).with_suffix(".x").unwrap().text(),
            ".bashrc.x"
        );
        assert_eq!(PurePath::new(["/"]).with_name("x"), None);
        assert_eq!(PurePath::new(["a"]).absolute().text(), "/work/a");
    }

    #[test]
    fn node_paths() {
        assert_eq!(node_normalize(""), ".");
        assert_eq!(node_normalize("a/.."), ".");
        assert_eq!(node_normalize("a/../"), "./");
        assert_eq!(node_normalize("//a//b/"), "/a/b/");
        assert_eq!(node_normalize("/.."), "/");
        assert_eq!(node_normalize("../a"), "../a");
        assert_eq!(node_join(["", ""]), ".");
        assert_eq!(node_join(["a", "/b"]), "a/b");
        assert_eq!(node_join(["a", ""]), "a");
        assert_eq!(node_resolve(&[""]), "/work");
        assert_eq!(node_resolve(&["a", "/b", "..", "c"]), "/c");
        assert_eq!(node_resolve(&["/"]), "/");
    }
}
