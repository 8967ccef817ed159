//! Long numeric vectors on the worker boundary as bytes, not as serde
//! sequences. With serde-wasm-bindgen a sequence crosses as a JS array
//! built one element per call (a `u64` as a `BigInt`), and is read back the
//! same way; bytes cross as one `Uint8Array`, copied once each side. A fit
//! of 10⁴ points carries 4·10⁴ numbers. Formats without bytes (JSON) get a
//! sequence of byte values, which these readers accept too.

use serde::de::{Error, SeqAccess, Visitor};
use serde::Deserializer;
use std::fmt;

struct Bytes;

impl<'de> Visitor<'de> for Bytes {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("bytes")
    }

    fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(b) = seq.next_element()? {
            out.push(b);
        }
        Ok(out)
    }
}

fn bytes<'de, D: Deserializer<'de>>(d: D, width: usize) -> Result<Vec<u8>, D::Error> {
    let b = d.deserialize_byte_buf(Bytes)?;
    if b.len() % width == 0 {
        Ok(b)
    } else {
        Err(D::Error::custom(format!("{} bytes: not a whole number of {width}-byte values", b.len())))
    }
}

fn word(chunk: &[u8]) -> [u8; 8] {
    let mut w = [0; 8];
    w.copy_from_slice(chunk);
    w
}

/// `Vec<f64>` as little-endian bytes (`#[serde(with = "crate::wire::f64s")]`).
pub mod f64s {
    use super::{bytes, word};
    use serde::{Deserializer, Serializer};

    /// Writes the values.
    ///
    /// # Errors
    /// The serializer's.
    #[allow(clippy::ptr_arg, reason = "serde's `with` passes the field as it is declared")]
    pub fn serialize<S: Serializer>(v: &Vec<f64>, s: S) -> Result<S::Ok, S::Error> {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        s.serialize_bytes(&b)
    }

    /// Reads the values.
    ///
    /// # Errors
    /// Not bytes, or not a whole number of values.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        Ok(bytes(d, 8)?.chunks_exact(8).map(|c| f64::from_le_bytes(word(c))).collect())
    }
}

/// `Vec<(u64, f64)>` as little-endian bytes, 16 a pair.
pub mod pairs {
    use super::{bytes, word};
    use serde::{Deserializer, Serializer};

    /// Writes the pairs.
    ///
    /// # Errors
    /// The serializer's.
    #[allow(clippy::ptr_arg, reason = "serde's `with` passes the field as it is declared")]
    pub fn serialize<S: Serializer>(v: &Vec<(u64, f64)>, s: S) -> Result<S::Ok, S::Error> {
        let mut b = Vec::with_capacity(v.len() * 16);
        for (n, x) in v {
            b.extend_from_slice(&n.to_le_bytes());
            b.extend_from_slice(&x.to_le_bytes());
        }
        s.serialize_bytes(&b)
    }

    /// Reads the pairs.
    ///
    /// # Errors
    /// Not bytes, or not a whole number of pairs.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(u64, f64)>, D::Error> {
        Ok(bytes(d, 16)?
            .chunks_exact(16)
            .map(|c| (u64::from_le_bytes(word(&c[..8])), f64::from_le_bytes(word(&c[8..]))))
            .collect())
    }
}

