//! The settings a folder recorded, against the ones asked for on resuming.
//!
//! A run, a training folder and a tuning folder each go on only with the
//! settings they began with; each says which setting differs and both
//! values. The comparison is one rule, written here: both sides as JSON,
//! nested objects flattened to dotted keys (`fit.epochs`), a `null` counting
//! as absent (so a folder recorded before a key existed still resumes when
//! the key's value is `null`), and numbers compared as `f64` (so `2`, `2.0`
//! and `2e0` agree, and a float read back from JSON is the float written).

use serde::Serialize;
use serde_json::Value;

/// Whether a setting holds its type's default (0, `false`): the
/// `skip_serializing_if` of a setting added later, so that a file written
/// without it, or with it off, reads and writes the same as before it.
pub fn is_default<T: Default + PartialEq>(x: &T) -> bool {
    *x == T::default()
}

/// One setting that differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Its key, dotted for a nested one.
    pub key: String,
    /// The folder's value (`none` when absent).
    pub recorded: String,
    /// The value asked for (`none` when absent).
    pub asked: String,
}

/// Every setting that differs between `recorded` and `asked`, sorted by
/// key; empty when they agree.
pub fn differences<T: Serialize + ?Sized>(recorded: &T, asked: &T) -> Vec<Difference> {
    let recorded = serde_json::to_value(recorded).expect("plain data serialises");
    let asked = serde_json::to_value(asked).expect("plain data serialises");
    let mut a = Vec::new();
    flatten("", &recorded, &mut a);
    let mut b = Vec::new();
    flatten("", &asked, &mut b);
    let mut keys: Vec<&String> = a.iter().chain(&b).map(|(k, _)| k).collect();
    keys.sort();
    keys.dedup();
    fn find<'a>(side: &[(String, &'a Value)], key: &str) -> Option<&'a Value> {
        side.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
    keys.into_iter()
        .filter_map(|key| {
            let (x, y) = (find(&a, key), find(&b, key));
            let show = |v: Option<&Value>| v.map_or("none".to_string(), |v| v.to_string());
            (x.map(canonical) != y.map(canonical)).then(|| Difference {
                key: key.clone(),
                recorded: show(x),
                asked: show(y),
            })
        })
        .collect()
}

/// The leaves of `v` that are not `null`, as `(dotted key, value)`.
fn flatten<'a>(prefix: &str, v: &'a Value, out: &mut Vec<(String, &'a Value)>) {
    match v {
        Value::Null => {}
        Value::Object(map) => {
            for (k, v) in map {
                let key = match prefix {
                    "" => k.clone(),
                    p => format!("{p}.{k}"),
                };
                flatten(&key, v, out);
            }
        }
        leaf => out.push((prefix.to_string(), leaf)),
    }
}

/// `v` written so that two values are the same exactly when their forms
/// are: object keys sorted, every number as the shortest decimal of its
/// `f64`.
pub fn canonical(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) => out.push_str(&format!("{x:?}")),
            None => out.push_str(&n.to_string()),
        },
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<_> = map.iter().collect();
            keys.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_keys_are_dotted_nulls_absent_and_numbers_compared_as_floats() {
        let a = json!({"width": 2, "fit": {"epochs": 12, "rate": 0.5}, "old": null});
        let b = json!({"width": 2.0, "fit": {"epochs": 10, "rate": 0.5}, "new": 1});
        let d = differences(&a, &b);
        let keys: Vec<&str> = d.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["fit.epochs", "new"]);
        assert_eq!((d[0].recorded.as_str(), d[0].asked.as_str()), ("12", "10"));
        assert_eq!((d[1].recorded.as_str(), d[1].asked.as_str()), ("none", "1"));
        assert!(differences(&a, &a).is_empty());
    }
}
