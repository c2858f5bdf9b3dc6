//! `code-sandbox-mcp images build|list`.

use std::process::ExitCode;

use clap::Subcommand;
use code_sandbox_mcp::analysis::Language;
use code_sandbox_mcp::sandbox::{Engine, images};

use super::{EXIT_SANDBOX_ERROR, SandboxArgs};

#[derive(Subcommand)]
pub enum ImagesCommand {
    /// Build the sandbox images from their embedded recipes (skips images already up to date).
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
            for language in languages {
                let image = images::default_image(language);
                match images::exists(&engine, &image).await {
                    Ok(true) => eprintln!("{image}: up to date"),
                    Ok(false) => {
                        if let Err(e) =
                            images::build(&engine, language, args.mirror.as_deref()).await
                        {
                            eprintln!("error: {e}");
                            return ExitCode::from(EXIT_SANDBOX_ERROR);
                        }
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(EXIT_SANDBOX_ERROR);
                    }
                }
            }
            ExitCode::SUCCESS
        }
        ImagesCommand::List => {
            for language in Language::ALL {
                let image = images::default_image(language);
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
