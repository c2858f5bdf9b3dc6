//! Files in and figures and files out over the runner protocol (see the runners' protocol
//! notes): the transfer sent after the code, and the `F`/`D` frames that come back before the
//! end. The work dir is a tmpfs the engine's archive API cannot reach, so files travel here.
//!
//! The gateway enforces every limit on what it receives, whatever the container says: sizes
//! are counted, not believed, and a figure is kept only if it is a PNG whose header the
//! gateway reads itself.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::policy::{Limits, format_size};
use crate::workdir::{self, InputFile};

/// What came back from a run besides its output.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    /// In the order drawn.
    pub figures: Vec<Figure>,
    /// New or changed files of the work dir, by path.
    pub files: Vec<OutputFile>,
    /// Figures and files not returned, each with why.
    pub omitted: Vec<Omitted>,
}

#[derive(Debug, Clone)]
pub struct Figure {
    pub png: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, Clone)]
pub struct OutputFile {
    /// Relative to the work dir, normalised.
    pub path: String,
    pub content: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OutputKind {
    Figure,
    File,
}

/// A figure or file the run produced that is not returned.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Omitted {
    pub kind: OutputKind,
    /// The file's path in the work dir (for a figure, its number).
    pub path: String,
    /// Its size in bytes, when known.
    pub size: Option<u64>,
    /// Why, and what to do.
    pub reason: String,
}

/// The transfer that follows the code: a JSON manifest line, then the files' bytes.
pub fn request(files: &[InputFile], limits: &Limits) -> Vec<u8> {
    let manifest = serde_json::json!({
        "files": files.iter().map(|f| serde_json::json!({"path": f.path, "size": f.content.len()})).collect::<Vec<_>>(),
        "collect": {
            "figures": limits.figures, "figure_bytes": limits.figure_bytes,
            "files": limits.files_out, "file_bytes": limits.files_out_bytes,
        },
        "own_modules": limits.own_modules,
        "start_programs": limits.start_programs,
    });
    let mut out = serde_json::to_vec(&manifest).expect("json");
    out.push(b'\n');
    for f in files {
        out.extend_from_slice(&f.content);
    }
    out
}

/// An `F` frame's payload.
#[derive(Debug, Deserialize)]
struct Header {
    kind: OutputKind,
    path: String,
    size: Option<u64>,
    skipped: Option<String>,
}

/// The figure or file whose bytes are arriving.
struct Incoming {
    kind: OutputKind,
    path: String,
    declared: u64,
    received: u64,
    /// `None` once it is known not to be kept; the reason is in `dropped`.
    kept: Option<Vec<u8>>,
    dropped: Option<String>,
}

/// Collects the `F`/`D` frames of one run under the policy's limits.
pub struct Collector {
    limits: Limits,
    outputs: Outputs,
    current: Option<Incoming>,
    file_bytes: u64,
}

impl Collector {
    pub fn new(limits: &Limits) -> Collector {
        Collector {
            limits: limits.clone(),
            outputs: Outputs::default(),
            current: None,
            file_bytes: 0,
        }
    }

    /// An `F` frame.
    pub fn header(&mut self, payload: &[u8]) -> Result<(), String> {
        self.finish_current()?;
        let header: Header = serde_json::from_slice(payload)
            .map_err(|e| format!("an unreadable file frame: {e}"))?;
        if let Some(reason) = header.skipped {
            let reason = self.reason(header.kind, &reason);
            self.omit(header.kind, header.path, header.size, reason);
            return Ok(());
        }
        let declared = header
            .size
            .ok_or("a file frame without a size or a reason")?;
        let mut incoming = Incoming {
            kind: header.kind,
            path: header.path,
            declared,
            received: 0,
            kept: Some(Vec::new()),
            dropped: None,
        };
        incoming.dropped = self.refusal(&incoming);
        if incoming.dropped.is_some() {
            incoming.kept = None;
        }
        self.current = Some(incoming);
        self.finish_if_complete();
        Ok(())
    }

