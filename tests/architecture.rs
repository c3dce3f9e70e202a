//! The layer rules of docs/ARCHITECTURE.md, checked against the source so a break fails the
//! suite instead of waiting for a review. The test reads every `.rs` file under `src/`, strips
//! comments and string literals, and collects which top-level module of `src/` each file
//! reaches: `crate::x` paths (also inside `use crate::{x, y::z}` groups and `$crate::x` in
//! macros) and `super::` chains long enough to climb out to the crate root; shorter `super::`
//! and `self::` paths stay inside the module and count as internal. Code under `#[cfg(test)]`
//! (unit-test modules, test-only helpers such as `testutil`) may reach anything for its
//! fixtures and is left out of the layer and cycle rules, but not of the `unsafe`/`libc` rule.
//!
//! Each rule is one row of a table below, and each `rule_*` test checks one rule, so a failure
//! names the rule, the file and the line. The `checker_*` tests at the end feed the same
//! checker small in-memory trees that break each rule, so every rule can be seen to fail
//! without a throwaway change to `src/`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::path::Path;

// ---------------------------------------------------------------------------------------------
// The rules
// ---------------------------------------------------------------------------------------------

/// Whose imports a rule constrains.
enum Subject {
    /// One top-level module of `src/` (a file `src/x.rs` or a folder `src/x/`).
    Module(&'static str),
    /// Every top-level module except this one (the binary, `src/main.rs`, is never a subject).
    AllBut(&'static str),
}

/// What the subject may import besides itself.
enum May {
    /// Only these top-level modules.
    Only(&'static [&'static str]),
    /// Anything but these.
    Not(&'static [&'static str]),
}

/// One row of the layer table.
struct LayerRule {
    id: &'static str,
    subject: Subject,
    may: May,
    /// The rule in words, as a failure prints it.
    text: &'static str,
}

/// Who may import whom. Adjust here when a layer moves (e.g. if the topology model stays in
/// `topology/`, rule (b) would list `"topology"` too).
const LAYERS: &[LayerRule] = &[
    LayerRule {
        id: "a",
        subject: Subject::Module("results"),
        may: May::Only(&["stats", "sanitize"]),
        text:
            "src/results/ (the output contract, the floor) imports nothing of ours but crate::stats and crate::sanitize",
    },
    LayerRule {
        id: "b",
        subject: Subject::Module("render"),
        may: May::Only(&["results", "stats", "sanitize"]),
        text: "src/render/ reads finished results only: crate::results, crate::stats, crate::sanitize and itself",
    },
    LayerRule {
        id: "f",
        subject: Subject::Module("error"),
        may: May::Only(&["sanitize"]),
        text: "src/error.rs is usable from every layer: it imports nothing of ours but crate::sanitize",
    },
    LayerRule {
        id: "g",
        subject: Subject::Module("sanitize"),
        may: May::Only(&[]),
        text: "src/sanitize.rs (the one sanitizer of foreign text) is under every layer: it imports nothing of ours",
    },
    LayerRule {
        id: "k",
        subject: Subject::Module("schedule"),
        may: May::Only(&["stats"]),
        text: "src/schedule/ (rotation, minimum samples, round plans, extra batches) is pure planning on the floor: it imports nothing of ours but crate::stats",
    },
    LayerRule {
        id: "c",
        subject: Subject::AllBut("cli"),
        may: May::Not(&["cli"]),
        text: "nothing but src/main.rs and src/cli/ imports crate::cli",
    },
];

/// Rule (d): where `unsafe` (blocks, functions, impls) and `libc` may appear. A path ending
/// in `/` is a folder. Everything else calls the safe wrappers in `sys/`.
const UNSAFE_HOMES: &[&str] = &[
    "src/sys/",               // syscalls, mappings, CPU instructions behind safe wrappers
    "src/bandwidth/kernels/", // the timed SIMD and non-temporal loops
    "src/latency/walk.rs",    // the pointer-chase loop
    "src/loaded/kernel.rs",   // the load threads' volatile and streaming accesses
];
const RULE_D: &str = "`unsafe` and `libc` appear only in src/sys/ and the measurement kernels \
                      (src/bandwidth/kernels/, src/latency/walk.rs, src/loaded/kernel.rs)";

/// Rule (e).
const RULE_E: &str = "no import cycle between top-level modules of src/";

