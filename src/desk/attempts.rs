//! `DATA/desk/handling`: how many times the mail in hand killed the
//! process while it was being read or handled, so that a mail built to
//! crash adjutant is set aside rather than wedge the inbox, while a mail
//! that was merely in hand when the process died for another reason (a
//! kill, a full disk, a crash while its game loaded) is tried again.
//!
//! The record is a small file mapped into memory: marking a mail's own
//! work begun and ended are stores to memory, not system calls, so the
//! process cannot die between the end of the work and the mark that says
//! so (a kill lands on a system call, and there is none). The page cache
//! keeps the stores when the process dies.

use std::fs;
use std::path::Path;

/// A digest, a space, a count (ten digits), a line end.
const RECORD: usize = 64 + 1 + 10 + 1;

pub(super) struct Attempts {
    map: Option<Mapped>,
    /// The mail in hand and the deaths it caused before.
    in_hand: Option<(String, u32)>,
}

/// `RECORD` bytes of the file, shared with the page cache.
struct Mapped {
    ptr: *mut u8,
}

impl Mapped {
    fn open(path: &Path) -> Option<Mapped> {
        use std::os::unix::io::AsRawFd;
        let f = fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).ok()?;
        if f.metadata().ok()?.len() < RECORD as u64 {
            // A record of an older adjutant ("<digest> <n>") is padded out.
            let mut text = fs::read(path).ok()?;
            text.retain(|b| *b != b'\n');
            let t = String::from_utf8_lossy(&text).to_string();
            let padded = match t.trim().split_once(' ') {
                Some((s, n)) if s.len() == 64 => format!("{s} {:>10}\n", n.trim()),
                _ => format!("{:width$}\n", "", width = RECORD - 1),
            };
            fs::write(path, padded).ok()?;
        }
        // SAFETY: a shared mapping of the first RECORD bytes of a file at
        // least that long, opened read-write; it is unmapped on drop and no
        // reference into it outlives a method.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                RECORD,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                f.as_raw_fd(),
                0,
            )
        };
        (ptr != libc::MAP_FAILED).then_some(Mapped { ptr: ptr as *mut u8 })
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` maps RECORD bytes (see `open`), borrowed mutably
        // through `self` alone.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, RECORD) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `open`, no longer borrowed.
        unsafe {
            libc::munmap(self.ptr as *mut libc::c_void, RECORD);
        }
    }
}

impl Attempts {
    pub(super) fn open(path: &Path) -> Attempts {
        Attempts { map: Mapped::open(path), in_hand: None }
    }

    /// What the record says: a digest and a count.
    fn record(&mut self) -> Option<(String, u32)> {
        let b = self.map.as_mut()?.bytes();
        let sha = std::str::from_utf8(&b[..64]).ok()?.to_string();
        let n = std::str::from_utf8(&b[65..75]).ok()?.trim().parse().ok()?;
        Some((sha, n))
    }

    /// `sha` is in hand: the deaths its own work caused so far (what the
    /// record says of it, or none).
    pub(super) fn take(&mut self, sha: &str) -> u32 {
        let n = match self.record() {
            Some((s, n)) if s == sha => n,
            _ => 0,
        };
        self.in_hand = Some((sha.to_string(), n));
        n
    }

    /// The mail in hand's own work begins: the record counts one more
    /// death, which [`Attempts::disarm`] takes back if it ends alive.
    pub(super) fn arm(&mut self) {
        if let Some((s, n)) = self.in_hand.clone() {
            self.set(&s, n + 1);
        }
    }

    /// The mail in hand's own work ended without killing the process.
    pub(super) fn disarm(&mut self) {
        if let Some((s, n)) = self.in_hand.clone() {
            self.set(&s, n);
        }
    }

    /// The mail in hand is done with.
    pub(super) fn done(&mut self) {
        self.in_hand = None;
    }

    /// Nothing in hand: the record blanked.
    pub(super) fn clear(&mut self) {
        self.in_hand = None;
        if let Some(m) = self.map.as_mut() {
            let b = m.bytes();
            b[..RECORD - 1].fill(b' ');
            b[RECORD - 1] = b'\n';
        }
    }

    /// Stores only: the digest when it changes (a death in mid-store
    /// leaves a digest of no mail), then the count's digits.
    fn set(&mut self, sha: &str, n: u32) {
        let Some(m) = self.map.as_mut() else { return };
        let b = m.bytes();
        if &b[..64] != sha.as_bytes() {
            b[64..RECORD - 1].fill(b' ');
            b[..64].copy_from_slice(sha.as_bytes());
        }
        b[65..75].copy_from_slice(format!("{n:>10}").as_bytes());
        b[RECORD - 1] = b'\n';
    }
}

#[cfg(test)]
mod tests {
    use super::Attempts;

    /// A death inside a mail's own work counts against it across the
    /// crash; a death outside it (its game loading, the commit) does not;
    /// a blank record counts nothing.
    #[test]
    fn only_deaths_inside_a_mails_own_work_count() {
        let dir = std::env::temp_dir().join(format!("adjutant-attempts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("handling");
        let (x, y) = ("a".repeat(64), "b".repeat(64));
        let mut a = Attempts::open(&p);
        assert_eq!(a.take(&x), 0);
        a.arm();
        drop(a); // the process dies while reading x
        let mut a = Attempts::open(&p);
        assert_eq!(a.take(&x), 1);
        a.arm();
        a.disarm();
        drop(a); // dies after reading x, while its game loads: not x's fault
        let mut a = Attempts::open(&p);
        assert_eq!(a.take(&x), 1, "the load's death is not counted");
        a.arm();
        drop(a); // dies handling x again
        let mut a = Attempts::open(&p);
        assert_eq!(a.take(&x), 2, "twice its own");
        a.done();
        assert_eq!(a.take(&y), 0, "another mail counts from nothing");
        a.arm();
        a.disarm();
        a.clear();
        drop(a);
        assert!(std::fs::read_to_string(&p).unwrap().trim().is_empty());
        // A record as an older adjutant wrote it is read.
        std::fs::write(&p, format!("{x} 2")).unwrap();
        let mut a = Attempts::open(&p);
        assert_eq!(a.take(&x), 2);
        let mut a = Attempts::open(&p);
        assert_eq!(a.take(&y), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
