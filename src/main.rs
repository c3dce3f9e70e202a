//! The `numascope` binary: parse the command line, run, and turn any error into one sentence
//! and a non-zero exit status. All logic lives in the library.

fn main() {
    std::process::exit(numascope::cli::main());
}
