//! No flag is silently ignored: every flag that does nothing
//! under the chosen mode, policy, variant or kernel is refused, exit 2, with one sentence
//! naming the flag and what applies instead. One table row per (flag, mode) pair; the pairs
//! clap itself refuses as conflicts are in a second table. The refusals come before anything
//! is measured; the small sizes keep a regression (a measurement after all) short, and the
//! timeout ends one that would not finish.

use std::time::Duration;

use assert_cmd::Command;

fn numascope(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("numascope")
        .unwrap()
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap()
}

/// (arguments, words the one-sentence refusal must contain: the ignored flag and the fix).
const REFUSED: &[(&[&str], &[&str])] = &[
    // latency: --locality is page mode's, --seed the shuffling modes', --matrix takes one of each.
    (
        &[
            "latency",
            "--mode",
            "random",
            "--locality",
            "8192",
            "--size",
            "64KiB",
        ],
        &["--locality", "--mode page"],
    ),
    (
        &[
            "latency",
            "--mode",
            "seq",
            "--locality",
            "8192",
            "--size",
            "64KiB",
        ],
        &["--locality", "--mode page"],
    ),
    (
        &["latency", "--mode", "seq", "--seed", "7", "--size", "64KiB"],
        &["--seed", "--mode random"],
    ),
    (
        &["latency", "--matrix", "--size", "1MiB,2MiB"],
        &["--matrix", "one --size"],
    ),
    (
        &["latency", "--matrix", "--size", "1MiB", "--chains", "1,2"],
        &["--matrix", "one --chains"],
    ),
    (
        &[
            "latency",
            "--matrix",
            "--size",
            "1MiB",
            "--page-size",
            "4k,thp",
        ],
        &["--matrix", "one --page-size"],
    ),
    (
        &["latency", "--cpus", "0-1", "--size", "64KiB"],
        &["--cpus 0-1", "give one CPU"],
    ),
    // loaded-latency: --mix replaces --kernel, even `read`; --matrix chooses every CPU and node.
    (
        &["loaded-latency", "--mix", "1:1", "--kernel", "read"],
        &["drop --kernel read or --mix"],
    ),
    (
        &["loaded-latency", "--mix", "2:1", "--kernel", "write-nt"],
        &["drop --kernel write-nt or --mix"],
    ),
    (
        &["loaded-latency", "--matrix", "--cpus", "0"],
        &["--matrix", "drop --cpus"],
    ),
    (
        &["loaded-latency", "--matrix", "--load-cpus", "1"],
        &["--matrix", "drop --load-cpus"],
    ),
    (
        &["loaded-latency", "--matrix", "--cpu-nodes", "0"],
        &["--matrix", "drop --cpu-nodes"],
    ),
    (
        &["loaded-latency", "--matrix", "--mem-nodes", "0"],
        &["--matrix", "drop --mem-nodes"],
    ),
    // --load-mem-nodes now applies to the matrix (every cell's load buffers); --load-nodes
    // and --load-cpus both choose the load CPUs; a mix list names each mix once.
    (
        &["loaded-latency", "--load-nodes", "0", "--load-cpus", "1"],
        &["--load-nodes", "drop --load-cpus 1"],
    ),
    (
        &[
            "loaded-latency",
            "--matrix",
            "--load-nodes",
            "0",
            "--load-cpus",
            "1",
        ],
        &["--matrix", "drop --load-cpus", "--load-nodes"],
    ),
    (
        &["loaded-latency", "--mix", "2:1,2:1"],
        &["--mix `2:1,2:1`", "twice"],
    ),
    (
        &["loaded-latency", "--mix", "all", "--kernel", "write"],
        &["drop --kernel write or --mix"],
    ),
    (
        &["loaded-latency", "--cpus", "0-1"],
        &["--cpus 0-1", "--load-cpus"],
    ),
    // placement: --weights is weighted's, --mem-nodes is for the policies that take nodes.
    (
        &[
            "placement",
            "--policy",
            "bind",
            "--weights",
            "0:3",
            "--mem-nodes",
            "0",
        ],
        &["--weights", "--policy weighted"],
    ),
    (
        &[
            "placement",
            "--policy",
            "interleave",
            "--weights",
            "0:3",
            "--mem-nodes",
            "0",
        ],
        &["--weights", "--policy weighted"],
    ),
    (
        &["placement", "--weights", "0:3"],
        &["--weights", "--policy first-touch"],
    ),
    (
        &["placement", "--policy", "first-touch", "--nodes", "0"],
        &["--mem-nodes", "first-touch"],
    ),
    (
        &[
            "placement",
            "--policy",
            "weighted",
            "--weights",
            "0:3",
            "--mem-nodes",
            "0",
        ],
        &["--mem-nodes", "--weights"],
    ),
    // bandwidth: the CPU order flags, the placement's nodes and weights, --list-kernels.
    (
        &["bandwidth", "--cpus", "0", "--spread", "--size", "1MiB"],
        &["--spread", "--cpus"],
    ),
    (
        &["bandwidth", "--cpus", "0", "--packed", "--size", "1MiB"],
        &["--packed", "--cpus"],
    ),
    (
        &["bandwidth", "--matrix", "--spread"],
        &["--matrix", "drop --spread"],
    ),
    (
        &["bandwidth", "--scaling", "--packed"],
        &["--scaling", "drop --packed"],
    ),
    (
        &["bandwidth", "--placement", "interleave", "--weights", "0:3"],
        &["--weights", "--placement weighted"],
    ),
    (
        &["bandwidth", "--placement", "local", "--weights", "0:3"],
        &["--weights", "--placement weighted"],
    ),
    (
        &[
            "bandwidth",
            "--placement",
            "node",
            "--weights",
            "0:3",
            "--mem-nodes",
            "0",
        ],
        &["--weights", "--placement weighted"],
    ),
    (
        &["bandwidth", "--weights", "0:3", "--mem-nodes", "0"],
        &["--mem-nodes", "--weights"],
    ),
    (
        &["bandwidth", "--placement", "local", "--mem-nodes", "0"],
        &["--mem-nodes", "--placement node"],
    ),
    (
        &["bandwidth", "--matrix", "--placement", "interleave"],
        &["--matrix", "--placement"],
    ),
    (
        &["bandwidth", "--matrix", "--cpus", "0"],
        &["--matrix", "--cpus"],
    ),
    (
        &["bandwidth", "--scaling", "--threads", "1"],
        &["--scaling", "--threads"],
    ),
    (
        &["bandwidth", "--list-kernels", "--kernel", "copy"],
        &["--list-kernels", "--kernel"],
    ),
    (
        &["bandwidth", "--list-kernels", "--size", "1GiB"],
        &["--list-kernels", "--size"],
    ),
    // --csv and --html write the measured tables; the kernel listing measures none.
    (
        &["bandwidth", "--list-kernels", "--csv", "/nonexistent/dir"],
        &["--list-kernels", "drop --csv"],
    ),
    (
        &[
            "bandwidth",
            "--list-kernels",
            "--html",
            "/nonexistent/x.html",
        ],
        &["--list-kernels", "drop --html"],
    ),
    // bandwidth --stream-matrix: flags it has no use for, kernels without a source and a
    // destination stream, a list of sizes.
    (
        &["bandwidth", "--stream-matrix", "--cpus", "0"],
        &["--cpus", "--stream-matrix", "--cpu-nodes"],
    ),
    (
        &["bandwidth", "--stream-matrix", "--placement", "local"],
        &["--placement", "--mem-nodes"],
    ),
    (
        &["bandwidth", "--stream-matrix", "--spread"],
        &["--spread", "--stream-matrix"],
    ),
    (
        &["bandwidth", "--stream-matrix", "--repetitions", "3"],
        &["--repetitions", "--rounds"],
    ),
    (
        &["bandwidth", "--stream-matrix", "--kernel", "read"],
        &["kernel read", "copy"],
    ),
    (
        &["bandwidth", "--stream-matrix", "--size", "1MiB,2MiB"],
        &["--stream-matrix", "one --size"],
    ),
    // bandwidth --stride: only the sequential kernels with normal stores, never 0, never
    // longer than one array (NUMA-STREAM's strided kernels).
    (
        &[
            "bandwidth",
            "--kernel",
            "random-read",
            "--stride",
            "8",
            "--size",
            "1MiB",
        ],
        &["--stride", "random-read", "drop --stride"],
    ),
    (
        &[
            "bandwidth",
            "--kernel",
            "copy-nt",
            "--stride",
            "8",
            "--size",
            "1MiB",
        ],
        &["--stride", "copy-nt", "drop --stride"],
    ),
    (
        &[
            "bandwidth",
            "--kernel",
            "read-prefetch",
            "--stride",
            "8",
            "--size",
            "1MiB",
        ],
        &["--stride", "read-prefetch", "drop --stride"],
    ),
    (
        &[
            "bandwidth",
            "--kernel",
            "read-strided",
            "--stride",
            "16",
            "--size",
            "1MiB",
        ],
        &["--stride", "read-strided", "read --stride"],
    ),
    (
        &[
            "bandwidth",
            "--kernel",
            "triad",
            "--stride",
            "0",
            "--size",
            "1MiB",
        ],
        &["--stride 0", "at least 1"],
    ),
    (
        &[
            "bandwidth",
            "--kernel",
            "triad",
            "--stride",
            "every",
            "--size",
            "1MiB",
        ],
        &["--stride `every`", "`line`"],
    ),
    (
        &[
            "bandwidth",
            "--kernel",
            "copy",
            "--stride",
            "100000",
            "--size",
            "64KiB",
        ],
        &["--stride 100000", "at most 4096", "larger --size"],
    ),
    (
        &["bandwidth", "--list-kernels", "--stride", "8"],
        &["--list-kernels", "--stride"],
    ),
    // bandwidth --peak chooses the kernel, the CPUs, their order and the memory itself.
    (
        &["bandwidth", "--peak", "--kernel", "copy"],
        &["--kernel", "--mix"],
    ),
    (
        &["bandwidth", "--peak", "--threads", "1"],
        &["--threads", "1, half and all"],
    ),
    (
        &["bandwidth", "--peak", "--cpus", "0"],
        &["--cpus", "--cpu-nodes"],
    ),
    (&["bandwidth", "--peak", "--spread"], &["--spread", "drop"]),
    (&["bandwidth", "--peak", "--packed"], &["--packed", "drop"]),
    (
        &["bandwidth", "--peak", "--placement", "interleave"],
        &["--placement", "its own node"],
    ),
    (
        &["bandwidth", "--peak", "--mem-nodes", "0"],
        &["--mem-nodes", "its own node"],
    ),
    (
        &["bandwidth", "--peak", "--weights", "0:3"],
        &["--weights", "its own node"],
    ),
    (
        &["bandwidth", "--peak", "--size", "1GiB,2GiB"],
        &["--peak", "one --size"],
    ),
    (
        &["bandwidth", "--peak", "--mix", "read,copy"],
        &["--mix", "triad-like"],
    ),
    (&["bandwidth", "--mix", "2:1"], &["--mix", "add --peak"]),
    (
        &["bandwidth", "--list-kernels", "--peak"],
        &["--list-kernels", "--peak"],
    ),
    // run: a knob whose parts the run leaves out, and output flags on a dry run.
    (
        &["run", "--dry-run", "--only", "c2c", "--kernel", "copy"],
        &["--kernel", "bandwidth"],
    ),
    (
        &["run", "--dry-run", "--only", "bandwidth", "--cpus", "0,1"],
        &["--cpus", "c2c"],
    ),
    (
        &["run", "--dry-run", "--only", "c2c", "--page-size", "thp"],
        &["--page-size", "latency"],
    ),
    (
        &[
            "run",
            "--dry-run",
            "--skip",
            "latency-matrix,bandwidth-matrix",
            "--mem-nodes",
            "0",
        ],
        &["--mem-nodes", "latency-matrix"],
    ),
    (
        &["run", "--dry-run", "--output", "x"],
        &["--dry-run", "--output"],
    ),
    (&["run", "--dry-run", "--force"], &["--dry-run", "--force"]),
];