    /// A `D` frame (or a piece of one).
    pub fn data(&mut self, bytes: &[u8]) -> Result<(), String> {
        let current = self
            .current
            .as_mut()
            .ok_or("file data without a file frame")?;
        current.received += bytes.len() as u64;
        if current.received > current.declared {
            return Err(format!(
                "more bytes for {:?} than its frame declared ({})",
                current.path, current.declared
            ));
        }
        if let Some(kept) = &mut current.kept {
            kept.extend_from_slice(bytes);
        }
        self.finish_if_complete();
        Ok(())
    }

    /// Everything collected; an unfinished file is a broken stream.
    pub fn finish(mut self) -> Result<Outputs, String> {
        self.finish_current()?;
        Ok(self.outputs)
    }

    fn finish_current(&mut self) -> Result<(), String> {
        match &self.current {
            Some(c) => Err(format!(
                "{:?} ended after {} of {} bytes",
                c.path, c.received, c.declared
            )),
            None => Ok(()),
        }
    }

    fn finish_if_complete(&mut self) {
        let Some(c) = self.current.take_if(|c| c.received == c.declared) else {
            return;
        };
        let size = Some(c.received);
        if let Some(reason) = c.dropped {
            return self.omit(c.kind, c.path, size, reason);
        }
        let content = c.kept.expect("kept unless dropped");
        match c.kind {
            OutputKind::Figure => match png_size(&content) {
                Some((width, height)) => self.outputs.figures.push(Figure {
                    png: content,
                    width,
                    height,
                }),
                None => self.omit(c.kind, c.path, size, "not a PNG image".into()),
            },
            OutputKind::File => match workdir::normalize(&c.path) {
                Ok(path) => {
                    self.file_bytes += c.received;
                    self.outputs.files.push(OutputFile { path, content });
                }
                Err(why) => self.omit(c.kind, c.path, size, format!("unusable name: {why}")),
            },
        }
    }

    /// Why a figure or file of this declared size is not kept, if it is not.
    fn refusal(&self, incoming: &Incoming) -> Option<String> {
        let l = &self.limits;
        let o = &self.outputs;
        let reason = match incoming.kind {
            OutputKind::Figure if o.figures.len() >= l.figures as usize => "count",
            OutputKind::Figure if incoming.declared > l.figure_bytes => "size",
            OutputKind::File if o.files.len() >= l.files_out as usize => "count",
            OutputKind::File if self.file_bytes + incoming.declared > l.files_out_bytes => "total",
            _ => return None,
        };
        Some(self.reason(incoming.kind, reason))
    }

    /// The reason a runner gave (or the gateway found), as the client reads it.
    fn reason(&self, kind: OutputKind, code: &str) -> String {
        let l = &self.limits;
        match (kind, code) {
            (OutputKind::Figure, "count") => format!(
                "over the policy's limit of {} figures per run; close figures you do not need (plt.close(fig)) or combine them as subplots",
                l.figures
            ),
            (OutputKind::Figure, "size") => format!(
                "the PNG is over the policy's limit of {} per figure; use a smaller figsize or dpi",
                format_size(l.figure_bytes)
            ),
            (OutputKind::File, "count") => format!(
                "over the policy's limit of {} files returned per run; write fewer files, or pack them into one (e.g. a zip)",
                l.files_out
            ),
            (OutputKind::File, "total" | "size") => format!(
                "over the policy's limit of {} of files returned per run; write less, or summarise the data",
                format_size(l.files_out_bytes)
            ),
            (_, "type") => "not a regular file (a link, directory or device)".into(),
            (_, "name") => "its name is not UTF-8".into(),
            (_, other) => format!("not sent by the sandbox ({other})"),
        }
    }

    fn omit(&mut self, kind: OutputKind, path: String, size: Option<u64>, reason: String) {
        self.outputs.omitted.push(Omitted {
            kind,
            path,
            size,
            reason,
        });
    }
}

