//! Bad input on every command: missing, empty, garbage, huge, negative and
//! non-UTF-8 arguments, directories and missing files, `/dev/zero` as
//! input and `/dev/full` as standard output. Each must end with exit code 1
//! and one line on stderr (or clap's usage error, exit code 2), and never
//! with a panic. Nothing here searches more than a few wells.

use std::ffi::OsString;
use std::fs::File;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use hatetris::nnue::MAX_HIDDEN;

/// The shipped net, and its training form.
const NET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/nets/best.nnue");
const NET_F32: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/nets/best.f32");

/// The 86-record weights.
const DNF86: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/weights/dnf-86.toml");

/// The empty well as 20 integers.
const EMPTY: &str = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0";

/// What a case must end with.
#[derive(Debug)]
enum Want {
    /// Exit code 1 and one line, `hatetris: …`, containing this text.
    Fails(&'static str),
    /// Clap's usage error: exit code 2 (its message may take several lines).
    Usage,
}

#[derive(Debug)]
enum Input {
    /// Nothing (standard input is closed at once).
    Empty,
    Bytes(Vec<u8>),
    File(PathBuf),
}

#[derive(Debug)]
struct Case {
    args: Vec<OsString>,
    stdin: Input,
    /// Standard output is `/dev/full`.
    full: bool,
    /// Progress lines on stderr may come before the error line.
    progress: bool,
    want: Want,
}

impl Case {
    fn new(args: Vec<OsString>) -> Case {
        Case {
            args,
            stdin: Input::Empty,
            full: false,
            progress: false,
            want: Want::Usage,
        }
    }
    fn fails(mut self, text: &'static str) -> Case {
        self.want = Want::Fails(text);
        self
    }
    fn usage(mut self) -> Case {
        self.want = Want::Usage;
        self
    }
    fn stdin(mut self, bytes: &[u8]) -> Case {
        self.stdin = Input::Bytes(bytes.to_vec());
        self
    }
    fn stdin_file(mut self, path: &str) -> Case {
        self.stdin = Input::File(PathBuf::from(path));
        self
    }
    /// Standard output on a full disk.
    fn full(mut self) -> Case {
        self.full = true;
        self.want = Want::Fails("writing to standard output: No space left on device");
        self
    }
    fn progress(mut self) -> Case {
        self.progress = true;
        self
    }

    fn run(&self, dir: &Path) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hatetris"));
        cmd.args(&self.args)
            .current_dir(dir)
            .env_remove("RUST_BACKTRACE")
            .stderr(Stdio::piped());
        cmd.stdout(if self.full {
            Stdio::from(File::options().write(true).open("/dev/full").unwrap())
        } else {
            Stdio::piped()
        });
        match &self.stdin {
            Input::Empty => cmd.stdin(Stdio::null()),
            Input::Bytes(_) => cmd.stdin(Stdio::piped()),
            Input::File(p) => cmd.stdin(File::open(p).unwrap()),
        };
        let mut child = cmd.spawn().expect("run hatetris");
        if let Input::Bytes(b) = &self.stdin {
            use std::io::Write;
            // The command may stop reading early (a size cap): ignore the pipe error.
            let _ = child.stdin.take().unwrap().write_all(b);
        }
        child.wait_with_output().unwrap()
    }

    /// What is wrong with the outcome, if anything.
    fn check(&self, o: &Output) -> Option<String> {
        let err = String::from_utf8_lossy(&o.stderr);
        if err.contains("panicked") || err.contains("RUST_BACKTRACE") {
            return Some(format!("panicked: {err}"));
        }
        let code = o.status.code();
        match self.want {
            Want::Usage => (code != Some(2)).then(|| format!("exit {code:?}, not 2: {err}")),
            Want::Fails(text) => {
                if code != Some(1) {
                    return Some(format!("exit {code:?}, not 1: {err}"));
                }
                let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
                let ok_count = if self.progress {
                    !lines.is_empty()
                } else {
                    lines.len() == 1 && err.lines().count() == 1
                };
                let last = lines.last().copied().unwrap_or("");
                if !ok_count {
                    Some(format!("{} lines on stderr: {err}", err.lines().count()))
                } else if !last.starts_with("hatetris: ") || !last.contains(text) {
                    Some(format!("expected an error with {text:?}: {err}"))
                } else {
                    None
                }
            }
        }
    }
}

/// The usage error for hidden units out of this build's range (64, or 128
/// with the feature `hidden-128`).
const HIDDEN_LIMIT: &str = if MAX_HIDDEN == 64 {
    "--hidden must be 1 to 64"
} else {
    "--hidden must be 1 to 128"
};

macro_rules! case {
    ($($a:expr),* $(,)?) => {
        Case::new(vec![$(OsString::from($a)),*])
    };
}

