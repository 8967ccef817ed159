//! NCCL's own settings (`NCCL_*` environment variables), read as each
//! modelled release reads them (`docs/systems.md`, "NCCL's settings").
//!
//! - `NCCL_ALGO`, `NCCL_PROTO`: `parseList` of `src/graph/tuning.cc`. In
//!   2.22.3 a comma list, `^` first to disable what it names, names
//!   compared without case, unknown names ignored. From 2.28.3 lists per
//!   function, `;`-separated, each but the first after `function:`
//!   (`ring;allreduce:^tree`), an unknown name or function refused
//!   (`ncclInvalidUsage`). A function a list names has exactly its list
//!   (the others keep their defaults); a protocol named is enabled even
//!   where NCCL would not enable it by itself (LL128's default is "auto").
//! - `NCCL_MIN_NCHANNELS`, `NCCL_MAX_NCHANNELS`: `src/graph/connect.cc`
//!   (`ncclMinNchannels`, `ncclMaxNchannels`): at most `MAXCHANNELS` (32 in
//!   2.22.3, 64 from 2.28.3), a maximum below 1 is 1.
//! - `NCCL_NVLS_ENABLE` (`src/transport/nvls.cc`): 0 turns NVLS and NVLS
//!   tree off.
//! - `NCCL_BUFFSIZE` (`src/init.cc`, default 4 MiB): Simple's buffer, of
//!   which a step is an eighth (`NCCL_STEPS`).
//! - `NCCL_NVLS_CHUNKSIZE` (`src/transport/nvls.cc`, default 128 KiB).
//! - `NCCL_NCHANNELS_PER_NET_PEER` (`src/init.cc`): read and checked, not
//!   modelled (commlab's point-to-point runs one channel per rail).

pub use super::nccl::Settings;
use super::nccl::{Algorithm, Protocol, Version, ALGORITHMS};
use crate::choose::Collective;
use std::fmt;

/// NCCL's names of its functions (`ncclFuncStr`), in its order.
pub const FUNCTIONS: [&str; 5] = ["Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"];
/// NCCL's names of its algorithms (`ncclAlgoStr`), in its order.
const ALGO_NAMES: [&str; 7] = ["Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"];
/// NCCL's names of its protocols (`ncclProtoStr`).
const PROTO_NAMES: [&str; 3] = ["LL", "LL128", "Simple"];

/// The settings commlab reads.
pub const NAMES: [&str; 8] = [
    "NCCL_ALGO",
    "NCCL_PROTO",
    "NCCL_MIN_NCHANNELS",
    "NCCL_MAX_NCHANNELS",
    "NCCL_NVLS_ENABLE",
    "NCCL_BUFFSIZE",
    "NCCL_NVLS_CHUNKSIZE",
    "NCCL_NCHANNELS_PER_NET_PEER",
];

/// What each of [`NAMES`] accepts, in words (the CLI's help).
pub const ACCEPTED: [&str; 8] = [
    "algorithms, as NCCL lists them (Tree,Ring,CollNetDirect,CollNetChain,NVLS,NVLSTree,PAT; ^ to exclude; from 2.28 per function: ring;allreduce:tree)",
    "protocols, as NCCL lists them (LL,LL128,Simple; ^ to exclude; from 2.28 per function)",
    "an integer; at most 32 (2.22) or 64 channels",
    "an integer; at least 1 and at most 32 (2.22) or 64 channels",
    "0, 1 or 2 (2: NCCL decides)",
    "bytes of Simple's buffer, 64 KiB to 1 GiB (default 4 MiB)",
    "bytes, 4 KiB to 1 GiB (default 128 KiB)",
    "an integer from 1 to 64 (read, not modelled)",
];

/// A setting refused: its name and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingError {
    /// The setting's name (`NCCL_ALGO`).
    pub name: String,
    /// What is wrong and what is accepted.
    pub message: String,
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.message)
    }
}

fn refuse(name: &str, message: impl Into<String>) -> SettingError {
    SettingError { name: name.to_owned(), message: message.into() }
}

/// NCCL's function index of a collective (`None`: all-to-all).
pub fn function(c: Collective) -> Option<usize> {
    Some(match c {
        Collective::Broadcast => 0,
        Collective::Reduce => 1,
        Collective::Allgather => 2,
        Collective::ReduceScatter => 3,
        Collective::Allreduce => 4,
        Collective::AllToAll => return None,
    })
}