/// Pairs clap refuses as conflicts (its own usage message, exit 2).
const CONFLICTS: &[&[&str]] = &[
    &["latency", "--size", "1MiB", "--sweep"],
    &["latency", "--matrix", "--sweep"],
    &["latency", "--matrix", "--mem-nodes", "0"],
    &["latency", "--matrix", "--cpu-nodes", "0"],
    &["latency", "--cpus", "0", "--cpu-nodes", "0"],
    &["bandwidth", "--cpus", "0", "--cpu-nodes", "0"],
    &["bandwidth", "--matrix", "--scaling"],
    &["bandwidth", "--packed", "--spread"],
    &["bandwidth", "--stream-matrix", "--matrix"],
    &["bandwidth", "--stream-matrix", "--scaling"],
    &["bandwidth", "--stream-matrix", "--sweep"],
    &["bandwidth", "--peak", "--matrix"],
    &["bandwidth", "--peak", "--scaling"],
    &["bandwidth", "--peak", "--sweep"],
    &["bandwidth", "--peak", "--stream-matrix"],
    &["bandwidth", "--peak", "--stride", "8"],
    &["bandwidth", "--stream-matrix", "--stride", "8"],
    &["run", "--quick", "--thorough"],
    &["topo", "--graph", "--json"],
];

