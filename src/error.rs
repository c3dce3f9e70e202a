//! How an error becomes what the user reads, in one place every layer may use. Engines, the
//! run and the worker team record a failed part as one line of text inside their results, and
//! the CLI prints a failed command the same way; keeping the flattening here (and not in
//! `cli`) lets them do so without importing the command line, which would tie every layer into
//! one import cycle. This module knows no other module of the crate but the sanitizer (an
//! error quotes values from files and arguments: their control characters are escaped and a
//! huge value cut, so no error line can drive the terminal) and prints nothing.
//!
//! It also says what *kind* of failure an error is ([`Kind`]), which decides the exit status
//! and the `kind` of the JSON error object. Code deep down marks an error with [`refused`]
//! (the machine said no), [`partial`] or [`differs`]; an unmarked error is an input error,
//! except that a permission denied anywhere in its chain is the environment refusing.

/// Joins an error chain into one line: "outer: inner: root cause". A cause whose text is
/// already part of an earlier one (a wrapper that repeats its source) is left out. Control
/// characters are shown escaped and an overlong line is cut ([`crate::sanitize::sentence`]).
pub fn one_sentence(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let s = cause.to_string();
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
    }
    crate::sanitize::sentence(&parts.join(": "))
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

/// What kind of failure ended a command; each kind has one exit status (the table in
/// README.md and `numascope --help`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The command line was refused: an unknown flag, flags that do not go together, a flag
    /// given where it does nothing.
    Usage,
    /// A value, a file or a process named by the user was refused, or the command failed on
    /// it: the default for an unmarked error.
    Input,
    /// The machine refused: no permission, binding or pinning against a snapshot root, a
    /// kernel feature missing.
    Environment,
    /// The work ended partial for a reason other than a stop signal (a part failed); what was
    /// measured has been written.
    Partial,
    /// `compare` found a difference beyond noise (not a failure: the answer is "different").
    Differs,
    /// `compare` or `fleet` could judge too little to answer (no figure, or fewer than the
    /// stated share): not "no difference". Exit 4.
    NotComparable,
}

impl Kind {
    /// The process exit status of this kind.
    pub fn exit_code(self) -> i32 {
        match self {
            Kind::Partial | Kind::Differs => 1,
            Kind::Usage | Kind::Input => 2,
            Kind::Environment => 3,
            Kind::NotComparable => 4,
        }
    }

    /// The name the JSON error object gives it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Usage => "usage",
            Kind::Input => "input",
            Kind::Environment => "environment",
            Kind::Partial => "partial",
            Kind::Differs => "differs",
            Kind::NotComparable => "not-comparable",
        }
    }
}

/// An error marked with its [`Kind`]: one sentence, shown as is.
#[derive(Debug)]
pub struct Marked {
    kind: Kind,
    message: String,
}

impl Marked {
    pub fn new(kind: Kind, message: impl Into<String>) -> Marked {
        Marked {
            kind,
            message: message.into(),
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }
}

impl std::fmt::Display for Marked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Marked {}

/// The machine refused (exit status 3): no permission, a snapshot root asked to bind or pin,
/// a kernel feature missing.
pub fn refused(message: impl Into<String>) -> anyhow::Error {
    Marked::new(Kind::Environment, message).into()
}

/// The command line was refused (exit status 2).
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    Marked::new(Kind::Usage, message).into()
}

/// The work ended partial for another reason than a stop signal (exit status 1).
pub fn partial(message: impl Into<String>) -> anyhow::Error {
    Marked::new(Kind::Partial, message).into()
}

/// `compare` found a difference beyond noise (exit status 1).
pub fn differs(message: impl Into<String>) -> anyhow::Error {
    Marked::new(Kind::Differs, message).into()
}

/// `compare`/`fleet` judged too little to answer (exit 4); the printed output already says why.
pub fn not_comparable(message: impl Into<String>) -> anyhow::Error {
    Marked::new(Kind::NotComparable, message).into()
}

/// The kind of a failure: the first marked error in its chain, else the environment when the
/// chain holds a permission denied (an `EPERM`/`EACCES` from a file or a system call), else
/// an input error.
pub fn kind_of(e: &anyhow::Error) -> Kind {
    if let Some(m) = e.chain().find_map(|c| c.downcast_ref::<Marked>()) {
        return m.kind;
    }
    let denied = e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::PermissionDenied)
    });
    if denied {
        Kind::Environment
    } else {
        Kind::Input
    }
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

    #[test]
    fn kinds_come_from_marks_then_permission_then_input() {
        let e = refused("cannot pin threads: the topology comes from a snapshot")
            .context("measuring latency");
        assert_eq!(kind_of(&e), Kind::Environment);
        assert_eq!(kind_of(&e).exit_code(), 3);
        assert_eq!(
            one_sentence(&e),
            "measuring latency: cannot pin threads: the topology comes from a snapshot"
        );
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let e = Err::<(), _>(denied).context("cannot write x").unwrap_err();
        assert_eq!(kind_of(&e), Kind::Environment);
        assert_eq!(
            kind_of(&anyhow::anyhow!("--size 0 is too small")),
            Kind::Input
        );
        assert_eq!(
            kind_of(&usage("--sysfs-root does nothing here")),
            Kind::Usage
        );
        assert_eq!(kind_of(&partial("latency failed")).exit_code(), 1);
        assert_eq!(kind_of(&differs("2 figures differ")).name(), "differs");
        assert_eq!(Kind::Input.exit_code(), 2);
    }
}
