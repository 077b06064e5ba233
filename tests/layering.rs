//! The crate doc's layering, checked: `src/lib.rs` lists the modules from
//! the ground up, and a module may import (`use crate::...`) only modules
//! listed before it. The binary (`src/main.rs`, `src/cli/`) is the top
//! floor and imports the library as `hatetris::`, so it is not checked.
//!
//! The check reads the sources as text: every `use crate::` statement, up
//! to its `;` (so a brace list over several lines counts), and for a name
//! re-exported at the crate's root (`crate::Well`) the module it comes
//! from (`pub use well::Well;` in `lib.rs`).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The library's modules in the crate doc's order: each declared module
/// (`pub mod x;`, `pub(crate) mod x;`) by its first mention in a `//!`
/// line of `lib.rs`.
fn doc_order(lib: &str) -> Vec<String> {
    let declared: Vec<String> = lib
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l
                .strip_prefix("pub mod ")
                .or_else(|| l.strip_prefix("pub(crate) mod "))
                .or_else(|| l.strip_prefix("mod "))?;
            Some(rest.trim_end_matches(';').to_string())
        })
        .collect();
    let mut order: Vec<String> = Vec::new();
    for line in lib.lines().filter(|l| l.starts_with("//!")) {
        for (i, _) in line.match_indices('`') {
            let word: String = line[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if declared.contains(&word) && !order.contains(&word) {
                order.push(word);
            }
        }
    }
    for m in &declared {
        assert!(
            order.contains(m),
            "src/lib.rs declares `{m}` but its crate doc does not list it"
        );
    }
    order
}

/// `pub use module::Name;` lines of `lib.rs`: the root names and their
/// modules.
fn root_names(lib: &str) -> HashMap<String, String> {
    let mut names = HashMap::new();
    for l in lib.lines() {
        if let Some(rest) = l.trim().strip_prefix("pub use ") {
            let rest = rest.trim_end_matches(';');
            let module = rest.split("::").next().unwrap().to_string();
            let items = rest[module.len() + 2..].trim_matches(|c| c == '{' || c == '}');
            for item in items.split(',') {
                names.insert(item.trim().to_string(), module.clone());
            }
        }
    }
    names
}

/// The top-level names each `use crate::...;` statement of `text` imports.
fn imported(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("use crate::") {
        let start = at + "use crate::".len();
        let end = rest[start..].find(';').map_or(rest.len(), |e| start + e);
        let path = &rest[start..end];
        match path.strip_prefix('{') {
            // `use crate::{a::b, c};`: the first name of each item at the
            // outermost level.
            Some(list) => {
                let mut level = 0;
                let mut item = String::new();
                for c in list.chars() {
                    match c {
                        '{' => level += 1,
                        '}' => level -= 1,
                        ',' if level == 0 => {
                            out.push(first_name(&item));
                            item.clear();
                            continue;
                        }
                        _ => {}
                    }
                    if level >= 0 {
                        item.push(c);
                    }
                }
                if !item.trim().is_empty() {
                    out.push(first_name(&item));
                }
            }
            None => out.push(first_name(path)),
        }
        rest = &rest[end..];
    }
    out.retain(|n| !n.is_empty());
    out
}

fn first_name(path: &str) -> String {
    path.trim()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `use crate::` of the library, as `(file, importing module,
/// imported module)`.
fn imports() -> (Vec<String>, Vec<(String, String, String)>) {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let order = doc_order(&lib);
    let roots = root_names(&lib);
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    let mut edges = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(src())
            .unwrap()
            .to_string_lossy()
            .to_string();
        let top = rel.split(['/', '.']).next().unwrap().to_string();
        if !order.contains(&top) {
            // lib.rs, main.rs and the binary's cli/.
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        for name in imported(&text) {
            let module = roots.get(&name).cloned().unwrap_or(name);
            assert!(
                order.contains(&module),
                "src/{rel}: `use crate::{module}`, a name this check does not know"
            );
            if module != top {
                edges.push((rel.clone(), top.clone(), module));
            }
        }
    }
    (order, edges)
}

#[test]
fn no_module_imports_one_listed_after_it_in_the_crate_doc() {
    let (order, edges) = imports();
    // The reader sees the imports at all: the search uses its run folder.
    assert!(edges
        .iter()
        .any(|(_, from, to)| from == "search" && to == "run"));
    let rank = |m: &str| order.iter().position(|x| x == m).unwrap();
    let mut wrong: Vec<String> = edges
        .iter()
        .filter(|(_, from, to)| rank(to) > rank(from))
        .map(|(file, from, to)| {
            format!("src/{file}: `{from}` imports `{to}`, which the crate doc lists after it")
        })
        .collect();
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "the crate doc's order is {order:?}; imports running back up:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_import_reader_sees_brace_lists_over_several_lines() {
    let text = "use crate::well::Well;\nuse crate::{\n    run::{self, Best},\n    search::Search,\n};\npub(crate) use crate::folder::io;";
    assert_eq!(imported(text), ["well", "run", "search", "folder"]);
}