/// `parseList` of `version` on `text` over `elems` (NCCL's names, those the
/// release has): per function, the elements enabled (bit `e` for element
/// `e`) where a list names the function.
///
/// # Errors
/// From 2.28.3: an unknown element or function, a later entry without a
/// function (NCCL's `ncclInvalidUsage`).
fn parse_list(version: Version, text: &str, elems: &[&str]) -> Result<[Option<u8>; 5], String> {
    let all = u8::try_from((1u16 << elems.len()) - 1).unwrap_or(u8::MAX);
    // One list: `^` first turns off what it names, else on; the bits of
    // `list`'s names (`None`: a name the release does not know).
    let read = |list: &str| -> (bool, Vec<Option<u8>>) {
        let (set, list) = list.strip_prefix('^').map_or((true, list), |rest| (false, rest));
        let bits = list
            .split(',')
            .filter(|t| !t.is_empty())
            .map(|token| elems.iter().position(|n| token.eq_ignore_ascii_case(n)).map(|e| 1u8 << e))
            .collect();
        (set, bits)
    };
    let apply = |set: bool, bits: &[Option<u8>]| {
        let named: u8 = bits.iter().flatten().fold(0, |m, b| m | b);
        if set {
            named
        } else {
            all & !named
        }
    };
    if version == Version::V2_22 {
        // One list for every function; unknown names are ignored.
        let (set, bits) = read(text);
        return Ok([Some(apply(set, &bits)); 5]);
    }
    let mut out = [None; 5];
    for (k, entry) in text.split(';').filter(|t| !t.is_empty()).enumerate() {
        // strtok's: empty tokens skipped, a third one ignored.
        let mut parts = entry.split(':').filter(|t| !t.is_empty());
        let first = parts.next().unwrap_or("");
        let (prefix, list) = match parts.next() {
            Some(list) => (Some(first), list),
            None if k == 0 => (None, first),
            None => return Err(format!("all entries except the first must have a prefix: {text:?}")),
        };
        let (set, bits) = read(list);
        if let Some(at) = bits.iter().position(Option::is_none) {
            let token = list.trim_start_matches('^').split(',').filter(|t| !t.is_empty()).nth(at).unwrap_or("");
            return Err(format!("unrecognized element {token:?} in {text:?}: expected {}", elems.join(", ")));
        }
        let mut found = false;
        for (f, name) in FUNCTIONS.iter().enumerate() {
            if prefix.is_none_or(|p| p.eq_ignore_ascii_case(name)) {
                found = true;
                out[f] = Some(apply(set, &bits));
            }
        }
        if !found {
            return Err(format!(
                "unrecognized prefix {:?} in {text:?}: expected {}",
                prefix.unwrap_or(""),
                FUNCTIONS.join(", ")
            ));
        }
    }
    Ok(out)
}

/// The largest channel count of `version` (`MAXCHANNELS`).
pub fn max_channels(version: Version) -> u32 {
    if version == Version::V2_22 {
        32
    } else {
        64
    }
}

fn integer(name: &str, value: &str) -> Result<i64, SettingError> {
    value.trim().parse::<i64>().map_err(|_| refuse(name, format!("{value:?} is not an integer")))
}

fn bytes(name: &str, value: &str, range: (u64, u64)) -> Result<u64, SettingError> {
    let n = integer(name, value)?;
    u64::try_from(n)
        .ok()
        .filter(|n| (range.0..=range.1).contains(n))
        .ok_or_else(|| refuse(name, format!("{value} is out of range: expected bytes from {} to {}", range.0, range.1)))
}

