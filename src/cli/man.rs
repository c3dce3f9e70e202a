//! `numascope man [COMMAND]` and `numascope man --dir DIR`: the roff man pages, generated from
//! the one clap definition (name, synopsis, description, options, subcommands), with the
//! sections clap does not know: EXIT STATUS, EXAMPLES and SEE ALSO. `--dir` writes the page
//! of numascope and of every subcommand clap defines, so an install never misses one.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

/// Flags of `numascope man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (e.g. `latency`); numascope's own page without it.
    #[arg(value_name = "COMMAND", conflicts_with = "dir")]
    pub command: Option<String>,
    /// Write numascope.1 and numascope-COMMAND.1 of every subcommand into DIR (created if
    /// missing; pages of these names are replaced), e.g. ~/.local/share/man/man1.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub dir: Option<PathBuf>,
}

/// The names of the subcommands, from the clap definition.
pub fn subcommand_names() -> Vec<String> {
    super::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// Worked command lines: (the page, `""` for numascope's own, the command line, what it
/// does).
#[rustfmt::skip]
const EXAMPLES: &[(&str, &str, &str)] = &[
    ("", "numascope", "the full analysis; writes numascope-HOST-DATE/"),
    ("", "numascope run --quick", "the short budget"),
    ("", "numascope report numascope-HOST-DATE", "the summary of a saved run"),
    ("run", "numascope run --quick", "the short budget"),
    ("run", "numascope run --dry-run", "the plan and its estimated time"),
    ("run", "numascope run --only latency,c2c --output res/{host}", "two parts, into res/HOST"),
    ("topo", "numascope topo", "nodes, CPUs, caches, distances"),
    ("topo", "numascope topo --graph", "the same as a drawing"),
    ("capture", "numascope capture snap.tar.gz", "snapshot /sys and /proc"),
    ("capture", "numascope --sysfs-root snap.tar.gz topo", "replay it"),
    ("placement", "numascope placement --policy interleave --mem-nodes 0-1 --size 256MiB", "where the pages went"),
    ("inspect", "numascope inspect --system", "memory per node, as numastat -m"),
    ("inspect", "numascope inspect 1234 --watch 2s", "a process's memory and threads"),
    ("latency", "numascope latency --sweep", "latency against working-set size"),
    ("latency", "numascope latency --matrix", "CPU node x memory node"),
    ("bandwidth", "numascope bandwidth --kernel triad --matrix", "node x node bandwidth"),
    ("bandwidth", "numascope bandwidth --peak", "peak injection bandwidth per mix"),
    ("loaded-latency", "numascope loaded-latency --mix all", "one curve per read/write mix"),
    ("c2c", "numascope c2c --cpus 0-7", "cache-line latency between CPU pairs"),
    ("report", "numascope report numascope-HOST-DATE", "the summary of a saved run"),
    ("report", "numascope report res/results.json --html r.html --csv csv/", "the page and the tables"),
    ("compare", "numascope compare before/ after/", "exit 1 when a figure differs beyond noise"),
    ("fleet", "numascope fleet results/ --html fleet.html", "the hosts that stand out"),
    ("completions", "numascope completions bash > ~/.local/share/bash-completion/completions/numascope", "bash completion"),
    ("man", "numascope man --dir ~/.local/share/man/man1", "install every page"),
    ("app", "numascope app -- ./myprog ARGS", "your program under every placement"),
    ("rightmark", "numascope rightmark --size 16MiB", "the RightMark node table"),
];

/// The worked command lines of a page.
fn examples(name: Option<&str>) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    let page = name.unwrap_or("");
    EXAMPLES
        .iter()
        .filter(move |e| e.0 == page)
        .map(|e| (e.1, e.2))
}

/// The exit statuses a page lists: the general ones and what 1 and 4 mean for it.
fn exit_statuses(name: Option<&str>) -> Vec<(&'static str, &'static str)> {
    let mut v = vec![(
        "0",
        "done (also --help, --version, and a reader that closed the pipe early)",
    )];
    match name {
        Some("compare") => v.push(("1", "a figure differs beyond noise")),
        Some("fleet") => v.push(("1", "a host stands out")),
        Some("app") => v.push(("1", "the program failed or ran past --time-limit")),
        None | Some("run") => v.push((
            "1",
            "compare or fleet found a difference, or a run ended partial (a part failed)",
        )),
        _ => {}
    }
    v.push((
        "2",
        "usage or input error: a flag, a value, a file or a process was refused",
    ));
    v.push(("3", "the environment refused: no permission, binding asked of a --sysfs-root snapshot, a kernel feature missing"));
    if matches!(name, None | Some("compare" | "fleet")) {
        v.push((
            "4",
            "compare or fleet could judge too little to answer (said first; not \"no difference\")",
        ));
    }
    v.push((
        "129, 130, 143",
        "stopped by SIGHUP, SIGINT (Ctrl-C) or SIGTERM, after keeping what was measured",
    ));
    v
}