/// The table: every subcommand, every kind of bad input.
fn cases(t: &Path) -> Vec<Case> {
    let p = |name: &str| t.join(name);
    let (missing, dir, empty, garbage, latin1, sparse) = (
        p("missing.txt"),
        p("a-directory"),
        p("empty.txt"),
        p("garbage.txt"),
        p("latin1.txt"),
        p("sparse.txt"),
    );
    let run = p("run");
    let at = |path: &Path| format!("@{}", path.display());
    let bad_name = OsString::from_vec(b"no-such-\xff-file".to_vec());
    let bad_arg = OsString::from_vec(b"LRDU\xff".to_vec());
    let wells = p("wells.txt");
    let bad_toml = p("bad.toml");
    let unknown_key = p("unknown-key.toml");
    let wrong_type = p("wrong-type.toml");
    let bad_well_line = p("bad-well.txt");
    let huge_row = "65535 ".repeat(20);
    let many_rows = "0 ".repeat(21);
    let overflow_row = format!("99999999999999999999 {}", "0 ".repeat(19));
    let twenty_one_rows = "..........\n".repeat(21);
    let full_out = p("full-out");

    let mut v = vec![
        // The command line itself.
        case![].usage(),
        case!["nope"].usage(),
        case!["--nope"].usage(),
        case![&bad_name].usage(),
        case!["movegen"].usage(),
        case!["bench"].usage(),
        case!["replay"].usage(),
        case!["replay", "decode", "x"].usage(),
        // search: the width.
        case!["search", "--width"].usage(),
        case!["search", "--width", ""].usage(),
        case!["search", "--width", "-1"].usage(),
        case!["search", "--width", "abc"].usage(),
        case!["search", "--width", "1e6"].usage(),
        case!["search", "--width", "18446744073709551616"].usage(),
        case!["search", "--width", "0"].fails("--width must be at least 1"),
        case!["search", "--width", "18446744073709551615", "-q"]
            .fails("--width 18446744073709551615 needs more than 18 EB of memory"),
        case!["search", "--width", "18446744073709551615", "--force", "-q"]
            .fails("more than a process can address"),
        case![
            "search",
            "--width",
            "1000000000000",
            "--max-depth",
            "1",
            "--threads",
            "1",
            "--out",
            &full_out
        ]
        .fails("--width 1000000000000 needs about 96 TB of memory; this machine has"),
        case!["search", "--width", "1000000000000", "--resume", &run]
            .fails("--width 1000000000000 disagrees with the run's width 5"),
        // search: threads, depth, lookahead, enemy.
        case!["search", "--threads", "0"].fails("--threads must be at least 1"),
        case!["search", "--threads", "1000000000"].fails("--threads 1000000000 is too many"),
        case!["search", "--threads", "18446744073709551615"].fails("is too many"),
        case!["search", "--threads", "-3"].usage(),
        case!["search", "--threads", "x"].usage(),
        case!["search", "--max-depth", "garbage"].usage(),
        case!["search", "--max-depth", "-1"].usage(),
        case!["search", "--max-depth", "99999999999"].usage(),
        case!["search", "--quiescent", "0"].usage(),
        case!["search", "--quiescent", "33"].usage(),
        case!["search", "--quiescent", "x"].usage(),
        // search: the sharded search's layout.
        case!["search", "--workers", "0"].fails("--workers must be at least 1"),
        case!["search", "--enemy", "mild", "--processes", "0"]
            .fails("--processes must be at least 1"),
        case![
            "search",
            "--enemy",
            "mild",
            "--process",
            "2",
            "--processes",
            "2"
        ]
        .fails("--process 2 is not among the 2 processes"),
        case!["search", "--enemy", "mild", "--hostfile", &missing].fails("missing.txt"),
        case!["search", "--enemy", "mild", "--hostfile", &empty].fails("lists no process"),
        case!["search", "--enemy", "mild", "--hostfile", &garbage].fails("is not host:port"),
        case![
            "search",
            "--enemy",
            "mild",
            "--processes",
            "3",
            "--hostfile",
            &wells
        ]
        .fails("is not host:port"),
        case![
            "search",
            "--enemy",
            "mild",
            "--process",
            "1",
            "--processes",
            "2"
        ]
        .fails("process 1 writes its shards' depth files: give it --out DIR"),
        case!["search", "--enemy", "nope"].usage(),
        case!["search", "--enemy", ""].usage(),
        case!["search", "--enemy", &bad_arg].usage(),
        // search: weights.
        case!["search", "--weights", &missing].fails("No such file or directory"),
        case!["search", "--weights", &dir].fails("Is a directory"),
        case!["search", "--weights", "/dev/zero"].fails("larger than 1 MiB, not a weights file"),
        case!["search", "--weights", &latin1].fails("not UTF-8 text"),
        case!["search", "--weights", &bad_toml].fails("not valid TOML"),
        case!["search", "--weights", &unknown_key].fails("unknown key `bogus`"),
        case!["search", "--weights", &empty].fails("missing key"),
        case!["search", "--weights", &sparse].fails("larger than 1 MiB"),
        case!["search", "--weights", &bad_name].fails("No such file or directory"),
        // search: the run folder.
        case!["search", "--out", &run, "--resume", &run].usage(),
        case!["search", "--resume", &missing, "-q"].fails("holds no run"),
        case!["search", "--resume", &empty, "-q"].fails("holds no run"),
        case!["search", "--resume", &dir, "-q"].fails("holds no run"),
        case!["search", "--resume", &run, "--width", "6", "-q"]
            .fails("--width 6 disagrees with the run's width 5"),
        case!["search", "--resume", &run, "--width", "5", "--enemy", "mild", "-q"]
            .fails("--enemy mild disagrees with the run's enemy hatetris"),
        case!["search", "--out", &run, "--width", "5", "-q"].fails("already holds a run"),
        case!["search", "--out", "/dev/null/x", "--width", "5", "-q"].fails("Not a directory"),
        case!["search", "--out", &empty, "--width", "5", "-q"].fails("File exists"),
        case![
            "search",
            "--width",
            "5",
            "--max-depth",
            "2",
            "-q",
            "--out",
            &full_out
        ]
        .full(),
        case![
            "search",
            "--width",
            "3",
            "--max-depth",
            "1",
            "--json",
            "-q",
            "--out",
            p("full-json")
        ]
        .full(),
        // keyframes.
        case!["keyframes"].usage(),
        case!["keyframes", &missing].fails("holds no run"),
        case!["keyframes", &empty].fails("holds no run"),
        case!["keyframes", &dir].fails("holds no run"),
        case!["keyframes", &bad_name].fails("holds no run"),
        case!["keyframes", &run, "--pick", "nope"].usage(),
        // The new commands: status, plot, replay convert and render, completions.
        case!["status"].usage(),
        case!["status", &missing].fails("holds no run"),
        case!["status", &dir].fails("holds no run"),
        case!["status", &run, "--watch=0"].usage(),
        case!["plot", &missing].fails("holds no run"),
        case!["plot", &run, "--out", "/dev/null/x"].fails("cannot draw"),
        case!["replay", "convert", "LRDU"].usage(),
        case!["replay", "convert", "LRDU", "--format", "wells"].usage(),
        case!["replay", "convert", "@/no/such/file", "--format", "hex"]
            .fails("No such file or directory"),
        case!["replay", "render", "LRDU"].usage(),
        case!["replay", "render", "DDDD", "--out", "/dev/null/x.png"].fails("cannot draw"),
        case!["replay", "render", "DDDD", "--out", "x.png", "--every", "0"].usage(),
        case!["completions", "tcsh"].usage(),
        case!["keyframes", &run, "--pick", ""].usage(),
        case!["keyframes", &run, "--format", "nope"].usage(),
        case!["keyframes", &run, "--format", ""].usage(),
        case!["keyframes", &run, "--format", &bad_arg].usage(),
        case!["keyframes", &run].full().progress(),
        case!["keyframes", &run, "--pick", "deepest", "--format", "wells"]
            .full()
            .progress(),
        case!["keyframes", p("run-bad-manifest")].fails("manifest.json: expected value"),
        case!["keyframes", p("run-truncated"), "--pick", "deepest"].fails("truncated"),
        case!["keyframes", p("run-missing-depth"), "--pick", "deepest"]
            .fails("No such file or directory"),
        // verify.
        case!["verify"].usage(),
        case!["verify", &missing].fails("holds no run"),
        case!["verify", &empty].fails("holds no run"),
        case!["verify", &dir].fails("holds no run"),
        case!["verify", p("run-bad-manifest")].fails("manifest.json: expected value"),
        case!["verify", p("run-truncated")].fails("(listed above)"),
        case!["verify", p("run-missing-depth")].fails("(listed above)"),
        case!["verify", &run].full(),
        // eval: the well.
        case!["eval"].usage(),
        case!["eval", ""].fails("expected 20 row integers, found 0"),
        case!["eval", "hello"].fails("reading the well"),
        case!["eval", "1 2 3"].fails("expected 20 row integers, found 3"),
        case!["eval", &many_rows].fails("expected 20 row integers, found 21"),
        case!["eval", &huge_row].fails("more than 10 columns"),
        case!["eval", &overflow_row].fails("reading the well"),
        case!["eval", "--", "-1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"].fails("reading the well"),
        case!["eval", "-1"].usage(),
        case!["eval", "#########"].fails("a row needs 10 cells"),
        case!["eval", &twenty_one_rows].fails("reading the well"),
        case!["eval", &bad_arg].usage(),
        case!["eval", at(&missing)].fails("No such file or directory"),
        case!["eval", at(&dir)].fails("Is a directory"),
        case!["eval", "@/dev/zero"].fails("/dev/zero: larger than 1 MiB, not a well"),
        case!["eval", at(&latin1)].fails("not UTF-8 text"),
        case!["eval", at(&sparse)].fails("larger than 1 MiB, not a well"),
        case!["eval", "@"].fails("No such file or directory"),
        case!["eval", "-"]
            .stdin_file("/dev/zero")
            .fails("standard input: larger than 1 MiB"),
        case!["eval", "-"]
            .stdin(b"\xff\xfe")
            .fails("standard input: not UTF-8 text"),
        case!["eval", "-"].fails("expected 20 row integers, found 0"),
        // eval: the options.
        case!["eval", EMPTY, "--score", "-1"].usage(),
        case!["eval", EMPTY, "--score", "x"].usage(),
        case!["eval", EMPTY, "--score", "4294967296"].usage(),
        case!["eval", EMPTY, "--quiescent", "0"].usage(),
        case!["eval", EMPTY, "--weights", &missing].fails("No such file or directory"),
        case!["eval", EMPTY, "--weights", &dir].fails("Is a directory"),
        case!["eval", EMPTY, "--weights", "/dev/zero"].fails("larger than 1 MiB"),
        case!["eval", EMPTY, "--weights", &bad_toml].fails("not valid TOML"),
        case!["eval", EMPTY, "--weights", &wrong_type].fails("wrong-type.toml"),
        case!["eval", EMPTY, "--weights", &garbage].fails("garbage.txt"),
        case!["eval", EMPTY].full(),
        case!["eval", EMPTY, "--json"].full(),
        // eval and search with a net.
        case!["eval", EMPTY, "--net", &missing].fails("No such file or directory"),
        case!["eval", EMPTY, "--net", &dir].fails("Is a directory"),
        case!["eval", EMPTY, "--net", "/dev/zero"].fails("not a HATETRIS net file"),
        case!["eval", EMPTY, "--net", &garbage].fails("not a HATETRIS net file"),
        case!["eval", EMPTY, "--net", &empty].fails("truncated: 0 bytes"),
        case!["eval", EMPTY, "--net", NET_F32].fails("not a quantised"),
        case!["eval", EMPTY, "--explain"].usage(),
        case!["eval", EMPTY, "--net", NET, "--weights", &bad_toml].usage(),
        case!["eval", EMPTY, "--net", NET, "--explain"].full(),
        case!["search", "--net", "/dev/zero", "--out", p("net-run")]
            .fails("not a HATETRIS net file"),
        case!["bench", "eval", "--net", &missing].fails("No such file or directory"),
        // train.
        case!["train"].usage(),
        case!["train", p("t1"), "--validation", "1.5"]
            .fails("--validation must be between 0 and 1"),
        case!["train", p("t1"), "--hidden", &(MAX_HIDDEN + 1).to_string()].fails(HIDDEN_LIMIT),
        case!["train", p("t1"), "--width", "0"].fails("--width must be at least 1"),
        case!["train", p("t1"), "--samples", "3"].fails("--samples must be at least 10"),
        case!["train", p("t1"), "--learning-rate", "nan"]
            .fails("--learning-rate must be between 0 and 1"),
        case!["train", p("t1"), "--lost-value", "inf"].fails("--lost-value must be a number"),
        case!["train", p("t1"), "--threads", "0"].fails("--threads must be at least 1"),
        case!["train", p("t1"), "--from", &missing].fails("No such file or directory"),
        case!["train", p("t1"), "--from", NET].fails("not an f32"),
        case!["train", &garbage].fails("garbage.txt"),
        // replay score.
        case!["replay", "score"].usage(),
        case!["replay", "score", "RDLU##ABZ"].fails("decoding the replay"),
        case!["replay", "score", "LRDU\u{1F600}"].fails("decoding the replay"),
        case!["replay", "score", "x"].fails("decoding the replay"),
        case!["replay", "score", &bad_arg].usage(),
        case!["replay", "score", at(&missing)].fails("No such file or directory"),
        case!["replay", "score", at(&dir)].fails("Is a directory"),
        case!["replay", "score", "@/dev/zero"].fails("/dev/zero: larger than 16 MiB, not a replay"),
        case!["replay", "score", at(&sparse)].fails("larger than 16 MiB, not a replay"),
        case!["replay", "score", at(&latin1)].fails("not UTF-8 text"),
        case!["replay", "score", at(&garbage)].fails("decoding the replay"),
        case!["replay", "score", "@"].fails("No such file or directory"),
        case!["replay", "score", "-"]
            .stdin_file("/dev/zero")
            .fails("standard input: larger than 16 MiB, not a replay"),
        case!["replay", "score", "-"]
            .stdin(b"\xc3\x28")
            .fails("standard input: not UTF-8 text"),
        case!["replay", "score", "DDDD", "--enemy", "nope"].usage(),
        case!["replay", "score", "DDDD", "--enemy", ""].usage(),
        case!["replay", "score", "DDDD"].full(),
        case!["replay", "score", "-"].stdin(b"DDDD").full(),
        // replay show.
        case!["replay", "show"].usage(),
        case!["replay", "show", "RDLU##ABZ"].fails("decoding the replay"),
        case!["replay", "show", "@/dev/zero"].fails("larger than 16 MiB"),
        case!["replay", "show", at(&dir)].fails("Is a directory"),
        case!["replay", "show", "-"]
            .stdin(b"\xff")
            .fails("not UTF-8 text"),
        case!["replay", "show", "DDDD", "--enemy", "nope"].usage(),
        case!["replay", "show", "DDDD"].full(),
        case!["replay", "show", "DDDD", "--json"].full(),
        case!["replay", "show", "DDDD", "--json=yes"].usage(),
        case!["replay", "show", "DDDD", "--table"].full(),
        case!["replay", "show", "DDDD", "--table", "--json"].usage(),
        case!["replay", "show", "DDDD", "--from", "0"].usage(),
        case!["replay", "show", "DDDD", "--from", "-1"].usage(),
        case!["replay", "show", "DDDD", "--to", "x"].usage(),
        case!["replay", "show", "DDDD", "--to", "99999999999"].usage(),
        case!["replay", "show", "DDDD", "--from", "1"]
            .fails("--from 1 is past the game's end: it has 0 locks"),
        case!["replay", "show", "DDDD", "--from", "3", "--to", "2"]
            .fails("--to 2 is before --from 3"),
        // replay encode.
        case!["replay", "encode"].usage(),
        case!["replay", "encode", "LRDX"].fails("'X' at position 3 is not a key"),
        case!["replay", "encode", "L\nR"].fails("'\\n' at position 1 is not a key"),
        case!["replay", "encode", "LRDU", "--format", "nope"].usage(),
        case!["replay", "encode", "LRDU", "--format", ""].usage(),
        case!["replay", "encode", "LRDU", "--format", "wells"].usage(),
        case!["replay", "encode", &bad_arg].usage(),
        case!["replay", "encode", "@/dev/zero"].fails("larger than 16 MiB, not a list of keys"),
        case!["replay", "encode", "-"]
            .stdin_file("/dev/zero")
            .fails("larger than 16 MiB"),
        case!["replay", "encode", at(&missing)].fails("No such file or directory"),
        case!["replay", "encode", at(&latin1)].fails("not UTF-8 text"),
        case!["replay", "encode", "LRDU"].full(),
        case!["replay", "encode", "LRDU", "--format", "hex"].full(),
        // replay from-wells.
        case!["replay", "from-wells"].usage(),
        case!["replay", "from-wells", &missing].fails("No such file or directory"),
        case!["replay", "from-wells", &dir].fails("Is a directory"),
        case!["replay", "from-wells", "/dev/zero"]
            .fails("larger than 256 MiB, not a list of wells"),
        case!["replay", "from-wells", &sparse].fails("larger than 256 MiB, not a list of wells"),
        case!["replay", "from-wells", "-"]
            .stdin_file("/dev/zero")
            .fails("larger than 256 MiB"),
        case!["replay", "from-wells", "-"]
            .stdin(b"0 0 0\n")
            .fails("standard input, line 1"),
        case!["replay", "from-wells", &latin1].fails("not UTF-8 text"),
        case!["replay", "from-wells", &garbage].fails("garbage.txt, line 1"),
        case!["replay", "from-wells", &bad_well_line].fails("line 2"),
        case!["replay", "from-wells", &wells, "--enemy", "nope"].usage(),
        case!["replay", "from-wells", &wells, "--format", "nope"].usage(),
        case!["replay", "from-wells", &bad_name].fails("No such file or directory"),
        case!["replay", "from-wells", &empty].full(),
        // movegen children.
        case!["movegen", "children", "--wells"].usage(),
        case!["movegen", "children", "extra"].usage(),
        case!["movegen", "children", "--wells", &missing].fails("No such file or directory"),
        case!["movegen", "children", "--wells", &dir].fails("Is a directory"),
        case!["movegen", "children", "--wells", "/dev/zero"].fails("larger than 256 MiB"),
        case!["movegen", "children", "--wells", &latin1].fails("not UTF-8 text"),
        case!["movegen", "children", "--wells", &bad_name].fails("No such file or directory"),
        case!["movegen", "children"]
            .stdin_file("/dev/zero")
            .fails("standard input: larger than 256 MiB"),
        case!["movegen", "children"]
            .stdin(b"\x80abc")
            .fails("standard input: not UTF-8 text"),
        case!["movegen", "children"]
            .stdin(b"0 0 0\n")
            .fails("standard input, line 1: expected 20"),
        case!["movegen", "children"]
            .stdin(b"hello world\n")
            .fails("standard input, line 1"),
        case!["movegen", "children"]
            .stdin(huge_row.as_bytes())
            .fails("more than 10 columns"),
        case!["movegen", "children"].stdin(EMPTY.as_bytes()).full(),
        case!["movegen", "children", "--wells", &wells].full(),
        // bench movegen.
        case!["bench", "movegen", "--wells", &missing].fails("No such file or directory"),
        case!["bench", "movegen", "--wells", &dir].fails("Is a directory"),
        case!["bench", "movegen", "--wells", "/dev/zero"].fails("larger than 256 MiB"),
        case!["bench", "movegen", "--wells", &empty].fails("holds no wells"),
        case!["bench", "movegen", "--wells", &garbage].fails("garbage.txt, line 1"),
        case!["bench", "movegen", "--wells", &latin1].fails("not UTF-8 text"),
        case!["bench", "movegen", "--runs", "0"].usage(),
        case!["bench", "movegen", "--runs", "1001"].usage(),
        case!["bench", "movegen", "--runs", "-5"].usage(),
        // (The default wells are built in: `bench movegen` alone runs from
        // any folder, see tests/careful.rs.)
        case!["bench", "movegen", "--wells", "data/bench-wells.txt"]
            .fails("data/bench-wells.txt: No such file or directory"),
        case!["bench", "movegen", "--wells", &wells, "--runs", "1"].full(),
        // bench eval.
        case!["bench", "eval", "--wells", &missing].fails("No such file or directory"),
        case!["bench", "eval", "--wells", "/dev/zero"].fails("larger than 256 MiB"),
        case!["bench", "eval", "--wells", &sparse].fails("larger than 256 MiB"),
        case!["bench", "eval", "--wells", &empty].fails("holds no wells"),
        case!["bench", "eval", "--wells", &latin1].fails("not UTF-8 text"),
        case!["bench", "eval", "--quiescent", "300"].usage(),
        case!["bench", "eval", "--quiescent", "-1"].usage(),
        case!["bench", "eval", "--wells", &wells].full(),
        // bench search.
        case!["bench", "search", "--width", "0"].fails("--width must be at least 1"),
        case!["bench", "search", "--depths", "0"].fails("--depths must be at least 1"),
        case!["bench", "search", "--depths", "x"].usage(),
        case![
            "bench",
            "search",
            "--width",
            "1000000000000",
            "--threads",
            "1"
        ]
        .fails("needs about 96 TB of memory"),
        // Each thread past the first adds to the estimate.
        case![
            "bench",
            "search",
            "--width",
            "1000000000000",
            "--threads",
            "1,2"
        ]
        .fails("needs about 152 TB of memory"),
        case!["bench", "search", "--width", "18446744073709551615"].fails("needs more than 18 EB"),
        case![
            "bench",
            "search",
            "--width",
            "18446744073709551615",
            "--force"
        ]
        .fails("more than a process can address"),
        case!["bench", "search", "--threads", "0"].fails("--threads must be at least 1"),
        case!["bench", "search", "--threads", "1000000000"].fails("is too many"),
        case!["bench", "search", "--width", "5", "--depths", "1", "--out", &run]
            .fails("already holds a run"),
        case![
            "bench",
            "search",
            "--width",
            "5",
            "--depths",
            "1",
            "--out",
            "/dev/null/x"
        ]
        .fails("Not a directory"),
        case!["bench", "search", "--width", "5", "--depths", "2"].full(),
    ];
    v.extend(every_flag(t));
    // A size cap leaves an ordinary input of the same kind alone.
    v.push(
        case!["replay", "score", "-"]
            .stdin(&vec![b' '; 3 << 20])
            .full(),
    );
    v
}