impl Settings {
    /// Reads `NAME=VALUE` pairs as NCCL `version` reads them; a later pair
    /// of the same name replaces an earlier one, as in an environment.
    ///
    /// # Errors
    /// An unknown `NCCL_*` name, a value the release would refuse or
    /// commlab cannot read (a channel count that is not an integer, a
    /// buffer out of its range).
    pub fn parse<'a>(
        version: Version,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Settings, SettingError> {
        let mut s = Settings::default();
        for (name, value) in pairs {
            let name = name.trim();
            let value = value.trim();
            match name {
                "NCCL_ALGO" => {
                    s.algo =
                        parse_list(version, value, &ALGO_NAMES[..algorithms(version)]).map_err(|e| refuse(name, e))?;
                }
                "NCCL_PROTO" => s.proto = parse_list(version, value, &PROTO_NAMES).map_err(|e| refuse(name, e))?,
                "NCCL_MIN_NCHANNELS" => {
                    let n = integer(name, value)?.clamp(0, i64::from(max_channels(version)));
                    s.min_channels = Some(u32::try_from(n).unwrap_or(0));
                }
                "NCCL_MAX_NCHANNELS" => {
                    let n = integer(name, value)?.clamp(1, i64::from(max_channels(version)));
                    s.max_channels = Some(u32::try_from(n).unwrap_or(1));
                }
                "NCCL_NVLS_ENABLE" => {
                    s.nvls_enable = Some(match value {
                        "0" => 0,
                        "1" => 1,
                        "2" => 2,
                        _ => return Err(refuse(name, format!("{value:?}: expected 0, 1 or 2"))),
                    });
                }
                "NCCL_BUFFSIZE" => s.buffsize = Some(bytes(name, value, (1 << 16, 1 << 30))?),
                "NCCL_NVLS_CHUNKSIZE" => s.nvls_chunksize = Some(bytes(name, value, (1 << 12, 1 << 30))?),
                "NCCL_NCHANNELS_PER_NET_PEER" => {
                    let n = integer(name, value)?;
                    s.nchannels_per_net_peer =
                        Some(u32::try_from(n).ok().filter(|n| (1..=64).contains(n)).ok_or_else(|| {
                            refuse(name, format!("{value} is out of range: expected an integer from 1 to 64"))
                        })?);
                }
                _ => {
                    return Err(refuse(
                        name,
                        format!("not a setting commlab reads: expected one of {}", NAMES.join(", ")),
                    ));
                }
            }
        }
        Ok(s)
    }

    /// Reads settings as a job script holds them: `NAME=VALUE` lines or
    /// words, `export NAME=VALUE`, `-x NAME=VALUE` (mpirun), separated by
    /// newlines, spaces, commas outside a value or semicolons between
    /// pairs are not split (a value may hold them).
    ///
    /// # Errors
    /// As [`Settings::parse`]; a word that is not `NAME=VALUE`.
    pub fn read(version: Version, text: &str) -> Result<Settings, SettingError> {
        Settings::parse(version, pairs(text)?)
    }

    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        *self == Settings::default()
    }

    /// The settings as `NAME=VALUE` pairs NCCL reads back to the same values
    /// (under the release they were read with).
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(text) = list_text(&self.algo, &ALGO_NAMES) {
            out.push(("NCCL_ALGO", text));
        }
        if let Some(text) = list_text(&self.proto, &PROTO_NAMES) {
            out.push(("NCCL_PROTO", text));
        }
        let mut number = |name, v: Option<u64>| {
            if let Some(v) = v {
                out.push((name, v.to_string()));
            }
        };
        number("NCCL_MIN_NCHANNELS", self.min_channels.map(u64::from));
        number("NCCL_MAX_NCHANNELS", self.max_channels.map(u64::from));
        number("NCCL_NVLS_ENABLE", self.nvls_enable.map(u64::from));
        number("NCCL_BUFFSIZE", self.buffsize);
        number("NCCL_NVLS_CHUNKSIZE", self.nvls_chunksize);
        number("NCCL_NCHANNELS_PER_NET_PEER", self.nchannels_per_net_peer.map(u64::from));
        out
    }

    /// The settings as one text, `NAME=VALUE` separated by spaces (empty
    /// where none is set).
    pub fn text(&self) -> String {
        self.pairs().iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(" ")
    }

    /// Whether `NCCL_ALGO` leaves `algorithm` on for `collective`.
    pub fn algorithm_on(&self, collective: Collective, algorithm: Algorithm) -> bool {
        function(collective).and_then(|f| self.algo[f]).is_none_or(|on| on >> algorithm.index() & 1 == 1)
    }

    /// `NCCL_PROTO`'s word on `protocol` for `collective`: `None` where no
    /// list names the function (NCCL's default), else on or off.
    pub fn protocol_set(&self, collective: Collective, protocol: Protocol) -> Option<bool> {
        function(collective).and_then(|f| self.proto[f]).map(|on| on >> protocol.index() & 1 == 1)
    }

    /// The settings that change nothing in commlab's model.
    pub fn not_modelled(&self) -> Vec<&'static str> {
        self.nchannels_per_net_peer.map(|_| "NCCL_NCHANNELS_PER_NET_PEER").into_iter().collect()
    }
}

