//! The `adjutant` binary: command-line parsing lives in `cli`, which maps
//! every error to an exit code (0 ok, 1 the thing asked failed, 2 bad usage
//! or input).

fn main() {
    std::process::exit(adjutant::cli::main());
}
