//! A pass's other threads: the file operations of its commits (letters
//! written into the spool, letters released, inbox mail marked handled),
//! done in order beside the thread that handles the mail.
//!
//! Half of a pass is the kernel making and renaming files; the other half
//! is reading orders, playing them and writing letters. Two threads take
//! the first half while the pass goes on with the second (on a machine
//! with more than one core, at the same time): one writes letters into the
//! spool, one moves files (a commit's releases, then the local inbox's
//! marks). Each runs its jobs in the order they were given. A commit waits for both ([`Files::wait`])
//! before the sync that makes its letters durable, so its letters are all
//! written, and the moves of the group before it are done: its own moves
//! (given after its journals' sync) overlap the handling of the next group
//! and no more, so at most one group is ever committed and not yet marked,
//! as without the threads. A failed job stops both threads for the rest of
//! the pass and fails every later wait. A process that dies leaves the
//! releases and marks of at most one committed group undone: the next pass
//! releases the letters its journal names ([`Desk::recover_spool`]) and
//! knows its messages again by their digests.

use super::{io, Desk, Error};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

/// One file operation.
pub(crate) enum Job {
    /// A letter into `spool/tmp`.
    Spool(PathBuf, Vec<u8>),
    /// A letter journaled: out of `spool/tmp` ([`Desk::release`]).
    Release(String),
    /// A handled inbound mail moved out of the inbox's `new/`.
    Mark(PathBuf, PathBuf),
    /// Every job before this one is done.
    Wait(mpsc::SyncSender<()>),
}

/// Where a commit's file operations go: to the pass's other threads, or,
/// by default, done at once in the caller's thread (a game's creation, a
/// CLI command, the deadlines at the end of a pass).
#[derive(Default)]
pub struct Files {
    threads: Option<Threads>,
}

struct Threads {
    writes: mpsc::Sender<Job>,
    moves: mpsc::Sender<Job>,
    failed: Arc<Failed>,
}

/// The first failure of either thread. After it, neither tries another
/// job for the rest of the pass (a local inbox is not marked after a
/// letter that could not be released), and every wait fails.
#[derive(Default)]
struct Failed {
    stopped: AtomicBool,
    first: Mutex<Option<Error>>,
}

impl Files {
    /// Start the two threads in `scope`: they end when the `Files` is
    /// dropped (on a failure or a panic of the pass too), and the scope
    /// waits for them. A thread the system will not start leaves the
    /// pass's file operations in its own thread, as before there were any.
    pub(crate) fn start<'scope>(scope: &'scope std::thread::Scope<'scope, '_>, desk: &'scope Desk) -> Files {
        let failed = Arc::new(Failed::default());
        let spawn = |name: &str| {
            let (tx, jobs) = mpsc::channel();
            let failed = failed.clone();
            let started = std::thread::Builder::new()
                .name(name.into())
                .spawn_scoped(scope, move || desk.file_jobs(jobs, &failed));
            started.map(|_| tx).map_err(|e| tracing::warn!(error = %e, "no thread for the pass's files"))
        };
        match (spawn("spool writes"), spawn("file moves")) {
            (Ok(writes), Ok(moves)) => Files { threads: Some(Threads { writes, moves, failed }) },
            _ => Files::default(),
        }
    }

    /// Write a letter into the spool.
    pub(crate) fn spool(&self, path: PathBuf, bytes: Vec<u8>) -> Result<(), Error> {
        match &self.threads {
            None => spool(&path, &bytes),
            Some(t) => send(&t.writes, Job::Spool(path, bytes)),
        }
    }

    /// Let a journaled letter go.
    pub(crate) fn release(&self, desk: &Desk, name: String) -> Result<(), Error> {
        match &self.threads {
            None => desk.release(&name),
            Some(t) => send(&t.moves, Job::Release(name)),
        }
    }

    /// Move a handled inbound mail from `from` to `to`.
    pub(crate) fn mark(&self, from: PathBuf, to: PathBuf) -> Result<(), Error> {
        match &self.threads {
            None => mark(&from, &to),
            Some(t) => send(&t.moves, Job::Mark(from, to)),
        }
    }

    /// Every operation given so far is done; or the first failure.
    pub(crate) fn wait(&self) -> Result<(), Error> {
        let Some(t) = &self.threads else { return Ok(()) };
        wait_for(&t.writes)?;
        wait_for(&t.moves)?;
        t.failed.report()
    }
}

impl Failed {
    /// The failure, said in full once; every later wait fails too, since
    /// the jobs given since were not done (a commit that went on would
    /// journal letters never written).
    fn report(&self) -> Result<(), Error> {
        match self.first.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(e) => Err(e),
            None if self.stopped.load(Ordering::Acquire) => {
                Err(Error::Bad("a file operation failed earlier in this pass; none was done since".into()))
            }
            None => Ok(()),
        }
    }
}