/// Rule (h): the modules that may stay loose files at the root of `src/` (every other
/// concept is a folder), each with the one line that says why it is cross-cutting.
const LOOSE_FILES: &[(&str, &str)] = &[
    (
        "lib.rs",
        "the library's root: declares the top-level modules",
    ),
    (
        "main.rs",
        "the binary: calls cli::main() and exits with its status",
    ),
    (
        "error.rs",
        "the error types every layer returns, importing only the sanitizer",
    ),
    (
        "sanitize.rs",
        "the one sanitizer of foreign text, under every layer",
    ),
    (
        "testutil.rs",
        "fixtures for unit tests across modules, compiled only under cfg(test)",
    ),
    (
        "clock.rs",
        "timer resolution, TSC and core clock: used by every experiment's timing",
    ),
    (
        "experiment.rs",
        "the one entry-point shape every experiment shares",
    ),
    (
        "launcher.rs",
        "srun/mpirun/pdsh ranks, output templates and locks, used by cli and run",
    ),
    (
        "numactl.rs",
        "the installed numactl and the line it accepts, used by app and run",
    ),
    (
        "environment.rs",
        "moved into environment/ by the house moves",
    ),
    (
        "environment_platform.rs",
        "moved into environment/ by the house moves",
    ),
    ("counters.rs", "moved into traffic/ by the house moves"),
    ("counters_perf.rs", "moved into traffic/ by the house moves"),
    ("traffic.rs", "moved into traffic/ by the house moves"),
    (
        "results_check.rs",
        "moved into results_file/ by the house moves",
    ),
    (
        "results_file.rs",
        "moved into results_file/ by the house moves",
    ),
];
const RULE_H: &str =
    "no loose module at the root of src/ beyond the named list; a concept gets a folder";

/// Rule (i): lines of code (neither blank nor a comment) a file may have before its first
/// `#[cfg(test)]`.
const MAX_FILE_CODE_LINES: usize = 400;
const RULE_I: &str = "no file in src/ over 400 lines of code before its tests; split it by concept";

/// Rule (j): lines a function may span, its signature and closing brace included.
const MAX_FN_LINES: usize = 80;
const RULE_J: &str = "no function in src/ over 80 lines; pass a struct, name the steps";

// ---------------------------------------------------------------------------------------------
// The checks on the real tree
// ---------------------------------------------------------------------------------------------

fn real_tree() -> Tree {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect_rs(&src, &src, &mut files);
    let tree = Tree::new(files);
    // Guard against a checker that reads nothing and so passes vacuously.
    assert!(
        tree.files.len() > 50,
        "read only {} files",
        tree.files.len()
    );
    assert!(tree.modules.contains("cli") && tree.modules.contains("results"));
    assert!(
        tree.edges().contains_key(&("cli".into(), "sysroot".into())),
        "the checker must see cli -> sysroot"
    );
    tree
}

fn real_files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect_rs(&src, &src, &mut files);
    assert!(files.len() > 50, "read only {} files", files.len());
    files
}

fn collect_rs(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_rs(root, &p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push((format!("src/{rel}"), std::fs::read_to_string(&p).unwrap()));
        }
    }
}

fn assert_none(rule: &str, found: Vec<Violation>) {
    let text: Vec<String> = found.iter().map(|v| v.to_string()).collect();
    assert!(
        found.is_empty(),
        "{} break(s) of rule ({rule}):\n{}",
        found.len(),
        text.join("\n")
    );
}

fn layer(id: &str) -> &'static LayerRule {
    LAYERS.iter().find(|r| r.id == id).unwrap()
}

#[test]
fn rule_a_results_is_the_floor() {
    assert_none("a", real_tree().layer_breaks(layer("a")));
}

#[test]
fn rule_b_render_reads_results_only() {
    assert_none("b", real_tree().layer_breaks(layer("b")));
}

#[test]
fn rule_k_schedule_is_pure_planning() {
    assert_none("k", real_tree().layer_breaks(layer("k")));
}

#[test]
fn rule_c_nothing_below_main_imports_cli() {
    assert_none("c", real_tree().layer_breaks(layer("c")));
}

#[test]
fn rule_f_error_imports_only_the_sanitizer() {
    assert_none("f", real_tree().layer_breaks(layer("f")));
}

#[test]
fn rule_g_the_sanitizer_imports_nothing() {
    assert_none("g", real_tree().layer_breaks(layer("g")));
}

#[test]
fn rule_d_unsafe_and_libc_only_in_sys_and_kernels() {
    assert_none("d", real_tree().unsafe_breaks());
}

#[test]
fn rule_e_no_cycle_between_top_level_modules() {
    assert_none("e", real_tree().cycles());
}

/// The cycle through the command line (cli -> run -> cli, threads -> cli) the house once had,
/// checked on its own so its failure names it: no cycle may pass through `cli`.
#[test]
fn rule_e_no_cycle_through_cli() {
    let through_cli: Vec<Violation> = real_tree()
        .cycles()
        .into_iter()
        .filter(|v| v.message.contains("cli ->"))
        .collect();
    assert_none("e", through_cli);
}

#[test]
fn rule_h_no_loose_modules_beyond_the_named_list() {
    assert_none("h", loose_breaks(&real_files(), LOOSE_FILES));
}

#[test]
fn rule_i_no_file_over_400_lines_of_code() {
    assert_none("i", size_breaks(&real_files(), MAX_FILE_CODE_LINES));
}

#[test]
fn rule_j_no_function_over_80_lines() {
    assert_none("j", fn_len_breaks(&real_files(), MAX_FN_LINES));
}

