//! The errors of the sandbox, each worded so a user can act on it: what failed, and a hint.

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "cannot reach a container engine at {endpoint}: {detail}\n  hint: start Docker (`systemctl start docker`, or `dockerd > /var/log/dockerd.log 2>&1 &` as root) or Podman's API service (`podman system service --time=0 unix:///run/podman/podman.sock &`), then choose it with --engine docker|podman|unix:///path/to.sock if both run"
    )]
    NoEngine { endpoint: String, detail: String },
    #[error(
        "the {language} sandbox image `{image}` does not exist\n  hint: build it with `code-sandbox-mcp images build`, or pass an existing image with --{language_flag}-image"
    )]
    ImageMissing {
        language: &'static str,
        language_flag: &'static str,
        image: String,
    },
    #[error(
        "the container engine stopped answering during the run: {detail}\n  hint: check that the engine is running; the next run reconnects once it is back"
    )]
    EngineLost { detail: String },
    #[error("container engine error while {action}: {detail}")]
    Engine { action: String, detail: String },
    #[error("the engine cannot run the sandbox's containers: {detail}\n  hint: {hint}")]
    EngineSetup { detail: String, hint: &'static str },
    #[error("the image `{image}` cannot be used: {detail}\n  hint: {hint}")]
    UnusableImage {
        image: String,
        detail: String,
        hint: &'static str,
    },
    #[error("image build failed: {0}")]
    Build(String),
    #[error(
        "the {engine} engine has no usable runtime `{runtime}` (usable: {available})\n  hint: install it and register it with the engine (README, section \"gVisor\"), or use a policy without `runtime` in its limits; the gateway never falls back to a weaker runtime"
    )]
    MissingRuntime {
        engine: String,
        runtime: String,
        available: String,
    },
    #[error(
        "Podman cannot run these snippets under `{runtime}`: its Docker-compatible API runs every container under its default runtime, `{default}`\n  hint: use Docker for this policy, or give Podman's API service a containers.conf whose [engine] section sets runtime = \"{runtime}\" (README, section \"gVisor\"); the gateway never falls back to a weaker runtime"
    )]
    RuntimeNotSelectable { runtime: String, default: String },
    #[error("the sandbox is busy: {0}")]
    Busy(String),
    #[error("the run was cancelled")]
    Cancelled,
    #[error(
        "the runner broke the output protocol ({detail}); the run was stopped\n  hint: images must be built from this version's recipes (`code-sandbox-mcp images build`); a custom image needs this version's runner at /opt/sandbox/"
    )]
    Protocol { detail: String },
    #[error(
        "the runner in image `{image}` did not start ({detail})\n  hint: images must be built from this version's recipes (`code-sandbox-mcp images build`); a custom image needs the runner at /opt/sandbox/"
    )]
    RunnerFailed { image: String, detail: String },
}

impl SandboxError {
    pub fn image_missing(language: crate::analysis::Language, image: &str) -> SandboxError {
        SandboxError::ImageMissing {
            language: language.as_str(),
            language_flag: match language {
                crate::analysis::Language::Python => "python",
                crate::analysis::Language::JavaScript => "js",
            },
            image: image.to_owned(),
        }
    }
}
