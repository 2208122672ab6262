//! Writes a frame sequence's PNG files on other threads while the next frames draw.
//!
//! PNG encoding (the adaptive row filter, then deflate) runs on one thread and costs about as
//! much as drawing a frame: for CesiumMilkTruck at 1920×1080, half of `plumb render --frames`'s
//! time on one thread was the encoder. Written one after another, a sequence took the sum of
//! both; here encoders take finished frames from a rendezvous channel, so drawing frame i+1
//! overlaps writing frame i.
//!
//! - **Same files.** Each file is encoded by the same code from the same pixels.
//! - **Bounded memory.** A frame waits only until an encoder takes it (a channel of capacity
//!   0), so at most `encoders + 1` frames exist at once; encoders are limited so that those
//!   frames fit [`MAX_BUFFERED_BYTES`] (at least one encoder).
//! - **Errors.** After a write fails no further frame is drawn; the files already handed over
//!   are still written, and of the failures the first file's in hand-over order (frame, then
//!   colour before depth) is reported. Every file before the first failing one is always
//!   handed over, so the message does not depend on timing.

use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Mutex;

/// Bytes of finished frames (colour and depth) that may wait for or be in an encoder.
pub const MAX_BUFFERED_BYTES: u64 = 512 << 20;

/// Most encoder threads.
const MAX_ENCODERS: usize = 8;

/// An image to write.
pub enum Image {
    /// The colour buffer, RGBA8.
    Color(image::RgbaImage),
    /// The depth buffer, 16-bit grey.
    Depth(image::ImageBuffer<image::Luma<u16>, Vec<u16>>),
    /// Any other file's bytes, already encoded (metric depth as `.npy`).
    Bytes(Vec<u8>),
}

impl Image {
    /// Encodes and writes the PNG file, with the path in the message on failure (through
    /// [`save_replacing`]).
    pub fn save(&self, path: &std::path::Path) -> Result<(), String> {
        match self {
            Image::Color(i) => save_replacing(path, |out, format| i.write_to(out, format)),
            Image::Depth(i) => save_replacing(path, |out, format| i.write_to(out, format)),
            Image::Bytes(b) => plumb::safe_write::write_replacing(path, b),
        }
    }
}

/// Encodes with `encode` in the format `path`'s extension names (as `ImageBuffer::save`
/// does), then writes the bytes to a new file renamed over `path`
/// ([`plumb::safe_write::write_replacing`]): a link at `path` is replaced, never written
/// through, and no reader sees half a file.
///
/// # Errors
/// The encoder's or the file system's, naming `path`.
pub fn save_replacing(
    path: &std::path::Path,
    encode: impl FnOnce(&mut std::io::Cursor<Vec<u8>>, image::ImageFormat) -> image::ImageResult<()>,
) -> Result<(), String> {
    let shown = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let format = image::ImageFormat::from_path(path).map_err(|e| shown(&e))?;
    let mut bytes = std::io::Cursor::new(Vec::new());
    encode(&mut bytes, format).map_err(|e| shown(&e))?;
    plumb::safe_write::write_replacing(path, bytes.get_ref())
}

/// One file to write: its place in the hand-over order, where, and what.
struct Job {
    order: u64,
    path: PathBuf,
    image: Image,
}

/// How many encoders a sequence of `frame_bytes`-byte frames gets with `threads` drawing
/// threads (`None` or 0: all cores): none for `--threads 1` (a farm job that asked for one
/// thread gets one: each file is written after its frame), else as many as drawing threads,
/// at most [`MAX_ENCODERS`], and no more than keeps `encoders + 1` frames within
/// [`MAX_BUFFERED_BYTES`] (at least one).
pub fn encoders(threads: Option<usize>, frame_bytes: u64) -> usize {
    let cores = match threads {
        Some(1) => return 0,
        Some(n) if n > 0 => n,
        _ => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let fit = (MAX_BUFFERED_BYTES / frame_bytes.max(1)).saturating_sub(1);
    cores
        .min(MAX_ENCODERS)
        .min(usize::try_from(fit).unwrap_or(usize::MAX))
        .max(1)
}

/// Hands finished images to the encoders.
pub struct Writer<'a> {
    /// `None`: no encoders; each file is written on the drawing thread.
    tx: Option<SyncSender<Job>>,
    sent: std::cell::Cell<u64>,
    failed: &'a Mutex<Option<(u64, String)>>,
}