/// The flags the table above leaves out, command by command: each with
/// no value, a value of the wrong kind (usage errors), and a value out of
/// its range or naming what is not there (one line each), so every flag of
/// every command is tried at least once.
fn every_flag(t: &Path) -> Vec<Case> {
    let p = |name: &str| t.join(name);
    let (missing, garbage, run) = (p("missing.txt"), p("garbage.txt"), p("run"));
    let at_missing = format!("@{}", missing.display());
    let new = p("new-folder");
    let n = new.as_os_str();
    let w = DNF86;
    vec![
        // search: the flags past the width, threads and enemy.
        case!["search", "--from"].usage(),
        case!["search", "--from", "garbage", "-q"].fails("the replay does not decode"),
        case!["search", "--from", &at_missing, "-q"].fails("No such file or directory"),
        case!["search", "--from", "LLLL", "--resume", &run, "-q"].fails("--from starts a new run"),
        case!["search", "--at", "5", "-q"].fails("--at needs --from REPLAY"),
        case!["search", "--at", "x"].usage(),
        case!["search", "--process", "x"].usage(),
        case!["search", "--processes", "-2"].usage(),
        case!["search", "--hostfile"].usage(),
        case!["search", "--hostfile", &missing, "--workers", "1", "-q"]
            .fails("No such file or directory"),
        case!["search", "--process", "1", "--processes", "2", "-q"].fails("give it --out DIR"),
        case!["search", "--workers", "1", "--threads", "1"].usage(),
        case!["search", "--weights", w, "--net", NET].usage(),
        case!["search", "--out", &run, "--resume", &run].usage(),
        case!["search", "--quiescent", "x"].usage(),
        case!["search", "--quiescent", "33"].usage(),
        case!["search", "--json", "--width", "0"].fails("--width must be at least 1"),
        case!["search", "--force", "--width", "0"].fails("--width must be at least 1"),
        case!["search", "--resume", &run, "--max-depth", "1", "-q"]
            .fails("--max-depth 1 is below the run's last complete depth 3"),
        case!["search", "--resume", &run, "--max-depth", "x"].usage(),
        case!["search", "--net", &garbage].fails("garbage.txt"),
        case!["search", "--lineage-cap"].usage(),
        case!["search", "--lineage-cap", "0:5"].usage(),
        case!["search", "--lineage-cap", "20"].usage(),
        case![
            "search",
            "--lineage-cap",
            "5:5",
            "--enemy",
            "mild",
            "--out",
            &p("capped"),
            "-q"
        ]
        .fails("needs an enemy that keeps a history"),
        case!["search", "--resume", &run, "--lineage-cap", "5:5", "-q"]
            .fails("--lineage-cap 5:5 disagrees with the run's lineage cap (none)"),
        // status, plot, keyframes, verify.
        case!["status", &run, "--watch", "x"].usage(),
        case!["status", &run, "--watch", "86401"].usage(),
        case!["status", "--watch"].usage(),
        case!["status", &missing, "--json"].fails("holds no run"),
        case!["status", &missing, "--plot"].fails("holds no run"),
        case!["status", &run, "--nope"].usage(),
        case!["plot"].usage(),
        case!["plot", &run, "--out"].usage(),
        case!["plot", &run, "--out", p("x.jpg")].fails("the pictures are SVG and PNG"),
        case!["keyframes", &missing, "--json"].fails("holds no run"),
        case!["keyframes", &run, &missing].fails("missing.txt: not a folder"),
        case!["verify", &missing, "--json"].fails("holds no run"),
        case!["verify", &run, "--nope"].usage(),
        // train: every flag's value.
        case!["train", n, "--generations", "x"].usage(),
        case!["train", n, "--generations", "-1"].usage(),
        case!["train", n, "--hidden", "0"].fails(HIDDEN_LIMIT),
        case!["train", n, "--master-depth", "0"].fails("--master-depth must be at least 1"),
        case!["train", n, "--quiescent", "0"].usage(),
        case!["train", n, "--quiescent", "x"].usage(),
        case!["train", n, "--heuristic-samples", "x"].usage(),
        case!["train", n, "--children", "-1"].usage(),
        case!["train", n, "--beam-width", "0"].fails("--beam-width must be at least 1"),
        case!["train", n, "--beam-pieces", "0"].fails("--beam-pieces must be at least 1"),
        case!["train", n, "--epochs", "0"].fails("--epochs must be at least 1"),
        case!["train", n, "--patience", "x"].usage(),
        case!["train", n, "--batch", "0"].fails("--batch must be at least 1"),
        case!["train", n, "--weight-decay", "nan"].fails("--weight-decay must be 0 or more"),
        case!["train", n, "--seed", "-1"].usage(),
        case!["train", n, "--gate-every", "0"].fails("--gate-every must be at least 1"),
        case!["train", n, "--start-every", "0"].fails("--start-every must be at least 1"),
        case!["train", n, "--start-every", "x"].usage(),
        case!["train", n, "--rank-weight", "-1"].fails("--rank-weight must be 0 or more"),
        case!["train", n, "--rank-weight", "nan"].fails("--rank-weight must be 0 or more"),
        case!["train", n, "--rank-validation"].fails("--rank-validation needs a ranking term"),
        case!["train", n, "--gate-margin", "-1"].fails("--gate-margin must be 0 or more"),
        case!["train", n, "--gate-wide", "100000,0"]
            .fails("--gate-wide: every width must be at least 1"),
        case!["train", n, "--gate-wide", "500,500"].fails("--gate-wide: a width is given twice"),
        case!["train", n, "--gate-wide-from", "200"].fails("--gate-wide-from needs --gate-wide"),
        case!["train", n, "--gate-wide", "500", "--gate-wide-from", "0"]
            .fails("--gate-wide-from: every piece must be at least 1"),
        case![
            "train",
            n,
            "--gate-wide",
            "500",
            "--gate-wide-from",
            "200,200"
        ]
        .fails("--gate-wide-from: a piece is given twice"),
        case![
            "train",
            n,
            "--gate-wide",
            "500",
            "--gate-wide-from",
            "100000"
        ]
        .fails("--gate-wide-from 100000: dnf-366: --at 100000 is past"),
        case!["train", n, "--gate-wide", "500", "--gate-wide-from", "x"].usage(),
        case!["train", n, "--gate-wide-rotate", "1"]
            .fails("--gate-wide-rotate 1 needs more --gate-wide-from starts than that (0 given)"),
        case![
            "train",
            n,
            "--gate-wide",
            "500",
            "--gate-wide-from",
            "200,300",
            "--gate-wide-rotate",
            "2"
        ]
        .fails("--gate-wide-rotate 2 needs more --gate-wide-from starts than that (2 given)"),
        case!["train", n, "--gate-wide-rotate", "0"].fails("--gate-wide-rotate must be at least 1"),
        case!["train", n, "--gate-wide-rotate", "x"].usage(),
        case!["train", n, "--gate-wide-slack", "20"]
            .fails("--gate-wide-slack needs --gate-wide"),
        case!["train", n, "--gate-wide", "500", "--gate-wide-slack", "-1"].usage(),
        case!["train", n, "--wide-unread-min", "3"]
            .fails("--wide-unread-min needs --wide-unread"),
        case!["train", n, "--wide-unread-min", "-1"].usage(),
        case!["train", n, "--gate-wide-always=maybe"].usage(),
        case!["train", n, "--wide-unread=false", "--wide-unread-min", "3"]
            .fails("--wide-unread-min needs --wide-unread"),
        case!["train", n, "--wide-spare-starts"]
            .fails("--wide-spare-starts needs --wide-samples"),
        case!["train", n, "--gate-wide", "500", "--gate-wide-from", "300,500", "--wide-samples", "4", "--wide-spare-starts"]
            .fails("--wide-spare-starts needs --gate-wide-rotate"),
        case!["train", n, "--gate-block", "x"].usage(),
        case!["train", n, "--gate-block", "-5"].usage(),
        case!["train", n, "--gate-rotate", "dnf-366"]
            .fails("--gate-rotate needs at least two games to take turns over"),
        case!["train", n, "--gate-rotate", "dnf-366,dnf-366"]
            .fails("--gate-rotate: a game is named twice"),
        case!["train", n, "--gate-rotate", "dnf-366,dnf-302"]
            .fails("--gate-rotate: dnf-302 is a game the samples come from"),
        case![
            "train", n, "--samples", "0", "--gate-wide", "100", "--gate-wide-from", "300",
            "--wide-samples", "4", "--gate-rotate", "dnf-366,knewjade-289"
        ]
        .fails("--gate-rotate: the gate would judge on dnf-366, the game its wide games start from"),
        case![
            "train", n, "--samples", "0", "--gate-wide", "100", "--gate-wide-from", "300",
            "--wide-samples", "4", "--gate-games", "knewjade-289,dnf-366"
        ]
        .fails("--gate-games: the gate would judge on dnf-366, the game its wide games start from"),
        case![
            "train", n, "--samples", "0", "--gate-wide", "100", "--gate-wide-from", "300",
            "--wide-samples", "4", "--gate-wide-game", "tim-232", "--gate-games", "tim-232"
        ]
        .fails("--gate-games: the gate would judge on tim-232"),
        case!["train", n, "--gate-games", "tim-232,tim-232"]
            .fails("--gate-games: a game is named twice"),
        case!["train", n, "--gate-games", "dnf-302"]
            .fails("--gate-games: dnf-302 is a game the samples come from"),
        case!["train", n, "--gate-games", "dnf-3711"]
            .fails("--gate-games: no embedded game named dnf-3711 (known: dnf-302, dnf-366, dnf-148"),
        case!["train", n, "--gate-wide-game", "x"]
            .fails("--gate-wide-game: no embedded game named x"),
        case!["train", n, "--gate-wide-game", "tim-232"]
            .fails("--gate-wide-game needs --gate-wide-from"),
        case!["train", n, "--gate-wide", "100", "--gate-wide-game", "tim-232", "--gate-wide-from", "700"]
            .fails("--gate-wide-from 700: tim-232: --at 700 is past"),
        case!["train", n, "--gate-rotate", "dnf-366,dnf-3711"]
            .fails("--gate-rotate: no gate game or opening named dnf-3711 (known: dnf-366, dnf-148"),
        case!["train", n, "--no-learning", "--gate-rotate", "dnf-366,knewjade-289"]
            .fails("--gate-rotate is a setting of the learning loop"),
        case!["train", n, "--wide-samples", "4"]
            .fails("--wide-samples draws from the gate's wide games, which this folder does not play (--gate-wide)"),
        case!["train", n, "--wide-samples", "x"].usage(),
        case!["train", n, "--samples", "5"].fails("--samples must be at least 10 (or 0 with --wide-samples)"),
        case!["train", n, "--samples", "0"]
            .fails("--samples 0 leaves the master beam unsampled, which only --wide-samples makes up for"),
        case!["train", n, "--gate-wide", "500", "--wide-samples", "4", "--wide-gates", "0"]
            .fails("--wide-gates must be at least 1"),
        case!["train", n, "--no-learning", "--wide-samples", "4"]
            .fails("--wide-samples is a setting of the learning loop"),
        case!["train", n, "--average-fits", "0"].fails("--average-fits must be at least 1"),
        case!["train", n, "--life-pieces", "20"]
            .fails("--life-pieces must be past the training beams' 20 pieces"),
        case!["train", n, "--life-pieces", "x"].usage(),
        case!["train", n, "--life-weight", "-0.5"].fails("--life-weight must be 0 or more"),
        case!["train", n, "--life-weight", "inf"].fails("--life-weight must be 0 or more"),
        case!["train", n, "--far-share", "1.5"].fails("--far-share must be from 0 to 1"),
        case!["train", n, "--far-share", "NaN"].fails("--far-share must be from 0 to 1"),
        case!["train", n, "--far-share", "0.5"]
            .fails("--far-share needs the life term's horizon (--life-pieces)"),
        case!["train", n, "--gate-every", "x"].usage(),
        case!["train", n, "--width", "1000000000000", "--threads", "1"]
            .fails("needs about 96 TB of memory"),
        case!["train", &run].fails("holds a search run (manifest.json), not a training folder"),
        case!["train", n, "--no-chain-points=yes"].usage(),
        case!["train", n, "--fork", &missing, "--at", "1"]
            .fails("not a training folder (no train.json) to fork from"),
        case!["train", n, "--fork", &run].usage(),
        case!["train", n, "--at", "1"].usage(),
        case!["train", n, "--redo", "fit"].usage(),
        case!["train", n, "--fork", &run, "--at", "1", "--redo", "nothing"].usage(),
        case!["train", n, "--fork", &run, "--at", "x"].usage(),
        case!["train", n, "--fork", &run, "--at", "1", "--from", &missing].usage(),
        // tune: every flag's value.
        case!["tune"].usage(),
        case!["tune", n, "--width", "0"].fails("must be at least 1"),
        case!["tune", n, "--starts", "0"].fails("must be at least 1"),
        case!["tune", n, "--pieces", "0"].fails("must be at least 1"),
        case!["tune", n, "--jitter", "0"].fails("must be at least 1"),
        case!["tune", n, "--budget", "1"].fails("--budget must be at least 2"),
        case!["tune", n, "--budget", "x"].usage(),
        case!["tune", n, "--sigma", "0"].fails("--sigma must be a positive number"),
        case!["tune", n, "--sigma", "nan"].fails("--sigma must be a positive number"),
        case!["tune", n, "--population", "1"].fails("--population must be at least 2"),
        case!["tune", n, "--terms", "holes,nope"].fails("unknown weight `nope`"),
        case!["tune", n, "--weights", &missing].fails("No such file or directory"),
        case!["tune", n, "--weights", &garbage].fails("garbage.txt"),
        case!["tune", n, "--seed", "x"].usage(),
        case!["tune", n, "--threads", "0"].fails("--threads must be at least 1"),
        case!["tune", n, "--quiescent", "0"].usage(),
        case!["tune", n, "--width", "1000000000000", "--threads", "1"]
            .fails("needs about 96 TB of memory"),
        case!["tune", &run, "--width", "20"].fails("holds a search run"),
        case!["tune", n, "--suite", &missing].fails("No such file or directory"),
        case!["tune", n, "--suite", &garbage].fails("not a strength suite"),
        case!["tune", n, "--suite", concat!(env!("CARGO_MANIFEST_DIR"), "/data/strength/suite-unsampled.json"), "--pieces", "301"]
            .fails("--pieces must be at most the suite's cap (300 pieces)"),
        // compare.
        case!["compare"].usage(),
        case!["compare", "--weights", w].fails("give --weights or --net at least twice"),
        case!["compare", "--weights", &missing, "--weights", w].fails("No such file or directory"),
        case!["compare", "--net", &missing, "--weights", w].fails("No such file or directory"),
        case!["compare", "--weights", w, "--net", NET, "--jitter", "2"]
            .fails("--jitter moves a weights file's weights"),
        case![
            "compare",
            "--weights",
            w,
            "--weights",
            w,
            "--reference",
            "garbage"
        ]
        .fails("decoding the replay"),
        case![
            "compare",
            "--weights",
            w,
            "--weights",
            w,
            "--reference",
            &at_missing
        ]
        .fails("No such file or directory"),
        case![
            "compare",
            "--weights",
            w,
            "--weights",
            w,
            "--reference",
            "wells.txt"
        ]
        .fails("give @wells.txt to read it"),
        case!["compare", "--weights", w, "--weights", w, "--width", "0"]
            .fails("must be at least 1"),
        case!["compare", "--weights", w, "--weights", w, "--threads", "0"]
            .fails("--threads must be at least 1"),
        case!["compare", "--weights", w, "--weights", w, "--reference-dir"].usage(),
        case![
            "compare",
            "--weights",
            w,
            "--weights",
            w,
            "--quiescent",
            "0"
        ]
        .usage(),
        // bench strength.
        case!["bench", "strength"].usage(),
        case!["bench", "strength", "--net", "x.nnue", "--block", "-50"].usage(),
        case!["bench", "strength", "--weights", &missing].fails("No such file or directory"),
        case!["bench", "strength", "--net", &missing].fails("No such file or directory"),
        case!["bench", "strength", "--weights", w, "--suite", &missing]
            .fails("No such file or directory"),
        case!["bench", "strength", "--weights", w, "--width", "0"]
            .fails("--width must be at least 1"),
        case!["bench", "strength", "--weights", w, "--cap", "0"].fails("--cap must be at least 1"),
        case!["bench", "strength", "--weights", w, "--threads", "0"]
            .fails("--threads must be at least 1"),
        case!["bench", "strength", "--weights", w, "--quiescent", "0"].usage(),
        // bench search, bench eval: the rest of their flags.
        case!["bench", "search", "--net", &missing].fails("No such file or directory"),
        case!["bench", "search", "--weights", &missing].fails("No such file or directory"),
        case!["bench", "search", "--workers", "0"].fails("--workers must be at least 1"),
        case!["bench", "search", "--copies", "--threads", "2"]
            .fails("--copies needs --threads with 1 and a larger count"),
        case!["bench", "search", "--repeat", "0"].usage(),
        case!["bench", "search", "--quiescent", "0"].usage(),
        case!["bench", "eval", "--weights", &missing].fails("No such file or directory"),
        case!["bench", "eval", "--quiescent", "0"].usage(),
        case!["bench", "eval", "--quiescent", "33"].usage(),
        // replay render, completions.
        case!["replay", "render", "LLL"].usage(),
        case!["replay", "render", "LLL", "--out", p("x.jpg")].fails("the picture is PNG or SVG"),
        case![
            "replay",
            "render",
            "LLL",
            "--out",
            p("x.png"),
            "--every",
            "0"
        ]
        .usage(),
        case!["replay", "render", "LLL", "--out", "/dev/null/x.png"].fails("Not a directory"),
        case!["completions"].usage(),
    ]
}