#[test]
fn every_inapplicable_flag_is_refused_in_one_sentence() {
    for (args, words) in REFUSED {
        let out = numascope(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("numascope: error: "), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        for w in *words {
            assert!(err.contains(w), "{args:?}: `{w}` not in {err}");
        }
        assert!(out.stdout.is_empty(), "{args:?} printed a result");
    }
}

#[test]
fn conflicting_flags_are_refused_by_the_parser() {
    for args in CONFLICTS {
        let out = numascope(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("cannot be used with"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed a result");
    }
}

#[test]
fn old_flag_names_still_work_as_aliases() {
    // Each old name reaches the same check as the new one: the refusal names the new flag.
    let cases: &[(&[&str], &str)] = &[
        (&["latency", "--cpu", "0-1"], "--cpus 0-1"),
        (
            &["latency", "--cpu-node", "0-1", "--size", "64KiB"],
            "--cpu-nodes",
        ),
        (
            &["latency", "--mem-node", "0-1", "--size", "64KiB"],
            "--mem-nodes",
        ),
        (&["loaded-latency", "--chaser-cpu", "0-1"], "--cpus 0-1"),
        (
            &["loaded-latency", "--initiator-node", "0-1"],
            "--cpu-nodes",
        ),
        (
            &["loaded-latency", "--load-mem-node", "0-1"],
            "--load-mem-nodes",
        ),
        (&["c2c", "--line-node", "0-1"], "--mem-nodes"),
        (&["placement", "--cpu", "0-1"], "--cpus 0-1"),
    ];
    for (args, word) in cases {
        let out = numascope(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(word), "{args:?}: `{word}` not in {err}");
    }
}
