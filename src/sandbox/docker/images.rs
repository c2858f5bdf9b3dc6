//! The engine's image store: what the sandbox's image preparation (building ours, deriving
//! one from any image, reading its manifest) asks of Docker or Podman. Not part of the
//! [`crate::sandbox::backend::Backend`] seam: images are prepared once per engine, not per
//! sandbox.

use std::path::Path;

use bollard::errors::Error as DockerError;
use bollard::query_parameters::{CreateImageOptionsBuilder, TagImageOptionsBuilder};
use futures_util::StreamExt;

use super::engine::{Engine, SandboxError};

/// Whether `image` exists on the engine.
pub async fn exists(engine: &Engine, image: &str) -> Result<bool, SandboxError> {
    match engine.docker.inspect_image(image).await {
        Ok(_) => Ok(true),
        Err(DockerError::DockerResponseServerError {
            status_code: 404, ..
        }) => Ok(false),
        Err(e) => Err(SandboxError::engine("looking up an image", e)),
    }
}

/// The id of `image` (its content's digest).
pub async fn id(engine: &Engine, image: &str) -> Result<String, SandboxError> {
    let inspect = engine
        .docker
        .inspect_image(image)
        .await
        .map_err(|e| SandboxError::engine(format!("looking up the image {image}"), e))?;
    Ok(inspect.id.unwrap_or_default())
}

/// Imports a root filesystem tarball as `image` (`docker import`), streaming it from disk.
/// The import is untagged and the tag is set afterwards by image id, because Podman's
/// compatible import ignores the requested name (it tags `<repo>:latest`).
pub(in crate::sandbox) async fn import(
    engine: &Engine,
    tarball: &Path,
    image: &str,
) -> Result<(), SandboxError> {
    let (repo, tag) = image.rsplit_once(':').unwrap_or((image, "latest"));
    let file = tokio::fs::File::open(tarball)
        .await
        .map_err(|e| SandboxError::Build(format!("cannot open {}: {e}", tarball.display())))?;
    let chunks = futures_util::stream::unfold(file, |mut file| async move {
        use tokio::io::AsyncReadExt;
        let mut buffer = vec![0u8; 1 << 20];
        match file.read(&mut buffer).await {
            Ok(0) => None,
            Ok(n) => {
                buffer.truncate(n);
                Some((Ok(bytes::Bytes::from(buffer)), file))
            }
            Err(e) => Some((Err(e), file)),
        }
    });
    let options = CreateImageOptionsBuilder::new().from_src("-").build();
    let mut stream =
        engine
            .docker
            .create_image(Some(options), Some(bollard::body_try_stream(chunks)), None);
    let mut id = None;
    while let Some(item) = stream.next().await {
        let info =
            item.map_err(|e| SandboxError::Build(format!("the engine refused the image: {e}")))?;
        // Both engines report the new image's id as a status line of its own.
        if let Some(status) = info.status.filter(|s| s.starts_with("sha256:")) {
            id = Some(status);
        }
    }
    let id = id.ok_or_else(|| {
        SandboxError::Build("the engine imported the image but did not report its id".into())
    })?;
    let options = TagImageOptionsBuilder::new().repo(repo).tag(tag).build();
    engine
        .docker
        .tag_image(&id, Some(options))
        .await
        .map_err(|e| {
            SandboxError::Build(format!("cannot tag the imported image as {image}: {e}"))
        })?;
    if exists(engine, image).await? {
        Ok(())
    } else {
        Err(SandboxError::Build(format!(
            "the import finished but {image} does not exist"
        )))
    }
}
