//! The JSON of the exports: a value tree and a pretty printer. Replaces
//! `serde_json`, which cost ~25 KB of wasm for what the exports need: objects
//! with fixed keys, arrays, numbers, strings.

use std::fmt::Write as _;

/// A JSON value. Object keys are fixed field names, in insertion order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer, written exactly.
    Int(i128),
    /// A float (non-finite values are written as `null`).
    Num(f64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object.
    Obj(Vec<(&'static str, Json)>),
    /// An object whose keys are data (algorithm ids, names), in insertion order.
    Map(Vec<(String, Json)>),
}

/// `json!({"key": value, ...})` or `json!(value)`: builds a [`Json`] from
/// anything with a `From` conversion (numbers, strings, options, slices, arrays, pairs).
#[macro_export]
macro_rules! json {
    ({ $($key:literal : $value:expr),* $(,)? }) => {
        $crate::json::Json::Obj(vec![$(($key, $crate::json::Json::from($value))),*])
    };
    ($value:expr) => {
        $crate::json::Json::from($value)
    };
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Json {
            fn from(v: $t) -> Json {
                Json::Int(i128::try_from(v).unwrap_or(i128::MAX))
            }
        }
    )*};
}
from_int!(u8, u16, u32, u64, usize, i32, i64);

impl From<f64> for Json {
    fn from(v: f64) -> Json {
        Json::Num(v)
    }
}

impl From<bool> for Json {
    fn from(v: bool) -> Json {
        Json::Bool(v)
    }
}

impl From<&str> for Json {
    fn from(v: &str) -> Json {
        Json::Str(v.to_owned())
    }
}

impl From<String> for Json {
    fn from(v: String) -> Json {
        Json::Str(v)
    }
}

impl<T: Into<Json>> From<Option<T>> for Json {
    fn from(v: Option<T>) -> Json {
        v.map_or(Json::Null, Into::into)
    }
}

impl<T: Into<Json>> From<Vec<T>> for Json {
    fn from(v: Vec<T>) -> Json {
        Json::Arr(v.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Json> + Clone> From<&[T]> for Json {
    fn from(v: &[T]) -> Json {
        Json::Arr(v.iter().cloned().map(Into::into).collect())
    }
}

impl<T: Into<Json> + Clone> From<&Vec<T>> for Json {
    fn from(v: &Vec<T>) -> Json {
        Json::from(v.as_slice())
    }
}

impl<T: Into<Json>, const N: usize> From<[T; N]> for Json {
    fn from(v: [T; N]) -> Json {
        Json::Arr(v.into_iter().map(Into::into).collect())
    }
}

impl<A: Into<Json>, B: Into<Json>> From<(A, B)> for Json {
    fn from((a, b): (A, B)) -> Json {
        Json::Arr(vec![a.into(), b.into()])
    }
}

impl Json {
    /// Pretty-printed with two-space indentation.
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        match self {
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Json::Num(x) if x.is_finite() => {
                let _ = write!(out, "{x}");
            }
            Json::Null | Json::Num(_) => out.push_str("null"),
            Json::Str(s) => string(out, s),
            Json::Arr(items) => nested(out, depth, ('[', ']'), items.iter().map(|item| (None, item))),
            Json::Obj(fields) => nested(out, depth, ('{', '}'), fields.iter().map(|(k, v)| (Some(*k), v))),
            Json::Map(fields) => nested(out, depth, ('{', '}'), fields.iter().map(|(k, v)| (Some(k.as_str()), v))),
        }
    }
}

/// An array (no keys) or an object, one item a line; empty ones as `[]`, `{}`.
fn nested<'a>(
    out: &mut String,
    depth: usize,
    (open, close): (char, char),
    items: impl Iterator<Item = (Option<&'a str>, &'a Json)>,
) {
    let indent = |out: &mut String, d: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", d));
    };
    out.push(open);
    let mut empty = true;
    for (i, (key, value)) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        indent(out, depth + 1);
        if let Some(key) = key {
            string(out, key);
            out.push_str(": ");
        }
        value.write(out, depth + 1);
        empty = false;
    }
    if !empty {
        indent(out, depth);
    }
    out.push(close);
}

/// The CLI hands these values to `serde_json` (its `--json` output and the
/// fields it adds); the page never serializes them this way.
impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Int(i) => match (u64::try_from(*i), i64::try_from(*i)) {
                (Ok(u), _) => s.serialize_u64(u),
                (_, Ok(i)) => s.serialize_i64(i),
                _ => s.serialize_f64(*i as f64),
            },
            Json::Num(x) if x.is_finite() => s.serialize_f64(*x),
            Json::Null | Json::Num(_) => s.serialize_unit(),
            Json::Str(t) => s.serialize_str(t),
            Json::Arr(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Obj(fields) => {
                let mut map = s.serialize_map(Some(fields.len()))?;
                for (k, v) in fields {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
            Json::Map(fields) => {
                let mut map = s.serialize_map(Some(fields.len()))?;
                for (k, v) in fields {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// A JSON string literal (RFC 8259 escapes).
fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {

    #[test]
    fn writes_valid_pretty_json() {
        let doc = json!({
            "n": 3u32, "x": 0.5, "big": u64::MAX, "neg": -2i64, "nan": f64::NAN, "s": "a\"b\\c\n\u{1}",
            "none": None::<u32>, "list": vec![1u32, 2], "pair": (1u32, 2u32), "empty": Vec::<u32>::new(),
            "nested": json!({"ok": true}),
        });
        let text = doc.pretty();
        assert_eq!(
            text,
            "{\n  \"n\": 3,\n  \"x\": 0.5,\n  \"big\": 18446744073709551615,\n  \"neg\": -2,\n  \"nan\": null,\n  \"s\": \"a\\\"b\\\\c\\n\\u0001\",\n  \"none\": null,\n  \"list\": [\n    1,\n    2\n  ],\n  \"pair\": [\n    1,\n    2\n  ],\n  \"empty\": [],\n  \"nested\": {\n    \"ok\": true\n  }\n}"
        );
    }

    #[test]
    fn data_keys_and_serde_agree_with_the_printer() {
        use super::Json;
        let doc = json!({
            "times": Json::Map(vec![("ring".to_owned(), json!(1.5)), ("a\"b".to_owned(), json!(2u32))]),
            "empty": Json::Map(Vec::new()), "big": Json::Int(i128::from(u64::MAX) + 1), "neg": -3i64, "inf": f64::INFINITY,
        });
        assert_eq!(
            doc.pretty(),
            "{\n  \"times\": {\n    \"ring\": 1.5,\n    \"a\\\"b\": 2\n  },\n  \"empty\": {},\n  \"big\": 18446744073709551616,\n  \"neg\": -3,\n  \"inf\": null\n}"
        );
        // The CLI's serde path reads as the printer writes (the integer beyond u64 as a float).
        let via_serde = serde_json::to_value(&doc).unwrap();
        let mut printed: serde_json::Value = serde_json::from_str(&doc.pretty()).unwrap();
        printed["big"] = serde_json::json!(18_446_744_073_709_551_616.0);
        assert_eq!(via_serde, printed);
    }
}
