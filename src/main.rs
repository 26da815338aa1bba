//! The `adjutant` binary: command-line parsing lives in `cli`, which maps
//! every error to an exit code (0 ok, 1 the thing asked failed, 2 bad usage
//! or input).

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

extern "C" {
    /// mimalloc's setter of an option (in the C library the `mimalloc`
    /// crate links; its Rust declaration sits behind a feature).
    fn mi_option_set(option: libc::c_int, value: libc::c_long);
    #[cfg(test)]
    fn mi_option_get(option: libc::c_int) -> libc::c_long;
}

/// `mi_option_purge_delay` in mimalloc's `mi_option_e` (the same index in
/// its v2 and v3).
const MI_OPTION_PURGE_DELAY: libc::c_int = 15;

/// Memory a pass frees goes back to the system after 100 ms instead of
/// mimalloc's default second: a pass over a backlog frees a picture's
/// pages many times a second, and with the default they count against its
/// peak (docs/performance.md: 65-67 MB over the bench's 1,500 mails, 50-55
/// MB with this; no slower). `MIMALLOC_PURGE_DELAY` still overrides it.
fn return_freed_memory_promptly() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets an integer option; mimalloc reads it on each purge.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 100) };
    }
}

fn main() {
    // Output piped into a program that stops reading (`adjutant audit g |
    // head -1`) ends the process quietly, as for any Unix tool, instead of
    // a panic with a backtrace. Not for the daemon: there a write to a
    // mail server that has gone away must be an error to retry, never a
    // signal that kills it.
    if !std::env::args().skip(1).any(|a| a == "run") {
        // SAFETY: restoring the default action of one signal at start-up.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    return_freed_memory_promptly();
    adjutant::desk::raise_descriptor_limit();
    std::process::exit(adjutant::cli::main());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index set is the purge delay of the mimalloc linked: its default
    /// there is a second, and what is set reads back. A mimalloc whose
    /// options were renumbered fails here rather than setting another.
    #[test]
    fn the_option_set_is_mimallocs_purge_delay() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reads and sets an integer option.
        assert_eq!(unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }, 1000, "mimalloc's default purge delay");
        return_freed_memory_promptly();
        assert_eq!(unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }, 100);
    }
}
