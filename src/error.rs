//! How an error becomes what the user reads, in one place every layer may use. Engines, the
//! run and the worker team record a failed part as one line of text inside their results, and
//! the CLI prints a failed command the same way; keeping the flattening here (and not in
//! `cli`) lets them do so without importing the command line, which would tie every layer into
//! one import cycle. This module knows no other module of the crate and prints nothing.

/// Joins an error chain into one line: "outer: inner: root cause". A cause whose text is
/// already part of an earlier one (a wrapper that repeats its source) is left out.
pub fn one_sentence(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let s = cause.to_string();
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
    }
    parts.join(": ")
}

/// True when the error chain holds a broken pipe (stdout closed early, as by `| head`): the
/// reader left, which is not a failure of numascope.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context as _;

    #[test]
    fn chain_is_joined_and_repeats_dropped() {
        let e = anyhow::anyhow!("disk full")
            .context("cannot write out.json")
            .context("saving the run");
        assert_eq!(
            one_sentence(&e),
            "saving the run: cannot write out.json: disk full"
        );
        let io = std::io::Error::other("no such node");
        let e = Err::<(), _>(io)
            .context("reading node 3: no such node")
            .unwrap_err();
        assert_eq!(one_sentence(&e), "reading node 3: no such node");
    }

    #[test]
    fn broken_pipe_is_recognised_through_context() {
        let io = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let e = Err::<(), _>(io).context("printing the table").unwrap_err();
        assert!(is_broken_pipe(&e));
        assert!(!is_broken_pipe(&anyhow::anyhow!("broken pipe")));
        let json = serde_json::Error::io(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert!(is_broken_pipe(&anyhow::Error::new(json)));
    }
}
