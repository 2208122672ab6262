//! Reading an input file: only a regular file, checked on the opened handle, and never more
//! than a limit.
//!
//! A size from the path's metadata proves nothing about what a read returns: a FIFO has
//! size 0 and blocks, `/dev/zero` has size 0 and never ends, and a regular file can be
//! swapped for either, or grow, between the check and the read. So [`open_regular`] opens
//! without blocking (`O_NONBLOCK` on Unix: opening a FIFO does not wait for a writer) and
//! checks the **opened handle** (`fstat`) is a regular file, and [`read_regular`] then reads
//! at most `limit + 1` bytes (`Read::take`): a file that has more than `limit` bytes, at the
//! check or by the time it is read, is refused, and nothing past the limit is ever
//! allocated. Refused: FIFOs, character and block devices (`/dev/zero`, `/dev/urandom`,
//! terminals), sockets and directories.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;

/// Why a file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadRefusal {
    /// The operating system's error (the file is missing, unreadable, …).
    Io(String),
    /// Not a regular file: what it is instead (`a FIFO`, `a character device`, …).
    NotRegular(&'static str),
    /// More than `max` bytes: `size` when the file's metadata said so, `None` when it grew
    /// past the limit while being read.
    TooLarge {
        /// The file's size when it was opened, if that was already over the limit.
        size: Option<u64>,
        /// The limit.
        max: u64,
    },
}

impl fmt::Display for ReadRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadRefusal::Io(e) => f.write_str(e),
            ReadRefusal::NotRegular(kind) => write!(f, "not a regular file ({kind})"),
            ReadRefusal::TooLarge {
                size: Some(size),
                max,
            } => write!(f, "{size} bytes exceeds the limit of {max} bytes"),
            ReadRefusal::TooLarge { size: None, max } => {
                write!(f, "more than the limit of {max} bytes (it grew while read)")
            }
        }
    }
}

impl std::error::Error for ReadRefusal {}

/// What a file that is not regular is, for messages.
fn kind_of(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// Opens `path` for reading without blocking, and checks on the opened handle that it is a
/// regular file. Returns the file and its size at opening.
///
/// # Errors
/// [`ReadRefusal::Io`], or [`ReadRefusal::NotRegular`] for a FIFO, a device, a socket or a
/// directory.
pub fn open_regular(path: &Path) -> Result<(File, u64), ReadRefusal> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| ReadRefusal::Io(e.to_string()))?;
    let meta = file
        .metadata()
        .map_err(|e| ReadRefusal::Io(e.to_string()))?;
    if !meta.is_file() {
        return Err(ReadRefusal::NotRegular(kind_of(meta.file_type())));
    }
    Ok((file, meta.len()))
}

/// Reads all of `path`, a regular file of at most `max` bytes (see the
/// [module docs](self)).
///
/// # Errors
/// As [`open_regular`]; [`ReadRefusal::TooLarge`] past `max`.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, ReadRefusal> {
    let (file, size) = open_regular(path)?;
    if size > max {
        return Err(ReadRefusal::TooLarge {
            size: Some(size),
            max,
        });
    }
    let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(max.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| ReadRefusal::Io(e.to_string()))?;
    if out.len() as u64 > max {
        return Err(ReadRefusal::TooLarge { size: None, max });
    }
    Ok(out)
}

/// [`read_regular`], as UTF-8 text.
///
/// # Errors
/// As [`read_regular`]; [`ReadRefusal::Io`] when the bytes are not UTF-8.
pub fn read_regular_to_string(path: &Path, max: u64) -> Result<String, ReadRefusal> {
    String::from_utf8(read_regular(path, max)?)
        .map_err(|_| ReadRefusal::Io("stream did not contain valid UTF-8".to_owned()))
}
