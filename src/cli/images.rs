//! `code-sandbox-mcp images build|list`.

use std::process::ExitCode;

use clap::Subcommand;
use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::sandbox::{Engine, derive, images};

use super::{EXIT_SANDBOX_ERROR, SandboxArgs};

#[derive(Subcommand)]
pub enum ImagesCommand {
    /// Build the sandbox images from their embedded recipes (skips images already up to date);
    /// with --suite or --deb-packages, the recipe's image of that suite with those packages
    /// (default suites: trixie for Python, forky for JavaScript);
    /// with --python-image/--js-image, --wheelhouse or --npm-packages, also the image derived
    /// from them. The same options select those images when serving or running.
    Build {
        /// Only this language's image.
        #[arg(long, short)]
        language: Option<Language>,
    },
    /// Show each language's image and whether it is built.
    List,
}

pub async fn images(args: &SandboxArgs, command: ImagesCommand) -> ExitCode {
    let engine = match Engine::connect(&args.engine).await {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(EXIT_SANDBOX_ERROR);
        }
    };
    match command {
        ImagesCommand::Build { language } => {
            let languages = language.map_or(Language::ALL.to_vec(), |l| vec![l]);
            let config = match args.config(languages.clone(), 0) {
                Ok(config) => config,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(EXIT_SANDBOX_ERROR);
                }
            };
            for language in languages {
                let prepared = derive::prepare(
                    &engine,
                    language,
                    &config.image(language),
                    config.extras.dir(language),
                    &derive::Build {
                        missing: true,
                        ..config.build()
                    },
                )
                .await;
                match prepared {
                    Ok(p) => eprintln!(
                        "{}: ready ({}, {} packages)",
                        p.image,
                        p.manifest.runtime(),
                        p.manifest.packages.len()
                    ),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(EXIT_SANDBOX_ERROR);
                    }
                }
            }
            ExitCode::SUCCESS
        }
        ImagesCommand::List => {
            let recipe = match args.recipe() {
                Ok(recipe) => recipe,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(EXIT_SANDBOX_ERROR);
                }
            };
            for language in Language::ALL {
                let image = images::image_for(language, &recipe);
                let state = match images::exists(&engine, &image).await {
                    Ok(true) => "built",
                    Ok(false) => "not built (run `code-sandbox-mcp images build`)",
                    Err(_) => "unknown",
                };
                println!("{:<11} {image}  {state}", language.as_str());
            }
            ExitCode::SUCCESS
        }
    }
}