/// docs/ARCHITECTURE.md's folder index names every folder of `src/` (snapshot folders aside)
/// and no folder that is gone.
#[test]
fn every_folder_is_in_the_index() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let listed: BTreeSet<String> = doc
        .lines()
        .filter_map(|l| {
            l.strip_prefix("| `")?
                .split_once("/` |")
                .map(|(d, _)| d.to_string())
        })
        .collect();
    let mut present = BTreeSet::new();
    let mut todo = vec![root.join("src")];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() && path.file_name().is_some_and(|n| n != "snapshots") {
                let rel = path.strip_prefix(root.join("src")).unwrap();
                present.insert(rel.to_string_lossy().into_owned());
                todo.push(path);
            }
        }
    }
    let missing: Vec<&String> = present.difference(&listed).collect();
    let gone: Vec<&String> = listed.difference(&present).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "docs/ARCHITECTURE.md's folder index lacks {missing:?} and names folders that are gone {gone:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The checker
// ---------------------------------------------------------------------------------------------

/// One break of one rule, located.
#[derive(Debug)]
struct Violation {
    rule: &'static str,
    text: &'static str,
    file: String,
    line: usize,
    message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: rule ({}) {}: {}",
            self.file, self.line, self.rule, self.text, self.message
        )
    }
}

/// A reference from one file to a top-level module.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Ref {
    module: String,
    line: usize,
    test_only: bool,
}

/// One source file, lexed.
struct File {
    path: String,
    /// Its top-level module; `None` for the crate roots `src/lib.rs` and `src/main.rs`.
    module: Option<String>,
    refs: Vec<Ref>,
    /// Lines holding `unsafe` or `libc` in code (test code included), with the word found.
    unsafe_uses: Vec<(usize, &'static str)>,
    /// Test-only module declarations (`#[cfg(test)] mod x;`), as module paths below `src/`.
    test_mods: Vec<Vec<String>>,
    /// `#![cfg(test)]` at the top: the whole file is test code.
    all_test: bool,
}

/// All files, and the top-level modules they form.
struct Tree {
    files: Vec<File>,
    modules: BTreeSet<String>,
}

impl Tree {
    /// `files` are (path starting with `src/`, text).
    fn new(mut files: Vec<(String, String)>) -> Tree {
        files.sort();
        let mut parsed: Vec<File> = files.iter().map(|(p, t)| File::parse(p, t)).collect();
        // Files of test-only modules (declared under #[cfg(test)]) are test code throughout.
        let test_mods: Vec<Vec<String>> = parsed.iter().flat_map(|f| f.test_mods.clone()).collect();
        for f in &mut parsed {
            let path = module_path(&f.path);
            if test_mods.iter().any(|m| path.starts_with(m)) {
                f.all_test = true;
            }
            if f.all_test {
                for r in &mut f.refs {
                    r.test_only = true;
                }
            }
        }
        let modules = parsed
            .iter()
            .filter(|f| !f.all_test)
            .filter_map(|f| f.module.clone())
            .collect();
        Tree {
            files: parsed,
            modules,
        }
    }

    /// Non-test references from a module to another top-level module of the tree.
    fn cross_refs(&self) -> impl Iterator<Item = (&File, &String, &Ref)> {
        self.files
            .iter()
            .filter_map(|f| Some((f, f.module.as_ref()?)))
            .flat_map(move |(f, m)| {
                f.refs
                    .iter()
                    .filter(move |r| {
                        !r.test_only && &r.module != m && self.modules.contains(&r.module)
                    })
                    .map(move |r| (f, m, r))
            })
    }

    fn layer_breaks(&self, rule: &'static LayerRule) -> Vec<Violation> {
        let mut out = Vec::new();
        for (f, from, r) in self.cross_refs() {
            let subject = match rule.subject {
                Subject::Module(m) => from == m,
                Subject::AllBut(m) => from != m,
            };
            let allowed = match rule.may {
                May::Only(list) => list.contains(&r.module.as_str()),
                May::Not(list) => !list.contains(&r.module.as_str()),
            };
            if subject && !allowed {
                out.push(Violation {
                    rule: rule.id,
                    text: rule.text,
                    file: f.path.clone(),
                    line: r.line,
                    message: format!("{from} imports crate::{}", r.module),
                });
            }
        }
        out
    }

    fn unsafe_breaks(&self) -> Vec<Violation> {
        let mut out = Vec::new();
        for f in &self.files {
            let home = UNSAFE_HOMES.iter().any(|h| {
                if h.ends_with('/') {
                    f.path.starts_with(h)
                } else {
                    f.path == *h
                }
            });
            if home {
                continue;
            }
            for &(line, word) in &f.unsafe_uses {
                out.push(Violation {
                    rule: "d",
                    text: RULE_D,
                    file: f.path.clone(),
                    line,
                    message: format!(
                        "`{word}` outside sys/ and the kernels; call a safe wrapper in src/sys/"
                    ),
                });
            }
        }
        out
    }

    /// Module -> module edges with the first place that creates each.
    fn edges(&self) -> BTreeMap<(String, String), (String, usize)> {
        let mut e = BTreeMap::new();
        for (f, from, r) in self.cross_refs() {
            e.entry((from.clone(), r.module.clone()))
                .or_insert((f.path.clone(), r.line));
        }
        e
    }