/// A long `String` (a pasted file) as its UTF-8 bytes: serde-wasm-bindgen
/// turns a string into JS and back one character at a time in JS, bytes
/// with one copy. Read from bytes (checked UTF-8) or from a string.
pub mod text {
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};
    use std::fmt;

    /// Writes the text's bytes.
    ///
    /// # Errors
    /// The serializer's.
    #[allow(clippy::ptr_arg, reason = "serde's `with` passes the field as it is declared")]
    pub fn serialize<S: Serializer>(v: &String, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v.as_bytes())
    }

    struct Text;

    impl<'de> Visitor<'de> for Text {
        type Value = String;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("text, as a string or its UTF-8 bytes")
        }

        fn visit_str<E: Error>(self, v: &str) -> Result<String, E> {
            Ok(v.to_owned())
        }

        fn visit_string<E: Error>(self, v: String) -> Result<String, E> {
            Ok(v)
        }

        fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<String, E> {
            std::str::from_utf8(v).map(str::to_owned).map_err(E::custom)
        }

        fn visit_byte_buf<E: Error>(self, v: Vec<u8>) -> Result<String, E> {
            String::from_utf8(v).map_err(E::custom)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<String, A::Error> {
            let bytes = super::Bytes.visit_seq(seq)?;
            String::from_utf8(bytes).map_err(A::Error::custom)
        }
    }

    /// Reads the text.
    ///
    /// # Errors
    /// Neither a string nor bytes, or bytes that are not UTF-8.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        d.deserialize_byte_buf(Text)
    }
}

#[cfg(test)]
mod tests {
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Both {
        #[serde(with = "super::f64s")]
        a: Vec<f64>,
        #[serde(with = "super::pairs")]
        b: Vec<(u64, f64)>,
    }

    #[test]
    fn json_round_trip_keeps_every_value() {
        let v = Both { a: vec![0.0, -1.5, f64::MAX, 1e-300], b: vec![(u64::MAX, 2.5), (0, -0.0)] };
        let text = serde_json::to_string(&v).unwrap();
        let back: Both = serde_json::from_str(&text).unwrap();
        assert_eq!(back.a, v.a);
        assert_eq!(back.b[0], v.b[0]);
        assert!(back.b[1].1.is_sign_negative());
    }

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Text {
        #[serde(with = "super::text")]
        t: String,
    }

    #[test]
    fn text_crosses_as_bytes_or_a_string() {
        let v = Text { t: "64,1\n128 µs,2\n".into() };
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(serde_json::from_str::<Text>(&text).unwrap(), v);
        assert_eq!(serde_json::from_str::<Text>(r#"{"t":"64,1\n128 µs,2\n"}"#).unwrap(), v);
        let e = serde_json::from_str::<Text>(r#"{"t":[255,0]}"#).unwrap_err().to_string();
        assert!(e.contains("utf-8"), "{e}");
    }

    #[test]
    fn a_partial_value_is_refused() {
        let e = serde_json::from_str::<Both>(r#"{"a":[1,2,3],"b":[]}"#).unwrap_err().to_string();
        assert!(e.contains("3 bytes: not a whole number of 8-byte values"), "{e}");
    }
}

/// A value that crosses the worker boundary (and JSON) as its text: its
/// `Display` out, its `FromStr` in (`#[serde(with =
/// "crate::wire::as_text")]`), so a request holds it parsed and checked
/// once, where it was read (a topology, a collective, NCCL's algorithm).
pub mod as_text {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};
    use std::fmt::Display;
    use std::str::FromStr;

    /// Writes the id.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<T: Display, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }

    /// Reads the id.
    ///
    /// # Errors
    /// Text the type does not read.
    pub fn deserialize<'de, T: FromStr<Err = String>, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(|e| D::Error::custom(format!("{text:?}: {e}")))
    }
}

/// A network's shape as its id, read back at any size
/// (`Shape::parse_any`: a steady-engine run may pass the flow engine's host
/// limit).
pub mod any_shape {
    use commlab_core::net::Shape;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    /// Writes the id.
    ///
    /// # Errors
    /// The serializer's.
    #[allow(clippy::trivially_copy_pass_by_ref, reason = "serde's `with` signature")]
    pub fn serialize<S: Serializer>(shape: &Shape, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(shape)
    }

    /// Reads the id.
    ///
    /// # Errors
    /// Text that is no shape.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Shape, D::Error> {
        let text = String::deserialize(d)?;
        Shape::parse_any(&text).map_err(D::Error::custom)
    }
}
