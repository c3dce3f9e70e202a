//! The failures of `numascope app` with the exit status each one means, so the command line
//! can tell "your input" (2), "this machine refuses" (3) and "your program failed" (1) apart
//! without parsing sentences. The message is the one sentence the user reads.

/// Exit status of a usage or input error (an empty command, a program that is not found, a
/// candidate that does not parse or names a node that does not exist).
pub const EXIT_INPUT: i32 = 2;
/// Exit status when this machine refuses a candidate (a memoryless node, weighted interleave
/// on an old kernel, a snapshot root) or the program cannot be started here.
pub const EXIT_ENVIRONMENT: i32 = 3;
/// Exit status when the program failed: a non-zero exit (without `--ignore-failure`), a
/// signal, or a run longer than `--time-limit`.
pub const EXIT_CHILD: i32 = 1;

/// A failure with its exit status.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    pub status: i32,
    pub message: String,
}

impl AppError {
    pub fn input(message: impl Into<String>) -> AppError {
        AppError {
            status: EXIT_INPUT,
            message: message.into(),
        }
    }

    pub fn environment(message: impl Into<String>) -> AppError {
        AppError {
            status: EXIT_ENVIRONMENT,
            message: message.into(),
        }
    }

    pub fn child(message: impl Into<String>) -> AppError {
        AppError {
            status: EXIT_CHILD,
            message: message.into(),
        }
    }
}

/// The exit status an error asks for: an [`AppError`]'s own, else 2 (the command line's
/// default for a failed command).
pub fn exit_status_of(e: &anyhow::Error) -> i32 {
    e.downcast_ref::<AppError>()
        .map_or(EXIT_INPUT, |a| a.status)
}
