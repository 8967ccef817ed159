//! The versioned URL codec: [`to_query`] and [`from_query`], pure functions
//! between [`Params`] and a query string.
//!
//! Format `v=1`: `v=1&view=<id>` first, then only the parameters that differ
//! from their defaults, then `embed=1` and `theme=<id>` when set. Unknown keys
//! are ignored (links from newer builds still open); a repeated key takes its
//! last value. Every invalid value yields a [`Notice`] naming the parameter and
//! its accepted range, and the default is used instead.

use crate::state::{ModelParams, Params, ThemeChoice, View};
use commlab_core::limits::{IntRange, RealRange, BYTES, MAX_PIECES, PIECES, T_BYTE, T_START, UNITS};

/// The link format this build writes and reads.
pub const VERSION: &str = "1";

/// A problem found while reading a link, shown to the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The parameter's name as it appears in the URL.
    pub param: String,
    /// What was wrong and what was used instead.
    pub message: String,
}

/// One numeric field of [`ModelParams`]: its range (which carries its URL name)
/// and how to read and write it.
enum Field {
    Int(IntRange, fn(&ModelParams) -> u64, fn(&mut ModelParams, u64)),
    Real(RealRange, fn(&ModelParams) -> f64, fn(&mut ModelParams, f64)),
}

const MODEL_FIELDS: [Field; 6] = [
    Field::Int(BYTES, |m| m.bytes, |m, v| m.bytes = v),
    Field::Int(UNITS, |m| m.units, |m, v| m.units = v),
    Field::Real(T_START, |m| m.t_start, |m, v| m.t_start = v),
    Field::Real(T_BYTE, |m| m.t_byte, |m, v| m.t_byte = v),
    Field::Int(MAX_PIECES, |m| m.max_pieces, |m, v| m.max_pieces = v),
    Field::Int(PIECES, |m| m.pieces, |m, v| m.pieces = v),
];

impl Field {
    fn name(&self) -> &'static str {
        match self {
            Field::Int(range, ..) => range.name,
            Field::Real(range, ..) => range.name,
        }
    }

    /// The field's value as URL text when it differs from `defaults`.
    fn encode(&self, params: &ModelParams, defaults: &ModelParams) -> Option<String> {
        match self {
            Field::Int(_, get, _) => (get(params) != get(defaults)).then(|| get(params).to_string()),
            Field::Real(_, get, _) => (get(params) != get(defaults)).then(|| get(params).to_string()),
        }
    }

    /// Sets the field from URL text, or explains why not.
    fn decode(&self, params: &mut ModelParams, text: &str) -> Result<(), String> {
        match self {
            Field::Int(range, _, set) => match text.trim().parse::<u64>() {
                Ok(v) if range.contains(v) => {
                    set(params, v);
                    Ok(())
                }
                _ => Err(range.to_string()),
            },
            Field::Real(range, _, set) => match text.trim().parse::<f64>() {
                Ok(v) if range.contains(v) => {
                    set(params, v);
                    Ok(())
                }
                _ => Err(range.to_string()),
            },
        }
    }

    fn default_text(&self) -> String {
        let defaults = ModelParams::default();
        match self {
            Field::Int(_, get, _) => get(&defaults).to_string(),
            Field::Real(_, get, _) => get(&defaults).to_string(),
        }
    }
}

/// Serialises `params` (without a leading `?`).
pub fn to_query(params: &Params) -> String {
    let mut out = form_urlencoded::Serializer::new(String::new());
    out.append_pair("v", VERSION);
    out.append_pair("view", params.view.id());
    let defaults = ModelParams::default();
    for field in &MODEL_FIELDS {
        if let Some(text) = field.encode(&params.model, &defaults) {
            out.append_pair(field.name(), &text);
        }
    }
    if params.embed {
        out.append_pair("embed", "1");
    }
    if params.theme != ThemeChoice::default() {
        out.append_pair("theme", params.theme.id());
    }
    out.finish()
}

/// Shows at most 40 characters of a rejected value, quoted and escaped, so a
/// hostile link cannot flood or spoof the notice.
fn quoted(text: &str) -> String {
    let mut shown: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        shown.push('…');
    }
    format!("{shown:?}")
}

