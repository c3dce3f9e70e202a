//! `numascope completions SHELL`: a shell completion script generated from the one clap
//! definition of the command line, so it can never disagree with the flags the binary takes
//! (the values of `--mode`, `--kernel`, `--policy` and `--page-size` from `hints`, files and
//! directories where a flag takes a path). It reads no machine and prints to stdout;
//! README.md gives the commands that install it. The man pages are `man.rs`.

use std::io::Write;

use clap::Args;

/// Flags of `numascope completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Runs `completions`.
pub fn run(args: &CompletionsArgs) -> anyhow::Result<()> {
    let mut cmd = super::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "numascope", &mut out);
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(())
}