/// The files the cases name, in a fresh folder, and a small run folder.
fn fixtures(t: &Path) {
    let write = |name: &str, bytes: &[u8]| std::fs::write(t.join(name), bytes).unwrap();
    std::fs::create_dir(t.join("a-directory")).unwrap();
    write("empty.txt", b"");
    write("garbage.txt", b"{\"this\": is not anything}\n");
    write("latin1.txt", b"caf\xe9 \xff\xfe\n");
    write("wells.txt", format!("{EMPTY}\n").as_bytes());
    write("bad.toml", b"holes = \n");
    write("unknown-key.toml", b"bogus = 1\n");
    write("wrong-type.toml", b"holes = \"eleven\"\n");
    write("bad-well.txt", format!("{EMPTY}\n1 2 3\n").as_bytes());
    // Larger than every cap, without taking the space (sparse).
    File::create(t.join("sparse.txt"))
        .unwrap()
        .set_len(300 << 20)
        .unwrap();
    let o = Case::new(
        [
            "search",
            "--width",
            "5",
            "--max-depth",
            "3",
            "-q",
            "--out",
            "run",
        ]
        .map(OsString::from)
        .to_vec(),
    )
    .run(t);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let copy = |name: &str| {
        let to = t.join(name);
        std::fs::create_dir(&to).unwrap();
        for f in std::fs::read_dir(t.join("run")).unwrap() {
            let f = f.unwrap();
            std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
        }
        to
    };
    std::fs::write(copy("run-bad-manifest").join("manifest.json"), "garbage").unwrap();
    let truncated = copy("run-truncated").join("depth-00003.beam");
    let bytes = std::fs::read(&truncated).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    std::fs::remove_file(copy("run-missing-depth").join("depth-00002.beam")).unwrap();
}

/// Every bad input gives exit code 1 and one line (or a clap usage error),
/// and nothing panics.
#[test]
fn bad_inputs_fail_with_one_line_and_no_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    fixtures(t);
    let cases = cases(t);
    let started = Instant::now();
    let mut failures = Vec::new();
    for case in &cases {
        let o = case.run(t);
        if let Some(why) = case.check(&o) {
            failures.push(format!(
                "{:?} (stdin {:?}, full {}): {why}",
                case.args,
                case.stdin_name(),
                case.full
            ));
        }
    }
    println!(
        "{} bad inputs ({} usage errors) in {:.1}s",
        cases.len(),
        cases
            .iter()
            .filter(|c| matches!(c.want, Want::Usage))
            .count(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

impl Case {
    fn stdin_name(&self) -> String {
        match &self.stdin {
            Input::Empty => "none".into(),
            Input::Bytes(b) if b.len() > 40 => format!("{} bytes", b.len()),
            Input::Bytes(b) => format!("{:?}", String::from_utf8_lossy(b)),
            Input::File(p) => p.display().to_string(),
        }
    }
}