/// Width and height from a PNG's signature and IHDR chunk; `None` if it is not a PNG.
pub fn png_size(data: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if data.len() < 24 || !data.starts_with(SIGNATURE) || &data[12..16] != b"IHDR" {
        return None;
    }
    let width = u32::from_be_bytes(data[16..20].try_into().ok()?);
    let height = u32::from_be_bytes(data[20..24].try_into().ok()?);
    (width > 0 && height > 0).then_some((width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut data = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        data.extend(width.to_be_bytes());
        data.extend(height.to_be_bytes());
        data.extend([8, 6, 0, 0, 0]);
        data
    }

    fn header(kind: &str, path: &str, size: usize) -> Vec<u8> {
        format!(r#"{{"kind": "{kind}", "path": "{path}", "size": {size}}}"#).into_bytes()
    }

    #[test]
    fn figures_and_files_are_kept_in_order_with_their_sizes_read() {
        let mut c = Collector::new(&Limits::default());
        let figure = png(640, 480);
        c.header(&header("figure", "0001.png", figure.len()))
            .unwrap();
        c.data(&figure[..10]).unwrap();
        c.data(&figure[10..]).unwrap();
        c.header(&header("file", "out/a.csv", 3)).unwrap();
        c.data(b"a,b").unwrap();
        c.header(&header("file", "empty", 0)).unwrap();
        let out = c.finish().unwrap();
        assert_eq!((out.figures[0].width, out.figures[0].height), (640, 480));
        let paths: Vec<_> = out.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["out/a.csv", "empty"]);
        assert!(out.omitted.is_empty());
    }

    #[test]
    fn the_gateway_enforces_limits_whatever_the_runner_sends() {
        let limits = Limits {
            figures: 1,
            files_out: 5,
            files_out_bytes: 4,
            ..Limits::default()
        };
        let mut c = Collector::new(&limits);
        for _ in 0..2 {
            let figure = png(1, 1);
            c.header(&header("figure", "f.png", figure.len())).unwrap();
            c.data(&figure).unwrap();
        }
        c.header(&header("figure", "x.png", 3)).unwrap();
        c.data(b"abc").unwrap();
        c.header(&header("file", "a", 3)).unwrap();
        c.data(b"abc").unwrap();
        c.header(&header("file", "b", 3)).unwrap();
        c.data(b"abc").unwrap();
        c.header(&header("file", "../escape", 1)).unwrap();
        c.data(b"x").unwrap();
        c.header(br#"{"kind": "file", "path": "s", "size": 9, "skipped": "count"}"#)
            .unwrap();
        let out = c.finish().unwrap();
        assert_eq!(out.figures.len(), 1);
        assert_eq!(out.files.len(), 1);
        let reasons: Vec<_> = out.omitted.iter().map(|o| o.reason.as_str()).collect();
        assert!(reasons[0].contains("1 figures"), "{reasons:?}");
        assert!(reasons[1].contains("1 figures"), "{reasons:?}");
        assert!(reasons[2].contains("of files returned"), "{reasons:?}");
        assert!(reasons[3].contains("unusable name"), "{reasons:?}");
        assert!(reasons[4].contains("5 files"), "{reasons:?}");
    }

    #[test]
    fn a_broken_transfer_is_an_error() {
        let mut c = Collector::new(&Limits::default());
        assert!(c.data(b"x").is_err());
        c.header(&header("file", "a", 2)).unwrap();
        assert!(c.data(b"xyz").is_err());
        let mut c = Collector::new(&Limits::default());
        c.header(&header("file", "a", 2)).unwrap();
        assert!(c.finish().is_err());
    }

    #[test]
    fn request_is_a_manifest_line_then_the_bytes() {
        let files = [InputFile {
            path: "a.csv".into(),
            content: b"x,y\n".to_vec(),
        }];
        let data = request(&files, &Limits::default());
        let (line, rest) = data.split_at(data.iter().position(|&b| b == b'\n').unwrap());
        let manifest: serde_json::Value = serde_json::from_slice(line).unwrap();
        assert_eq!(manifest["files"][0]["size"], 4);
        assert_eq!(manifest["collect"]["figures"], 16);
        assert_eq!(&rest[1..], b"x,y\n");
    }
}