/// Text for roff: a leading dot or quote would be a request, a backslash an escape, and a
/// dash is written `\-` so it stays a minus in a command line.
fn roff_text(s: &str) -> String {
    let t = s.replace('\\', "\\e").replace('-', "\\-");
    if t.starts_with(['.', '\'']) {
        format!("\\&{t}")
    } else {
        t
    }
}

/// The sections clap does not generate, as roff.
fn extra_sections(name: Option<&str>) -> String {
    let mut s = String::from(".SH \"EXIT STATUS\"\n");
    for (code, when) in exit_statuses(name) {
        s += &format!(".TP\n{}\n{}\n", roff_text(code), roff_text(when));
    }
    s += ".PP\nAn error is one line on stderr, numascope: error: and one sentence; with \\-\\-json, one JSON object.\n";
    let ex: Vec<(&str, &str)> = examples(name).collect();
    if !ex.is_empty() {
        s += ".SH EXAMPLES\n";
        for (cmd, what) in ex {
            s += &format!(".TP\n\\fB{}\\fR\n{}\n", roff_text(cmd), roff_text(what));
        }
    }
    s += ".SH \"SEE ALSO\"\n";
    let mut refs: Vec<String> = match name {
        None => subcommand_names()
            .iter()
            .map(|c| format!("numascope\\-{}(1)", roff_text(c)))
            .collect(),
        Some(_) => vec!["numascope(1)".into()],
    };
    refs.extend(["numactl(8)", "lstopo(1)", "numastat(8)"].map(String::from));
    s += &refs
        .iter()
        .map(|r| match r.split_once('(') {
            Some((page, sec)) => format!(".BR {page} ({sec}"),
            None => r.clone(),
        })
        .collect::<Vec<_>>()
        .join(" ,\n");
    s.push('\n');
    s
}

/// The man page of numascope (`command` `None`) or of one subcommand, as roff.
pub fn man_page(command: Option<&str>) -> anyhow::Result<Vec<u8>> {
    let mut top = super::command();
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
    let man = clap_mangen::Man::new(page.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if page.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut out)?;
    }
    if page.has_subcommands() {
        man.render_subcommands_section(&mut out)?;
    }
    out.extend_from_slice(extra_sections(command).as_bytes());
    // A subcommand's after-help (how compare and fleet judge) is kept, as NOTES; numascope's
    // own is the exit-status table, a section of its own above.
    if command.is_some() && page.get_after_help().is_some() {
        let mut notes = Vec::new();
        man.render_extra_section(&mut notes)?;
        let notes = String::from_utf8_lossy(&notes).replacen(".SH EXTRA", ".SH NOTES", 1);
        out.extend_from_slice(notes.as_bytes());
    }
    man.render_version_section(&mut out)?;
    Ok(out)
}

/// Runs `man`.
pub fn run(args: &ManArgs) -> anyhow::Result<()> {
    let Some(dir) = &args.dir else {
        let page = man_page(args.command.as_deref())?;
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(&page)?;
        stdout.flush()?;
        return Ok(());
    };
    if dir.exists() && !dir.is_dir() {
        return Err(crate::error::usage(format!(
            "{} is not a directory; give --dir a directory (e.g. ~/.local/share/man/man1)",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let mut pages = vec![(None, "numascope.1".to_string())];
    for name in subcommand_names() {
        let file = format!("numascope-{name}.1");
        pages.push((Some(name), file));
    }
    for (name, file) in &pages {
        let text = man_page(name.as_deref())?;
        crate::run::output::write_atomic(&dir.join(file), &text)?;
    }
    super::ui::note(format!(
        "wrote {} man pages into {}",
        pages.len(),
        dir.display()
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_has_exit_status_examples_and_see_also() {
        let mut names: Vec<Option<String>> = vec![None];
        names.extend(subcommand_names().into_iter().map(Some));
        for name in names {
            let page = String::from_utf8(man_page(name.as_deref()).unwrap()).unwrap();
            for section in [".SH \"EXIT STATUS\"", ".SH EXAMPLES", ".SH \"SEE ALSO\""] {
                assert!(page.contains(section), "{name:?}: no {section}");
            }
            for r in ["numactl (8)", "lstopo (1)", "numastat (8)"] {
                assert!(page.contains(r), "{name:?}: no {r}");
            }
            if let Some(n) = &name {
                let roff = format!("numascope-{n}").replace('-', "\\-");
                assert!(page.contains(&roff), "{n}: {page}");
            }
        }
        let e = man_page(Some("warp")).unwrap_err();
        assert_eq!(crate::error::kind_of(&e), crate::error::Kind::Usage);
        assert!(e.to_string().contains("latency"), "{e}");
    }
}