fn wait_for(tx: &mpsc::Sender<Job>) -> Result<(), Error> {
    let (done, answer) = mpsc::sync_channel(1);
    send(tx, Job::Wait(done))?;
    answer.recv().map_err(|_| gone())
}

/// A thread is gone: it panicked, and the scope passes its panic on.
fn gone() -> Error {
    Error::Bad("a thread of the pass stopped".into())
}

fn send(tx: &mpsc::Sender<Job>, job: Job) -> Result<(), Error> {
    tx.send(job).map_err(|_| gone())
}

fn spool(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    std::fs::write(path, bytes).map_err(io("spool", path))
}

fn mark(from: &Path, to: &Path) -> Result<(), Error> {
    std::fs::rename(from, to).map_err(io("mark processed", from))
}

impl Desk {
    /// Run file operations in turn until `jobs` closes, none after a
    /// failure of this thread or the other.
    fn file_jobs(&self, jobs: mpsc::Receiver<Job>, failed: &Failed) {
        for job in jobs {
            let done = match job {
                Job::Wait(answer) => {
                    let _ = answer.send(());
                    continue;
                }
                _ if failed.stopped.load(Ordering::Acquire) => continue,
                Job::Spool(path, bytes) => spool(&path, &bytes),
                Job::Release(name) => self.release(&name),
                Job::Mark(from, to) => mark(&from, &to),
            };
            if let Err(e) = done {
                let mut first = failed.first.lock().unwrap_or_else(|e| e.into_inner());
                if !failed.stopped.swap(true, Ordering::AcqRel) {
                    *first = Some(e);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Files;
    use crate::config::Config;
    use crate::desk::Desk;
    use std::path::PathBuf;

    fn table(tag: &str) -> (PathBuf, Desk) {
        let dir = std::env::temp_dir().join(format!("adjutant-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let desk = Desk::open(&dir.join("data"), Config::default()).unwrap();
        for d in ["a", "b", "c"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        (dir, desk)
    }

    /// What the threads were given is done, in order, when a wait returns
    /// (looked at before the threads end): a file written, moved, then
    /// moved again is where the second move put it.
    #[test]
    fn a_wait_returns_when_every_job_before_it_is_done_in_order() {
        let (dir, desk) = table("order");
        let at = |d: &str, i: usize| dir.join(format!("{d}/{i}"));
        std::thread::scope(|s| {
            let files = Files::start(s, &desk);
            for i in 0..200 {
                files.spool(at("a", i), vec![b'x'; i]).unwrap();
            }
            files.wait().unwrap();
            assert!((0..200).all(|i| at("a", i).exists()), "every letter written when the wait returned");
            for i in 0..200 {
                files.mark(at("a", i), at("b", i)).unwrap();
                files.mark(at("b", i), at("c", i)).unwrap();
            }
            files.wait().unwrap();
            for i in 0..200 {
                assert_eq!(std::fs::read(at("c", i)).unwrap().len(), i);
                assert!(!at("a", i).exists() && !at("b", i).exists());
            }
        });
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A move that fails is reported by the next wait with the file it
    /// named; nothing given after it is done, by either thread, and every
    /// later wait fails too, so that no commit goes on as if it had been.
    #[test]
    fn a_failure_stops_every_later_job_and_every_wait_fails() {
        let (dir, desk) = table("failure");
        std::fs::write(dir.join("a/kept"), b"k").unwrap();
        std::thread::scope(|s| {
            let files = Files::start(s, &desk);
            files.mark(dir.join("a/missing"), dir.join("b/missing")).unwrap();
            files.mark(dir.join("a/kept"), dir.join("b/kept")).unwrap();
            let said = files.wait().unwrap_err().to_string();
            assert!(said.contains("mark processed") && said.contains("a/missing"), "{said}");
            files.spool(dir.join("a/late"), b"l".to_vec()).unwrap();
            let said = files.wait().unwrap_err().to_string();
            assert!(said.contains("failed earlier"), "{said}");
            assert!(!dir.join("a/late").exists(), "nothing was written after the failure");
        });
        assert!(dir.join("a/kept").exists() && !dir.join("b/kept").exists(), "the move after the failure was not done");
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A letter that cannot be written stops the moves given after it.
    #[test]
    fn a_failed_write_stops_the_moves() {
        let (dir, desk) = table("write");
        std::fs::write(dir.join("a/kept"), b"k").unwrap();
        std::thread::scope(|s| {
            let files = Files::start(s, &desk);
            files.spool(dir.join("nowhere/letter"), b"x".to_vec()).unwrap();
            // Given once the write has failed, as a commit's moves come
            // after its wait.
            let said = files.wait().unwrap_err().to_string();
            assert!(said.contains("spool") && said.contains("nowhere/letter"), "{said}");
            files.mark(dir.join("a/kept"), dir.join("b/kept")).unwrap();
            assert!(files.wait().is_err());
        });
        assert!(dir.join("a/kept").exists(), "no move after the failed write");
        let _ = std::fs::remove_dir_all(dir);
    }
}
