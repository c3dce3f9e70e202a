//! `numascope completions SHELL` and `numascope man [COMMAND]`: a shell completion script and
//! a roff man page, both generated from the one clap definition of the command line, so they
//! can never disagree with the flags the binary takes. They read no machine and print to
//! stdout; README.md gives the commands that install them.

use std::io::Write;

use clap::{Args, CommandFactory};

/// Flags of `numascope completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Flags of `numascope man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (e.g. `latency`); numascope's own page without it.
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// Runs `completions`.
pub fn run(args: &CompletionsArgs) -> anyhow::Result<()> {
    let mut cmd = super::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "numascope", &mut out);
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(())
}

/// The names of the subcommands, as completions and the man page list them.
pub fn subcommand_names() -> Vec<String> {
    super::Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// The man page of numascope (`command` `None`) or of one subcommand, as roff.
pub fn man_page(command: Option<&str>) -> anyhow::Result<Vec<u8>> {
    let mut top = super::Cli::command();
    top.build();
    // Once built, a subcommand's display name is numascope-NAME (the page's title, as git and
    // cargo name theirs) and its usage line says `numascope NAME`.
    let page = match command {
        None => top,
        Some(name) => top
            .get_subcommands()
            .find(|c| c.get_name() == name)
            .cloned()
            .ok_or_else(|| {
                crate::error::usage(format!(
                    "man {name}: there is no such subcommand; the subcommands are: {}",
                    subcommand_names().join(", ")
                ))
            })?,
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    Ok(out)
}

/// Runs `man`.
pub fn man(args: &ManArgs) -> anyhow::Result<()> {
    let page = man_page(args.command.as_deref())?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&page)?;
    stdout.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_subcommand_has_a_man_page_and_unknown_ones_are_refused() {
        for name in subcommand_names() {
            let page = String::from_utf8(man_page(Some(&name)).unwrap()).unwrap();
            assert!(page.contains(".TH"), "{name}");
            // roff escapes every dash.
            let roff = format!("numascope-{name}").replace('-', "\\-");
            assert!(page.contains(&roff), "{name}: {page}");
        }
        let e = man_page(Some("warp")).unwrap_err();
        assert_eq!(crate::error::kind_of(&e), crate::error::Kind::Usage);
        assert!(e.to_string().contains("latency"), "{e}");
    }
}