/// The algorithms `version` has (2.22.3: no PAT).
fn algorithms(version: Version) -> usize {
    if version == Version::V2_22 {
        6
    } else {
        ALGORITHMS.len()
    }
}

/// The text of a per-function list: one list where every function has the
/// same, else `function:list` entries; `None` where no function is named.
fn list_text(lists: &[Option<u8>; 5], names: &[&str]) -> Option<String> {
    let one = |on: &u8| -> String {
        let listed: Vec<&str> = (0..names.len()).filter(|&e| on >> e & 1 == 1).map(|e| names[e]).collect();
        if listed.is_empty() {
            format!("^{}", names.join(","))
        } else {
            listed.join(",")
        }
    };
    if lists.iter().all(Option::is_none) {
        return None;
    }
    if let Some(first) = lists[0].filter(|f| lists.iter().all(|l| *l == Some(*f))) {
        return Some(one(&first));
    }
    let entries: Vec<String> = lists
        .iter()
        .zip(FUNCTIONS)
        .filter_map(|(l, f)| l.as_ref().map(|on| format!("{}:{}", f.to_ascii_lowercase(), one(on))))
        .collect();
    Some(entries.join(";"))
}

/// `NAME=VALUE` pairs of a job script's text (see [`Settings::read`]).
///
/// # Errors
/// A word that is not `NAME=VALUE` (the setting named is the word).
pub fn pairs(text: &str) -> Result<Vec<(&str, &str)>, SettingError> {
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        if matches!(word, "-x" | "export" | "--env" | "-e") {
            continue;
        }
        let word = word.trim_matches(|c| c == '"' || c == '\'');
        let (name, value) = word
            .split_once('=')
            .ok_or_else(|| refuse(word, "expected NAME=VALUE (as in a job script: NCCL_ALGO=Ring)"))?;
        out.push((name, value.trim_matches(|c| c == '"' || c == '\'')));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bools<const N: usize>(lists: [Option<u8>; 5]) -> [Option<[bool; N]>; 5] {
        lists.map(|l| l.map(|m| std::array::from_fn(|e| m >> e & 1 == 1)))
    }

    fn algo(v: Version, text: &str) -> Result<[Option<[bool; 7]>; 5], String> {
        Settings::parse(v, [("NCCL_ALGO", text)]).map(|s| bools(s.algo)).map_err(|e| e.to_string())
    }

    fn proto(v: Version, text: &str) -> Result<[Option<[bool; 3]>; 5], String> {
        Settings::parse(v, [("NCCL_PROTO", text)]).map(|s| bools(s.proto)).map_err(|e| e.to_string())
    }

    const T: bool = true;
    const F: bool = false;

    /// The cases of `parseList`'s own comment (`src/graph/tuning.cc` of
    /// v2.28.3-1 and v2.30.7-1), and its rules: case, `^`, unknown names.
    #[test]
    fn lists_parse_as_nccl_s_parse_list() {
        let now = Version::Current;
        // "Enable ring and collnetdirect for all functions, then select tree
        // and collnetdirect for allreduce and ring for broadcast."
        let a = algo(now, "ring,collnetdirect;allreduce:tree,collnetdirect;broadcast:ring").unwrap();
        assert_eq!(a[0], Some([F, T, F, F, F, F, F]), "broadcast: ring");
        assert_eq!(a[1], Some([F, T, T, F, F, F, F]), "reduce: ring, collnetdirect");
        assert_eq!(a[4], Some([T, F, T, F, F, F, F]), "allreduce: tree, collnetdirect");
        // "Enable LL and Simple for all functions, but everything except LL for allreduce."
        let p = proto(now, "LL,Simple;allreduce:^LL").unwrap();
        assert_eq!((p[2], p[4]), (Some([T, F, T]), Some([F, T, T])));
        // "Enable everything but LL128, but only LL128 for allreduce."
        let p = proto(now, "^LL128;allreduce:LL128").unwrap();
        assert_eq!((p[0], p[4]), (Some([T, F, T]), Some([F, T, F])));
        // Case does not matter; a function no list names keeps NCCL's default.
        let a = algo(now, "AllReduce:RING,nvlstree").unwrap();
        assert_eq!((a[4], a[2]), (Some([F, T, F, F, F, T, F]), None));
        // Unknown names and functions, a later entry without a function: refused.
        assert!(algo(now, "rnig").unwrap_err().contains("unrecognized element \"rnig\""));
        assert!(algo(now, "allreduc:ring").unwrap_err().contains("unrecognized prefix \"allreduc\""));
        assert!(algo(now, "allreduce:ring;tree").unwrap_err().contains("must have a prefix"));
        // strtok's ways: empty tokens skipped, so "allreduce:" is a list of one unknown name.
        assert!(algo(now, "allreduce:").unwrap_err().contains("unrecognized element \"allreduce\""));
        assert_eq!(algo(now, ";;ring;").unwrap()[3], Some([F, T, F, F, F, F, F]));
        // 2.22.3: one list, unknown names ignored (so nothing is enabled).
        let old = Version::V2_22;
        assert_eq!(algo(old, "Ring").unwrap().map(|l| l.map(|l| l[1])), [Some(T); 5]);
        assert_eq!(algo(old, "rnig").unwrap()[4], Some([F; 7]));
        assert_eq!(algo(old, "allreduce:ring").unwrap()[4], Some([F; 7]), "2.22 has no prefixes");
        assert_eq!(algo(old, "^tree").unwrap()[0], Some([F, T, T, T, T, T, F]), "2.22 has no PAT");
        assert_eq!(algo(old, "pat").unwrap()[0], Some([F; 7]), "2.22 has no PAT");
        assert_eq!(algo(now, "pat").unwrap()[0], Some([F, F, F, F, F, F, T]));
    }

    /// The other settings: integers within NCCL's clamps, the rest refused.
    #[test]
    fn numbers_and_names() {
        let s = Settings::read(
            Version::Current,
            "-x NCCL_MIN_NCHANNELS=99 export NCCL_MAX_NCHANNELS=0\nNCCL_NVLS_ENABLE=0 NCCL_BUFFSIZE=8388608",
        )
        .unwrap();
        assert_eq!(
            (s.min_channels, s.max_channels, s.nvls_enable, s.buffsize),
            (Some(64), Some(1), Some(0), Some(8 << 20))
        );
        let s = Settings::read(Version::V2_22, "NCCL_MIN_NCHANNELS=99").unwrap();
        assert_eq!(s.min_channels, Some(32), "MAXCHANNELS was 32");
        for (bad, name) in [
            ("NCCL_ALGOS=Ring", "NCCL_ALGOS"),
            ("NCCL_MIN_NCHANNELS=many", "NCCL_MIN_NCHANNELS"),
            ("NCCL_NVLS_ENABLE=yes", "NCCL_NVLS_ENABLE"),
            ("NCCL_BUFFSIZE=100", "NCCL_BUFFSIZE"),
            ("NCCL_ALGO", "NCCL_ALGO"),
        ] {
            assert_eq!(Settings::read(Version::Current, bad).unwrap_err().name, name, "{bad}");
        }
        assert_eq!(s.not_modelled(), Vec::<&str>::new());
    }

    /// Settings → text → settings, under the release that read them.
    #[test]
    fn the_text_reads_back() {
        for (v, text) in [
            (Version::Current, "NCCL_ALGO=ring,collnetdirect;allreduce:tree NCCL_PROTO=^LL128 NCCL_MIN_NCHANNELS=32"),
            (Version::Current, "NCCL_ALGO=^ring,tree,nvls,nvlstree,pat,collnetdirect,collnetchain NCCL_NVLS_ENABLE=0"),
            (Version::V2_22, "NCCL_ALGO=Tree NCCL_PROTO=LL128,Simple NCCL_BUFFSIZE=65536"),
            (Version::V2_22, "NCCL_ALGO=allreduce:ring"),
            (Version::V2_22, "NCCL_ALGO=^ring"),
            (Version::V2_28, "NCCL_PROTO=allreduce:LL NCCL_NCHANNELS_PER_NET_PEER=4 NCCL_NVLS_CHUNKSIZE=262144"),
        ] {
            let s = Settings::read(v, text).unwrap();
            assert!(!s.is_empty());
            assert_eq!(Settings::read(v, &s.text()), Ok(s), "{text} → {}", s.text());
        }
    }
}