/// Reads a query string (with or without the leading `?`). Never fails: every
/// problem becomes a [`Notice`] and the default is used for that parameter.
pub fn from_query(query: &str) -> (Params, Vec<Notice>) {
    let mut params = Params::default();
    let mut notices = Vec::new();
    let mut reject = |param: &str, value: &str, expected: &str, used: &str| {
        notices.push(Notice {
            param: param.to_owned(),
            message: format!("{} is not {expected}; using {used}", quoted(value)),
        });
    };
    let query = query.strip_prefix('?').unwrap_or(query);
    for (key, value) in form_urlencoded::parse(query.as_bytes()) {
        let (key, value) = (key.as_ref(), value.as_ref());
        match key {
            "v" if value != VERSION => reject("v", value, "a link version this build reads (v=1)", "v=1"),
            "v" => {}
            "view" => {
                if let Some(view) = View::from_id(value) {
                    params.view = view;
                } else {
                    let ids: Vec<&str> = View::ALL.iter().map(|v| v.id()).collect();
                    let expected = format!("one of: {}", ids.join(", "));
                    reject("view", value, &expected, View::default().id());
                }
            }
            "embed" => match value {
                "1" | "true" => params.embed = true,
                "0" | "false" => params.embed = false,
                _ => reject("embed", value, "0 or 1", "0"),
            },
            "theme" => match ThemeChoice::from_id(value) {
                Some(theme) => params.theme = theme,
                None => reject("theme", value, "one of: auto, light, dark", "auto"),
            },
            _ => {
                if let Some(field) = MODEL_FIELDS.iter().find(|f| f.name() == key) {
                    if let Err(expected) = field.decode(&mut params.model, value) {
                        reject(key, value, &expected, &field.default_text());
                    }
                }
            }
        }
    }
    (params, notices)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(query: &str, expect: &Params, expect_notices: &[&str]) {
        let (params, notices) = from_query(query);
        assert_eq!(&params, expect, "{query}");
        let names: Vec<&str> = notices.iter().map(|n| n.param.as_str()).collect();
        assert_eq!(names, expect_notices, "{query}: {notices:?}");
    }

    #[test]
    fn defaults_are_omitted() {
        assert_eq!(to_query(&Params::default()), "v=1&view=model");
        let mut p = Params::default();
        p.model.units = 128;
        p.model.t_byte = 0.0005;
        p.embed = true;
        p.theme = ThemeChoice::Dark;
        assert_eq!(to_query(&p), "v=1&view=model&p=128&t_byte=0.0005&embed=1&theme=dark");
    }

    #[test]
    fn reads_links() {
        let mut p = Params::default();
        p.model.units = 8;
        p.model.bytes = 4096;
        check("?v=1&view=model&p=8&n=4096", &p, &[]);
        check("p=8&n=4096&utm_source=x&future_param=7", &p, &[]);
        check("p=3&p=8&n=4096", &p, &[]);
    }

    #[test]
    fn invalid_values_are_reported_by_name_and_defaulted() {
        let (params, notices) = from_query("p=-3&n=abc&v=999");
        assert_eq!(params, Params::default());
        let names: Vec<&str> = notices.iter().map(|n| n.param.as_str()).collect();
        assert_eq!(names, ["p", "n", "v"]);
        assert!(notices[0].message.contains("1..=1048576"), "{}", notices[0].message);
        assert!(notices[0].message.contains("using 64"), "{}", notices[0].message);
        check(
            "t_start=NaN&t_byte=inf&m=0&max_pieces=99999999999",
            &Params::default(),
            &["t_start", "t_byte", "m", "max_pieces"],
        );
        check(
            "view=%3Cscript%3Ealert(1)%3C/script%3E&theme=neon&embed=maybe",
            &Params::default(),
            &["view", "theme", "embed"],
        );
    }

    #[test]
    fn hostile_values_are_quoted_and_truncated() {
        let long = "x".repeat(10_000);
        let (_, notices) = from_query(&format!("p={long}"));
        assert!(notices[0].message.len() < 200);
        let (_, notices) = from_query("p=%22%0A%3Cb%3E");
        assert!(notices[0].message.starts_with("\"\\\"\\n<b>\""), "{}", notices[0].message);
    }

    fn any_params() -> impl Strategy<Value = Params> {
        (
            1u64..=BYTES.max,
            1u64..=UNITS.max,
            prop_oneof![Just(0.0), 0.0f64..=T_START.max],
            prop_oneof![Just(0.0), 1e-9f64..=T_BYTE.max],
            1u64..=MAX_PIECES.max,
            1u64..=PIECES.max,
            any::<bool>(),
            0usize..3,
        )
            .prop_map(|(bytes, units, t_start, t_byte, max_pieces, pieces, embed, theme)| Params {
                view: View::Model,
                embed,
                theme: ThemeChoice::ALL[theme],
                model: ModelParams { bytes, units, t_start, t_byte, max_pieces, pieces },
            })
    }

    proptest! {
        #[test]
        fn round_trip(params in any_params()) {
            let query = to_query(&params);
            let (back, notices) = from_query(&query);
            prop_assert!(notices.is_empty(), "{query}: {notices:?}");
            prop_assert_eq!(back, params);
        }

        #[test]
        fn any_string_decodes_without_panic(query in ".{0,200}") {
            let _ = from_query(&query);
        }

        #[test]
        fn any_key_value_pairs_decode_without_panic(
            pairs in proptest::collection::vec(("(v|view|p|n|m|t_start|t_byte|max_pieces|embed|theme|[a-z]{1,4})", "\\PC{0,30}"), 0..12)
        ) {
            let query: String = form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
            let (params, _) = from_query(&query);
            // Whatever was read is a valid configuration.
            prop_assert!(params.model.config().is_ok());
        }
    }
}