    /// One violation per strongly connected group of modules: its members, the shortest
    /// cycle through its first member, and every edge inside the group (what could be cut).
    fn cycles(&self) -> Vec<Violation> {
        let edges = self.edges();
        let nodes: Vec<&String> = self.modules.iter().collect();
        let idx = |m: &str| nodes.iter().position(|n| n.as_str() == m).unwrap();
        let n = nodes.len();
        let mut reach = vec![vec![false; n]; n];
        for (a, b) in edges.keys() {
            reach[idx(a)][idx(b)] = true;
        }
        // Transitive closure (Warshall): reach[i][j] once i reaches j through any path.
        for k in 0..n {
            let via = reach[k].clone();
            for row in reach.iter_mut().filter(|row| row[k]) {
                for (r, v) in row.iter_mut().zip(&via) {
                    *r |= *v;
                }
            }
        }
        let mut seen = vec![false; n];
        let mut out = Vec::new();
        for start in 0..n {
            if seen[start] || !reach[start][start] {
                continue;
            }
            let group: Vec<usize> = (0..n)
                .filter(|&j| reach[start][j] && reach[j][start])
                .collect();
            for &j in &group {
                seen[j] = true;
            }
            let inside = |a: &str, b: &str| group.contains(&idx(a)) && group.contains(&idx(b));
            let path = shortest_cycle(nodes[start], &edges, &inside);
            let (file, line) = edges[&(path[0].clone(), path[1].clone())].clone();
            let steps: Vec<String> = path
                .windows(2)
                .map(|w| {
                    let (f, l) = &edges[&(w[0].clone(), w[1].clone())];
                    format!("{} -> {} at {f}:{l}", w[0], w[1])
                })
                .collect();
            let cut: Vec<String> = edges
                .iter()
                .filter(|((a, b), _)| inside(a, b))
                .map(|((a, b), (f, l))| format!("{a} -> {b} ({f}:{l})"))
                .collect();
            let members: Vec<&str> = group.iter().map(|&j| nodes[j].as_str()).collect();
            out.push(Violation {
                rule: "e",
                text: RULE_E,
                file,
                line,
                message: format!(
                    "cycle {} ({}); the modules {{{}}} reach each other through: {}",
                    path.join(" -> "),
                    steps.join("; "),
                    members.join(", "),
                    cut.join(", ")
                ),
            });
        }
        out
    }
}

/// Breadth-first search from `start` back to itself over the edges `inside` allows.
fn shortest_cycle(
    start: &str,
    edges: &BTreeMap<(String, String), (String, usize)>,
    inside: &dyn Fn(&str, &str) -> bool,
) -> Vec<String> {
    let mut prev: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = VecDeque::from([start.to_string()]);
    while let Some(a) = queue.pop_front() {
        for (x, b) in edges.keys().filter(|(x, b)| x == &a && inside(x, b)) {
            if b == start {
                let mut path = vec![start.to_string(), x.clone()];
                let mut cur = x.clone();
                while cur != start {
                    cur = prev[&cur].clone();
                    path.push(cur.clone());
                }
                path.reverse();
                return path;
            }
            if !prev.contains_key(b) && b != start {
                prev.insert(b.clone(), a.clone());
                queue.push_back(b.clone());
            }
        }
    }
    unreachable!("{start} is on a cycle")
}

/// `src/a/b.rs` -> [a, b]; `src/a/mod.rs` -> [a]; `src/lib.rs` and `src/main.rs` -> [].
fn module_path(path: &str) -> Vec<String> {
    let rel = path.strip_prefix("src/").unwrap_or(path);
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
        parts.push(stem.to_string());
    }
    parts
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Punct(char),
    /// `::`
    Path,
}

