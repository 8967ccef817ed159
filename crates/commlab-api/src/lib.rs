//! `commlab-api`: the one typed engine API of commlab.
//!
//! Every heavy computation the playground offers is a [`protocol::Request`]
//! answered by [`protocol::Engine`] with [`protocol::Response`]s: the Web
//! Worker serves it, the page's main-thread fallback serves it in slices, and
//! the CLI builds the same run JSON ([`report::RunJson`]). Requests are plain
//! serde values, validated against `commlab_core::limits` on arrival; bad
//! input gets one error type, [`ApiError`], naming the field and its range.

/// The link format (`v=` of every link the playground writes, the Sources
/// page's included): the one place its number is written. It goes up when a
/// seeded outcome changes (`docs/links.md`, "Versioning").
pub const LINK_VERSION: u32 = 5;

#[macro_use]
pub mod json;
pub mod chooser;
pub mod exports;
pub mod fit;
pub mod lab;
pub mod libraries;
pub mod mesh;
pub mod model;
pub mod nccl_tuner;
pub mod network;
pub mod predict;
pub mod protocol;
pub mod report;
pub mod schedule;
pub mod sim;
pub mod sources;
pub mod steady;
pub mod swizzle;
pub mod sysfit;
pub mod system;
pub mod tree;
pub mod wire;

use commlab_core::limits::ConfigError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A rejected request: the field, the value given, the accepted range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiError {
    /// The field's public name (as in URLs and CLI flags).
    pub field: String,
    /// The value given, as text.
    pub value: String,
    /// What is accepted, in words (a range or a list of ids).
    pub expected: String,
}

impl ApiError {
    /// An error of `field`.
    pub fn new(field: &str, value: impl fmt::Display, expected: impl Into<String>) -> ApiError {
        ApiError { field: field.to_owned(), value: value.to_string(), expected: expected.into() }
    }

    /// A problem that is not a value out of range (a syntax error, an engine
    /// that stopped): shown as `field: message`.
    pub fn problem(field: &str, message: impl Into<String>) -> ApiError {
        ApiError { field: field.to_owned(), value: String::new(), expected: message.into() }
    }
}

impl From<ConfigError> for ApiError {
    fn from(e: ConfigError) -> ApiError {
        ApiError { field: e.name.to_owned(), value: e.value, expected: e.expected }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.value.is_empty() {
            write!(f, "{}: {}", self.field, self.expected)
        } else {
            write!(f, "{} = {} is out of range: expected {}", self.field, self.value, self.expected)
        }
    }
}

impl std::error::Error for ApiError {}

/// Parses a stable id (`Algorithm`, `Encoding`, `Judge`, …) of `field`.
///
/// # Errors
/// The field, the text and the ids that exist.
pub fn parse_id<T: std::str::FromStr<Err = String>>(field: &str, text: &str) -> Result<T, ApiError> {
    text.parse().map_err(|e: String| {
        let expected = e.split_once("expected ").map_or(e.as_str(), |(_, list)| list).to_owned();
        ApiError::new(field, text, expected)
    })
}

/// A routing rule on the wire as its id (`paper`, `shortest`); the core stays
/// free of serde.
pub mod routing_id {
    use commlab_core::barrier::mesh::Routing;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the id.
    ///
    /// # Errors
    /// The serializer's.
    #[allow(clippy::trivially_copy_pass_by_ref, reason = "serde's `with` signature")]
    pub fn serialize<S: Serializer>(routing: &Routing, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(routing.id())
    }

    /// Reads the id.
    ///
    /// # Errors
    /// An id that names no rule.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Routing, D::Error> {
        let id = String::deserialize(d)?;
        id.parse().map_err(serde::de::Error::custom)
    }
}
