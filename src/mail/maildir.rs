//! Maildir folders (new/, cur/, tmp/): the embedded default's inbox and the
//! per-recipient outboxes.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

pub struct Maildir {
    pub root: PathBuf,
    /// The mode of delivered files, when not the process's default: an
    /// outbox outside the data folder is read by other users' clients.
    mode: Option<u32>,
}

impl Maildir {
    pub fn open(root: &Path) -> std::io::Result<Maildir> {
        for d in ["new", "cur", "tmp"] {
            fs::create_dir_all(root.join(d))?;
        }
        Ok(Maildir { root: root.to_path_buf(), mode: None })
    }

    /// Open (creating) a Maildir whose folders and files follow `umask`
    /// rather than the process's mask.
    #[cfg(unix)]
    pub fn open_shared(root: &Path, umask: u32) -> std::io::Result<Maildir> {
        use std::os::unix::fs::PermissionsExt;
        let mut md = Maildir::open(root)?;
        let dirs = 0o777 & !umask;
        for d in [root.to_path_buf(), root.join("new"), root.join("cur"), root.join("tmp")] {
            if fs::metadata(&d)?.permissions().mode() & 0o777 != dirs {
                fs::set_permissions(&d, fs::Permissions::from_mode(dirs))?;
            }
        }
        md.mode = Some(0o666 & !umask);
        Ok(md)
    }

    /// Messages waiting in new/, oldest name first (names start with the
    /// delivery time, so this is arrival order).
    pub fn list_new(&self) -> std::io::Result<Vec<PathBuf>> {
        self.list("new")
    }

    /// Messages already handled, in cur/.
    pub fn list_cur(&self) -> std::io::Result<Vec<PathBuf>> {
        self.list("cur")
    }

    fn list(&self, sub: &str) -> std::io::Result<Vec<PathBuf>> {
        // The entry's own type (no `stat` a message); a link is followed.
        let mut v: Vec<PathBuf> = fs::read_dir(self.root.join(sub))?
            .filter_map(|e| e.ok())
            .filter(|e| match e.file_type() {
                Ok(t) if t.is_file() => true,
                Ok(t) if t.is_symlink() => e.path().is_file(),
                _ => false,
            })
            .map(|e| e.path())
            .collect();
        // By bytes: all in one folder, so the order of their names, without
        // `Path`'s comparison splitting both into components each time.
        v.sort_unstable_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
        Ok(v)
    }

    /// Deliver a message under `name` (unique per message): write in tmp/,
    /// fsync, rename into new/. Delivering the same name twice replaces it,
    /// which makes re-delivery after a crash harmless.
    pub fn deliver(&self, name: &str, data: &[u8]) -> std::io::Result<PathBuf> {
        self.deliver_with(name, data, true)
    }

    /// [`Maildir::deliver`], leaving the fsync to the caller when `sync` is
    /// false (a batch made durable at once with a file-system sync).
    pub fn deliver_with(&self, name: &str, data: &[u8], sync: bool) -> std::io::Result<PathBuf> {
        let tmp = self.root.join("tmp").join(name);
        {
            let mut f = fs::File::create(&tmp)?;
            #[cfg(unix)]
            if let Some(m) = self.mode {
                use std::os::unix::fs::PermissionsExt;
                f.set_permissions(fs::Permissions::from_mode(m))?;
            }
            f.write_all(data)?;
            if sync {
                f.sync_all()?;
            }
        }
        let dst = self.root.join("new").join(name);
        fs::rename(&tmp, &dst)?;
        Ok(dst)
    }

    /// Deliver a finished file by moving it into new/ under `name`: no
    /// copy and no new inode. The file must be on the same file system
    /// (else the rename fails, nothing changed, and the caller copies).
    pub fn adopt(&self, file: &Path, name: &str) -> std::io::Result<PathBuf> {
        let dst = self.root.join("new").join(name);
        fs::rename(file, &dst)?;
        // The mode once the file is out of the private spool, never before.
        // The file is delivered either way; a mode that cannot be set
        // leaves it private, which the log says.
        #[cfg(unix)]
        if let Some(m) = self.mode {
            use std::os::unix::fs::PermissionsExt;
            if let Err(e) = fs::set_permissions(&dst, fs::Permissions::from_mode(m)) {
                tracing::warn!(file = %dst.display(), error = %e, "cannot set the outbox file's mode");
            }
        }
        Ok(dst)
    }

    /// Where a message in new/ goes once processed: into cur/, flagged
    /// seen.
    pub fn seen_path(&self, path: &Path) -> std::io::Result<PathBuf> {
        let name = path.file_name().ok_or_else(|| std::io::Error::other("no file name"))?;
        let mut n = name.to_string_lossy().to_string();
        if !n.contains(":2,") {
            n.push_str(":2,S");
        }
        Ok(self.root.join("cur").join(n))
    }
}

/// A file name safe on every file system for a Message-ID.
pub fn safe_name(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect()
}