impl Writer<'_> {
    /// Queues `image` for `path` (blocks until an encoder takes it). Fails when a write of
    /// this sequence has failed, with that write's error, so the caller stops drawing.
    pub fn write(&self, path: PathBuf, image: Image) -> Result<(), String> {
        if let Some((_, e)) = lock(self.failed).as_ref() {
            return Err(e.clone());
        }
        let Some(tx) = &self.tx else {
            return image.save(&path);
        };
        let order = self.sent.get();
        self.sent.set(order + 1);
        tx.send(Job { order, path, image })
            .map_err(|_| "the PNG encoders stopped".to_owned())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `draw` with a [`Writer`] backed by `encoders` threads (0: files are written on the
/// drawing thread, each as it is handed over) and waits for every queued file. Returns the first failed write's error (in hand-over order), else `draw`'s: a file
/// is handed over only after its frame is drawn, so a failed write always belongs to an
/// earlier frame than a failed draw.
pub fn with_encoders<F>(encoders: usize, draw: F) -> Result<(), String>
where
    F: FnOnce(&Writer<'_>) -> Result<(), String>,
{
    let failed = Mutex::new(None::<(u64, String)>);
    let (tx, rx) = sync_channel::<Job>(0);
    let rx = Mutex::new(rx);
    let drawn = std::thread::scope(|scope| {
        for _ in 0..encoders {
            scope.spawn(|| loop {
                let next = lock(&rx).recv();
                let Ok(job) = next else { return };
                if let Err(e) = job.image.save(&job.path) {
                    let mut f = lock(&failed);
                    if f.as_ref().is_none_or(|(order, _)| job.order < *order) {
                        *f = Some((job.order, e));
                    }
                }
            });
        }
        let writer = Writer {
            tx: (encoders > 0).then_some(tx),
            sent: std::cell::Cell::new(0),
            failed: &failed,
        };
        draw(&writer)
        // `writer` (the only sender) drops here: the encoders finish the queue and end.
    });
    let failed = failed
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match (drawn, failed) {
        (_, Some((_, e))) => Err(e),
        (Err(e), None) => Err(e),
        (Ok(()), None) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny(v: u8) -> Image {
        Image::Color(image::RgbaImage::from_pixel(
            3,
            2,
            image::Rgba([v, 0, 0, 255]),
        ))
    }

    #[test]
    fn encoders_fit_the_memory_bound() {
        assert_eq!(encoders(Some(4), 1920 * 1080 * 6), 4);
        assert_eq!(encoders(Some(1), 1920 * 1080 * 6), 0);
        assert_eq!(encoders(Some(64), 1), MAX_ENCODERS);
        // 16384² RGBA + 16-bit depth: 1.5 GiB a frame; one encoder all the same.
        assert_eq!(encoders(Some(4), 16384 * 16384 * 6), 1);
        // 100 MiB frames: 512 MiB holds 5, so 4 encoders and the frame being drawn.
        assert_eq!(encoders(Some(8), 100 << 20), 4);
    }

    #[test]
    fn writes_every_file_as_the_encoder_would() {
        let dir = std::env::temp_dir().join(format!("plumb-frames-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        with_encoders(3, |w| {
            for i in 0..10u32 {
                w.write(dir.join(format!("{i}.png")), tiny(i as u8))?;
            }
            Ok(())
        })
        .unwrap();
        for i in 0..10u32 {
            let direct = dir.join(format!("direct{i}.png"));
            tiny(i as u8).save(&direct).unwrap();
            assert_eq!(
                std::fs::read(dir.join(format!("{i}.png"))).unwrap(),
                std::fs::read(&direct).unwrap()
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reports_the_lowest_failing_frame_and_stops_drawing() {
        let dir = std::env::temp_dir().join(format!("plumb-frames-fail-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut drawn = 0u32;
        let r = with_encoders(2, |w| {
            // Files 3, 4 and 5 go to a folder that does not exist (3 and 4 like a frame's
            // colour and depth: two encoders may fail them in either order; 3 is reported);
            // the others reuse 8 names.
            // Drawing must stop once frame 3's write has failed (within a few frames; the
            // bound only keeps a broken writer from running forever).
            for i in 0..100_000u32 {
                let path = match i {
                    3..=5 => dir.join("missing").join(format!("{i}.png")),
                    _ => dir.join(format!("{}.png", i % 8)),
                };
                w.write(path, tiny(1))?;
                drawn += 1;
            }
            Ok(())
        });
        let e = r.unwrap_err();
        assert!(e.contains("missing/3.png"), "{e}");
        assert!(drawn < 100_000, "drawing went on after a failed write");
        for i in 0..3 {
            assert!(dir.join(format!("{i}.png")).is_file());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
