//! The `adjutant` binary: command-line parsing lives in `cli`, which maps
//! every error to an exit code (0 ok, 1 the thing asked failed, 2 bad usage
//! or input).

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    adjutant::desk::return_freed_memory_promptly();
    adjutant::desk::raise_descriptor_limit();
    std::process::exit(adjutant::cli::main());
}
