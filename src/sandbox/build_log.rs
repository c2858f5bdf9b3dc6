//! The image builder's messages: passed on to stderr as they come (they are progress for
//! people), and read again when the build fails, to name the Debian package apt could not
//! install and the fix, instead of leaving that to a screenful of mmdebstrap output.

use std::process::ExitStatus;

use tokio::io::{AsyncBufReadExt, BufReader};

use super::error::SandboxError;
use super::recipe::{Recipe, Suite};

/// Lines kept for the diagnosis: apt's errors come at the end.
const KEPT: usize = 400;

/// Runs the builder (its stderr piped), copying its stderr to ours line by line, and returns
/// its status and its last lines.
pub(super) async fn run(
    mut command: tokio::process::Command,
) -> std::io::Result<(ExitStatus, Vec<String>)> {
    let mut child = command.spawn()?;
    let stderr = child.stderr.take().expect("the builder's stderr is piped");
    let mut lines = BufReader::new(stderr).lines();
    let mut kept = std::collections::VecDeque::new();
    while let Some(line) = lines.next_line().await? {
        eprintln!("{line}");
        if kept.len() == KEPT {
            kept.pop_front();
        }
        kept.push_back(line);
    }
    Ok((child.wait().await?, kept.into()))
}

/// The error for a failed build: the packages apt named, with the fix, when it named any.
pub(super) fn failure(
    status: &ExitStatus,
    said: &[String],
    recipe: &Recipe,
    suite: Suite,
) -> SandboxError {
    let missing = missing_packages(said);
    if missing.is_empty() {
        return SandboxError::Build(format!(
            "mmdebstrap failed ({status}); its messages are above; nothing was tagged\n  hint: check that the apt sources (or the `--mirror` given) reach a Debian mirror that has the suite {}",
            suite
        ));
    }
    let (added, recipes): (Vec<&String>, Vec<&String>) = missing
        .iter()
        .partition(|name| recipe.deb_packages.contains(name));
    let list = |names: &[&String]| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = format!(
        "apt cannot install {} from the suite {} of the apt sources; nothing was tagged",
        list(&missing.iter().collect::<Vec<_>>()),
        suite
    );
    if !added.is_empty() {
        text.push_str(&format!(
            "\n  hint: {} is in the --deb-packages file: correct the name (`apt-cache policy NAME` on a {} host shows whether it exists) or remove it from the file, then build again",
            list(&added),
            suite
        ));
    }
    if !recipes.is_empty() {
        text.push_str(&format!(
            "\n  hint: {} is part of the image's own recipe: the apt sources (or the `--mirror` given) must reach a complete Debian {} mirror",
            list(&recipes),
            suite
        ));
    }
    SandboxError::Build(text)
}

/// Package names in apt's errors: not found, no installation candidate, or unmet
/// dependencies (` name : Depends: other but it is not installable`).
fn missing_packages(said: &[String]) -> Vec<String> {
    let mut names = Vec::new();
    for line in said {
        let line = line.trim();
        let name = if let Some(rest) = line.strip_prefix("E: Unable to locate package ") {
            Some(rest.trim())
        } else if let Some(rest) = line.strip_prefix("E: Package '") {
            rest.split('\'').next()
        } else if line.contains(" : Depends: ") || line.contains(" : PreDepends: ") {
            line.split(' ').next()
        } else {
            None
        };
        if let Some(name) = name.filter(|n| !n.is_empty())
            && !names.iter().any(|n| n == name)
        {
            names.push(name.to_owned());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apt_errors_name_the_packages() {
        let said = [
            "Reading package lists...",
            "E: Unable to locate package sandbox-no-such",
            "E: Package 'python3-gone' has no installation candidate",
            " python3-broken : Depends: libmissing1 but it is not installable",
            "E: Unable to correct problems, you have held broken packages.",
        ]
        .map(str::to_owned);
        assert_eq!(
            missing_packages(&said),
            ["sandbox-no-such", "python3-gone", "python3-broken"]
        );
    }
}