impl File {
    fn parse(path: &str, text: &str) -> File {
        let toks = lex(text);
        let mpath = module_path(path);
        let module = if path == "src/main.rs" {
            None
        } else {
            mpath.first().cloned()
        };
        let test = test_ranges(&toks);
        let all_test = has_inner_cfg_test(&toks);
        let word = |i: usize| match toks.get(i) {
            Some((Tok::Word(w), _)) => Some(w.as_str()),
            _ => None,
        };
        let is = |i: usize, t: Tok| toks.get(i).is_some_and(|(x, _)| *x == t);

        let mut refs = Vec::new();
        let mut unsafe_uses = Vec::new();
        let mut test_mods = Vec::new();
        let mut depth = 0usize;
        let mut inline_mods: Vec<usize> = Vec::new();
        let file_depth = mpath.len();
        for i in 0..toks.len() {
            let line = toks[i].1;
            match &toks[i].0 {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    if inline_mods.last() == Some(&depth) {
                        inline_mods.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            match word(i) {
                Some("unsafe") => unsafe_uses.push((line, "unsafe")),
                Some("libc") => unsafe_uses.push((line, "libc")),
                Some("mod") => {
                    if let Some(name) = word(i + 1) {
                        if is(i + 2, Tok::Punct('{')) {
                            inline_mods.push(depth + 1);
                        } else if is(i + 2, Tok::Punct(';')) && test[i] {
                            // `mod x;` in src/a.rs, src/a/mod.rs or (for a = root) src/lib.rs
                            // names the module a::x.
                            let mut m = mpath.clone();
                            m.push(name.to_string());
                            test_mods.push(m);
                        }
                    }
                }
                Some("crate") if is(i + 1, Tok::Path) && !is(i.wrapping_sub(1), Tok::Path) => {
                    for (m, l) in tail_modules(&toks, i + 2) {
                        refs.push(Ref {
                            module: m,
                            line: l,
                            test_only: test[i],
                        });
                    }
                }
                Some("super") if !is(i.wrapping_sub(1), Tok::Path) && file_depth > 0 => {
                    let mut k = 0;
                    let mut p = i;
                    while word(p) == Some("super") && is(p + 1, Tok::Path) {
                        k += 1;
                        p += 2;
                    }
                    // Climbing as many levels as the code is deep reaches the crate root.
                    if k == file_depth + inline_mods.len() {
                        for (m, l) in tail_modules(&toks, p) {
                            refs.push(Ref {
                                module: m,
                                line: l,
                                test_only: test[i],
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        File {
            path: path.to_string(),
            module,
            refs,
            unsafe_uses,
            test_mods,
            all_test,
        }
    }
}

/// `#![cfg(test)]`: the whole file is test code.
fn has_inner_cfg_test(toks: &[(Tok, usize)]) -> bool {
    let want = [
        Tok::Punct('#'),
        Tok::Punct('!'),
        Tok::Punct('['),
        Tok::Word("cfg".into()),
        Tok::Punct('('),
        Tok::Word("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    toks.windows(want.len())
        .any(|w| w.iter().map(|(t, _)| t).eq(want.iter()))
}

/// The first segment after `crate::` (or a climbing `super::` chain) at `p`: one module, or
/// each first segment of a `{a, b::c}` group.
fn tail_modules(toks: &[(Tok, usize)], p: usize) -> Vec<(String, usize)> {
    match toks.get(p) {
        Some((Tok::Word(w), l)) if w != "self" => vec![(w.clone(), *l)],
        Some((Tok::Punct('{'), _)) => {
            let mut out = Vec::new();
            let mut depth = 0usize;
            for (j, (t, l)) in toks.iter().enumerate().skip(p) {
                match t {
                    Tok::Punct('{') => depth += 1,
                    Tok::Punct('}') => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Tok::Word(w) if depth == 1 && w != "self" => {
                        let after_open = matches!(toks[j - 1].0, Tok::Punct('{') | Tok::Punct(','));
                        if after_open {
                            out.push((w.clone(), *l));
                        }
                    }
                    _ => {}
                }
            }
            out
        }
        _ => vec![],
    }
}

/// For each token, whether it belongs to an item under `#[cfg(test)]`: the attribute, any
/// further attributes, and the item up to its closing `}` or `;`.
fn test_ranges(toks: &[(Tok, usize)]) -> Vec<bool> {
    let want = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Word("cfg".into()),
        Tok::Punct('('),
        Tok::Word("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    let mut test = vec![false; toks.len()];
    let mut i = 0;
    while i + want.len() <= toks.len() {
        if !toks[i..i + want.len()]
            .iter()
            .map(|(t, _)| t)
            .eq(want.iter())
        {
            i += 1;
            continue;
        }
        let mut j = i + want.len();
        let mut nest = 0i64;
        while j < toks.len() {
            match toks[j].0 {
                Tok::Punct('{') | Tok::Punct('(') | Tok::Punct('[') => nest += 1,
                Tok::Punct('}') | Tok::Punct(')') | Tok::Punct(']') => {
                    nest -= 1;
                    if nest == 0 && toks[j].0 == Tok::Punct('}') {
                        break;
                    }
                }
                Tok::Punct(';') if nest == 0 => break,
                _ => {}
            }
            j += 1;
        }
        let end = j.min(toks.len() - 1);
        for t in &mut test[i..=end] {
            *t = true;
        }
        i = end + 1;
    }
    test
}

/// Tokens of Rust source with their line numbers: words (identifiers, keywords, numbers),
/// `::`, and single punctuation. Comments, string/char literals and lifetimes' quotes are
/// dropped, so text in them never counts as code.
fn lex(src: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let is_word = |ch: char| ch.is_alphanumeric() || ch == '_';
    // Skips a quoted literal opening at `i` (on the quote), counting newlines.
    let skip_quoted = |i: &mut usize, line: &mut usize, hashes: usize, raw: bool| {
        *i += 1;
        while *i < c.len() {
            match c[*i] {
                '\\' if !raw => *i += 1,
                '"' if c[*i + 1..]
                    .iter()
                    .take(hashes)
                    .filter(|&&h| h == '#')
                    .count()
                    == hashes =>
                {
                    *i += 1 + hashes;
                    return;
                }
                '\n' => *line += 1,
                _ => {}
            }
            *i += 1;
        }
    };
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            let mut nest = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    nest += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    nest -= 1;
                    i += 2;
                    if nest == 0 {
                        break;
                    }
                } else {
                    if c[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if ch == '"' {
            skip_quoted(&mut i, &mut line, 0, false);
        } else if ch == '\'' {
            // A char literal ('a', '\n', '\u{..}') or a lifetime/label ('a, 'static).
            if c.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if is_word(ch) {
            let start = i;
            while i < c.len() && is_word(c[i]) {
                i += 1;
            }
            let w: String = c[start..i].iter().collect();
            // Raw and byte string prefixes: r"..", r#".."#, b"..", br#".."#, c"..".
            let raw = w == "r" || w == "br" || w == "cr";
            let plain = w == "b" || w == "c";
            if raw && (c.get(i) == Some(&'"') || c.get(i) == Some(&'#')) {
                let hashes = c[i..].iter().take_while(|&&h| h == '#').count();
                if c.get(i + hashes) == Some(&'"') {
                    i += hashes;
                    skip_quoted(&mut i, &mut line, hashes, true);
                    continue;
                }
                if w == "r" && hashes == 1 {
                    // A raw identifier, r#type.
                    i += 1;
                    continue;
                }
            }
            if plain && c.get(i) == Some(&'"') {
                skip_quoted(&mut i, &mut line, 0, false);
                continue;
            }
            out.push((Tok::Word(w), line));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push((Tok::Path, line));
            i += 2;
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The size and shape rules (h, i, j): read from the text, line by line
// ---------------------------------------------------------------------------------------------

/// Rule (h): files directly under `src/` whose name is not on `allowed`.
fn loose_breaks(files: &[(String, String)], allowed: &[(&str, &str)]) -> Vec<Violation> {
    files
        .iter()
        .filter_map(|(path, _)| {
            let name = path.strip_prefix("src/")?;
            (!name.contains('/') && !allowed.iter().any(|(a, _)| *a == name)).then(|| Violation {
                rule: "h",
                text: RULE_H,
                file: path.clone(),
                line: 1,
                message: format!(
                    "{name} is a loose module: move it into a folder for its concept, or name it in LOOSE_FILES with its reason"
                ),
            })
        })
        .collect()
}

/// Lines of code before the first `#[cfg(test)]`: neither blank nor starting with `//`.
fn code_lines(text: &str) -> usize {
    text.lines()
        .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with("//")
        })
        .count()
}

/// Rule (i): files with more than `max` lines of code before their tests.
fn size_breaks(files: &[(String, String)], max: usize) -> Vec<Violation> {
    files
        .iter()
        .filter_map(|(path, text)| {
            let n = code_lines(text);
            (n > max).then(|| Violation {
                rule: "i",
                text: RULE_I,
                file: path.clone(),
                line: 1,
                message: format!("{n} lines of code before its tests (at most {max})"),
            })
        })
        .collect()
}

/// The name of the function a line declares (`pub(crate) const unsafe fn name(`), with the
/// line's indentation; `None` for any other line and for a declaration ending in `;`.
fn fn_start(line: &str) -> Option<(&str, &str)> {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    if line.trim_end().ends_with(';') {
        return None;
    }
    let mut rest = body;
    if let Some(r) = rest.strip_prefix("pub") {
        rest = if r.starts_with('(') {
            r.split_once(')')?.1
        } else {
            r
        };
        rest = rest.strip_prefix(' ')?;
    }
    for word in ["const ", "unsafe ", "async "] {
        rest = rest.strip_prefix(word).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| (indent, &rest[..end]))
}

/// Whether a declaration line holds its whole body (`fn finish(&self) {}`): its braces
/// balance and it ends with the closing one.
fn one_line_body(line: &str) -> bool {
    let line = line.trim_end();
    line.ends_with('}') && line.matches('{').count() == line.matches('}').count()
}

/// Rule (j): functions spanning more than `max` lines, from the line that declares one to
/// the `}` alone at its indentation (rustfmt's layout).
fn fn_len_breaks(files: &[(String, String)], max: usize) -> Vec<Violation> {
    let mut out = Vec::new();
    for (path, text) in files {
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            if let Some((indent, name)) = fn_start(lines[i]) {
                let close = format!("{indent}}}");
                let end = if one_line_body(lines[i]) {
                    i
                } else {
                    (i + 1..lines.len())
                        .find(|&j| lines[j].trim_end() == close)
                        .unwrap_or(lines.len())
                };
                let n = end + 1 - i;
                if n > max {
                    out.push(Violation {
                        rule: "j",
                        text: RULE_J,
                        file: path.clone(),
                        line: i + 1,
                        message: format!("fn {name} spans {n} lines (at most {max})"),
                    });
                }
                i = end;
            }
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The checker on in-memory trees: each rule can fail
// ---------------------------------------------------------------------------------------------

fn tree(files: &[(&str, &str)]) -> Tree {
    Tree::new(
        files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect(),
    )
}

fn shown(v: &[Violation]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[test]
fn checker_rule_a_flags_results_reaching_an_engine() {
    let t = tree(&[
        ("src/stats.rs", ""),
        ("src/latency/mod.rs", ""),
        (
            "src/results/mod.rs",
            "//! The contract.\nuse crate::stats::Summary;\nuse crate::{stats, latency::Chase};\n",
        ),
    ]);
    only_break(
        shown(&t.layer_breaks(layer("a"))),
        "src/results/mod.rs:3: rule (a) ",
        "results imports crate::latency",
    );
}

#[test]
fn checker_rule_b_flags_render_reaching_beyond_results() {
    let t = tree(&[
        ("src/stats.rs", ""),
        ("src/results/mod.rs", ""),
        ("src/run/mod.rs", ""),
        (
            "src/render/html.rs",
            "use crate::results::RunResults;\nfn f() {\n    let x = crate::run::findings::derive();\n}\n",
        ),
    ]);
    only_break(
        shown(&t.layer_breaks(layer("b"))),
        "src/render/html.rs:3: rule (b) ",
        "render imports crate::run",
    );
}

#[test]
fn checker_rules_f_and_g_flag_error_and_the_sanitizer_reaching_up() {
    let t = tree(&[
        ("src/results/mod.rs", ""),
        ("src/sanitize.rs", "use crate::results::RunResults;\n"),
        (
            "src/error.rs",
            "fn f(s: &str) -> String {\n    crate::sanitize::sentence(s)\n}\nuse crate::results::X;\n",
        ),
    ]);
    only_break(
        shown(&t.layer_breaks(layer("f"))),
        "src/error.rs:4: rule (f) ",
        "error imports crate::results",
    );
    only_break(
        shown(&t.layer_breaks(layer("g"))),
        "src/sanitize.rs:1: rule (g) ",
        "sanitize imports crate::results",
    );
}

#[test]
fn checker_rule_c_flags_cli_imported_below_main_but_not_by_cli_or_main() {
    let t = tree(&[
        ("src/main.rs", "fn main() { numascope::cli::main(); }\n"),
        ("src/cli/mod.rs", "pub mod run;\nuse crate::run::plan;\n"),
        (
            "src/cli/run.rs",
            "use super::print_result;\nuse crate::cli::Context;\n",
        ),
        (
            "src/threads/team.rs",
            "fn f(e: &anyhow::Error) -> String {\n    super::super::cli::one_sentence(e)\n}\n",
        ),
        ("src/run/mod.rs", "use crate::cli::one_sentence;\n"),
    ]);
    let v = shown(&t.layer_breaks(layer("c")));
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(v[0].starts_with("src/run/mod.rs:1: rule (c) "), "{}", v[0]);
    assert!(
        v[1].starts_with("src/threads/team.rs:2: rule (c) "),
        "{}",
        v[1]
    );
    assert!(v[1].ends_with("threads imports crate::cli"), "{}", v[1]);
}

#[test]
fn checker_rule_d_flags_unsafe_and_libc_outside_their_homes() {
    let t = tree(&[
        (
            "src/placement/page_size.rs",
            "pub fn page() -> i64 {\n    // SAFETY: none needed.\n    unsafe { libc::sysconf(libc::_SC_PAGESIZE) }\n}\n",
        ),
        ("src/sys/process.rs", "pub fn uid() -> u32 { unsafe { libc::geteuid() } }\n"),
        ("src/latency/walk.rs", "unsafe fn walk() {}\n"),
        ("src/latency/engine.rs", "// unsafe and libc:: in a comment\nconst S: &str = \"unsafe\";\n"),
        ("src/c2c/mod.rs", "#[cfg(test)]\nmod tests {\n    fn f() { unsafe {} }\n}\n"),
    ]);
    let v = shown(&t.unsafe_breaks());
    assert_eq!(v.len(), 4, "{v:?}");
    assert!(v[0].starts_with("src/c2c/mod.rs:3: rule (d) "), "{}", v[0]);
    for x in &v[1..] {
        assert!(
            x.starts_with("src/placement/page_size.rs:3: rule (d) "),
            "{x}"
        );
    }
}

#[test]
fn checker_rule_e_reports_the_cycle_path_with_places() {
    let t = tree(&[
        ("src/a.rs", "use crate::b::X;\n"),
        ("src/b/mod.rs", "pub mod inner;\n"),
        ("src/b/inner.rs", "\nfn f() { super::super::c::go() }\n"),
        ("src/c.rs", "use super::a;\n"),
        ("src/d.rs", "use crate::a;\n"),
    ]);
    let v = shown(&t.cycles());
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].starts_with("src/a.rs:1: rule (e) "), "{}", v[0]);
    assert!(v[0].contains("cycle a -> b -> c -> a"), "{}", v[0]);
    assert!(v[0].contains("b -> c at src/b/inner.rs:2"), "{}", v[0]);
    assert!(v[0].contains("c -> a at src/c.rs:1"), "{}", v[0]);
    assert!(!v[0].contains("d ->"), "d is outside the cycle: {}", v[0]);
}

#[test]
fn checker_leaves_out_test_code_internal_paths_and_text() {
    let t = tree(&[
        (
            "src/lib.rs",
            "pub mod results;\n#[cfg(test)]\npub(crate) mod testutil;\n",
        ),
        ("src/testutil.rs", "use crate::latency::Chase;\n"),
        ("src/latency/mod.rs", "use crate::results::X;\n"),
        (
            "src/results/mod.rs",
            concat!(
                "//! See [`crate::latency`].\n",
                "use self::x::Y;\n",
                "use super::stats;\n", // a top-level module's super:: is the root: stats
                "const T: &str = \"crate::latency\";\n",
                "const R: &str = r#\"crate::latency \"quoted\"\"#;\n",
                "const C: char = '\"';\n",
                "fn f<'a>(x: &'a str) -> &'a str { x }\n",
                "#[cfg(test)]\npub(crate) mod sample;\n",
                "#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::latency::Chase;\n}\n",
                "pub(crate) fn g() {}\n",
            ),
        ),
        ("src/results/sample.rs", "use crate::latency::Chase;\n"),
        ("src/stats.rs", ""),
    ]);
    assert_eq!(shown(&t.layer_breaks(layer("a"))), Vec::<String>::new());
    assert_eq!(shown(&t.cycles()), Vec::<String>::new());
    let results = t
        .files
        .iter()
        .find(|f| f.path == "src/results/mod.rs")
        .unwrap();
    let live: Vec<&str> = results
        .refs
        .iter()
        .filter(|r| !r.test_only)
        .map(|r| r.module.as_str())
        .collect();
    assert_eq!(live, vec!["stats"]);
    assert!(!t.modules.contains("testutil"));
}

fn files(list: &[(&str, String)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, t)| (p.to_string(), t.clone()))
        .collect()
}

#[test]
fn checker_rule_k_flags_schedule_reaching_a_measurement() {
    let t = tree(&[
        ("src/stats/mod.rs", ""),
        ("src/threads/mod.rs", ""),
        (
            "src/schedule/rounds.rs",
            "use crate::stats::Summary;\nuse crate::threads::run_team;\n",
        ),
    ]);
    only_break(
        shown(&t.layer_breaks(layer("k"))),
        "src/schedule/rounds.rs:2: rule (k) ",
        "schedule imports crate::threads",
    );
}

#[test]
fn checker_rule_h_flags_a_loose_module_not_on_the_list() {
    let t = files(&[
        ("src/lib.rs", "pub mod clock;\npub mod stray;\n".into()),
        ("src/clock.rs", String::new()),
        ("src/stray.rs", String::new()),
        ("src/latency/mod.rs", String::new()),
    ]);
    let allowed = [("lib.rs", "the root"), ("clock.rs", "timing for all")];
    only_break(
        shown(&loose_breaks(&t, &allowed)),
        "src/stray.rs:1: rule (h) ",
        "or name it in LOOSE_FILES with its reason",
    );
    // Every real entry has its reason.
    assert!(LOOSE_FILES
        .iter()
        .all(|(f, why)| f.ends_with(".rs") && why.len() > 10));
}

#[test]
fn checker_rule_i_counts_code_before_the_tests_only() {
    let code = |n: usize| "let x = 1;\n".repeat(n);
    let big = format!("//! Header.\n\n{}// a comment\n\n", code(401));
    let at_limit = format!(
        "{}\n#[cfg(test)]\nmod tests {{\n{}}}\n",
        code(400),
        code(900)
    );
    let t = files(&[
        ("src/big.rs", big),
        ("src/ok.rs", at_limit),
        ("src/small.rs", code(3)),
    ]);
    only_break(
        shown(&size_breaks(&t, MAX_FILE_CODE_LINES)),
        "src/big.rs:1: rule (i) ",
        "401 lines of code before its tests (at most 400)",
    );
}

#[test]
fn checker_rule_j_flags_a_long_function_at_its_line() {
    let body = |n: usize| "    step();\n".repeat(n);
    let text = format!(
        "fn short() {{\n{}}}\n\nimpl X {{\n    fn nothing(&self) {{}}\n    pub(crate) fn long(&self) {{\n{}    }}\n}}\n\nfn decl();\nfn edge() {{\n{}}}\n",
        body(3),
        "        step();\n".repeat(80),
        body(78),
    );
    let t = files(&[("src/a/mod.rs", text)]);
    only_break(
        shown(&fn_len_breaks(&t, MAX_FN_LINES)),
        "src/a/mod.rs:9: rule (j) ",
        "fn long spans 82 lines (at most 80)",
    );
    assert_eq!(
        fn_start("    pub const unsafe fn go_2<T>("),
        Some(("    ", "go_2"))
    );
    assert_eq!(fn_start("let f = fn_ptr;"), None);
    assert_eq!(fn_start("fn decl(x: u8);"), None);
}

/// Exactly one break, at the place and of the kind given.
fn only_break(v: Vec<String>, starts: &str, ends: &str) {
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].starts_with(starts), "{}", v[0]);
    assert!(v[0].ends_with(ends), "{}", v[0]);
}
